package manifest

import (
	"bytes"
	"encoding/json"
)

// plainJSON returns what yaml.YAMLToJSONStrict returns for data when data is "plain" JSON
// (isPlainJSON, rawjson.go): one object or array of printable ASCII strings whose only
// escapes YAML reads as JSON does, true, false, null and integers that fit int64, with no
// duplicate or merge ("<<") keys. Generated manifests are such JSON, one document a line,
// and the YAML parser is most of the cost of reading them. ok is false for anything else —
// there YAML reads it differently or errors, and the caller uses YAML.
func plainJSON(data []byte) (js []byte, ok bool) {
	if !isPlainJSON(data) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // integers stay as written, as YAML's ints marshal
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	js, err := json.Marshal(v)
	return js, err == nil
}

const (
	plainMaxDepth  = 64
	plainMaxKeyLen = 512 // YAML limits implicit keys to 1024 characters
)
