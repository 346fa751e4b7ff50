package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Stdin is the path that makes Load read standard input.
const Stdin = "-"

// Load reads the manifests at paths, in order: files, and folders walked recursively in
// lexical order for files ending in .yaml, .yml or .json (folders whose name starts with a dot
// are not entered). A path given twice is read once. "-" reads standard input. A folder
// without manifests is an error.
func Load(paths ...string) (*Set, error) { return LoadLimited(Limits{}, paths...) }

// LoadLimited is Load within limits (see Limits): the file that brings the input over its
// bytes, or the object past the cap of its kind, is a *LimitError naming the file (and object)
// and the limit, and reading stops there.
func LoadLimited(limits Limits, paths ...string) (*Set, error) {
	// One parser reads every file into one set, and workloads are expanded once at the end:
	// merging file by file re-copied the set and re-expanded every workload per file.
	p := newParser(limits)
	seen := map[string]bool{}
	for _, path := range paths {
		files, err := expandPath(path)
		if err != nil {
			p.errs = append(p.errs, err)
			continue
		}
		for _, f := range files {
			id := f
			if abs, err := filepath.Abs(f); err == nil && f != Stdin {
				id = abs
			}
			if seen[id] {
				continue
			}
			seen[id] = true
			if p.stopped {
				break
			}
			if f != Stdin && p.streamList(f, displayName(f), p.limits.MaxInputBytes-p.set.InputBytes) {
				continue // a kubectl dump, read item by item (stream.go)
			}
			data, err := p.readInput(f)
			if err != nil {
				p.errs = append(p.errs, &Error{Source: Source{File: displayName(f)}, Err: err})
				p.stopped = p.stopped || errors.Is(err, ErrTooLarge)
				continue
			}
			p.read(data, displayName(f))
		}
	}
	return p.finish()
}

func displayName(f string) string {
	if f == Stdin {
		return "<stdin>"
	}
	return f
}

// expandPath is the file at path, or the manifest files under the folder at path.
func expandPath(path string) ([]string, error) {
	if path == Stdin {
		return []string{Stdin}, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, &Error{Source: Source{File: path}, Err: unwrapPathError(err)}
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &Error{Source: Source{File: p}, Err: unwrapPathError(err)}
		}
		if d.IsDir() {
			if p != path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if isManifestName(d.Name()) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, &Error{Source: Source{File: path}, Err: errors.New("folder holds no .yaml, .yml or .json file")}
	}
	return files, nil
}

func isManifestName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// unwrapPathError drops the path from an *fs.PathError, which the Error names already.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse reads the manifests of one file, whose contents are data; source names it in errors.
func Parse(data []byte, source string) (*Set, error) {
	p := newParser(Limits{})
	p.read(data, source)
	return p.finish()
}

// read adds the documents of one file to the parser's set.
func (p *parser) read(data []byte, source string) {
	p.file = source
	if d, js, ok := p.onlyYAMLDocument(data); ok {
		// A file of one YAML document (a kubectl dump) is read from its JSON, and its text
		// let go: of a 148 MB dump, the text and its JSON were a third of the peak memory each.
		data = nil
		p.document(d, js)
		return
	}
	for d := range splitDocuments(data) {
		p.document(d, nil)
		if len(p.errs) >= maxErrors || p.stopped {
			break
		}
	}
}

// onlyYAMLDocument is the one document of a YAML file (without its text) and its plain
// JSON, an object, when the file is such.
func (p *parser) onlyYAMLDocument(data []byte) (document, []byte, bool) {
	if p.generalOnly {
		return document{}, nil, false
	}
	if i := skipSpace(data, 0); i < len(data) && (data[i] == '{' || data[i] == '[') {
		return document{}, nil, false // JSON is read where it lies
	}
	var docs []document
	for d := range splitDocuments(data) {
		if docs = append(docs, d); len(docs) > 1 {
			return document{}, nil, false
		}
	}
	if len(docs) != 1 {
		return document{}, nil, false
	}
	js, ok := yamlToPlainJSON(docs[0].data)
	if i := skipSpace(js, 0); !ok || i >= len(js) || js[i] != '{' {
		return document{}, nil, false
	}
	d := docs[0]
	d.data = nil
	return d, js, true
}

// finish expands the workloads of everything read, or reports the errors.
func (p *parser) finish() (*Set, error) {
	if len(p.errs) > 0 {
		return nil, joinErrors(p.errs)
	}
	p.set.maxPods = p.limits.MaxPods
	if err := p.set.rebuild(); err != nil {
		return nil, err
	}
	return p.set, nil
}

// document is one YAML document or JSON value of a file, or one element of a JSON array the
// file holds at its top level.
type document struct {
	data  []byte
	index int    // 1-based
	line  int    // 1-based line of its first byte
	item  string // "[i]" for an element of a top-level JSON array, else ""
}

// splitDocuments cuts a file into its documents: a stream of JSON values when it starts like
// JSON and decodes as such, YAML documents separated by "---" lines otherwise. Documents are
// slices of data, handed out one at a time: a file of a million documents is never held as a
// list of them.
func splitDocuments(data []byte) iter.Seq[document] {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && splitJSON(data, func(document) bool { return true }) {
		return func(yield func(document) bool) { splitJSON(data, yield) }
	}
	return slices.Values(splitYAML(data))
}

