package manifest

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// yamlToPlainJSON converts a document of block YAML as kubectl (go-yaml's emitter) writes it
// into compact JSON that reads as sigs.k8s.io/yaml's YAMLToJSONStrict reads the document,
// without building a tree: block mappings and sequences, `{}` and `[]`, plain scalars (also
// folded over lines), single- and one-line double-quoted scalars, literal block scalars,
// printable ASCII only. ok is false for anything else (comments, tabs, flow collections,
// anchors, tags, folded block scalars, duplicate or merge keys, keys that are not strings,
// values that resolve to floats, timestamps or YAML 1.1 booleans such as "yes"), and for
// anything malformed: the caller then reads the document with the YAML parser, whose errors
// name the line.
func yamlToPlainJSON(data []byte) (js []byte, ok bool) {
	// Compact JSON of kubectl's YAML is about its size (indentation out, quotes and commas
	// in): one buffer of it, not grown by doubling.
	var c yamlConv
	return c.convert(data, make([]byte, 0, len(data)+len(data)/8))
}

// convert is yamlToPlainJSON writing into out, and reusing c's key stack: a stream of items
// (stream.go) converts each into the buffer of the one before.
func (c *yamlConv) convert(data, out []byte) (js []byte, ok bool) {
	*c = yamlConv{data: data, out: out[:0], keys: c.keys[:0]}
	defer func() {
		if recover() != nil { // a case this reader misjudged: the YAML parser reads it
			js, ok = nil, false
		}
	}()
	if !c.nextLine() || c.indent != 0 || !c.node(0) {
		return nil, false
	}
	if c.nextLine() { // content after the top-level node
		return nil, false
	}
	return c.out, true
}

// yamlConv reads lines; the current line is data[line:end], its content starts at col
// (indent = col - line, or the column after a "- " the reader stepped over).
type yamlConv struct {
	data      []byte
	out       []byte
	line, end int // the current line, without its line break
	col       int // where the current line's unread content starts
	indent    int // col's column
	next      int // offset of the line after the current one
	ready     bool
	keys      []span // keys of the mappings being read (for duplicates), a stack
}

// nextLine moves to the next line with content when the current one is used up; false at
// the end of the document. A comment or a tab makes the document not plain (panics, which
// yamlToPlainJSON turns into ok false).
func (c *yamlConv) nextLine() bool {
	if c.ready {
		return true
	}
	for c.next < len(c.data) {
		start := c.next
		end := len(c.data)
		if n := bytes.IndexByte(c.data[start:], '\n'); n >= 0 {
			end = start + n
		}
		c.next = end + 1
		if end > start && c.data[end-1] == '\r' {
			end--
		}
		i := start
		for i < end && c.data[i] == ' ' {
			i++
		}
		if i == end {
			continue // blank
		}
		if c.data[i] == '#' || c.data[i] == '\t' {
			panic("not plain")
		}
		c.line, c.end, c.col, c.indent, c.ready = start, end, i, i-start, true
		return true
	}
	return false
}

// consume marks the current line used up.
func (c *yamlConv) consume() { c.ready = false }

// isSeqEntry: the content at col is "-" alone or "- ...".
func (c *yamlConv) isSeqEntry() bool {
	return c.data[c.col] == '-' && (c.col+1 == c.end || c.data[c.col+1] == ' ')
}

// node reads the block node whose first line is the current one, at indent.
func (c *yamlConv) node(indent int) bool {
	if c.isSeqEntry() {
		return c.sequence(indent)
	}
	return c.mapping(indent)
}

func (c *yamlConv) sequence(indent int) bool {
	c.out = append(c.out, '[')
	first := true
	for c.nextLine() && c.indent == indent && c.isSeqEntry() {
		if !first {
			c.out = append(c.out, ',')
		}
		first = false
		if c.enterSeqEntry() { // "-" alone: the item is the block below, or null
			c.consume()
			if !c.blockValue(indent, true) {
				return false
			}
			continue
		}
		if c.isSeqEntry() || c.isMappingEntry() {
			if !c.node(c.indent) {
				return false
			}
			continue
		}
		if !c.scalar(indent) {
			return false
		}
	}
	if c.nextLine() && c.indent > indent {
		return false
	}
	c.out = append(c.out, ']')
	return true
}

