package requirements_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	. "github.com/nodeplan/nodeplan/requirements"
)

const zone = v1.LabelTopologyZone

func reqs(rs ...*Requirement) Requirements { return NewRequirements(rs...) }

func TestCompatibleUndefinedKeys(t *testing.T) {
	incoming := map[string]*Requirement{
		In:           MustNew(zone, In, "z1"),
		NotIn:        MustNew(zone, NotIn, "z1"),
		Exists:       MustNew(zone, Exists),
		DoesNotExist: MustNew(zone, DoesNotExist),
		Gt:           MustNew(zone, Gt, "1"),
		Lt:           MustNew(zone, Lt, "1"),
		Gte:          MustNew(zone, Gte, "1"),
		Lte:          MustNew(zone, Lte, "1"),
	}
	strictOK := map[string]bool{NotIn: true, DoesNotExist: true}
	empty := Requirements{}
	for op, r := range incoming {
		t.Run(op, func(t *testing.T) {
			// allowUndefined well-known: an empty receiver accepts everything on zone.
			assert.NoError(t, empty.Compatible(reqs(r), AllowUndefinedWellKnownLabels()))
			assert.True(t, empty.IsCompatible(reqs(r), AllowUndefinedWellKnownLabels()))
			// strict: only negative operators pass.
			err := empty.Compatible(reqs(r), nil)
			assert.Equal(t, strictOK[op], err == nil, "strict %s: %v", op, err)
			assert.Equal(t, strictOK[op], empty.IsCompatible(reqs(r), nil))
			if err != nil {
				assert.EqualError(t, err, `label "topology.kubernetes.io/zone" does not have known values`)
			}
		})
	}
	// A NotIn with an integer bound needs the label to exist.
	bounded := MustNew("k", NotIn, "5").Intersection(MustNew("k", Gt, "1"))
	assert.Error(t, empty.Compatible(reqs(bounded), nil))
	// A custom key in allowUndefined is accepted too.
	assert.NoError(t, empty.Compatible(reqs(MustNew("size", In, "large")), AllowUndefinedWellKnownLabels("size")))
}

func TestCompatibleTable(t *testing.T) {
	tests := []struct {
		name         string
		node, pod    *Requirement
		compatible   bool
		intersecting bool
	}{
		{"Exists vs DoesNotExist", MustNew("k", Exists), MustNew("k", DoesNotExist), false, false},
		{"DoesNotExist vs Exists", MustNew("k", DoesNotExist), MustNew("k", Exists), false, false},
		{"DoesNotExist vs NotIn[A]", MustNew("k", DoesNotExist), MustNew("k", NotIn, "A"), true, true},
		{"NotIn[A] vs DoesNotExist", MustNew("k", NotIn, "A"), MustNew("k", DoesNotExist), true, true},
		{"DoesNotExist vs DoesNotExist", MustNew("k", DoesNotExist), MustNew("k", DoesNotExist), true, true},
		{"DoesNotExist vs In[A]", MustNew("k", DoesNotExist), MustNew("k", In, "A"), false, false},
		{"In[A] vs NotIn[1,2]", MustNew("k", In, "A"), MustNew("k", NotIn, "1", "2"), true, true},
		{"In[A] vs NotIn[A]", MustNew("k", In, "A"), MustNew("k", NotIn, "A"), false, false},
		{"In[A] vs Gt1", MustNew("k", In, "A"), MustNew("k", Gt, "1"), false, false},
		{"In[A] vs Lt9", MustNew("k", In, "A"), MustNew("k", Lt, "9"), false, false},
		{"In[A] vs In[1]", MustNew("k", In, "A"), MustNew("k", In, "1"), false, false},
		{"In[A,B] vs In[B,C]", MustNew("k", In, "A", "B"), MustNew("k", In, "B", "C"), true, true},
		{"In[16] vs Gt8", MustNew("k", In, "16"), MustNew("k", Gt, "8"), true, true},
		{"Gt8 vs Lt4", MustNew("k", Gt, "8"), MustNew("k", Lt, "4"), false, false},
		{"NotIn[A] vs NotIn[A]", MustNew("k", NotIn, "A"), MustNew("k", NotIn, "A"), true, true},
		{"In[test-value] vs NotIn[test-value]", MustNew("k", In, "test-value"), MustNew("k", NotIn, "test-value"), false, false},
		{"In[test-value] vs Exists", MustNew("k", In, "test-value"), MustNew("k", Exists), true, true},
		{"In[test-value] vs DoesNotExist", MustNew("k", In, "test-value"), MustNew("k", DoesNotExist), false, false},
		{"In[test-value] vs NotIn[another]", MustNew("k", In, "test-value"), MustNew("k", NotIn, "another"), true, true},
		{"bounded NotIn vs bounded NotIn, disjoint bounds", MustNew("k", NotIn, "5").Intersection(MustNew("k", Gt, "1")),
			MustNew("k", NotIn, "0").Intersection(MustNew("k", Lt, "1")), false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node, pod := reqs(tc.node), reqs(tc.pod)
			for _, allow := range []KeySet{nil, AllowUndefinedWellKnownLabels("k")} {
				err := node.Compatible(pod, allow)
				assert.Equal(t, tc.compatible, err == nil, "Compatible: %v", err)
				assert.Equal(t, tc.compatible, node.IsCompatible(pod, allow))
			}
			err := node.Intersects(pod)
			assert.Equal(t, tc.intersecting, err == nil, "Intersects: %v", err)
			assert.Equal(t, tc.intersecting, node.HasIntersection(pod))
			if err != nil {
				assert.EqualError(t, err, fmt.Sprintf("key %q: %s not in %s", "k", tc.pod, tc.node))
			}
		})
	}
}

