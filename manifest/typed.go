package manifest

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sigsjson "sigs.k8s.io/json"
)

// Decoding an object's JSON straight into its typed object, without sigs.k8s.io/json's
// reflection-heavy decoder (the scanner runs twice over every byte, and a map of every
// field name is looked up through folded names and error contexts): half of the CPU of a
// 20k-pod `kubectl get -o yaml` dump went there. decodeTyped reads the common shape of an
// object exactly as json.UnmarshalStrict would (case-sensitive field names, custom
// UnmarshalJSON methods called with the value's own bytes, null as the standard library
// reads it, [] and {} as empty, not nil, slices and maps) and gives up on anything else
// (an unknown, duplicated or conflicting field, a value of the wrong type, escapes in a key,
// numbers that are not plain integers, interfaces, fixed arrays, []byte, TextUnmarshalers,
// ",string" options, embedded pointers). Giving up leaves the object half written: the
// caller zeroes it and decodes it with UnmarshalStrict, whose errors are the ones reported.
// TestDecodeTypedAsStrict and FuzzDecodeTyped hold the two to the same objects.

// decodeTyped decodes data into the struct into points to; false when it gave up.
func decodeTyped(data []byte, into any) (ok bool) {
	return decodeTypedShared(data, into, nil)
}

// decodeTypedShared is decodeTyped sharing the strings it reads through strs (strtable.go); a
// nil strs shares nothing.
func decodeTypedShared(data []byte, into any, strs *stringTable) (ok bool) {
	v := reflect.ValueOf(into)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	defer func() {
		if recover() != nil { // an UnmarshalJSON that panics: the strict decoder says so
			ok = false
		}
	}()
	d := typedDecoder{data: data, strs: strs}
	if !d.value(v.Elem(), typeInfoOf(v.Elem().Type())) {
		return false
	}
	d.space()
	return d.pos == len(d.data)
}

var (
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
)

// typeInfo is what decodeTyped knows of a Go type.
type typeInfo struct {
	t    reflect.Type
	kind reflect.Kind
	// unsupported: decodeTyped gives up on any value of this type.
	unsupported bool
	// unmarshaler: the (named, non-pointer) type's pointer has UnmarshalJSON, which the
	// standard library calls for every value, null included.
	unmarshaler bool
	elem        *typeInfo // of a pointer's, slice's or map's element
	fields      map[string]*fieldInfo
	nfields     int
}

// fieldInfo is a struct field by its JSON name.
type fieldInfo struct {
	index []int // through embedded (inline) structs
	ord   int   // for the duplicate check
	info  *typeInfo
	bad   bool // a name the standard library resolves by rules decodeTyped does not follow
}

var typeInfos = struct {
	sync.Mutex
	m map[reflect.Type]*typeInfo
}{m: map[reflect.Type]*typeInfo{}}

// typeInfoOf is t's typeInfo, built once per type (a cache like the standard library's).
func typeInfoOf(t reflect.Type) *typeInfo {
	typeInfos.Lock()
	defer typeInfos.Unlock()
	return buildTypeInfo(t)
}

func buildTypeInfo(t reflect.Type) *typeInfo {
	if ti, ok := typeInfos.m[t]; ok {
		return ti // built, or being built (a recursive type): filled in before it is read
	}
	ti := &typeInfo{t: t, kind: t.Kind()}
	typeInfos.m[t] = ti
	pt := reflect.PointerTo(t)
	switch {
	case t.Kind() != reflect.Pointer && t.Name() != "" && pt.Implements(unmarshalerType):
		ti.unmarshaler = true
		return ti
	case pt.Implements(textUnmarshalerType) || t == jsonNumberType:
		ti.unsupported = true
		return ti
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
	case reflect.Pointer:
		e := t.Elem()
		// The standard library asks the pointer itself for UnmarshalJSON; its element
		// answers the same only when the element is named.
		if e.Kind() == reflect.Pointer || (e.Name() == "" && t.Implements(unmarshalerType)) {
			ti.unsupported = true
		}
		ti.elem = buildTypeInfo(e)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // base64 text
			ti.unsupported = true
		}
		ti.elem = buildTypeInfo(t.Elem())
	case reflect.Map:
		k := t.Key()
		if k.Kind() != reflect.String || reflect.PointerTo(k).Implements(textUnmarshalerType) {
			ti.unsupported = true
		}
		ti.elem = buildTypeInfo(t.Elem())
	case reflect.Struct:
		ti.fields = map[string]*fieldInfo{}
		if !addFields(ti, t, nil) {
			ti.unsupported = true
		}
	default: // interfaces, arrays, channels, functions, complex numbers
		ti.unsupported = true
	}
	return ti
}

