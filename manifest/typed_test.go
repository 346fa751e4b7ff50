package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	sigsjson "sigs.k8s.io/json"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
	"github.com/nodeplan/nodeplan/internal/gendump"
)

// typedKinds make a fresh object of every kind the parser decodes typed (decode.go's
// readers), by kind.
var typedKinds = map[string]func() any{
	"Pod": func() any { return &corev1.Pod{} }, "Node": func() any { return &corev1.Node{} },
	"PersistentVolumeClaim": func() any { return &corev1.PersistentVolumeClaim{} },
	"PersistentVolume":      func() any { return &corev1.PersistentVolume{} },
	"Namespace":             func() any { return &corev1.Namespace{} },
	"DaemonSet":             func() any { return &appsv1.DaemonSet{} }, "Deployment": func() any { return &appsv1.Deployment{} },
	"ReplicaSet": func() any { return &appsv1.ReplicaSet{} }, "StatefulSet": func() any { return &appsv1.StatefulSet{} },
	"Job":                 func() any { return &batchv1.Job{} },
	"PodDisruptionBudget": func() any { return &policyv1.PodDisruptionBudget{} },
	"StorageClass":        func() any { return &storagev1.StorageClass{} }, "CSINode": func() any { return &storagev1.CSINode{} },
	"Lease":    func() any { return &coordinationv1.Lease{} },
	"NodePool": func() any { return &v1.NodePool{} }, "NodeClaim": func() any { return &v1.NodeClaim{} },
	"EC2NodeClass": func() any { return &awsv1.EC2NodeClass{} },
}

// TestTypedKindsAreTheReaders: typedKinds covers every kind the parser reads.
func TestTypedKindsAreTheReaders(t *testing.T) {
	for k := range readers {
		if typedKinds[k] == nil {
			t.Errorf("typedKinds lacks %s", k)
		}
	}
}

// checkTyped holds decodeTyped to sigs.k8s.io/json's strict decoder on data decoded into
// newT's type: when decodeTyped decodes it, the strict decoder decodes it without an error,
// into an equal object. It reports whether decodeTyped decoded it.
func checkTyped(t *testing.T, data []byte, newT func() any) bool {
	t.Helper()
	fast := newT()
	if !decodeTyped(data, fast) {
		return false
	}
	strict := newT()
	errs, err := sigsjson.UnmarshalStrict(data, strict)
	if err != nil || len(errs) > 0 {
		t.Fatalf("decodeTyped decoded %s into %T, the strict decoder fails: %v %v", data, fast, err, errs)
	}
	if !reflect.DeepEqual(fast, strict) {
		t.Fatalf("%s into %T:\ndecodeTyped %+v\nstrict      %+v", data, fast, fast, strict)
	}
	shared := newT()
	if !decodeTypedShared(data, shared, checkedStrings) || !reflect.DeepEqual(shared, strict) {
		t.Fatalf("%s into %T: decodeTypedShared differs from decodeTyped:\n%+v", data, shared, shared)
	}
	return true
}

// checkedStrings are the strings checkTyped's shared decodes share, across its calls.
var checkedStrings = &stringTable{}

// dumpItems are the objects of a gendump dump, as JSON, with their kinds.
func dumpItems(t testing.TB, pods int) (items [][]byte, kinds []string) {
	var dump bytes.Buffer
	if err := gendump.Write(&dump, gendump.Options{Pods: pods, Seed: 3, JSON: true}); err != nil {
		t.Fatal(err)
	}
	for d := range splitDocuments(dump.Bytes()) {
		eachField(d.data, 0, func(key, value []byte) bool {
			if string(key) == "items" {
				eachElement(value, 0, func(el []byte) {
					m, ok := headerOf(el)
					if !ok {
						t.Fatalf("no header in %s", el)
					}
					items, kinds = append(items, el), append(kinds, m["kind"].(string))
				})
			}
			return true
		})
	}
	return items, kinds
}