func TestIntersectsOnlySharedKeys(t *testing.T) {
	node := reqs(MustNew("a", In, "1"), MustNew("b", In, "1"))
	pod := reqs(MustNew("b", In, "1"), MustNew("c", In, "x"))
	assert.NoError(t, node.Intersects(pod))
	assert.True(t, node.HasIntersection(pod))
	assert.True(t, pod.HasIntersection(node))
	// The first failing key in sorted order is named.
	node = reqs(MustNew("a", In, "1"), MustNew("b", In, "1"), MustNew("c", In, "1"))
	pod = reqs(MustNew("c", In, "2"), MustNew("b", In, "2"))
	for i := 0; i < 20; i++ {
		assert.EqualError(t, node.Intersects(pod), `key "b": b In [2] not in b In [1]`)
	}
	assert.False(t, node.HasIntersection(pod))
	assert.False(t, pod.HasIntersection(node))
}

func TestCompatibleNamesFirstKey(t *testing.T) {
	node := reqs(MustNew("b", In, "1"))
	pod := reqs(MustNew("b", In, "2"), MustNew("a", In, "x"), MustNew("c", In, "y"))
	for i := 0; i < 20; i++ {
		assert.EqualError(t, node.Compatible(pod, nil), `label "a" does not have known values`)
	}
	pod = reqs(MustNew("b", In, "2"), MustNew("c", In, "y"))
	assert.EqualError(t, node.Compatible(pod, nil), `key "b": b In [2] not in b In [1]`)
}

// TestConflict: the key that makes two sets incompatible and why, per kind of failure; the
// first key in sorted order when several fail; always the key Compatible's error names.
func TestConflict(t *testing.T) {
	node := reqs(MustNew("b", In, "1"), MustNew("d", DoesNotExist), MustNew("n", Gt, "4"))
	tests := []struct {
		name  string
		node  Requirements
		pod   Requirements
		allow KeySet
		key   string
		kind  ConflictKind
	}{
		{"compatible", node, reqs(MustNew("b", In, "1", "2"), MustNew("n", In, "8")), nil, "", NoConflict},
		{"empty incoming", node, Requirements{}, nil, "", NoConflict},
		{"disjoint values", node, reqs(MustNew("b", In, "2")), nil, "b", Disjoint},
		{"exists vs DoesNotExist", node, reqs(MustNew("d", Exists)), nil, "d", Disjoint},
		{"bound vs value", node, reqs(MustNew("n", Lt, "3")), nil, "n", Disjoint},
		{"undefined key", node, reqs(MustNew("a", In, "x")), nil, "a", Undefined},
		{"undefined but allowed", node, reqs(MustNew("a", In, "x")), KeySet{"a": true}, "", NoConflict},
		{"undefined negative", node, reqs(MustNew("a", NotIn, "x")), nil, "", NoConflict},
		{"undefined bounded NotIn", node, reqs(MustNew("a", NotIn, "5").Intersection(MustNew("a", Gt, "1"))), nil, "a", Undefined},
		{"first sorted key wins over kind", node, reqs(MustNew("c", In, "y"), MustNew("b", In, "2")), nil, "b", Disjoint},
		{"first sorted key, undefined first", node, reqs(MustNew("b", In, "2"), MustNew("a", In, "x")), nil, "a", Undefined},
		{"both negative", reqs(MustNew("k", NotIn, "1")), reqs(MustNew("k", DoesNotExist)), nil, "", NoConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 10; i++ { // map order must not matter
				key, kind := tc.node.Conflict(tc.pod, tc.allow)
				assert.Equal(t, tc.key, key)
				assert.Equal(t, tc.kind, kind)
			}
			err := tc.node.Compatible(tc.pod, tc.allow)
			assert.Equal(t, tc.kind == NoConflict, err == nil, "Compatible: %v", err)
			assert.Equal(t, tc.kind == NoConflict, tc.node.IsCompatible(tc.pod, tc.allow))
			if err != nil {
				assert.Contains(t, err.Error(), fmt.Sprintf("%q", tc.key), "Compatible's error names Conflict's key")
			}
		})
	}
}