// addFields adds the JSON fields of struct t (embedded at index) to ti; false when t is
// outside what decodeTyped reads (embedded pointers, unusual tags).
func addFields(ti *typeInfo, t reflect.Type, index []int) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				return false
			}
			if !sf.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validTagName(name) || strings.Contains(","+opts+",", ",string,") {
			return false
		}
		at := append(append([]int(nil), index...), i)
		if name == "" && sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			if !addFields(ti, sf.Type, at) {
				return false
			}
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if f, dup := ti.fields[name]; dup {
			f.bad = true // the standard library picks by depth and tags: let it
			continue
		}
		ti.fields[name] = &fieldInfo{index: at, ord: ti.nfields, info: buildTypeInfo(sf.Type)}
		ti.nfields++
	}
	return true
}

// validTagName is a tag name the standard library takes as written (its isValidTag).
func validTagName(s string) bool {
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c > utf8.RuneSelf):
			return false
		}
	}
	return true
}

// typedDecoder reads data from pos.
type typedDecoder struct {
	data []byte
	pos  int
	strs *stringTable // see decodeTypedShared
	// ascii is set by quoted when the string it stepped over is printable ASCII without
	// escapes: plain text, without plainText's second pass over it.
	ascii bool
}

func (d *typedDecoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\n', '\r', '\t':
			d.pos++
		default:
			return
		}
	}
}

// value decodes the value at pos into v, of type ti.
func (d *typedDecoder) value(v reflect.Value, ti *typeInfo) bool {
	d.space()
	if d.pos >= len(d.data) || ti.unsupported {
		return false
	}
	c := d.data[d.pos]
	if ti.unmarshaler {
		start := d.pos
		if !d.skip(0) {
			return false
		}
		lit := d.data[start:d.pos]
		if t, ok := v.Addr().Interface().(*metav1.Time); ok && len(lit) > 2 && lit[0] == '"' {
			return plainTime(t, lit)
		}
		u := v.Addr().Interface().(json.Unmarshaler)
		return u.UnmarshalJSON(lit) == nil
	}
	if c == 'n' {
		if !d.literal("null") {
			return false
		}
		switch ti.kind {
		case reflect.Pointer, reflect.Map, reflect.Slice:
			v.SetZero()
		}
		return true // null leaves every other value as it is
	}
	switch ti.kind {
	case reflect.Pointer:
		e := reflect.New(ti.t.Elem())
		v.Set(e)
		return d.value(e.Elem(), ti.elem)
	case reflect.Struct:
		return c == '{' && d.object(v, ti)
	case reflect.Map:
		return c == '{' && d.mapping(v, ti)
	case reflect.Slice:
		return c == '[' && d.array(v, ti)
	case reflect.String:
		s, ok := d.str()
		if ok {
			v.SetString(s)
		}
		return ok
	case reflect.Bool:
		switch {
		case d.literal("true"):
			v.SetBool(true)
		case d.literal("false"):
			v.SetBool(false)
		default:
			return false
		}
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		lit, ok := d.integer()
		if !ok {
			return false
		}
		n, err := strconv.ParseInt(lit, 10, 64)
		if err != nil || v.OverflowInt(n) {
			return false
		}
		v.SetInt(n)
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		lit, ok := d.integer()
		if !ok || lit[0] == '-' {
			return false
		}
		n, err := strconv.ParseUint(lit, 10, 64)
		if err != nil || v.OverflowUint(n) {
			return false
		}
		v.SetUint(n)
		return true
	}
	return false // floats: rare in the kinds read, left to the strict decoder
}