// TestDecodeTypedAsStrict: every object of a realistic dump (each kind with its managed
// fields, status, owner references, probes, volumes) is decoded by decodeTyped, into what
// the strict decoder gives; and thousands of mutations of them (values of another type,
// null, unknown, misspelt and repeated fields, escapes, non-ASCII text, hostile numbers,
// [] and {}) are either decoded alike or left to the strict decoder.
func TestDecodeTypedAsStrict(t *testing.T) {
	items, kinds := dumpItems(t, 200)
	seen := map[string]bool{}
	for i, item := range items {
		newT := typedKinds[kinds[i]]
		if newT == nil {
			continue
		}
		seen[kinds[i]] = true
		if !checkTyped(t, item, newT) {
			t.Fatalf("decodeTyped gives up on the dump's %s %s", kinds[i], item)
		}
	}
	for _, k := range []string{"Pod", "Node", "NodeClaim", "NodePool", "EC2NodeClass", "Deployment", "ReplicaSet", "DaemonSet", "PodDisruptionBudget", "Lease"} {
		if !seen[k] {
			t.Errorf("the dump has no %s", k)
		}
	}
	checkMutations(t, 7, func(rng *rand.Rand, _ int) ([]byte, func() any) {
		i := rng.IntN(len(items))
		return mutateJSON(rng, items[i]), typedKinds[kinds[i]]
	}, checkTyped)
}

// checkMutations holds a decoder to its reference on 3,000 mutations (300 with -short):
// mutation gives seed's object (with rng, seeded by seed and salt) and a fresh value of its
// type (nil, nil to skip it), check holds the decoder to the reference on it and reports
// whether the decoder decoded it. Most mutations make an object the strict decoder refuses;
// some must still be decoded.
func checkMutations(t *testing.T, salt uint64, mutation func(rng *rand.Rand, seed int) ([]byte, func() any),
	check func(*testing.T, []byte, func() any) bool) {
	t.Helper()
	cases := 3000
	if testing.Short() {
		cases = 300
	}
	decoded := 0
	for seed := range cases {
		data, newT := mutation(rand.New(rand.NewPCG(uint64(seed), salt)), seed)
		if data == nil || newT == nil {
			continue
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			if check(t, data, newT) {
				decoded++
			}
		})
	}
	t.Logf("%d of %d mutations decoded", decoded, cases)
	if decoded == 0 {
		t.Error("no mutation was decoded")
	}
}

