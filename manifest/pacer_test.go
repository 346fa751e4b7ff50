package manifest

import "testing"

// TestPacerHoldsWhatIsLeftToRead: a pacer holds the file's size at first and releases it as
// the file is read, keeping less than one chunk more than is left, and nothing once the
// whole is read.
func TestPacerHoldsWhatIsLeftToRead(t *testing.T) {
	for _, size := range []int64{0, 1, 31, 32, 33, 1000, 148263784} {
		p := newPacer(size)
		if got := p.held(); got != size {
			t.Fatalf("size %d: holds %d before reading", size, got)
		}
		for _, read := range []int64{0, size / 3, size / 2, size - 1, size} { // as a file is read: never back
			if read < 0 || read > size {
				continue
			}
			p.read(read)
			left, held := size-read, p.held()
			if held < left || held >= left+p.chunk {
				t.Fatalf("size %d, read %d: holds %d, want from %d to under %d", size, read, held, left, left+p.chunk)
			}
		}
		if got := p.held(); got != 0 {
			t.Fatalf("size %d: holds %d after the whole is read", size, got)
		}
	}
}
