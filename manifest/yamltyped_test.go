package manifest

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
	"github.com/nodeplan/nodeplan/internal/gendump"
	"github.com/nodeplan/nodeplan/internal/mutate"
)

// checkYAMLTyped holds the one-pass decoder to the two passes it replaces: when it decodes
// the List item into newT's type, yamlToPlainJSON converts the item and decodeTyped decodes
// its JSON into an equal object (also when the one pass shares strings and drops FieldsV1
// values, which are then the only difference). It reports whether the one pass decoded it.
func checkYAMLTyped(t *testing.T, item []byte, newT func() any) bool {
	t.Helper()
	var y yamlTyped
	fast := newT()
	if !y.item(item, fast) {
		return false
	}
	js, ok := yamlToPlainJSON(item)
	if !ok || len(js) < 2 || js[0] != '[' {
		t.Fatalf("the one pass decoded %q into %T, yamlToPlainJSON gives up on it", item, fast)
	}
	ref := newT()
	if !decodeTyped(js[1:len(js)-1], ref) {
		t.Fatalf("the one pass decoded %q into %T, decodeTyped gives up on its JSON %s", item, fast, js)
	}
	if !reflect.DeepEqual(fast, ref) {
		t.Fatalf("%q into %T:\none pass %+v\nJSON     %+v", item, fast, fast, ref)
	}
	dropped := newT()
	y = yamlTyped{strs: checkedStrings, dropFieldsV1: true}
	if !y.item(item, dropped) {
		t.Fatalf("%q into %T: decoded, but not when sharing strings and dropping FieldsV1", item, fast)
	}
	if m, ok := ref.(metav1.Object); ok {
		m.SetManagedFields(nil)
		dropped.(metav1.Object).SetManagedFields(nil)
	}
	if !reflect.DeepEqual(dropped, ref) {
		t.Fatalf("%q into %T, sharing strings and dropping FieldsV1:\none pass %+v\nJSON     %+v", item, fast, dropped, ref)
	}
	return true
}