// TestDecodeTypedCases: the standard library's readings of null, empty and odd values.
func TestDecodeTypedCases(t *testing.T) {
	pod := func() any { return &corev1.Pod{} }
	for _, c := range []struct {
		json    string
		decodes bool
	}{
		{`{}`, true},
		{`{"metadata":null,"spec":null,"status":null}`, true},
		{`{"metadata":{"labels":{},"annotations":null,"finalizers":[],"ownerReferences":null}}`, true},
		{`{"metadata":{"creationTimestamp":null,"deletionTimestamp":null,"name":null}}`, true},
		{`{"metadata":{"creationTimestamp":"2026-01-02T03:04:05Z","deletionTimestamp":"2026-01-02T03:04:05Z"}}`, true},
		{`{"metadata":{"name":"caf\u00e9 \"x\" \\ \/ \t"}}`, true},
		{"{\"metadata\":{\"name\":\"café \xff\"}}", true},
		{`{"spec":{"containers":[{"name":"a","resources":{"requests":{"cpu":"100m","memory":null},"limits":{"cpu":1}}}]}}`, true},
		{`{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}],"livenessProbe":{"httpGet":{"port":"http"}}}]}}`, true},
		{`{"spec":{"containers":[{"name":"a","livenessProbe":{"httpGet":{"port":8080}}}]}}`, true},
		{`{"spec":{"priority":-3,"terminationGracePeriodSeconds":0,"hostNetwork":false}}`, true},
		{`{"metadata":{"managedFields":[{"fieldsV1":{"f:spec":{".":{}}},"time":null}]}}`, true},
		{` { "kind" : "Pod" , "apiVersion" : "v1" } `, true},
		{`{"metadata":{"creationTimestamp":"2026-01-02T03:04:05\u005a"}}`, true},
		{`{"metadata":{"managedFields":[{"fieldsV1":{"k:{\"a\":1}":{"\u00e9\/":[1.5e3,-0,true,null]}}}]}}`, true},
		{`{"metadata":{"managedFields":[{"fieldsV1":{"\q":{}}}]}}`, false},
		{`{"metadata":{"managedFields":[{"fieldsV1":{"\u12":{}}}]}}`, false},
		{`{"metadata":{"managedFields":[{"fieldsV1":{"a":01}}]}}`, false},
		{`{"metadata":{"managedFields":[{"fieldsV1":{"a":[1,]}}]}}`, false},
		{`{"metadata":{"labels":{"a":null,"b":"x","c":""}}}`, true},
		{`{"metadata":{"labels":{"a":true}}}`, false},
		{`{"metadata":{"creationTimestamp":"2026-01-02T03:04:05+02:00"}}`, true},
		{`{"metadata":{"creationTimestamp":"2026-13-02T03:04:05Z"}}`, false},
		{`{"metadata":{"creationTimestamp":"2026-01-02"}}`, false},
		{`{"metadata":{"creationTimestamp":""}}`, false},
		{`{"metadata":{"creationTimestamp":1}}`, false},
		{"{\"metadata\":{\"creationTimestamp\":\"2026-01-02T03:04:05Z\xff\"}}", false},
		{`{"spec":{"priority":1.0}}`, false},
		{`{"spec":{"priority":1e2}}`, false},
		{`{"spec":{"priority":2147483648}}`, false},
		{`{"spec":{"priority":"1"}}`, false},
		{`{"spec":{"hostNetwork":"true"}}`, false},
		{`{"metadata":{"name":"a","name":"b"}}`, false},
		{`{"metadata":{"labels":{"a":"1","a":"2"}}}`, false},
		{`{"metadata":{"Name":"a"}}`, false},
		{`{"metadata":{"nome":"a"}}`, false},
		{`{"metadata":{"na\u006de":"a"}}`, false},
		{`{"metadata":{"name":"a"}`, false},
		{`{"metadata":{"name":"a"}} x`, false},
		{`{"metadata":{"name":"a",}}`, false},
		{`{"spec":{"containers":[{"name":"a"},]}}`, false},
		{`{"spec":{"overhead":{"cpu":"x"}}}`, false},
		{`{"metadata":{"labels":{"a":1}}}`, false},
		{`[]`, false},
		{`null`, true},
	} {
		t.Run(c.json, func(t *testing.T) {
			if got := checkTyped(t, []byte(c.json), pod); got != c.decodes {
				t.Errorf("decodeTyped decoded: %v, want %v", got, c.decodes)
			}
		})
	}
}

// mutateJSON damages one JSON object in one to three ways, as JSON.
func mutateJSON(rng *rand.Rand, data []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return data
	}
	for range 1 + rng.IntN(3) {
		v = mutateValue(rng, v, 0)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(rng.IntN(2) == 0)
	if err := enc.Encode(v); err != nil {
		return data
	}
	out := bytes.TrimSpace(b.Bytes())
	if rng.IntN(8) == 0 { // a repeated key, which no map can hold
		if i := bytes.Index(out[1:], []byte(`{"`)); i >= 0 {
			j := bytes.IndexByte(out[i+3:], '"')
			if j >= 0 {
				key := out[i+1 : i+3+j+1]
				dup := append(append([]byte(nil), key...), []byte(`:null,`)...)
				out = append(out[:i+2:i+2], append(dup, out[i+2:]...)...)
			}
		}
	}
	return out
}

var oddValues = []any{nil, true, false, "", "x", "caf\u00e9", "a\"b\\c\n", json.Number("0"), json.Number("-1"),
	json.Number("1.5"), json.Number("1e3"), json.Number("2147483648"), json.Number("9223372036854775808"),
	json.Number("-9223372036854775809"), map[string]any{}, []any{}, "100m", "1Gi", "2026-01-02T03:04:05Z"}

