package manifest

import (
	"encoding/json"
	"strconv"
)

// plainJSON returns what yaml.YAMLToJSONStrict returns for data when data is "plain" JSON:
// one object or array of ASCII strings without escapes, true, false, null and integers that
// fit int64, with no duplicate or merge ("<<") keys. Generated manifests are such JSON, one
// document a line, and the YAML parser is most of the cost of reading them. ok is false for
// anything else — there YAML reads it differently or errors, and the caller uses YAML.
func plainJSON(data []byte) (js []byte, ok bool) {
	r := plainReader{data: data}
	r.space()
	if r.pos >= len(r.data) || (r.data[r.pos] != '{' && r.data[r.pos] != '[') {
		return nil, false
	}
	v, ok := r.value(0)
	if !ok {
		return nil, false
	}
	if r.space(); r.pos != len(r.data) {
		return nil, false
	}
	js, err := json.Marshal(v)
	return js, err == nil
}

// plainReader parses plain JSON into the values YAML gives it (map[string]any, []any,
// string, bool, nil, int), giving up on anything outside plainJSON's subset.
type plainReader struct {
	data []byte
	pos  int
}

const (
	plainMaxDepth  = 64
	plainMaxKeyLen = 512 // YAML limits implicit keys to 1024 characters
)

func (r *plainReader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *plainReader) value(depth int) (any, bool) {
	if depth > plainMaxDepth || r.pos >= len(r.data) {
		return nil, false
	}
	switch c := r.data[r.pos]; {
	case c == '{':
		return r.object(depth)
	case c == '[':
		return r.array(depth)
	case c == '"':
		if s, ok := r.str(); ok {
			return s, true
		}
		return nil, false
	case c == '-' || (c >= '0' && c <= '9'):
		return r.integer()
	default:
		for _, w := range [...]struct {
			lit string
			v   any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if end := r.pos + len(w.lit); end <= len(r.data) && string(r.data[r.pos:end]) == w.lit {
				r.pos = end
				return w.v, true
			}
		}
		return nil, false
	}
}

func (r *plainReader) object(depth int) (any, bool) {
	r.pos++ // '{'
	m := map[string]any{}
	r.space()
	if r.pos < len(r.data) && r.data[r.pos] == '}' {
		r.pos++
		return m, true
	}
	for {
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return nil, false
		}
		key, ok := r.str()
		if !ok {
			return nil, false
		}
		if _, dup := m[key]; dup || key == "<<" || len(key) > plainMaxKeyLen {
			return nil, false
		}
		r.space()
		if r.pos >= len(r.data) || r.data[r.pos] != ':' {
			return nil, false
		}
		r.pos++
		r.space()
		v, ok := r.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[key] = v
		if done, ok := r.after('}'); !ok || done {
			return m, ok
		}
	}
}

func (r *plainReader) array(depth int) (any, bool) {
	r.pos++ // '['
	a := []any{}
	r.space()
	if r.pos < len(r.data) && r.data[r.pos] == ']' {
		r.pos++
		return a, true
	}
	for {
		r.space()
		v, ok := r.value(depth + 1)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if done, ok := r.after(']'); !ok || done {
			return a, ok
		}
	}
}

// after reads the ',' after an item (done false) or the closing byte (done true).
func (r *plainReader) after(closing byte) (done, ok bool) {
	r.space()
	if r.pos < len(r.data) && (r.data[r.pos] == ',' || r.data[r.pos] == closing) {
		r.pos++
		return r.data[r.pos-1] == closing, true
	}
	return false, false
}

// str reads a string of printable ASCII without escapes (YAML and JSON unescape and fold
// some others differently).
func (r *plainReader) str() (string, bool) {
	start := r.pos + 1
	for i := start; i < len(r.data); i++ {
		switch c := r.data[i]; {
		case c == '"':
			r.pos = i + 1
			return string(r.data[start:i]), true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return "", false
		}
	}
	return "", false
}

// integer reads -?(0|[1-9][0-9]*) that fits int64, which YAML reads as an int.
func (r *plainReader) integer() (any, bool) {
	start, i := r.pos, r.pos
	if r.data[i] == '-' {
		i++
	}
	digits := i
	for i < len(r.data) && r.data[i] >= '0' && r.data[i] <= '9' {
		i++
	}
	if i == digits || (r.data[digits] == '0' && i-digits > 1) {
		return nil, false
	}
	if i < len(r.data) {
		switch r.data[i] {
		case '.', 'e', 'E':
			return nil, false // floats: YAML and JSON spell some differently
		}
	}
	n, err := strconv.ParseInt(string(r.data[start:i]), 10, 64)
	if err != nil {
		return nil, false
	}
	r.pos = i
	return int(n), true
}
