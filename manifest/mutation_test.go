package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/nodeplan/nodeplan/internal/mutate"
)

// render is everything a Set holds, as text: two sets that render alike hold the same.
func render(s *Set) string {
	var b strings.Builder
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() || f.Name == "Sources" {
			continue
		}
		data, err := json.Marshal(v.Field(i).Interface())
		if err != nil {
			data = []byte(err.Error())
		}
		fmt.Fprintf(&b, "%s: %s\n", f.Name, data)
	}
	var refs []string
	for ref, src := range s.Sources {
		refs = append(refs, ref.String()+" at "+src.String())
	}
	sort.Strings(refs)
	b.WriteString(strings.Join(refs, "\n"))
	return b.String()
}

// checkParse is what FuzzParse and the mutation test hold of any input: Parse returns a
// set or a non-empty error, never both or neither, and the same answer twice.
func checkParse(t *testing.T, data []byte) {
	t.Helper()
	s1, err1 := Parse(data, "fuzz.yaml")
	s2, err2 := Parse(bytesClone(data), "fuzz.yaml")
	if (err1 == nil) != (s1 != nil) {
		t.Fatalf("Parse returned set %v and error %v", s1 != nil, err1)
	}
	if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
		t.Fatalf("Parse is not deterministic: %v, then %v", err1, err2)
	}
	if err1 != nil {
		if err1.Error() == "" {
			t.Fatal("empty error message")
		}
		return
	}
	if r1, r2 := render(s1), render(s2); r1 != r2 {
		t.Fatalf("Parse is not deterministic:\n%s\nthen\n%s", r1, r2)
	}
}

// checkFastPath: reading documents from their plain JSON (fast.go) gives what the general
// way gives, set or error, to the letter.
func checkFastPath(t *testing.T, data []byte) {
	t.Helper()
	fast, errFast := Parse(data, "fuzz.yaml")
	p := newParser(Limits{})
	p.generalOnly = true
	p.read(data, "fuzz.yaml")
	general, errGeneral := p.finish()
	checkSameAnswer(t, "read from plain JSON", fast, errFast, "read the general way", general, errGeneral)
}

// checkSameAnswer fails unless two reads (named a and b) gave the same set or the same
// error, to the letter.
func checkSameAnswer(t *testing.T, a string, setA *Set, errA error, b string, setB *Set, errB error) {
	t.Helper()
	switch {
	case (errA == nil) != (errB == nil):
		t.Fatalf("%s: %v; %s: %v", a, errA, b, errB)
	case errA != nil && errA.Error() != errB.Error():
		t.Fatalf("%s:\n%v\n%s:\n%v", a, errA, b, errB)
	case errA == nil:
		if r1, r2 := render(setA), render(setB); r1 != r2 {
			t.Fatalf("%s:\n%s\n%s:\n%s", a, r1, b, r2)
		}
	}
}

func bytesClone(b []byte) []byte { return append([]byte(nil), b...) }

func mutationSeeds(t testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isManifestName(d.Name()) {
			return err
		}
		data, err := os.ReadFile(path)
		seeds[path] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return seeds
}

// TestParseMutations runs checkParse on thousands of deterministic mutations of the
// testdata (hostile numbers, broken syntax, lost and repeated lines and documents): what
// FuzzParse explores, in CI and reproducible by case number.
func TestParseMutations(t *testing.T) {
	defer func(n int) { maxExpandedPods = n }(maxExpandedPods)
	maxExpandedPods = 200 // a mutated replicas: 1000 is slow to render twice, not wrong
	cases := 100
	if testing.Short() {
		cases = 25
	}
	seeds := mutationSeeds(t)
	names := make([]string, 0, len(seeds))
	for n := range seeds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			for i := range cases {
				data := mutate.Case(seeds[name], uint64(i))
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("case %d panics: %v\n%s", i, r, data)
						}
					}()
					checkParse(t, data)
					checkFastPath(t, data)
					checkWalkersCutShort(t, data)
				}()
			}
		})
	}
}
