package manifest

import (
	"encoding/json"
	"strconv"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Decoding each object once. A document in the plain subset (JSON as rawjson.go checks it,
// or YAML as kubectl writes it, converted by yamlToPlainJSON) is read where it lies: the
// fields object() looks at (apiVersion, kind, metadata.name and namespace, items) are cut out
// of its JSON, a List's items are cut out by byte offsets, and each object's JSON is decoded
// straight into its typed object. Before, each document was parsed into a map, encoded again,
// parsed into a map again, and every item of a List encoded once more for the typed decoder:
// 11 s of CPU and 1.35 GB for a 20k-pod `kubectl get -o yaml` dump. Anything outside the
// subset, and every object of an unusual shape (an interruption message, a List item without
// its kind), takes the general path, and errors read as they did (decode re-reads an object
// that fails as the general path did).

// plainDocument is the plain JSON of a document, when it is in the plain subset.
func plainDocument(data []byte) ([]byte, bool) {
	i := skipSpace(data, 0)
	if i < len(data) && (data[i] == '{' || data[i] == '[') {
		if isPlainJSON(data) {
			return data, true
		}
		return nil, false
	}
	return yamlToPlainJSON(data)
}

// rawItems are the items of a List, as JSON, in a header map.
type rawItems []byte

// rawField stands for a field of a header map that object() only checks the presence of.
type rawField struct{}

// headerOf is what object() reads of the object whose plain JSON is raw: apiVersion and kind
// (non-empty strings), metadata with its name and namespace (strings, when given), items as
// rawItems, and every other field as a rawField. ok is false for an object to read as a map:
// not an object, an interruption message, one without apiVersion or kind, or one whose header
// fields are not plain strings.
func headerOf(raw []byte) (m map[string]any, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	m = map[string]any{}
	ok = true
	eachField(raw, i, func(key, value []byte) bool {
		switch string(key) {
		case "apiVersion", "kind":
			s, plain := plainString(value)
			if !plain || s == "" || s == InterruptionKind {
				ok = false
			}
			m[string(key)] = s
		case "metadata":
			md := map[string]any{}
			if len(value) == 0 || value[0] != '{' {
				ok = false
			}
			eachField(value, 0, func(k, v []byte) bool {
				if string(k) == "name" || string(k) == "namespace" {
					s, plain := plainString(v)
					ok = ok && plain
					md[string(k)] = s
				}
				return ok
			})
			m["metadata"] = md
		case "items":
			if value[0] != '[' && string(value) != "null" {
				ok = false // the general path names what items holds instead of a list
			}
			m["items"] = rawItems(value)
		case "source", "detail-type", "Messages":
			ok = false // an interruption message (interruption.go)
		default:
			m[string(key)] = rawField{}
		}
		return ok
	})
	if _, has := m["kind"]; !has {
		ok = false
	}
	if _, has := m["apiVersion"]; !has {
		ok = false
	}
	return m, ok
}

// fullMap is the map the general path reads raw into.
func fullMap(raw []byte) (map[string]any, bool) {
	var v any
	if err := utiljson.Unmarshal(raw, &v); err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// rawDocument reads a document whose plain JSON is js; false (having read nothing) when it
// is not one object.
func (p *parser) rawDocument(src Source, js []byte) bool {
	if i := skipSpace(js, 0); i >= len(js) || js[i] != '{' {
		return false
	}
	p.rawObject(src, js, true, "", "", 0)
	return true
}

// rawObject reads the object whose plain JSON is raw, an item of a list unless whole.
func (p *parser) rawObject(src Source, raw []byte, whole bool, apiVersion, kind string, depth int) {
	if m, ok := headerOf(raw); ok {
		p.object(src, m, raw, apiVersion, kind, depth, true)
		return
	}
	m, ok := fullMap(raw)
	if !ok { // not an object: an item such as null, 3 or "x"
		var v any
		if err := utiljson.Unmarshal(raw, &v); err != nil {
			p.fail(src, ObjectRef{}, "", err)
			return
		}
		p.value(src, v, apiVersion, kind, depth)
		return
	}
	if !whole {
		raw = nil // as the general path, which encodes an item's map again
	}
	p.object(src, m, raw, apiVersion, kind, depth, false)
}

// rawList reads the items of a List from their JSON.
func (p *parser) rawList(src Source, items rawItems, apiVersion, itemKind string, depth int) {
	i := 0
	eachElement(items, 0, func(el []byte) {
		item := src
		item.Item = joinItem(src.Item, "items["+strconv.Itoa(i)+"]")
		i++
		p.rawObject(item, el, false, apiVersion, itemKind, depth+1)
	})
}

// fields is o's JSON as a map, decoded when o was read from its header only.
func (o *object) fields() map[string]any {
	if o.headerOnly {
		if m, ok := fullMap(o.raw); ok {
			o.m = m
		}
		o.headerOnly = false
	}
	return o.m
}

// canonicalJSON is o's JSON as the general path encodes it (keys sorted), so that the typed
// decoder's errors come in the same order.
func (o *object) canonicalJSON() []byte {
	b, err := json.Marshal(o.fields())
	if err != nil {
		return o.raw
	}
	return b
}

// rawNull reports whether the field at path of the JSON object raw is given as null, and
// whether it was found.
func rawNull(raw []byte, path []string) (null bool, found bool, at int) {
	cur := raw
	for i, k := range path {
		var next []byte
		eachField(cur, 0, func(key, value []byte) bool {
			if string(key) == k {
				next = value
				return false
			}
			return true
		})
		if next == nil {
			return false, false, i
		}
		if string(next) == "null" {
			return true, true, i
		}
		if next[0] != '{' {
			return false, false, i
		}
		cur = next
	}
	return false, false, len(path)
}