func TestTypoHints(t *testing.T) {
	tests := []struct {
		key  string
		hint string
	}{
		{"zone", "topology.kubernetes.io/zone"},
		{"region", "topology.kubernetes.io/region"},
		{"nodepool", "karpenter.sh/nodepool"},
		{"instance-type", "node.kubernetes.io/instance-type"},
		{"arch", "kubernetes.io/arch"},
		{"capacity-type", "karpenter.sh/capacity-type"},
		{"topology.kubernetes.io/regio", "topology.kubernetes.io/region"},
		{"karpenter/nodepool", "karpenter.sh/nodepool"},
		{"karpenter.sh/capacitytype", "karpenter.sh/capacity-type"},
		{"kubernetes.io/zone", "topology.kubernetes.io/zone"},
		{"instance", "node.kubernetes.io/instance-type"},
		{"my.org/tier", "example.com/tier"}, // a receiver key
		{"exmaple.com/team", "example.com/team"},
		{"test-key", ""},
		{"foo", ""},
		{"x", ""},
	}
	node := reqs(MustNew("example.com/tier", In, "gold"), MustNew("example.com/team", In, "a"))
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			want := fmt.Sprintf("label %q does not have known values", tc.key)
			if tc.hint != "" {
				want += fmt.Sprintf(" (typo of %q?)", tc.hint)
			}
			for i := 0; i < 5; i++ {
				assert.EqualError(t, node.Compatible(reqs(MustNew(tc.key, In, "v")), nil), want)
				assert.EqualError(t, node.Compatible(reqs(MustNew(tc.key, In, "v")), AllowUndefinedWellKnownLabels()), want)
			}
		})
	}
	// Keys in allowUndefined are candidates too.
	err := Requirements{}.Compatible(reqs(MustNew("sise", In, "v")), KeySet{"fake.io/size": true})
	assert.EqualError(t, err, `label "sise" does not have known values`)
	err = Requirements{}.Compatible(reqs(MustNew("size", In, "v")), KeySet{"fake.io/size": true})
	assert.EqualError(t, err, `label "size" does not have known values (typo of "fake.io/size"?)`)
}

func TestFromNodeSelectorRequirements(t *testing.T) {
	two := 2
	rs, err := FromNodeSelectorRequirements(
		v1.NodeSelectorRequirementWithMinValues{Key: "beta.kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64", "arm64"}, MinValues: &two},
		v1.NodeSelectorRequirementWithMinValues{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"arm64"}},
		v1.NodeSelectorRequirementWithMinValues{Key: "cpu", Operator: corev1.NodeSelectorOpGt, Values: []string{"3"}},
	)
	require.NoError(t, err)
	assert.Equal(t, []string{"cpu", "kubernetes.io/arch"}, rs.Keys())
	arch := rs.Get("beta.kubernetes.io/arch")
	assert.Equal(t, []string{"amd64"}, arch.Values())
	assert.Equal(t, 2, arch.MinValues())
	assert.True(t, rs.HasMinValues())
	assert.True(t, rs.Has("beta.kubernetes.io/arch"))

	_, err = FromNodeSelectorRequirements(
		v1.NodeSelectorRequirementWithMinValues{Key: "a", Operator: corev1.NodeSelectorOpExists},
		v1.NodeSelectorRequirementWithMinValues{Key: "b", Operator: "Foo"},
	)
	assert.EqualError(t, err, `requirements[1] (key "b", operator "Foo"): unsupported operator "Foo"`)
	neg := -1
	_, err = FromNodeSelectorRequirements(v1.NodeSelectorRequirementWithMinValues{Key: "a", Operator: corev1.NodeSelectorOpExists, MinValues: &neg})
	assert.EqualError(t, err, `requirements[0] (key "a", operator "Exists"): minValues must not be negative, got -1`)

	core, err := FromCoreNodeSelectorRequirements(corev1.NodeSelectorRequirement{Key: "a", Operator: corev1.NodeSelectorOpLt, Values: []string{"4"}})
	require.NoError(t, err)
	assert.Equal(t, "a Exists <=3", core.String())
	_, err = FromCoreNodeSelectorRequirements(corev1.NodeSelectorRequirement{Key: "a", Operator: corev1.NodeSelectorOpLt, Values: []string{"x"}})
	assert.EqualError(t, err, `requirements[0] (key "a", operator "Lt"): operator Lt requires a non-negative integer, got "x"`)
}

