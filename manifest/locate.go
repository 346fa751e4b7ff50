package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// locate finds the first value of v (decoded JSON) that does not decode into a field of type
// t, and returns its path and why. It walks structs by their JSON names, so the path reads
// like the manifest: spec.containers[0].resources.requests.cpu. A nil error means it found
// nothing wrong.
func locate(v any, t reflect.Type, path string) (string, error) {
	if v == nil {
		return "", nil // null decodes into anything
	}
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerType) {
		return path, leafError(v, t)
	}
	switch t.Kind() {
	case reflect.Pointer:
		return locate(v, t.Elem(), path)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return path, leafError(v, t)
		}
		fields := jsonFields(t)
		for _, k := range sortedKeys(m) {
			if ft, ok := fields[k]; ok {
				if p, err := locate(m[k], ft, joinField(path, k)); err != nil {
					return p, err
				}
			}
		}
		return "", nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return path, leafError(v, t) // base64 bytes
		}
		s, ok := v.([]any)
		if !ok {
			return path, leafError(v, t)
		}
		for i, e := range s {
			if p, err := locate(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return p, err
			}
		}
		return "", nil
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return path, leafError(v, t)
		}
		for _, k := range sortedKeys(m) {
			if p, err := locate(m[k], t.Elem(), joinField(path, k)); err != nil {
				return p, err
			}
		}
		return "", nil
	}
	return path, leafError(v, t)
}

// leafError is why v does not decode into a t, or nil.
func leafError(v any, t reflect.Type) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	err = json.Unmarshal(raw, reflect.New(t).Interface())
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if _, isBool := v.(bool); isBool && te.Type != nil && te.Type.Kind() == reflect.String {
			return fmt.Errorf("expected a string, got a boolean (YAML reads unquoted yes/no/on/off/y/n/true/false as booleans: quote the value)")
		}
		if lo, hi, ok := intRange(te.Type); ok && wholeNumber(v) {
			return &RangeError{Value: string(raw), Min: lo, Max: hi}
		}
		return fmt.Errorf("expected %s, got %s", typeName(te.Type), article(te.Value))
	}
	return err
}

// RangeError is a whole number too large (or small) for its field's integer type: maxPods
// 99999999999999 is an int32's.
type RangeError struct {
	Value    string
	Min, Max int64
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("out of range: %s is not from %d to %d", e.Value, e.Min, e.Max)
}

// intRange is the range of an integer type, and false for other types (and uint64, whose
// whole range no decoded number exceeds without being refused as a float).
func intRange(t reflect.Type) (lo, hi int64, ok bool) {
	if t == nil {
		return 0, 0, false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return -1 << (t.Bits() - 1), 1<<(t.Bits()-1) - 1, true
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return 0, 1<<t.Bits() - 1, true
	}
	return 0, 0, false
}

// wholeNumber reports whether a decoded JSON value is a number without a fraction.
func wholeNumber(v any) bool {
	switch x := v.(type) {
	case int64:
		return true
	case float64:
		return x == math.Trunc(x) && !math.IsInf(x, 0)
	case json.Number:
		_, err := x.Int64()
		return err == nil || !strings.ContainsAny(x.String(), ".eE")
	}
	return false
}

func article(jsonType string) string {
	switch jsonType {
	case "object", "array":
		return "an " + jsonType
	case "":
		return "a value"
	case "bool":
		return "a boolean"
	}
	if strings.HasPrefix(jsonType, "number ") {
		return jsonType // "number 1.5" from an integer field
	}
	return "a " + jsonType
}

// typeName names a Go type the way a manifest author thinks of it.
func typeName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return typeName(t.Elem())
	}
	return t.String()
}

// jsonFields maps the JSON names of a struct's fields, those of embedded structs included,
// to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	// Fields of embedded structs count unless the outer struct has one of the same name.
	for _, et := range embedded {
		for name, ft := range jsonFields(et) {
			if _, ok := out[name]; !ok {
				out[name] = ft
			}
		}
	}
	return out
}

// joinField appends a key to a field path, bracketing keys that are not plain names (label
// keys such as "app.kubernetes.io/name").
func joinField(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return path + "[" + strconv.Quote(key) + "]"
	case path == "":
		return key
	}
	return path + "." + key
}