// yamlDumpItems are the items of a gendump dump as kubectl writes it (YAML), with their kinds.
func yamlDumpItems(t testing.TB, pods int) (items [][]byte, kinds []string) {
	var dump bytes.Buffer
	if err := gendump.Write(&dump, gendump.Options{Pods: pods, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	text := dump.String()
	start, end := strings.Index(text, "\nitems:\n"), strings.LastIndex(text, "\nkind: List")
	if start < 0 || end < start {
		t.Fatal("the dump is not a List as kubectl writes it")
	}
	for _, it := range strings.Split(text[start+len("\nitems:\n"):end+1], "\n- ") {
		if !strings.HasPrefix(it, "- ") {
			it = "- " + it
		}
		if !strings.HasSuffix(it, "\n") {
			it += "\n"
		}
		_, k, ok := itemHeader([]byte(it))
		if !ok {
			t.Fatalf("no header in %q", it)
		}
		items, kinds = append(items, []byte(it)), append(kinds, k)
	}
	return items, kinds
}

// asItem is the List item kubectl writes for the JSON object js (go-yaml's emitter, as
// kubectl's), or nil.
func asItem(js []byte) []byte {
	y, err := yaml.JSONToYAML(js)
	if err != nil || len(y) == 0 {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(string(y), "\n"), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = "- " + lines[i]
		} else if lines[i] != "" {
			lines[i] = "  " + lines[i]
		}
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// TestYAMLTypedAsJSON: every item of a realistic dump is decoded in one pass, into what its
// JSON gives; and thousands of mutations of them (as JSON written back as kubectl writes it:
// values of another type, null, unknown, misspelt and repeated fields, escapes, hostile
// numbers; and as text: broken, lost and repeated lines, hostile numbers) are either decoded
// alike or left to the JSON reading.
func TestYAMLTypedAsJSON(t *testing.T) {
	items, kinds := yamlDumpItems(t, 200)
	seen := map[string]bool{}
	for i, item := range items {
		if !onePassKinds[kinds[i]] {
			continue
		}
		seen[kinds[i]] = true
		if !checkYAMLTyped(t, item, typedKinds[kinds[i]]) {
			t.Fatalf("the one pass gives up on the dump's %s %s", kinds[i], item)
		}
	}
	for _, k := range []string{"Pod", "Node", "NodeClaim", "Deployment", "ReplicaSet", "DaemonSet", "PodDisruptionBudget", "Lease"} {
		if !seen[k] {
			t.Errorf("the dump has no %s", k)
		}
	}
	jsonItems, jsonKinds := dumpItems(t, 200)
	checkMutations(t, 11, func(rng *rand.Rand, seed int) ([]byte, func() any) {
		if seed%2 == 0 {
			i := rng.IntN(len(jsonItems))
			return asItem(mutateJSON(rng, jsonItems[i])), typedKinds[jsonKinds[i]]
		}
		i := rng.IntN(len(items))
		return mutate.Case(items[i], uint64(seed)), typedKinds[kinds[i]]
	}, checkYAMLTyped)
}

// TestYAMLTypedCases: the shapes of YAML the one pass reads, and those it leaves to the JSON.
func TestYAMLTypedCases(t *testing.T) {
	pod := func() any { return &corev1.Pod{} }
	for _, c := range []struct {
		yaml    string
		decodes bool
	}{
		{"- apiVersion: v1\n  kind: Pod\n", true},
		{"- metadata:\n    labels: {}\n    annotations:\n    finalizers: []\n", true},
		{"- metadata:\n    labels:\n      a:\n      b: x\n      c: ''\n      d: \"q\\\"\"\n", true},
		{"- metadata:\n    labels:\n      a: 1\n", false},
		{"- metadata:\n    labels:\n      a:\n        b: c\n", false},
		{"- metadata:\n    labels:\n      a: x\n      a: y\n", false},
		{"- metadata:\n    name: a\n    name: b\n", false},
		{"- metadata:\n    nome: a\n", false},
		{"- metadata:\n    \"na\\\\me\": a\n", false},
		{"- metadata:\n    'name': a\n", true},
		{"- metadata:\n    creationTimestamp: null\n    deletionTimestamp: \"2026-01-02T03:04:05Z\"\n", true},
		{"- metadata:\n    creationTimestamp: 2026-01-02T03:04:05Z\n", false},
		{"- metadata:\n    managedFields:\n    - fieldsV1:\n        f:spec:\n          .: {}\n          k:{\"a\":1}: {}\n      time: \"2026-01-02T03:04:05Z\"\n", true},
		{"- metadata:\n    managedFields:\n    - fieldsV1:\n      - 1\n      - x\n", true},
		{"- spec:\n    containers:\n    - name: a\n      resources:\n        requests:\n          cpu: 100m\n          memory: 1Gi\n        limits:\n          cpu: 1\n", true},
		{"- spec:\n    containers:\n    - name: a\n      ports:\n      - containerPort: 80\n      livenessProbe:\n        httpGet:\n          port: http\n", true},
		{"- spec:\n    containers:\n    -\n      name: a\n    - name: b\n", true},
		{"- spec:\n    containers:\n    -\n      name: a\n    -\n", false}, // a struct given as null
		{"- spec:\n    tolerations:\n    - key: a\n      operator: Exists\n    priority: -3\n    hostNetwork: false\n", true},
		{"- spec:\n    priority: 1.5\n", false},
		{"- spec:\n    priority: \"1\"\n", false},
		{"- spec:\n    hostNetwork: yes\n", true},
		{"- spec:\n", false},
		{"- spec: null\n", false},
		{"- spec: {}\n  status: {}\n", true},
		{"- metadata:\n    name: a long\n      plain name\n", true},
		{"- metadata:\n    annotations:\n      a: |\n        line 1\n        line 2\n", true},
		{"- metadata:\n    name: a # comment\n", false},
		{"- metadata:\n    name: [a]\n", false},
		{"- metadata:\n    name: a\n  - x\n", false},
		{"- metadata:\n    name: a\n- kind: Pod\n", false},
		{"- metadata:\n      name: a\n    labels: {}\n", false},
		{"- x\n", false},
		{"-\n  metadata: {}\n", false},
	} {
		t.Run(c.yaml, func(t *testing.T) {
			if got := checkYAMLTyped(t, []byte(c.yaml), pod); got != c.decodes {
				t.Errorf("decoded in one pass: %v, want %v", got, c.decodes)
			}
		})
	}
}

// FuzzYAMLTyped: whatever the item, the one pass decodes it (into every kind's type) as its
// JSON is decoded, or leaves it to the JSON reading.
func FuzzYAMLTyped(f *testing.F) {
	seedOnePerKind(f)(yamlDumpItems(f, 100))
	f.Add([]byte("- metadata:\n    labels: {}\n    creationTimestamp: null\n  spec:\n    containers:\n    - resources:\n        requests:\n          cpu: '1'\n"))
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, item []byte) {
		for _, newT := range typedKinds {
			checkYAMLTyped(t, item, newT)
		}
	})
}
