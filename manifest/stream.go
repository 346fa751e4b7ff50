package manifest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"runtime"
	"strconv"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Reading a kubectl dump item by item. `kubectl get -A -o yaml` writes one document, a List
// whose items are block mappings at the top level's indent ("items:\n- apiVersion: ..."). A
// file of that shape is read as a stream: each item's lines are converted to plain JSON
// (yamlToPlainJSON's subset) and decoded while the file is read, so that neither the file's
// text (148 MB for 20k pods) nor its JSON (159 MB) is ever held whole: together they were half
// the peak memory of plan and disrupt on such a dump. The items are read as the whole
// document's fast path reads them (fast.go: rawObject with a List's defaults), in order, before
// the List's own fields (kubectl sorts the keys: kind and metadata come after items), which are
// checked at the end. A file of any other shape, or one whose text leaves the plain subset
// anywhere (a comment, a tab, an anchor, a flow collection...), or not a List of apiVersion v1,
// is read again whole as before, after everything the stream did is undone (rollback): its
// objects, errors and counts are exactly those of the whole read.

// streamList reads the regular file at path, of at most left bytes, as a stream when it is a
// kubectl List of plain YAML; false (having changed nothing) when it is not.
func (p *parser) streamList(path, source string, left int64) (read bool) {
	if p.generalOnly {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > left {
		return false
	}
	// The GC's pace: the whole read held the file's text and its JSON, and collected about
	// three times in all; item by item, the live heap is the objects read so far, and the
	// collector ran a dozen times, marking them again each time (+1 s of CPU at 20k pods).
	// A buffer of the part of the file not read yet (pacer.go), allocated and never written
	// (its pages are never touched, so never resident), counts as live and spaces the
	// collections as the text did; it is released as the file is read, so that the last
	// collection of the reading does not leave the collector a goal (twice the live heap)
	// counting it through the planning that follows.
	p.file = source
	s := listStream{r: bufio.NewReaderSize(f, 1<<20), left: left, pace: newPacer(info.Size())}
	defer runtime.KeepAlive(s.pace)
	defer func() {
		if r := recover(); r != nil {
			read = false // read again whole: the document's own recovery names it
		}
		if !read && s.mark != nil {
			p.rollback(*s.mark)
		}
	}()
	if !s.read(p) {
		return false
	}
	p.set.InputBytes += s.bytes
	return true
}

// listStream cuts a List's items out of a YAML file line by line.
type listStream struct {
	r      *bufio.Reader
	left   int64
	bytes  int64
	line   int    // lines read
	long   []byte // a line longer than the reader's buffer
	header []byte // every line but the items (apiVersion, kind, metadata)
	item   []byte // the lines of the item being read
	items  int
	src    Source
	mark   *parserMark // the parser before the first item
	conv   yamlConv
	js     []byte
	pace   pacer
}

// nextLine is the next line of the file, its line break included; nil at the end.
func (s *listStream) nextLine() ([]byte, bool) {
	s.long = s.long[:0]
	for {
		l, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.long = append(s.long, l...)
			continue
		}
		if err != nil && err != io.EOF {
			return nil, false
		}
		if len(s.long) > 0 {
			l = append(s.long, l...)
		}
		if len(l) == 0 {
			return nil, true
		}
		s.bytes += int64(len(l))
		s.pace.read(s.bytes)
		s.line++
		return l, s.bytes <= s.left
	}
}

