package manifest

import (
	"bytes"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Decoding a kubectl dump's items from their YAML straight into typed objects, in one pass.
// The stream (stream.go) converted each item's YAML to JSON (yamlConv), cut its header out of
// the JSON (headerOf) and decoded the JSON into the typed object (typedDecoder): three passes
// over every byte, and 60 % of `disrupt` on a 20k-pod dump. yamlTyped walks an item's block
// mappings and sequences as yamlConv walks them, with the same checks of the plain subset,
// into the struct fields, map entries and slice elements typedDecoder would find for the same
// keys; each scalar, and each value of a type with its own UnmarshalJSON (a Quantity, a Time,
// an IntOrString), is converted to its JSON by yamlConv and read by typedDecoder, so that
// both read every value alike. It gives up wherever either of them would give up, and on a
// struct given as null (the one JSON reading checkNullSpec looks at afterwards); the caller
// then reads the item as before, whose answers and errors are the reference
// (TestYAMLTypedAsJSON, FuzzYAMLTyped).

// yamlTyped decodes items; it keeps its buffers from one item to the next.
type yamlTyped struct {
	c       yamlConv
	strs    *stringTable // see decodeTypedShared
	valueAt int          // where the value of the key just read starts on its line
	// dropFieldsV1: FieldsV1 values (managedFields' fieldsV1, dropped after decoding) are
	// checked as the JSON decoder checks them but not kept (21.5 MB of a 20k-pod dump).
	dropFieldsV1 bool
}

var fieldsV1Type = reflect.TypeFor[metav1.FieldsV1]()

// item decodes a List item ("- apiVersion: ...", one block mapping) into the struct into
// points to; false when it gave up, leaving into half written.
func (y *yamlTyped) item(data []byte, into any) (ok bool) {
	v := reflect.ValueOf(into)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	y.c = yamlConv{data: data, out: y.c.out[:0], keys: y.c.keys[:0]}
	defer func() {
		if recover() != nil { // a case misjudged (or a panicking UnmarshalJSON): read it as JSON
			ok = false
		}
	}()
	c := &y.c
	if !c.nextLine() || c.indent != 0 || !c.isSeqEntry() || c.enterSeqEntry() {
		return false
	}
	if !c.isMappingEntry() || !y.node(c.indent, v.Elem(), typeInfoOf(v.Elem().Type())) {
		return false
	}
	return !c.nextLine() // one item, nothing after it
}

// node decodes the block node whose first line is the current one, at indent, into v.
func (y *yamlTyped) node(indent int, v reflect.Value, ti *typeInfo) bool {
	c := &y.c
	switch {
	case ti.unsupported:
		return false
	case ti.unmarshaler:
		return y.viaJSON(v, ti, func() bool { return c.node(indent) })
	case ti.kind == reflect.Pointer:
		e := reflect.New(ti.t.Elem())
		v.Set(e)
		return y.node(indent, e.Elem(), ti.elem)
	case c.isSeqEntry():
		return ti.kind == reflect.Slice && y.sequence(indent, v, ti)
	case ti.kind == reflect.Struct:
		return y.object(indent, v, ti)
	case ti.kind == reflect.Map:
		return y.mapping(indent, v, ti)
	}
	return false
}

// viaJSON decodes into v the value conv converts to JSON (into c.out), as typedDecoder reads it.
func (y *yamlTyped) viaJSON(v reflect.Value, ti *typeInfo, conv func() bool) bool {
	c := &y.c
	c.out = c.out[:0]
	if !conv() {
		return false
	}
	js := c.out
	if ti.kind == reflect.Struct && !ti.unmarshaler && string(js) == "null" {
		return false // left as it was, which checkNullSpec reads in the JSON: read it there
	}
	d := typedDecoder{data: js, strs: y.strs}
	if y.dropFieldsV1 && ti.t == fieldsV1Type {
		// What the JSON decoder checks of a FieldsV1: its syntax (yamlConv writes JSON)
		// within the nesting limit, which the JSON of fewer bytes cannot pass.
		return len(js) < 2*maxSkipDepth || d.skip(0)
	}
	if !d.value(v, ti) {
		return false
	}
	d.space()
	return d.pos == len(js)
}

// scalar decodes the scalar at col, the value of a key or "-" at indent, into v.
func (y *yamlTyped) scalar(indent int, v reflect.Value, ti *typeInfo) bool {
	if ti.kind == reflect.String && !ti.unmarshaler && !ti.unsupported {
		// The common case without typedDecoder: a string without escapes in its JSON
		// (printable ASCII, which yamlConv only writes, is valid UTF-8).
		c := &y.c
		c.out = c.out[:0]
		if !c.scalar(indent) {
			return false
		}
		if js := c.out; len(js) >= 2 && js[0] == '"' && bytes.IndexByte(js, '\\') < 0 {
			v.SetString(y.strs.get(js[1 : len(js)-1]))
			return true
		}
		d := typedDecoder{data: c.out, strs: y.strs}
		return d.value(v, ti) && d.pos == len(d.data)
	}
	return y.viaJSON(v, ti, func() bool { return y.c.scalar(indent) })
}

// blockValue decodes the value of a key or "-" whose line ended (yamlConv.blockValue) into v.
func (y *yamlTyped) blockValue(indent int, inSequence bool, v reflect.Value, ti *typeInfo) bool {
	c := &y.c
	if c.nullBlock(indent, inSequence) {
		return y.viaJSON(v, ti, func() bool {
			c.out = append(c.out, "null"...)
			return true
		})
	}
	return y.node(c.indent, v, ti)
}

// entries reads the block mapping at indent (yamlConv.mapping), calling fn with each key,
// which fn finds the value of and decodes (y.value).
func (y *yamlTyped) entries(indent int, fn func(key []byte) bool) bool {
	c := &y.c
	for c.nextLine() && c.indent == indent && !c.isSeqEntry() {
		key, after, quoted, ok := c.keyAt(c.col)
		if !ok || len(key) > plainMaxKeyLen || (!quoted && string(key) == "<<") {
			return false
		}
		if _, isString, ok := resolvePlain(key); !quoted && (!ok || !isString) {
			return false
		}
		if bytes.IndexByte(key, '\\') >= 0 {
			return false // escaped in its JSON: typedDecoder leaves such keys to the strict decoder
		}
		i := after
		for i < c.end && c.data[i] == ' ' {
			i++
		}
		y.valueAt = i
		if !fn(key) {
			return false
		}
	}
	return !(c.nextLine() && c.indent > indent)
}

// value decodes the value of the key entries just read, in a mapping at indent, into v.
func (y *yamlTyped) value(indent int, v reflect.Value, ti *typeInfo) bool {
	c := &y.c
	if y.valueAt == c.end {
		c.consume()
		return y.blockValue(indent, false, v, ti)
	}
	c.col = y.valueAt
	return y.scalar(indent, v, ti)
}

// object decodes the block mapping at indent into the struct v (typedDecoder.object).
func (y *yamlTyped) object(indent int, v reflect.Value, ti *typeInfo) bool {
	var seen [4]uint64
	if ti.nfields > len(seen)*64 {
		return false
	}
	return y.entries(indent, func(key []byte) bool {
		f := ti.fields[string(key)]
		if f == nil || f.bad || seen[f.ord/64]&(1<<(f.ord%64)) != 0 {
			return false // unknown, conflicting or duplicated
		}
		seen[f.ord/64] |= 1 << (f.ord % 64)
		fv := v
		for _, i := range f.index {
			fv = fv.Field(i)
		}
		return y.value(indent, fv, f.info)
	})
}

// mapping decodes the block mapping at indent into the map v (typedDecoder.mapping).
func (y *yamlTyped) mapping(indent int, v reflect.Value, ti *typeInfo) bool {
	if v.IsNil() {
		v.Set(reflect.MakeMap(ti.t))
	}
	if m, ok := v.Interface().(map[string]string); ok {
		return y.entries(indent, func(key []byte) bool {
			if _, dup := m[string(key)]; dup {
				return false
			}
			s, ok := y.stringValue(indent)
			if ok {
				m[y.strs.get(key)] = s
			}
			return ok
		})
	}
	// One key and one element, reset for each entry: the map holds copies.
	kv, ev := reflect.New(ti.t.Key()).Elem(), reflect.New(ti.t.Elem()).Elem()
	return y.entries(indent, func(key []byte) bool {
		kv.SetString(y.strs.get(key))
		if v.MapIndex(kv).IsValid() {
			return false // duplicated
		}
		ev.SetZero()
		if !y.value(indent, ev, ti.elem) {
			return false
		}
		v.SetMapIndex(kv, ev)
		return true
	})
}

// stringValue is the value of the key entries just read as a map[string]string holds it
// (typedDecoder.stringMap): a string, or "" for null.
func (y *yamlTyped) stringValue(indent int) (string, bool) {
	c := &y.c
	if y.valueAt == c.end {
		c.consume()
		return "", c.nullBlock(indent, false) // a block below is no string
	}
	c.col = y.valueAt
	c.out = c.out[:0]
	if !c.scalar(indent) {
		return "", false
	}
	d := typedDecoder{data: c.out, strs: y.strs}
	if d.literal("null") {
		return "", d.pos == len(d.data)
	}
	s, ok := d.str()
	return s, ok && d.pos == len(d.data)
}

// sequence decodes the block sequence at indent into the slice v (yamlConv.sequence,
// typedDecoder.array).
func (y *yamlTyped) sequence(indent int, v reflect.Value, ti *typeInfo) bool {
	c := &y.c
	n := 0
	for c.nextLine() && c.indent == indent && c.isSeqEntry() {
		if n >= v.Cap() {
			v.Grow(1)
		}
		v.SetLen(n + 1)
		n++
		ev := v.Index(n - 1)
		if c.enterSeqEntry() { // "-" alone: the element is the block below, or null
			c.consume()
			if !y.blockValue(indent, true, ev, ti.elem) {
				return false
			}
			continue
		}
		if c.isSeqEntry() || c.isMappingEntry() {
			if !y.node(c.indent, ev, ti.elem) {
				return false
			}
			continue
		}
		if !y.scalar(indent, ev, ti.elem) {
			return false
		}
	}
	if c.nextLine() && c.indent > indent {
		return false
	}
	if n == 0 {
		v.Set(reflect.MakeSlice(ti.t, 0, 0))
	}
	return true
}