// blockValue reads the value of a key or "-" whose line ended: the more indented block below
// (or, for a key, a sequence at the key's own indent), or null.
func (c *yamlConv) blockValue(indent int, inSequence bool) bool {
	if c.nullBlock(indent, inSequence) {
		c.out = append(c.out, "null"...)
		return true
	}
	return c.node(c.indent)
}

// nullBlock: the value of a key or "-" (at indent) whose line ended is null, not the block
// below.
func (c *yamlConv) nullBlock(indent int, inSequence bool) bool {
	return !c.nextLine() || c.indent < indent || (c.indent == indent && (inSequence || !c.isSeqEntry()))
}

// enterSeqEntry steps over the "- " of the sequence entry on the current line: what follows
// is a node at the column it starts at. alone: nothing follows the "-" on its line.
func (c *yamlConv) enterSeqEntry() (alone bool) {
	i := c.col + 1
	for i < c.end && c.data[i] == ' ' {
		i++
	}
	if i == c.end {
		return true
	}
	c.col, c.indent = i, c.indent+(i-c.col)
	return false
}

// isMappingEntry: the content at col is a key followed by ":" and a space or the line's end.
func (c *yamlConv) isMappingEntry() bool {
	_, _, _, ok := c.keyAt(c.col)
	return ok
}

// keyAt reads the key at i: its text (as JSON string content), the offset after its ":",
// and whether it was quoted. It reads the current line only.
func (c *yamlConv) keyAt(i int) (key []byte, after int, quoted, ok bool) {
	d := c.data
	switch d[i] {
	case '"', '\'':
		s, j, ok := c.quoted(i, false)
		if !ok || j >= c.end || d[j] != ':' || (j+1 < c.end && d[j+1] != ' ') {
			return nil, 0, false, false
		}
		return s, j + 1, true, true
	}
	// The first ":" followed by a space or the line's end, in one pass over the key: no
	// comment (" #") and only printable ASCII before it. Every failure answers alike.
	escape := false
	for j := i; j < c.end; j++ {
		switch ch := d[j]; {
		case plainByte[ch]:
		case ch == ':':
			if j+1 < c.end && d[j+1] != ' ' {
				continue
			}
			k := d[i:j]
			for len(k) > 0 && k[len(k)-1] == ' ' {
				k = k[:len(k)-1]
			}
			if len(k) == 0 || !plainStart(k) {
				return nil, 0, false, false
			}
			if escape {
				var esc []byte
				for _, ch := range k {
					if ch == '"' || ch == '\\' {
						esc = append(esc, '\\')
					}
					esc = append(esc, ch)
				}
				k = esc
			}
			return k, j + 1, false, true
		case ch == ' ':
			if j+1 < c.end && d[j+1] == '#' {
				return nil, 0, false, false
			}
		case ch == '"' || ch == '\\':
			escape = true
		case ch == '#':
		default: // not printable ASCII
			return nil, 0, false, false
		}
	}
	return nil, 0, false, false
}

// plainByte are the printable ASCII bytes that mean nothing special in a plain key or scalar
// (all but space, ':', '#', '"' and '\\').
var plainByte = func() (t [256]bool) {
	for ch := 0x21; ch <= 0x7e; ch++ {
		t[ch] = !strings.ContainsRune(":#\"\\", rune(ch))
	}
	return t
}()