// splitJSON cuts a stream of JSON values into documents, each a slice of data, and hands
// them to yield until it returns false. A top-level array is cut into its elements, so that
// a file of a million interruption messages is read message by message, not decoded into one
// tree of them all first. It reports false when data is not a stream of JSON values (after
// handing out the documents before the first error: check first with a yield that does
// nothing).
func splitJSON(data []byte, yield func(document) bool) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	lines := lineCounter{data: data}
	// start is the offset of the next value: InputOffset is where the last one ended, before
	// the whitespace (and, inside an array, the comma) that precede this one.
	start := func() int64 {
		off := dec.InputOffset()
		for off < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,"), data[off]) >= 0 {
			off++
		}
		return off
	}
	for index := 1; ; index++ {
		from := start()
		if from == int64(len(data)) {
			return true
		}
		if data[from] != '[' {
			var v skipValue
			if err := dec.Decode(&v); err != nil {
				return false
			}
			if !yield(document{data: data[from:dec.InputOffset()], index: index, line: lines.at(from)}) {
				return true
			}
			continue
		}
		if _, err := dec.Token(); err != nil { // [
			return false
		}
		for i := 0; dec.More(); i++ {
			el := start()
			var v skipValue
			if err := dec.Decode(&v); err != nil {
				return false
			}
			if !yield(document{data: data[el:dec.InputOffset()], index: index, line: lines.at(el), item: "[" + strconv.Itoa(i) + "]"}) {
				return true
			}
		}
		if _, err := dec.Token(); err != nil { // ]
			return false
		}
	}
}

// skipValue decodes a JSON value into nothing (the decoder still checks its syntax) and,
// unlike json.RawMessage, keeps no copy of it.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// lineCounter gives the line of increasing offsets of data, counting each newline once
// (bytes.Count from the start for every value took time quadratic in the values).
type lineCounter struct {
	data []byte
	off  int64
	line int
}

func (c *lineCounter) at(off int64) int {
	if c.line == 0 {
		c.line = 1
	}
	c.line += bytes.Count(c.data[c.off:off], []byte("\n"))
	c.off = off
	return c.line
}

func splitYAML(data []byte) []document {
	var docs []document
	cur := docText{data: data}
	start := 1 // line the current document starts at
	// flush ends the current document; one with nothing but comments and blank lines is
	// dropped, so that documents are numbered as a reader counts them.
	flush := func() {
		if b := cur.bytes(); hasContent(b) {
			docs = append(docs, document{data: b, index: len(docs) + 1, line: start})
		}
		cur = docText{data: data}
	}
	line, off := 0, 0
	for off < len(data) {
		line++
		l := data[off:]
		if i := bytes.IndexByte(l, '\n'); i >= 0 {
			l = l[:i+1]
		}
		at := off
		off += len(l)
		var text string // only a line that can be a marker is looked at as text
		if len(l) >= 3 && (l[0] == '-' || l[0] == '.') {
			text = strings.TrimRight(string(l), "\r\n")
		}
		switch {
		case text == "---" || strings.HasPrefix(text, "--- ") || strings.HasPrefix(text, "---\t"):
			flush()
			start = line + 1
			// Anything after "--- " on the line belongs to the next document.
			if rest := strings.TrimSpace(text[3:]); rest != "" {
				cur.write("   " + text[3:] + "\n")
				start = line
			}
		case text == "...":
			// End of document; keep the line so that line numbers stay right.
			cur.write("\n")
		default:
			if !cur.some && !hasContent(l) {
				start = line + 1 // leading blank or comment lines do not start the document
				continue
			}
			cur.keep(at, at+len(l))
		}
	}
	flush()
	return docs
}

// docText is a document being cut from a file: a slice of the file while its lines are kept
// as they are (a 400 MB file is not copied again), a buffer once a line had to be rewritten.
type docText struct {
	data     []byte
	from, to int           // the document is data[from:to] while buf is nil and some is true
	buf      *bytes.Buffer // the document, once a line was rewritten
	some     bool          // anything kept or written yet
}

// keep appends data[from:to], the line after the last one kept.
func (d *docText) keep(from, to int) {
	switch {
	case d.buf != nil:
		d.buf.Write(d.data[from:to])
	case !d.some:
		d.from, d.to = from, to
	default:
		d.to = to
	}
	d.some = true
}

// write appends text that is not the file's.
func (d *docText) write(text string) {
	if d.buf == nil {
		d.buf = &bytes.Buffer{}
		if d.some {
			d.buf.Write(d.data[d.from:d.to])
		}
	}
	d.buf.WriteString(text)
	d.some = true
}

func (d *docText) bytes() []byte {
	switch {
	case d.buf != nil:
		return d.buf.Bytes()
	case d.some:
		return d.data[d.from:d.to:d.to]
	}
	return nil
}

// hasContent reports whether YAML text has anything but blank lines and comments.
func hasContent(b []byte) bool {
	// Line by line without bytes.Split, whose list of lines of a 150 MB document was 113 MB.
	for len(b) > 0 {
		l := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] != '#' {
			return true
		}
	}
	return false
}

// lineOffsetMessage rewrites "line N" in a YAML error to count from the file's start.
func lineOffsetMessage(msg string, docLine int) string {
	if docLine <= 1 {
		return msg
	}
	var b strings.Builder
	for {
		i := strings.Index(msg, "line ")
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		j := i + len("line ")
		k := j
		for k < len(msg) && msg[k] >= '0' && msg[k] <= '9' {
			k++
		}
		b.WriteString(msg[:j])
		if k > j {
			var n int
			fmt.Sscanf(msg[j:k], "%d", &n)
			fmt.Fprintf(&b, "%d", n+docLine-1)
		}
		msg = msg[k:]
	}
}
