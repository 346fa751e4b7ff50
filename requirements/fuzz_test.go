package requirements_test

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
	. "github.com/nodeplan/nodeplan/requirements"
)

// checkBuilt asserts the invariants of a set that parsed successfully: it serialises,
// round-trips, renders, and its Any values satisfy it.
func checkBuilt(t *testing.T, rs Requirements) {
	t.Helper()
	_ = rs.String()
	back, err := FromNodeSelectorRequirements(rs.NodeSelectorRequirements()...)
	if err != nil {
		t.Fatalf("round trip of %s: %v", rs, err)
	}
	if !back.Equal(rs) {
		t.Fatalf("round trip of %s gave %s", rs, back)
	}
	for _, r := range rs {
		if !r.IsEmpty() && !r.Has(r.Any()) {
			t.Fatalf("Any()=%q does not satisfy %s", r.Any(), r)
		}
		if !r.Intersection(r).Equal(r) {
			t.Fatalf("%s ∩ itself changed", r)
		}
	}
	_ = rs.IsCompatible(rs, nil)
}

func FuzzFromNodeSelectorRequirements(f *testing.F) {
	f.Add("topology.kubernetes.io/zone", "In", "z1", "z2", uint8(2), true, 1)
	f.Add("k", "NotIn", "1", "A", uint8(2), false, 0)
	f.Add("k", "Gt", "9223372036854775807", "", uint8(1), true, 3)
	f.Add("k", "Lt", "0", "", uint8(1), false, 0)
	f.Add("k", "Gte", "-1", "", uint8(1), true, -5)
	f.Add("k", "Lte", "12", "", uint8(1), true, 50)
	f.Add("k", "Exists", "", "", uint8(0), false, 0)
	f.Add("k", "DoesNotExist", "x", "", uint8(1), false, 0)
	f.Add("", "Foo", "", "", uint8(3), true, 0)
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, key, op, a, b string, n uint8, withMin bool, minValues int) {
		values := []string{a, b, a}[:n%4]
		nsr := v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOperator(op), Values: values}
		if withMin {
			nsr.MinValues = &minValues
		}
		// Pair it with a second requirement on the same key so intersections are exercised.
		second := v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: corev1.NodeSelectorOperator(op), Values: []string{b}}
		for _, in := range [][]v1.NodeSelectorRequirementWithMinValues{{nsr}, {nsr, second}} {
			rs, err := FromNodeSelectorRequirements(in...)
			if err != nil {
				if rs != nil {
					t.Fatalf("non-nil result with error %v", err)
				}
				continue
			}
			checkBuilt(t, rs)
		}
		if r, err := New(key, op, values...); err == nil {
			checkBuilt(t, NewRequirements(r))
		}
	})
}

func FuzzForPod(f *testing.F) {
	f.Add([]byte(`{"nodeSelector":{"failure-domain.beta.kubernetes.io/zone":"z1"}}`))
	f.Add([]byte(`{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Gt","values":["3"]},{"key":"a","operator":"NotIn","values":["5"]}]}]}}}}`))
	f.Add([]byte(`{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":3,"preference":{"matchExpressions":[{"key":"b","operator":"Foo"}]}}]}}}`))
	f.Add([]byte(`{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n"]}]}]}}}}`))
	f.Add([]byte(`{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[]}}}}`))
	f.Add([]byte(`{"affinity":{}}`))
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var spec corev1.PodSpec
		if err := json.Unmarshal(data, &spec); err != nil {
			return
		}
		pod := &corev1.Pod{Spec: spec}
		pod.Namespace, pod.Name = "ns", "p"
		rs, err := ForPod(pod)
		strict, strictErr := ForPodStrict(pod)
		if (err == nil) != (strictErr == nil) {
			t.Fatalf("ForPod error %v but ForPodStrict error %v", err, strictErr)
		}
		if err != nil {
			return
		}
		checkBuilt(t, rs)
		checkBuilt(t, strict)
		// The preferred term only ever narrows.
		for k := range strict {
			if !rs.Has(k) {
				t.Fatalf("ForPod lost key %q of ForPodStrict", k)
			}
		}
	})
}