// read reads the file's items and then checks its List fields; false when the file is not a
// plain kubectl List.
func (s *listStream) read(p *parser) bool {
	inItems, seenItems := false, false
	docLine := 0
	for {
		l, ok := s.nextLine()
		if !ok {
			return false
		}
		if l == nil {
			break
		}
		text := l[:len(l)-lineBreak(l)]
		if blankLine(text) { // kept, for literal block scalars
			switch {
			case len(s.item) > 0:
				s.item = append(s.item, l...)
			case !inItems:
				s.header = append(s.header, l...)
			}
			continue
		}
		if docLine == 0 {
			docLine = s.line
			s.src = Source{File: p.file, Document: 1, Line: docLine}
			p.doc, p.checkedDups, p.strictErr = document{index: 1, line: docLine}, false, nil
		}
		switch c := text[0]; {
		case c == ' ':
			if inItems && len(s.item) == 0 {
				return false // an indented sequence of items
			}
			if inItems {
				s.item = append(s.item, l...)
			} else {
				s.header = append(s.header, l...)
			}
		case c == '-' && (len(text) == 1 || text[1] == ' '):
			if !inItems || !s.flush(p) {
				return false
			}
			s.item = append(s.item, l...)
		case c == '#' || c == '\t' || c == '\xef' || bytes.HasPrefix(text, []byte("---")) || bytes.Equal(text, []byte("...")):
			return false // comments, tabs, a byte order mark, documents: read whole
		default: // a key of the List
			if inItems && !s.flush(p) {
				return false
			}
			inItems = false
			if string(bytes.TrimRight(text, " ")) == "items:" {
				if seenItems {
					return false
				}
				inItems, seenItems = true, true
				continue
			}
			s.header = append(s.header, l...)
		}
	}
	if inItems && !s.flush(p) {
		return false
	}
	return s.items > 0 && plainListHeader(s.header)
}

// lineBreak is the length of l's line break ("\n", "\r\n" or none at the file's end).
func lineBreak(l []byte) int {
	n := 0
	if len(l) > 0 && l[len(l)-1] == '\n' {
		n++
		if len(l) > 1 && l[len(l)-2] == '\r' {
			n++
		}
	}
	return n
}

// blankLine: text has nothing but spaces.
func blankLine(text []byte) bool {
	for _, c := range text {
		if c != ' ' {
			return false
		}
	}
	return true
}

// flush reads the item whose lines were gathered, if any.
func (s *listStream) flush(p *parser) bool {
	if len(s.item) == 0 {
		return true
	}
	if s.mark == nil {
		m := p.mark()
		s.mark = &m
	}
	item := s.src
	item.Item = "items[" + strconv.Itoa(s.items) + "]"
	if !p.yamlItem(item, s.item) { // yamlitem.go
		// "[{...}]": the item as a sequence of one, in the buffer of the item before
		// (nothing read keeps the JSON it was read from).
		js, ok := s.conv.convert(s.item, s.js)
		s.js = js
		if !ok || len(js) < 2 || js[0] != '[' {
			return false
		}
		el := js[1 : len(js)-1] // one value: every other line of the item is indented
		p.rawObject(item, el, false, "", "", 1)
	}
	s.item = s.item[:0]
	s.items++
	return true
}

// plainListHeader reports whether header, the document without its items, is in the plain
// subset and holds nothing but apiVersion v1, kind List and metadata: the List the stream
// read its items for (with no defaults for them, as listHeader gives a List's).
func plainListHeader(header []byte) bool {
	js, ok := yamlToPlainJSON(header)
	if !ok {
		return false
	}
	m, ok := headerOf(js)
	if !ok || m["apiVersion"] != "v1" || m["kind"] != "List" {
		return false
	}
	for k := range m {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			return false
		}
	}
	return true
}

// parserMark is what a parser holds at one point, to undo what it read after.
type parserMark struct {
	set     Set
	skipped map[string]int
	sources map[ObjectRef]Source
	v1beta1 map[*v1.NodeClaim]bool
	counts  map[string]int
	errs    int
	stopped bool
	file    string
}

func (p *parser) mark() parserMark {
	return parserMark{set: *p.set, skipped: maps.Clone(p.set.Skipped), sources: maps.Clone(p.set.Sources),
		v1beta1: maps.Clone(p.set.v1beta1Claims), counts: maps.Clone(p.counts), errs: len(p.errs), stopped: p.stopped, file: p.file}
}

// rollback undoes what p read since m: the slices of the set are cut back to their lengths,
// its maps restored.
func (p *parser) rollback(m parserMark) {
	*p.set = m.set
	p.set.Skipped, p.set.Sources, p.set.v1beta1Claims = m.skipped, m.sources, m.v1beta1
	p.counts, p.errs, p.stopped, p.file = m.counts, p.errs[:m.errs], m.stopped, m.file
}