func TestRoundTripWithMinValues(t *testing.T) {
	rs := reqs(
		MustNew("a", In, "x", "y").WithMinValues(2),
		MustNew("b", NotIn, "1", "7").Intersection(MustNew("b", Gt, "1")).WithMinValues(1),
		MustNew("c", Gte, "2").Intersection(MustNew("c", Lte, "9")),
		MustNew("d", DoesNotExist).WithMinValues(3),
		MustNew("e", Exists),
	)
	nsrs := rs.NodeSelectorRequirements()
	back, err := FromNodeSelectorRequirements(nsrs...)
	require.NoError(t, err)
	assert.True(t, rs.Equal(back), "%s != %s", rs, back)
	assert.Equal(t, rs.Hash(), back.Hash())
	for _, e := range nsrs {
		if e.Key == "b" {
			require.NotNil(t, e.MinValues)
			assert.Equal(t, 1, *e.MinValues)
		}
	}
}

func TestFromLabelsAndLabels(t *testing.T) {
	rs := FromLabels(map[string]string{"failure-domain.beta.kubernetes.io/zone": "z1", "team": "a"})
	assert.Equal(t, []string{"team", zone}, rs.Keys())
	assert.Equal(t, map[string]string{zone: "z1", "team": "a"}, rs.Labels())
	rs.Add(MustNew("multi", In, "a", "b"), MustNew("x", Exists), nil)
	assert.Equal(t, map[string]string{zone: "z1", "team": "a"}, rs.Labels())
}

func TestSetOperations(t *testing.T) {
	a := reqs(MustNew("k", In, "1", "2"), MustNew("j", Exists))
	c := reqs(MustNew("k", In, "2", "3"), MustNew("m", In, "x"))
	u := a.Union(c)
	assert.Equal(t, "j Exists, k In [2], m In [x]", u.String())
	assert.Equal(t, "j Exists, k In [1 2]", a.String(), "Union does not modify its receiver")
	cp := a.Copy()
	cp.Add(MustNew("k", In, "1"))
	assert.Equal(t, []string{"1", "2"}, a.Get("k").Values())
	assert.Equal(t, Exists, a.Get("undefined").Operator())
	assert.Equal(t, "undefined", a.Get("undefined").Key)
	assert.False(t, a.Has("undefined"))
	// String hides the hostname.
	h := reqs(MustNew(v1.LabelHostname, In, "n1"), MustNew("k", In, "v"))
	assert.Equal(t, "k In [v]", h.String())
	assert.Len(t, h.NodeSelectorRequirements(), 2)
	assert.Equal(t, v1.LabelHostname, h.NodeSelectorRequirements()[1].Key)
}

func TestForPod(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"failure-domain.beta.kubernetes.io/zone": "z1", "team": "a"},
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
					{MatchExpressions: []corev1.NodeSelectorRequirement{
						{Key: zone, Operator: corev1.NodeSelectorOpIn, Values: []string{"z1", "z2"}},
						{Key: "beta.kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}},
					}},
					{MatchExpressions: []corev1.NodeSelectorRequirement{
						{Key: "second", Operator: corev1.NodeSelectorOpExists},
					}},
				}},
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
					{Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "light", Operator: corev1.NodeSelectorOpExists}}}},
					{Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "heavy", Operator: corev1.NodeSelectorOpIn, Values: []string{"1"}}}}},
					{Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "heavy-later", Operator: corev1.NodeSelectorOpExists}}}},
				},
			}},
		},
	}
	rs, err := ForPod(pod)
	require.NoError(t, err)
	assert.Equal(t, "heavy In [1], kubernetes.io/arch In [arm64], team In [a], topology.kubernetes.io/zone In [z1]", rs.String())
	strict, err := ForPodStrict(pod)
	require.NoError(t, err)
	assert.Equal(t, "kubernetes.io/arch In [arm64], team In [a], topology.kubernetes.io/zone In [z1]", strict.String())

	empty, err := ForPod(nil)
	require.NoError(t, err)
	assert.Empty(t, empty)
	empty, err = ForPod(&corev1.Pod{})
	require.NoError(t, err)
	assert.Empty(t, empty)
}