func (c *yamlConv) mapping(indent int) bool {
	c.out = append(c.out, '{')
	base := len(c.keys)
	defer func() { c.keys = c.keys[:base] }()
	first := true
	for c.nextLine() && c.indent == indent && !c.isSeqEntry() {
		key, after, quoted, ok := c.keyAt(c.col)
		if !ok || len(key) > plainMaxKeyLen || (!quoted && string(key) == "<<") {
			return false
		}
		if _, isString, ok := resolvePlain(key); !quoted && (!ok || !isString) {
			return false // a key YAML reads as a number, boolean or null
		}
		// Keys are compared as the JSON they become (equal text, equal key).
		from := len(c.out)
		if !first {
			c.out = append(c.out, ',')
			from++
		}
		first = false
		c.out = append(c.out, '"')
		c.out = append(c.out, key...)
		c.out = append(c.out, '"')
		k := span{from, len(c.out)}
		for _, prev := range c.keys[base:] {
			if string(c.out[prev.from:prev.to]) == string(c.out[k.from:k.to]) {
				return false
			}
		}
		c.keys = append(c.keys, k)
		c.out = append(c.out, ':')
		i := after
		for i < c.end && c.data[i] == ' ' {
			i++
		}
		if i == c.end {
			c.consume()
			if !c.blockValue(indent, false) {
				return false
			}
			continue
		}
		c.col = i
		if !c.scalar(indent) {
			return false
		}
	}
	if c.nextLine() && c.indent > indent {
		return false
	}
	c.out = append(c.out, '}')
	return true
}

// scalar reads the scalar at col, the value of a key or "-" at indent, and the lines it
// continues on.
func (c *yamlConv) scalar(indent int) bool {
	d, i := c.data, c.col
	switch d[i] {
	case '"', '\'':
		s, j, ok := c.quoted(i, true)
		if !ok {
			return false
		}
		for j < c.end && d[j] == ' ' {
			j++
		}
		if j != c.end {
			return false
		}
		c.consume()
		c.out = append(c.out, '"')
		c.out = append(c.out, s...)
		c.out = append(c.out, '"')
		return true
	case '{', '[':
		if c.end-i == 2 && (string(d[i:c.end]) == "{}" || string(d[i:c.end]) == "[]") {
			c.consume()
			c.out = append(c.out, d[i:c.end]...)
			return true
		}
		return false
	case '|':
		return c.literal(indent)
	}
	// A plain scalar, folded over the more indented lines that follow.
	from := len(c.out)
	c.out = append(c.out, '"')
	if !c.plainLine(d[i:c.end], true) {
		return false
	}
	c.consume()
	for after := c.next; c.nextLine() && c.indent > indent; after = c.next {
		if c.line != after {
			return false // an empty line in it: a line break
		}
		c.out = append(c.out, ' ')
		if !c.plainLine(c.data[c.col:c.end], false) {
			return false
		}
		c.consume()
	}
	text := c.out[from+1:]
	if v, isString, ok := resolvePlain(text); !ok {
		return false
	} else if !isString {
		c.out = append(c.out[:from], v...)
		return true
	}
	c.out = append(c.out, '"')
	return true
}

// plainLine appends a line of a plain scalar as JSON string content.
func (c *yamlConv) plainLine(s []byte, first bool) bool {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	if len(s) == 0 {
		return false
	}
	if first && !plainStart(s) {
		return false
	}
	if !first && (s[0] == '#' || s[0] == '-' && (len(s) == 1 || s[1] == ' ')) {
		return false
	}
	from := 0 // s[from:] is not written yet
	for j, ch := range s {
		if plainByte[ch] || ch == ' ' {
			continue
		}
		switch {
		case ch < 0x20 || ch > 0x7e:
			return false
		case ch == ':' && (j+1 == len(s) || s[j+1] == ' '):
			return false
		case ch == '#' && j > 0 && s[j-1] == ' ':
			return false
		case ch == '"' || ch == '\\':
			c.out = append(append(c.out, s[from:j]...), '\\', ch)
			from = j + 1
		}
	}
	c.out = append(c.out, s[from:]...)
	return true
}

