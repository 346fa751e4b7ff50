package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// checkPlainYAML: where yamlToPlainJSON converts a document, the JSON means what
// YAMLToJSONStrict gives (the same values; numbers as the numbers they are); where the
// strict parser refuses a document, yamlToPlainJSON does too.
func checkPlainYAML(t *testing.T, name string, doc []byte) (converted bool) {
	t.Helper()
	js, ok := yamlToPlainJSON(doc)
	want, err := yaml.YAMLToJSONStrict(doc)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("%s: converted a document the YAML parser refuses (%v):\n%s", name, err, doc)
	}
	var got, exp any
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatalf("%s: not JSON (%v): %s\n%s", name, err, js, doc)
	}
	if err := json.Unmarshal(want, &exp); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, exp) {
		g, _ := json.Marshal(got)
		t.Fatalf("%s: read otherwise than the YAML parser reads it:\n%s\ngot  %s\nwant %s", name, doc, g, want)
	}
	return true
}

// TestPlainYAMLReadsAsTheParser: every document of the repository's YAML manifests and test
// data converts to what the YAML parser reads, or is left to it.
func TestPlainYAMLReadsAsTheParser(t *testing.T) {
	var files []string
	for _, root := range []string{"../examples", "../testdata", "testdata", "../tutorial"} {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (filepath.Ext(p) == ".yaml" || filepath.Ext(p) == ".yml") {
				files = append(files, p)
			}
			return nil
		})
	}
	converted, docs := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for d := range splitDocuments(data) {
			docs++
			if checkPlainYAML(t, f, d.data) {
				converted++
			}
		}
	}
	t.Logf("%d of %d documents converted", converted, docs)
	if converted < docs/2 {
		t.Fatalf("only %d of %d documents converted", converted, docs)
	}
}

// TestPlainYAMLCases: the shapes kubectl writes, and the ones left to the parser.
func TestPlainYAMLCases(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want string // "" when left to the parser
	}{
		{"a: 1\nb: x\n", `{"a":1,"b":"x"}`},
		{"a:\n- 1\n- x: y\n  z: '2'\n-\n  - 3\n", `{"a":[1,{"x":true,"z":"2"},[3]]}`},
		{"a: {}\nb: []\nc:\nd: ~\n", `{"a":{},"b":[],"c":null,"d":null}`},
		{"k:{\"type\":\"Ready\"}:\n  .: {}\n", `{"k:{\"type\":\"Ready\"}":{".":{}}}`},
		{"m: 'it''s a long\n  message'\n", `{"m":"it's a long message"}`},
		{"m: a long\n  plain one\n", `{"m":"a long plain one"}`},
		{"m: |\n  line 1\n    line 2\n\n  end\n", `{"m":"line 1\n  line 2\n\nend\n"}`},
		{"m: |-\n  x\nk: 1\n", `{"m":"x","k":1}`},
		{"m: |+\n  x\n\nk: 1\n", `{"m":"x\n\n","k":1}`},
		{"a: \"q\\\"x\"\n", `{"a":"q\"x"}`},
		{"a: true\nb: False\nc: yes\nd: -5\n", `{"a":true,"b":false,"c":true,"d":-5}`},
		{"a: 1.5\n", ""},
		{"a: 0x1F\n", ""},
		{"a: 0b101\n", ""},
		{"a: 0b0ccd3f-6a7c\n", `{"a":"0b0ccd3f-6a7c"}`},
		{"a: 2026-01-01\n", ""},
		{"a: 1\na: 2\n", ""},
		{"<<: {}\n", ""},
		{"a: &x 1\n", ""},
		{"a: [1, 2]\n", ""},
		{"a: 1 # comment\n", ""},
		{"# comment\na: 1\n", ""},
		{"1: a\n", ""},
		{"n: a\n", ""},
		{"a: >\n  folded\n", ""},
		{"a:\n\tb: 1\n", ""},
		{"a: 1\n  b: 2\n", ""},
		{"a: x: y\n", ""},
		{"- a\n- b\n", `["a","b"]`},
	} {
		js, ok := yamlToPlainJSON([]byte(c.doc))
		if c.want == "" {
			if ok {
				t.Errorf("%q: converted to %s, want it left to the parser", c.doc, js)
			}
			continue
		}
		if !ok || string(js) != c.want {
			t.Errorf("%q: got %s (%v), want %s", c.doc, js, ok, c.want)
		}
		checkPlainYAML(t, c.doc, []byte(c.doc))
	}
}

// FuzzPlainYAML: whatever the document, the conversion reads as the parser does, or leaves
// the document to it.
func FuzzPlainYAML(f *testing.F) {
	for _, s := range []string{"a: 1\nb: x\n", "a:\n- 1\n- x: y\n  z: '2'\n", "m: |\n  x\n", "m: 'a\n  b'\n", "k: v\n  w\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if bytes.Contains(doc, []byte("\r")) {
			return
		}
		checkPlainYAML(t, "fuzz", doc)
	})
}