// members reads the object or array that opens at pos, closed by closing: fn reads each
// member's value (in an object, after its key, given as written with whether it is plain:
// without escapes, valid UTF-8, and its colon). False when fn or the syntax fails.
func (d *typedDecoder) members(closing byte, fn func(key []byte, plain bool) bool) bool {
	d.pos++ // { or [
	for first := true; ; first = false {
		d.space()
		if d.pos >= len(d.data) {
			return false
		}
		if d.data[d.pos] == closing {
			d.pos++
			return true
		}
		if !first {
			if d.data[d.pos] != ',' {
				return false
			}
			d.pos++
			d.space()
		}
		var key []byte
		plain := true
		if closing == '}' {
			var ok bool
			if key, plain, ok = d.key(); !ok {
				return false
			}
		}
		if !fn(key, plain) {
			return false
		}
	}
}

// object decodes a JSON object into the struct v.
func (d *typedDecoder) object(v reflect.Value, ti *typeInfo) bool {
	var seen [4]uint64
	if ti.nfields > len(seen)*64 {
		return false
	}
	return d.members('}', func(key []byte, plain bool) bool {
		f := ti.fields[string(key)]
		if !plain || f == nil || f.bad || seen[f.ord/64]&(1<<(f.ord%64)) != 0 {
			return false // unknown, conflicting or duplicated
		}
		seen[f.ord/64] |= 1 << (f.ord % 64)
		fv := v
		for _, i := range f.index {
			fv = fv.Field(i)
		}
		return d.value(fv, f.info)
	})
}

// mapping decodes a JSON object into the map v (string keys).
func (d *typedDecoder) mapping(v reflect.Value, ti *typeInfo) bool {
	if v.IsNil() {
		v.Set(reflect.MakeMap(ti.t))
	}
	if m, ok := v.Interface().(map[string]string); ok {
		return d.stringMap(m)
	}
	return d.members('}', func(key []byte, plain bool) bool {
		if !plain {
			return false
		}
		kv := reflect.New(ti.t.Key()).Elem()
		kv.SetString(d.strs.get(key))
		if v.MapIndex(kv).IsValid() {
			return false // duplicated
		}
		ev := reflect.New(ti.t.Elem()).Elem()
		if !d.value(ev, ti.elem) {
			return false
		}
		v.SetMapIndex(kv, ev)
		return true
	})
}

// stringMap is mapping for a map[string]string (labels, annotations, node selectors), without
// reflection: a null value is stored as "", as the standard library stores it.
func (d *typedDecoder) stringMap(m map[string]string) bool {
	return d.members('}', func(key []byte, plain bool) bool {
		if _, dup := m[string(key)]; dup || !plain {
			return false
		}
		d.space()
		s, ok := "", d.literal("null")
		if !ok {
			if s, ok = d.str(); !ok {
				return false
			}
		}
		m[d.strs.get(key)] = s
		return true
	})
}

// plainTime is (*metav1.Time).UnmarshalJSON of the string literal lit without its
// json.Unmarshal of the text (a third of the garbage of a dump's decoding): the same parse
// of the same text when lit has no escapes and is valid UTF-8, else the method itself.
func plainTime(t *metav1.Time, lit []byte) bool {
	body := lit[1 : len(lit)-1]
	if !plainText(body) {
		return t.UnmarshalJSON(lit) == nil
	}
	pt, err := time.Parse(time.RFC3339, string(body))
	if err != nil {
		return false
	}
	t.Time = pt.Local()
	return true
}

// array decodes a JSON array into the slice v.
func (d *typedDecoder) array(v reflect.Value, ti *typeInfo) bool {
	n := 0
	ok := d.members(']', func([]byte, bool) bool {
		if n >= v.Cap() {
			v.Grow(1)
		}
		v.SetLen(n + 1)
		n++
		return d.value(v.Index(n-1), ti.elem)
	})
	if ok && n == 0 {
		v.Set(reflect.MakeSlice(ti.t, 0, 0))
	}
	return ok
}

// key reads an object's key and its colon: the key as written, and whether it is plain
// (no escapes, valid UTF-8: the strict decoder reads U+FFFD for each invalid byte).
func (d *typedDecoder) key() (key []byte, plain bool, ok bool) {
	start := d.pos
	lit, ok := d.quoted()
	if !ok {
		return nil, false, false
	}
	key = lit[1 : len(lit)-1]
	plain = d.ascii || plainText(key)
	if !plain && !validEscapes(key) {
		return nil, false, false
	}
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		d.pos = start
		return nil, false, false
	}
	d.pos++
	return key, plain, true
}