// plainStart: s may start a plain scalar (no indicator YAML reads otherwise).
func plainStart(s []byte) bool {
	switch s[0] {
	case '-', '?', ':':
		return len(s) > 1 && s[1] != ' '
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// quoted reads the quoted scalar at i, on one line or (single-quoted, when fold) folded over
// several: its text as JSON string content and the offset after the closing quote on the
// line it ends on.
func (c *yamlConv) quoted(i int, fold bool) (text []byte, after int, ok bool) {
	d := c.data
	q := d[i]
	// Most quoted scalars are their text, on one line: that text, not a copy.
	for j := i + 1; j < c.end; j++ {
		ch := d[j]
		if ch == q && (q == '"' || j+1 == c.end || d[j+1] != '\'') {
			return d[i+1 : j], j + 1, true
		}
		if ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\' || ch == '\'' {
			break
		}
	}
	var b []byte
	for j := i + 1; ; j++ {
		if j >= c.end {
			if q == '"' || !fold {
				return nil, 0, false
			}
			// A single-quoted scalar folded: the line break and the next line's leading
			// spaces read as one space.
			for len(b) > 0 && b[len(b)-1] == ' ' {
				b = b[:len(b)-1]
			}
			c.consume()
			if c.next >= len(d) {
				return nil, 0, false
			}
			start := c.next
			if !c.nextLine() || c.line != start {
				return nil, 0, false // an empty line in it (a line break) or the end
			}
			b = append(b, ' ')
			j = c.col - 1
			continue
		}
		ch := d[j]
		switch {
		case ch < 0x20 || ch > 0x7e:
			return nil, 0, false
		case ch == q && q == '\'':
			if j+1 < c.end && d[j+1] == '\'' {
				b = append(b, '\'')
				j++
				continue
			}
			return b, j + 1, true
		case ch == q:
			return b, j + 1, true
		case q == '"' && ch == '\\':
			if j+1 >= c.end {
				return nil, 0, false
			}
			switch d[j+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				b = append(b, '\\', d[j+1])
				j++
			default:
				return nil, 0, false
			}
		case ch == '"' || ch == '\\':
			b = append(b, '\\', ch)
		default:
			b = append(b, ch)
		}
	}
}

// literal reads a literal block scalar ("|", "|-" or "|+") at col, the value of a key or
// "-" at indent.
func (c *yamlConv) literal(indent int) bool {
	d, i := c.data, c.col
	chomp := byte(0)
	if i+1 < c.end {
		chomp = d[i+1]
		if (chomp != '-' && chomp != '+') || i+2 != c.end {
			return false
		}
	}
	c.consume()
	var lines [][]byte // nil for an empty line
	block := -1
	for c.next < len(d) {
		start := c.next
		end := start
		for end < len(d) && d[end] != '\n' {
			end++
		}
		if end == len(d) || (end > start && d[end-1] == '\r') {
			return false // the last line without a line break, or CRLF: the parser knows
		}
		j := start
		for j < end && d[j] == ' ' {
			j++
		}
		if j == end {
			if block >= 0 && end-start > block {
				return false // spaces past the indentation are content
			}
			lines = append(lines, nil)
			c.next = end + 1
			continue
		}
		if j-start <= indent {
			break
		}
		if block < 0 {
			if len(lines) > 0 {
				return false // empty lines before the first: the parser knows
			}
			block = j - start
		} else if j-start < block {
			return false
		}
		lines = append(lines, d[start+block:end])
		c.next = end + 1
	}
	if block < 0 {
		return false
	}
	n := len(lines)
	for n > 0 && lines[n-1] == nil {
		n--
	}
	c.out = append(c.out, '"')
	for k, l := range lines[:n] {
		if k > 0 {
			c.out = append(c.out, '\\', 'n')
		}
		for _, ch := range l {
			switch {
			case ch < 0x20 || ch > 0x7e:
				return false
			case ch == '"' || ch == '\\':
				c.out = append(c.out, '\\', ch)
			default:
				c.out = append(c.out, ch)
			}
		}
	}
	switch chomp {
	case 0:
		c.out = append(c.out, '\\', 'n')
	case '+':
		for range len(lines) - n + 1 {
			c.out = append(c.out, '\\', 'n')
		}
	}
	c.out = append(c.out, '"')
	return true
}

// resolvePlain is what go-yaml (v2, which sigs.k8s.io/yaml uses) reads the plain scalar s as:
// a string (isString), or the JSON of null, a boolean or an integer; ok is false for what
// this reader leaves to the parser (floats, timestamps, integers not in decimal). It is
// called for every plain key and value of a dump, so the common strings (quantities such as
// 1910m, addresses, managedFields' "." keys) are told apart without a regular expression or
// an error allocated by a failed parse.
func resolvePlain(s []byte) (v []byte, isString, ok bool) {
	switch s[0] {
	case '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if canonicalInt(s) {
			return s, false, true
		}
		if !numberLike(s) {
			return nil, true, true // a quantity such as 1910m or 28793528Ki, without a copy
		}
		str := string(s)
		if strings.IndexByte(str, '_') >= 0 {
			str = strings.ReplaceAll(str, "_", "")
		}
		if yamlTimestamp(string(s)) || yamlFloatSyntax(str) || yamlBinary(str) {
			return nil, false, false
		}
		if !intLike(str) {
			return nil, true, true // ParseInt would fail, and allocate its error
		}
		if _, err := strconv.ParseInt(str, 0, 64); err == nil {
			return nil, false, false
		}
		if _, err := strconv.ParseUint(str, 0, 64); err == nil {
			return nil, false, false
		}
		return nil, true, true
	case '.':
		// ParseFloat reads no text starting with "." without a digit (and allocates an
		// error for each such key: 209,376 "." keys in a 20k-pod dump's managedFields).
		if hasDigit(s) {
			if _, err := strconv.ParseFloat(string(s), 64); err == nil {
				return nil, false, false
			}
		}
		switch string(s) {
		case ".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN":
			return nil, false, false
		}
		return nil, true, true
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		switch string(s) {
		case "~", "null", "Null", "NULL":
			return []byte("null"), false, true
		case "true", "True", "TRUE", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON":
			return []byte("true"), false, true
		case "false", "False", "FALSE", "n", "N", "no", "No", "NO", "off", "Off", "OFF":
			return []byte("false"), false, true
		}
	}
	return nil, true, true
}

// numberLike: s has only bytes that go-yaml's integers (any base, with underscores), floats
// and timestamps are written with; any other byte makes s a string.
func numberLike(s []byte) bool {
	for _, ch := range s {
		switch {
		case ch >= '0' && ch <= '9', ch >= 'a' && ch <= 'f', ch >= 'A' && ch <= 'F':
		case strings.IndexByte("+-_.: xXoOtTzZ", ch) >= 0:
		default:
			return false
		}
	}
	return true
}

// hasDigit: s holds a decimal digit.
func hasDigit(s []byte) bool {
	for _, ch := range s {
		if ch >= '0' && ch <= '9' {
			return true
		}
	}
	return false
}

// yamlFloatSyntax: s matches go-yaml's float syntax,
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ (TestYAMLFloatSyntaxAsRegexp).
func yamlFloatSyntax(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// intLike: s has only the bytes strconv.ParseInt reads with base 0 (a sign, then digits,
// letters of hexadecimal and base prefixes).
func intLike(s string) bool {
	s = strings.TrimLeft(s, "+-")
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case for letters
		if !(s[i] >= '0' && s[i] <= '9') && !(c >= 'a' && c <= 'f') && c != 'x' && c != 'o' {
			return false
		}
	}
	return true
}

// yamlBinary: go-yaml reads s (underscores removed) as a binary integer.
func yamlBinary(s string) bool {
	digits, ok := strings.CutPrefix(s, "0b")
	if !ok {
		if digits, ok = strings.CutPrefix(s, "-0b"); !ok {
			return false
		}
	}
	if _, err := strconv.ParseUint(digits, 2, 64); err == nil {
		return true
	}
	_, err := strconv.ParseInt(digits, 2, 64)
	return err == nil
}

// canonicalInt: -?(0|[1-9][0-9]*) within int64, not "-0".
func canonicalInt(s []byte) bool {
	digits := s
	if s[0] == '-' {
		digits = s[1:]
	}
	if len(digits) == 0 || len(digits) > 19 || (digits[0] == '0' && (len(digits) > 1 || len(s) > 1)) {
		return false
	}
	for _, ch := range digits {
		if ch < '0' || ch > '9' {
			return false
		}
	}
	_, err := strconv.ParseInt(string(s), 10, 64)
	return err == nil
}

// yamlTimestamp: go-yaml reads s as a timestamp.
func yamlTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}
