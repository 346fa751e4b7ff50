package gendump

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"sigs.k8s.io/yaml"
)

// listWriter streams the items of one v1 List as kubectl prints it: YAML with the items at
// the List's indentation ("- " then two spaces), or JSON indented by four spaces with every
// object's keys sorted (kubectl prints from unstructured maps).
type listWriter struct {
	w     *bufio.Writer
	json  bool
	items int
	err   error
}

func newListWriter(w io.Writer, asJSON bool) *listWriter {
	lw := &listWriter{w: bufio.NewWriterSize(w, 1<<16), json: asJSON}
	if asJSON {
		lw.w.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [")
	} else {
		lw.w.WriteString("apiVersion: v1\nitems:\n")
	}
	return lw
}

// add writes one item; the first error sticks.
func (lw *listWriter) add(obj any) {
	if lw.err != nil {
		return
	}
	if lw.json {
		lw.err = lw.addJSON(obj)
	} else {
		lw.err = lw.addYAML(obj)
	}
	lw.items++
}

func (lw *listWriter) addYAML(obj any) error {
	b, err := yaml.Marshal(obj)
	if err != nil {
		return err
	}
	prefix := "- "
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		b = b[len(line):]
		lw.w.WriteString(prefix)
		lw.w.Write(line)
		prefix = "  "
	}
	return nil
}

func (lw *listWriter) addJSON(obj any) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "        ", "    ")
	if err != nil {
		return err
	}
	if lw.items > 0 {
		lw.w.WriteString(",")
	}
	lw.w.WriteString("\n        ")
	lw.w.Write(b)
	return nil
}

// close ends the List and flushes it.
func (lw *listWriter) close() error {
	if lw.err != nil {
		return lw.err
	}
	if lw.json {
		if lw.items > 0 {
			lw.w.WriteString("\n    ")
		}
		lw.w.WriteString("],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	} else {
		lw.w.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	}
	return lw.w.Flush()
}
