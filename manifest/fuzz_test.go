package manifest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
)

// FuzzParse checks that no input makes Parse panic, and that it answers the same way twice.
func FuzzParse(f *testing.F) {
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isManifestName(d.Name()) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if len(data) <= 4<<10 { // large seeds slow the engine to a few execs/s
			f.Add(data)
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		kubectlDump,
		nodeClassV1,
		`{"apiVersion": "v1", "kind": "PodList", "items": [{"metadata": {"name": "p"}}]}`,
		"apiVersion: v1\nkind: List\nitems: [[{kind: List, apiVersion: v1, items: [~]}]]\n",
		"--- {apiVersion: v1, kind: Node, metadata: {name: a}}\n...\n",
		"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s}\nspec: {replicas: 2, selector: {}, template: {}, volumeClaimTemplates: [{metadata: {name: d}}]}\n",
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 3, completions: -1, template: {}}\n",
		"a: &a [*a]\n",
		"\xef\xbb\xbf[1, 2, {]",
	} {
		f.Add([]byte(seed))
	}
	// Keep each run short: expanding many pods is slow, not wrong.
	defer func(n int) { maxExpandedPods = n }(maxExpandedPods)
	maxExpandedPods = 100
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data)
		checkFastPath(t, data)
		checkWalkersCutShort(t, data)
	})
}

// TestParseDamagedInputs parses the testdata files cut short and with bytes changed, which
// must give a set or an error, never a panic.
func TestParseDamagedInputs(t *testing.T) {
	defer func(n int) { maxExpandedPods = n }(maxExpandedPods)
	maxExpandedPods = 1000
	for _, name := range []string{"testdata/general-purpose.yaml", "testdata/scenarios/disrupt-empty-node.yaml", "testdata/sock-shop.yaml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(data); i += 1 + len(data)/100 {
			if s, err := Parse(data[:i], name); (s == nil) == (err == nil) {
				t.Fatalf("%s cut at %d: set %v, error %v", name, i, s != nil, err)
			}
			changed := append([]byte(nil), data...)
			changed[i] = "-:{[ \n#9\"'"[i%10]
			if s, err := Parse(changed, name); (s == nil) == (err == nil) {
				t.Fatalf("%s changed at %d: set %v, error %v", name, i, s != nil, err)
			}
		}
	}
}