// mutateValue changes one place of v: a value replaced, a key renamed or dropped, a list
// emptied or an element repeated.
func mutateValue(rng *rand.Rand, v any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 || rng.IntN(4) == 0 {
			break
		}
		keys := sortedKeys(x)
		k := keys[rng.IntN(len(keys))]
		if rng.IntN(3) > 0 && depth < 12 {
			x[k] = mutateValue(rng, x[k], depth+1)
			return x
		}
		switch rng.IntN(4) {
		case 0:
			delete(x, k)
		case 1:
			x[strings.ToUpper(k[:1])+k[1:]] = x[k]
			delete(x, k)
		case 2:
			x[k+"x"] = x[k]
		default:
			x[k] = oddValues[rng.IntN(len(oddValues))]
		}
		return x
	case []any:
		if len(x) == 0 || rng.IntN(4) == 0 {
			break
		}
		i := rng.IntN(len(x))
		if rng.IntN(3) > 0 && depth < 12 {
			x[i] = mutateValue(rng, x[i], depth+1)
			return x
		}
		return append(x, x[i])
	}
	return oddValues[rng.IntN(len(oddValues))]
}

// seedOnePerKind adds one item of each kind to f's seeds (large seeds slow the engine).
func seedOnePerKind(f *testing.F) func(items [][]byte, kinds []string) {
	return func(items [][]byte, kinds []string) {
		seeded := map[string]bool{}
		for i, item := range items {
			if !seeded[kinds[i]] {
				seeded[kinds[i]] = true
				f.Add(item)
			}
		}
	}
}

// FuzzDecodeTyped: whatever the bytes, decodeTyped decodes them as the strict decoder does
// (into every kind's type), or gives up.
func FuzzDecodeTyped(f *testing.F) {
	seedOnePerKind(f)(dumpItems(f, 100))
	f.Add([]byte(`{"metadata":{"labels":{},"creationTimestamp":null},"spec":{"containers":[{"resources":{"requests":{"cpu":"1"}}}]}}`))
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, newT := range typedKinds {
			checkTyped(t, data, newT)
		}
	})
}

// TestDecodeTypedSharesStrings: two pods decoded with one string table hold their equal
// label keys and values, names and namespaces once (the same bytes), and decode as without it.
func TestDecodeTypedSharesStrings(t *testing.T) {
	pod := func(name string) []byte {
		return []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","namespace":"shop",` +
			`"labels":{"app.kubernetes.io/name":"web","team":"shop"}},"spec":{"containers":[{"name":"app",` +
			`"resources":{"requests":{"cpu":"1"}}}]}}`)
	}
	strs := &stringTable{}
	var pods [2]corev1.Pod
	for i, name := range []string{"web-1", "web-2"} {
		if !decodeTypedShared(pod(name), &pods[i], strs) {
			t.Fatalf("decodeTypedShared gives up on %s", pod(name))
		}
		var alone corev1.Pod
		if !decodeTyped(pod(name), &alone) || !reflect.DeepEqual(alone, pods[i]) {
			t.Fatalf("%s: shared %+v, alone %+v", name, pods[i], alone)
		}
	}
	same := func(what, a, b string) {
		t.Helper()
		if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
			t.Errorf("%s: %q and %q are not one string", what, a, b)
		}
	}
	same("namespace", pods[0].Namespace, pods[1].Namespace)
	same("container name", pods[0].Spec.Containers[0].Name, pods[1].Spec.Containers[0].Name)
	for k, v := range pods[0].Labels {
		for k2, v2 := range pods[1].Labels {
			if k == k2 {
				same("label key", k, k2)
				same("label value", v, v2)
			}
		}
	}
	var keys [2]corev1.ResourceName
	for i := range pods {
		for k := range pods[i].Spec.Containers[0].Resources.Requests {
			keys[i] = k
		}
	}
	same("resource name", string(keys[0]), string(keys[1]))
}
