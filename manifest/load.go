package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Stdin is the path that makes Load read standard input.
const Stdin = "-"

// Load reads the manifests at paths, in order: files, and folders walked recursively in
// lexical order for files ending in .yaml, .yml or .json (folders whose name starts with a dot
// are not entered). A path given twice is read once. "-" reads standard input. A folder
// without manifests is an error.
func Load(paths ...string) (*Set, error) { return LoadLimited(Limits{}, paths...) }

// LoadLimited is Load within limits (see Limits): a file over its size, or the Pod objects
// past the cap, are an error naming the file and the limit, and reading stops there.
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
			data, err := p.limits.readInput(f)
			if err != nil {
				p.errs = append(p.errs, &Error{Source: Source{File: displayName(f)}, Err: err})
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
	for _, d := range splitDocuments(data) {
		p.document(d)
		if len(p.errs) >= maxErrors || p.stopped {
			break
		}
	}
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

// document is one YAML document or JSON value of a file.
type document struct {
	data  []byte
	index int // 1-based
	line  int // 1-based line of its first byte
}

// splitDocuments cuts a file into its documents: a stream of JSON values when it starts like
// JSON and decodes as such, YAML documents separated by "---" lines otherwise.
func splitDocuments(data []byte) []document {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		if docs, ok := splitJSON(data); ok {
			return docs
		}
	}
	return splitYAML(data)
}

func splitJSON(data []byte) ([]document, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var docs []document
	for {
		start := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, true
		}
		if err != nil {
			return nil, false
		}
		// The value starts after the whitespace that precedes it.
		rest := data[start:]
		off := start + int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n")))
		docs = append(docs, document{data: raw, index: len(docs) + 1, line: 1 + bytes.Count(data[:off], []byte("\n"))})
	}
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
	for _, l := range bytes.Split(b, []byte("\n")) {
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
