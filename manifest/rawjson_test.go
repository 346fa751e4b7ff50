package manifest

import (
	"testing"
)

// walkCut walks js as fast.go does (every field and element, nested, and the header and null
// checks) and fails on an empty value; a walk past the end of js panics.
func walkCut(t testing.TB, js []byte) {
	t.Helper()
	var walk func(v []byte)
	walk = func(v []byte) {
		if len(v) == 0 {
			t.Fatalf("a walker handed on an empty value of %q", js)
		}
		eachField(v, 0, func(_, value []byte) bool { walk(value); return true })
		eachElement(v, 0, walk)
	}
	eachField(js, 0, func(_, value []byte) bool { walk(value); return true })
	eachElement(js, 0, walk)
	headerOf(js)
	rawNull(js, []string{"spec", "template", "spec"})
}

// checkWalkersCutShort walks the plain JSON of each document of data cut at 32 places
// (FuzzParse and TestParseMutations: Parse never hands the walkers JSON cut short, but they
// must not depend on it).
func checkWalkersCutShort(t testing.TB, data []byte) {
	t.Helper()
	for d := range splitDocuments(data) {
		js, ok := plainDocument(d.data)
		if !ok {
			continue
		}
		for k := range 32 {
			walkCut(t, js[:len(js)*k/32])
		}
	}
}

// TestWalkersOnJSONCutShort cuts the plain JSON of every test manifest at about 500 places
// (and cases that stop inside a key, a string, an escape and after a colon or comma): the walkers
// stay inside it and end. On the old eachField, `{"a` panicked and `{"a"` handed on an empty
// value from past its end.
func TestWalkersOnJSONCutShort(t *testing.T) {
	cases := []string{`{"a"`, `{"a`, `{"a\`, `{"a":`, `{"a": "x\"`, `{"a": "x\\`, `{"a": 1,`, `[1,`, `[{"a": [`, `{"a\"b": {"c": nu`}
	for _, c := range cases {
		walkCut(t, []byte(c))
	}
	docs := 0
	for name, data := range mutationSeeds(t) {
		for d := range splitDocuments(data) {
			js, ok := plainDocument(d.data)
			if !ok {
				continue
			}
			docs++
			for cut := 0; cut < len(js); cut += 1 + len(js)/512 {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s document %d cut at %d of %d: %v", name, d.index, cut, len(js), r)
						}
					}()
					walkCut(t, js[:cut])
				}()
			}
		}
	}
	if docs < 10 {
		t.Fatalf("only %d documents of the test data are plain JSON", docs)
	}
}