func TestForPodErrors(t *testing.T) {
	base := func(na *corev1.NodeAffinity) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec:       corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: na}},
		}
	}
	required := func(terms ...corev1.NodeSelectorTerm) *corev1.NodeAffinity {
		return &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}
	}
	ok := corev1.NodeSelectorRequirement{Key: "a", Operator: corev1.NodeSelectorOpExists}
	tests := []struct {
		name string
		na   *corev1.NodeAffinity
		msg  string
	}{
		{"unsupported operator", required(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{ok, {Key: "b", Operator: "Foo"}}}),
			`pod default/web: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].operator: unsupported operator "Foo"`},
		{"bad operand", required(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "b", Operator: corev1.NodeSelectorOpGt, Values: []string{"x"}}}}),
			`pod default/web: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: operator Gt requires a non-negative integer, got "x"`},
		{"In without values in a later term", required(corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{ok}}, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "b", Operator: corev1.NodeSelectorOpIn}}}),
			`pod default/web: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions[0].values: operator In requires at least one value`},
		{"matchFields", required(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n"}}}}),
			`pod default/web: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields: not supported`},
		{"preferred", &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
			{Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{ok}}},
			{Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "b", Operator: corev1.NodeSelectorOpExists, Values: []string{"v"}}}}},
		}},
			`pod default/web: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[1].preference.matchExpressions[0].values: operator Exists takes no values, got 1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ForPod(base(tc.na))
			assert.EqualError(t, err, tc.msg)
			_, err = ForPodStrict(base(tc.na))
			assert.EqualError(t, err, tc.msg)
		})
	}
}

// TestNoAllocations checks that the matching predicates never allocate.
func TestNoAllocations(t *testing.T) {
	node := reqs(
		MustNew(zone, In, "z1", "z2", "z3"),
		MustNew(v1.LabelArch, In, "amd64"),
		MustNew("cpu", Gt, "3"),
		MustNew("team", NotIn, "b"),
	)
	podOK := reqs(MustNew(zone, In, "z2"), MustNew("cpu", In, "16"), MustNew("team", NotIn, "c"), MustNew(v1.CapacityTypeLabelKey, In, "spot"))
	podBad := reqs(MustNew(zone, In, "z9"), MustNew("undefined", In, "x"), MustNew("cpu", In, "abc"))
	allow := AllowUndefinedWellKnownLabels()
	r := node[zone]
	in := MustNew("k", In, "5", "6", "7")
	bounded := MustNew("k", Gt, "5").Intersection(MustNew("k", NotIn, "7"))
	checks := map[string]func(){
		"Requirement.Has":        func() { r.Has("z2"); r.Has("zz"); bounded.Has("abc"); bounded.Has("99999999999999999999") },
		"Requirement.Intersects": func() { r.Intersects(podOK[zone]); in.Intersects(bounded); bounded.Intersects(in); in.Intersects(in) },
		"Requirement.Equal":      func() { r.Equal(podOK[zone]) },
		"Requirement.Hash":       func() { r.Hash() },
		"Requirements.IsCompatible": func() {
			node.IsCompatible(podOK, allow)
			node.IsCompatible(podBad, allow)
			node.IsCompatible(podBad, nil)
		},
		"Requirements.HasIntersection": func() { node.HasIntersection(podOK); node.HasIntersection(podBad) },
		"Requirements.Conflict":        func() { node.Conflict(podOK, allow); node.Conflict(podBad, nil) },
	}
	for name, f := range checks {
		assert.Zero(t, testing.AllocsPerRun(100, f), name)
	}
	assert.True(t, node.IsCompatible(podOK, allow))
	assert.False(t, node.IsCompatible(podBad, allow))
}