// str reads a string value: as written when it has no escapes and is valid UTF-8, else
// as the strict decoder unquotes it.
func (d *typedDecoder) str() (string, bool) {
	lit, ok := d.quoted()
	if !ok {
		return "", false
	}
	return d.unquote(lit)
}

// quoted steps over the string at pos: its literal, quotes included. It sets d.ascii.
func (d *typedDecoder) quoted() ([]byte, bool) {
	if d.pos >= len(d.data) || d.data[d.pos] != '"' {
		return nil, false
	}
	i := d.pos + 1
	d.ascii = true
	for ; i < len(d.data) && d.data[i] != '"'; i++ {
		switch c := d.data[i]; {
		case c == '\\':
			i++ // the escaped character (checked when unquoted)
			d.ascii = false
		case c < 0x20:
			return nil, false
		case c >= 0x80:
			d.ascii = false
		}
	}
	if i >= len(d.data) {
		return nil, false
	}
	lit := d.data[d.pos : i+1]
	d.pos = i + 1
	return lit, true
}

// unquote is the string of the literal lit, which quoted has just stepped over.
func (d *typedDecoder) unquote(lit []byte) (string, bool) {
	if body := lit[1 : len(lit)-1]; d.ascii || plainText(body) {
		return d.strs.get(body), true
	}
	var s string
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(lit, &s); err != nil {
		return "", false
	}
	return s, true
}

// plainText reports whether a string's text (between its quotes) is its value: no escapes,
// valid UTF-8 (the strict decoder reads U+FFFD for each invalid byte).
func plainText(body []byte) bool {
	return bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body)
}

// validEscapes reports whether every backslash of a string starts an escape JSON has.
func validEscapes(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i++; i >= len(s) {
			return false
		}
		switch s[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if i+4 >= len(s) {
				return false
			}
			for _, h := range s[i+1 : i+5] {
				if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
					return false
				}
			}
			i += 4
		default:
			return false
		}
	}
	return true
}

// integer reads a JSON number that is an integer: -?(0|[1-9][0-9]*), not followed by a
// fraction or exponent.
func (d *typedDecoder) integer() (string, bool) {
	start := d.pos
	if !d.number() {
		return "", false
	}
	if lit := d.data[start:d.pos]; !bytes.ContainsAny(lit, ".eE") {
		return string(lit), true
	}
	d.pos = start
	return "", false
}

// literal reads lit (true, false, null) when it is next.
func (d *typedDecoder) literal(lit string) bool {
	end := d.pos + len(lit)
	if end > len(d.data) || string(d.data[d.pos:end]) != lit {
		return false
	}
	if end < len(d.data) && !isDelimiter(d.data[end]) {
		return false
	}
	d.pos = end
	return true
}

// maxSkipDepth is the strict decoder's limit of nesting.
const maxSkipDepth = 10000

// skip steps over one JSON value, checking its syntax as the strict decoder does.
func (d *typedDecoder) skip(depth int) bool {
	d.space()
	if d.pos >= len(d.data) || depth > maxSkipDepth {
		return false
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.members('}', func([]byte, bool) bool { return d.skip(depth + 1) })
	case c == '[':
		return d.members(']', func([]byte, bool) bool { return d.skip(depth + 1) })
	case c == '"':
		lit, ok := d.quoted()
		return ok && validEscapes(lit)
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return d.literal("true") || d.literal("false") || d.literal("null")
}

// number steps over a JSON number.
func (d *typedDecoder) number() bool {
	i := d.pos
	if d.data[i] == '-' {
		i++
	}
	digits := i
	for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
		i++
	}
	if i == digits || (d.data[digits] == '0' && i-digits > 1) {
		return false
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		f := i
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
		if i == f {
			return false
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		e := i
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
		if i == e {
			return false
		}
	}
	if i < len(d.data) && !isDelimiter(d.data[i]) {
		return false
	}
	d.pos = i
	return true
}
