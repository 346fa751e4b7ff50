package requirements_test

import (
	"strconv"
	"testing"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	. "github.com/nodeplan/nodeplan/requirements"
)

var sinkBool bool

func manyValues(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

func BenchmarkIntersects(b *testing.B) {
	cases := []struct {
		name string
		a, c *Requirement
	}{
		{"In/In-small", MustNew("k", In, "z1", "z2", "z3"), MustNew("k", In, "z3")},
		{"In/In-500-disjoint", MustNew("k", In, manyValues("a", 500)...), MustNew("k", In, manyValues("b", 500)...)},
		{"In/NotIn", MustNew("k", In, "z1", "z2", "z3"), MustNew("k", NotIn, "z1", "z2")},
		{"In/Gt", MustNew("k", In, "2", "4", "8", "16"), MustNew("k", Gt, "8")},
		{"Gt/Lt", MustNew("k", Gt, "1"), MustNew("k", Lt, "9")},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBool = tc.a.Intersects(tc.c)
			}
		})
	}
}

func BenchmarkHas(b *testing.B) {
	cases := []struct {
		name string
		r    *Requirement
		v    string
	}{
		{"In-3", MustNew("k", In, "z1", "z2", "z3"), "z2"},
		{"In-500", MustNew("k", In, manyValues("t", 500)...), "t250"},
		{"NotIn", MustNew("k", NotIn, "z1"), "z2"},
		{"Gt-integer", MustNew("k", Gt, "4"), "16"},
		{"Gt-non-integer", MustNew("k", Gt, "4"), "large"},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBool = tc.r.Has(tc.v)
			}
		})
	}
}

func BenchmarkIsCompatible(b *testing.B) {
	nodeClaim := NewRequirements(
		MustNew(v1.LabelTopologyZone, In, "z1", "z2", "z3"),
		MustNew(v1.CapacityTypeLabelKey, In, v1.CapacityTypeSpot, v1.CapacityTypeOnDemand),
		MustNew(v1.LabelArch, In, v1.ArchitectureAmd64),
		MustNew(v1.LabelOS, In, "linux"),
		MustNew(v1.NodePoolLabelKey, In, "default"),
		MustNew(v1.LabelInstanceType, In, manyValues("m5.", 100)...),
		MustNew("example.com/cpu", Gt, "3"),
	)
	offering := NewRequirements(
		MustNew(v1.LabelTopologyZone, In, "z2"),
		MustNew(v1.CapacityTypeLabelKey, In, v1.CapacityTypeSpot),
	)
	pod := NewRequirements(
		MustNew(v1.LabelTopologyZone, In, "z2", "z3"),
		MustNew(v1.LabelArch, In, v1.ArchitectureAmd64),
		MustNew("example.com/cpu", In, "8"),
		MustNew("example.com/team", NotIn, "batch"),
	)
	badPod := NewRequirements(MustNew("example.com/undefined", In, "x"))
	allow := AllowUndefinedWellKnownLabels()
	cases := []struct {
		name     string
		incoming Requirements
		allow    KeySet
	}{
		{"offering", offering, allow},
		{"pod", pod, allow},
		{"pod-strict", pod, nil},
		{"undefined-key", badPod, allow},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkBool = nodeClaim.IsCompatible(tc.incoming, tc.allow)
			}
		})
	}
}

func BenchmarkIntersection(b *testing.B) {
	a, c := MustNew("k", In, manyValues("t", 100)...), MustNew("k", NotIn, manyValues("t", 50)...)
	b.ReportAllocs()
	for b.Loop() {
		_ = a.Intersection(c)
	}
}
