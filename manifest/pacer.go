package manifest

// pacer stands for the part of a streamed file not read yet: buffers of that size in all,
// allocated and never written (so never resident), that the garbage collector counts as live
// (stream.go says why). They are released in pacerChunks steps as the file is read. A buffer
// of the whole file's size kept to the end (as before) made the collector's goal after the
// reading's last collection twice the objects plus the file: on a 148 MB dump of 20k pods,
// disrupt's heap then grew to 570–715 MB before the next collection, in planning.
type pacer struct {
	chunks [][]byte
	chunk  int64 // bytes per chunk but the last
	size   int64 // of the file
	freed  int   // chunks released
}

// pacerChunks is how many steps a pacer is released in.
const pacerChunks = 32

func newPacer(size int64) pacer {
	p := pacer{chunk: max(size/pacerChunks, 1), size: size}
	for left := size; left > 0; left -= p.chunk {
		p.chunks = append(p.chunks, make([]byte, min(p.chunk, left)))
	}
	return p
}

// read releases the chunks that the first read bytes of the file stand for.
func (p *pacer) read(read int64) {
	for p.freed < len(p.chunks) && min(int64(p.freed+1)*p.chunk, p.size) <= read {
		p.chunks[p.freed] = nil
		p.freed++
	}
}

// held is how many bytes the pacer still holds.
func (p *pacer) held() int64 {
	var n int64
	for _, c := range p.chunks[p.freed:] {
		n += int64(len(c))
	}
	return n
}
