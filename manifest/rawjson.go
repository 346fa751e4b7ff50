package manifest

import (
	"bytes"
	"strconv"
)

// Plain JSON, read without building it. A document in plainJSON's subset (see plainjson.go),
// widened to the escapes YAML and JSON read alike, is decoded where it lies: its objects are
// cut out of it by byte offsets and each is decoded once, straight into its typed object
// (fast.go). This file checks the subset and walks it.

// plainScanner checks that data is one JSON value of the plain subset: objects without
// duplicate or merge ("<<") keys, arrays, strings of printable ASCII whose only escapes are
// \" \\ \b \f \n \r \t (YAML's double-quoted strings read these as JSON does), integers that
// fit int64, true, false and null, nested at most plainMaxDepth deep.
type plainScanner struct {
	data []byte
	pos  int
	// keys is a stack of the keys of the objects being read (offsets into data), reused.
	keys []span
}

// span is data[from:to].
type span struct{ from, to int }

// isPlainJSON reports whether data is one JSON value of the plain subset.
func isPlainJSON(data []byte) bool {
	s := plainScanner{data: data}
	s.space()
	if s.pos >= len(s.data) || (s.data[s.pos] != '{' && s.data[s.pos] != '[') {
		return false
	}
	if !s.value(0) {
		return false
	}
	s.space()
	return s.pos == len(s.data)
}

func (s *plainScanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *plainScanner) value(depth int) bool {
	if depth > plainMaxDepth || s.pos >= len(s.data) {
		return false
	}
	switch c := s.data[s.pos]; {
	case c == '{':
		return s.object(depth)
	case c == '[':
		return s.array(depth)
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '-' || (c >= '0' && c <= '9'):
		return s.integer()
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if end := s.pos + len(lit); end <= len(s.data) && string(s.data[s.pos:end]) == lit {
			s.pos = end
			return true
		}
	}
	return false
}

func (s *plainScanner) object(depth int) bool {
	s.pos++ // '{'
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return true
	}
	base := len(s.keys)
	defer func() { s.keys = s.keys[:base] }()
	for {
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return false
		}
		key, ok := s.str()
		if !ok || key.to-key.from > plainMaxKeyLen || string(s.data[key.from:key.to]) == "<<" {
			return false
		}
		// The escapes allowed spell each character one way only: keys equal as bytes are
		// equal as strings and the other way round.
		for _, k := range s.keys[base:] {
			if string(s.data[k.from:k.to]) == string(s.data[key.from:key.to]) {
				return false
			}
		}
		s.keys = append(s.keys, key)
		s.space()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return false
		}
		s.pos++
		s.space()
		if !s.value(depth + 1) {
			return false
		}
		if done, ok := s.after('}'); !ok || done {
			return ok
		}
	}
}

func (s *plainScanner) array(depth int) bool {
	s.pos++ // '['
	s.space()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return true
	}
	for {
		s.space()
		if !s.value(depth + 1) {
			return false
		}
		if done, ok := s.after(']'); !ok || done {
			return ok
		}
	}
}

func (s *plainScanner) after(closing byte) (done, ok bool) {
	s.space()
	if s.pos < len(s.data) && (s.data[s.pos] == ',' || s.data[s.pos] == closing) {
		s.pos++
		return s.data[s.pos-1] == closing, true
	}
	return false, false
}

// str reads a string; the span is its text between the quotes, escapes as written.
func (s *plainScanner) str() (span, bool) {
	start := s.pos + 1
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			return span{start, i}, true
		case c == '\\':
			if i+1 >= len(s.data) {
				return span{}, false
			}
			switch s.data[i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				i++
			default:
				return span{}, false
			}
		case c < 0x20 || c > 0x7e:
			return span{}, false
		}
	}
	return span{}, false
}

// integer reads -?(0|[1-9][0-9]*) that fits int64, which YAML reads as an int.
func (s *plainScanner) integer() bool {
	start, i := s.pos, s.pos
	if s.data[i] == '-' {
		i++
	}
	digits := i
	for i < len(s.data) && s.data[i] >= '0' && s.data[i] <= '9' {
		i++
	}
	if i == digits || (s.data[digits] == '0' && (i-digits > 1 || digits > start)) {
		return false // leading zeros, and -0 (YAML reads 0; JSON -0 into a float)
	}
	if i < len(s.data) {
		switch s.data[i] {
		case '.', 'e', 'E':
			return false // floats: YAML and JSON spell some differently
		}
	}
	if _, err := strconv.ParseInt(string(s.data[start:i]), 10, 64); err != nil {
		return false
	}
	s.pos = i
	return true
}

// The walkers below read JSON already checked (isPlainJSON, or written by yamlToPlainJSON):
// they trust its syntax, not its length. Every index is checked against the end of data, so
// JSON cut short (which Parse never hands them) ends a walk early instead of panicking, and
// each step moves forward, so a walk ends (TestWalkersOnJSONCutShort).

// skipSpace skips JSON whitespace from i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t') {
		i++
	}
	return i
}

// skipJSONValue is the offset just past the value that starts at i.
func skipJSONValue(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			i++
			for {
				j := bytes.IndexByte(data[i:], '"')
				if j < 0 {
					return len(data) // cut short inside the string
				}
				i += j
				// The quote ends the string unless an odd run of backslashes escapes it (the
				// opening quote stops the run: k stays inside data).
				k := i - 1
				for data[k] == '\\' {
					k--
				}
				i++
				if (i-2-k)%2 == 0 {
					break
				}
			}
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',', ':', ' ', '\n', '\r', '\t':
			i++
		default: // a number or literal
			for i < len(data) && !isDelimiter(data[i]) {
				i++
			}
		}
		if depth == 0 {
			return i
		}
	}
	return i
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\n', '\r', '\t', ':':
		return true
	}
	return false
}

// eachField calls fn with the key (as written, without quotes) and the value (never empty)
// of each field of the object at data[i:], until fn returns false.
func eachField(data []byte, i int, fn func(key, value []byte) bool) {
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		if i >= len(data) || data[i] != '"' {
			return // '}', or cut short
		}
		k := i + 1
		for i = k; i < len(data) && data[i] != '"'; i++ {
			if data[i] == '\\' {
				i++
			}
		}
		if i >= len(data) {
			return // cut short inside the key
		}
		key := data[k:i]
		i = skipSpace(data, i+1)
		if i >= len(data) || data[i] != ':' {
			return
		}
		i = skipSpace(data, i+1)
		if i >= len(data) {
			return
		}
		end := skipJSONValue(data, i)
		if !fn(key, data[i:end]) {
			return
		}
		i = end
	}
}

// eachElement calls fn with each element (never empty) of the array at data[i:].
func eachElement(data []byte, i int, fn func(el []byte)) {
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != '[' {
		return
	}
	i++
	for {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		if i >= len(data) || data[i] == ']' {
			return // the end, or cut short
		}
		end := skipJSONValue(data, i)
		fn(data[i:end])
		i = end
	}
}

// plainString is the string a JSON value is when it is one without escapes.
func plainString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' {
			return "", false
		}
	}
	return string(v[1 : len(v)-1]), true
}
