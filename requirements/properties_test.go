package requirements_test

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	. "github.com/nodeplan/nodeplan/requirements"
)

// valueUniverse is the small set of values requirements are built from; probeValues adds
// spellings that only the integer bounds can tell apart.
var (
	valueUniverse = []string{"A", "B", "0", "1", "2", "5", "9", "10", "007"}
	probeValues   = append(slices.Clone(valueUniverse), "", "x", "3", "4", "6", "7", "8", "11", "12", "13", "+5", "-1", "05",
		strconv.FormatInt(math.MaxInt64, 10), "99999999999999999999")
	keyUniverse = []string{"a", "b", "c"}
	allOps      = []string{In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte}
)

// operandGen draws an integer operand: mostly small, sometimes the extremes.
var operandGen = rapid.Custom(func(t *rapid.T) string {
	if rapid.IntRange(0, 9).Draw(t, "extreme") == 0 {
		return strconv.FormatInt(rapid.SampledFrom([]int64{0, math.MaxInt64, math.MaxInt64 - 1}).Draw(t, "extremeOperand"), 10)
	}
	return strconv.FormatInt(rapid.Int64Range(0, 12).Draw(t, "operand"), 10)
})

// baseGen draws one requirement straight from an operator on key.
func baseGen(key string) *rapid.Generator[*Requirement] {
	return rapid.Custom(func(t *rapid.T) *Requirement {
		op := rapid.SampledFrom(allOps).Draw(t, "op")
		var values []string
		switch op {
		case In:
			values = rapid.SliceOfN(rapid.SampledFrom(valueUniverse), 1, 4).Draw(t, "inValues")
		case NotIn:
			values = rapid.SliceOfN(rapid.SampledFrom(valueUniverse), 0, 4).Draw(t, "notInValues")
		case Gt, Lt, Gte, Lte:
			values = []string{operandGen.Draw(t, "boundOperand")}
		}
		r, err := New(key, op, values...)
		if err != nil {
			t.Fatalf("New(%q, %q, %q): %v", key, op, values, err)
		}
		return r
	})
}

// reqGen draws a requirement on key: a base requirement intersected with up to two more
// (so bounded NotIns and two-sided bounds appear), with an optional minValues.
func reqGen(key string) *rapid.Generator[*Requirement] {
	return rapid.Custom(func(t *rapid.T) *Requirement {
		r := baseGen(key).Draw(t, "base")
		if rapid.IntRange(0, 5).Draw(t, "forceBoundedNotIn") == 0 {
			// A NotIn with an integer bound is rare by chance but semantically tricky.
			notIn := MustNew(key, NotIn, rapid.SliceOfN(rapid.SampledFrom(valueUniverse), 1, 4).Draw(t, "excluded")...)
			bound := MustNew(key, rapid.SampledFrom([]string{Gt, Lt, Gte, Lte}).Draw(t, "boundOp"), operandGen.Draw(t, "bound"))
			r = notIn.Intersection(bound)
		}
		for i, n := 0, rapid.IntRange(0, 2).Draw(t, "extraTerms"); i < n; i++ {
			r = r.Intersection(baseGen(key).Draw(t, "extra"))
		}
		return r.WithMinValues(rapid.IntRange(0, 3).Draw(t, "minValues"))
	})
}

// requirementsGen draws a set over keyUniverse.
var requirementsGen = rapid.Custom(func(t *rapid.T) Requirements {
	rs := Requirements{}
	for _, k := range keyUniverse {
		if rapid.Bool().Draw(t, "define_"+k) {
			rs.Add(reqGen(k).Draw(t, "req_"+k))
		}
	}
	return rs
})

// labelsGen draws a label set over keyUniverse and valueUniverse.
var labelsGen = rapid.Custom(func(t *rapid.T) map[string]string {
	labels := map[string]string{}
	for _, k := range keyUniverse {
		if rapid.Bool().Draw(t, "has_"+k) {
			labels[k] = rapid.SampledFrom(probeValues).Draw(t, "value_"+k)
		}
	}
	return labels
})

// sameSet checks that a and b admit the same probe values and have the same bounds.
func sameSet(t *rapid.T, a, b *Requirement) {
	for _, v := range probeValues {
		if a.Has(v) != b.Has(v) {
			t.Fatalf("Has(%q): %s says %v, %s says %v", v, a, a.Has(v), b, b.Has(v))
		}
	}
	ag, ahg, al, ahl := a.Bounds()
	bg, bhg, bl, bhl := b.Bounds()
	if ahg != bhg || ahl != bhl || (ahg && ag != bg) || (ahl && al != bl) {
		t.Fatalf("bounds differ: %s vs %s", a, b)
	}
	if !a.Equal(b) {
		t.Fatalf("not Equal: %s vs %s", a, b)
	}
}

func TestPropIntersectionCommutative(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := reqGen("k").Draw(t, "a"), reqGen("k").Draw(t, "b")
		sameSet(t, a.Intersection(b), b.Intersection(a))
		if a.Intersects(b) != b.Intersects(a) {
			t.Fatalf("Intersects not symmetric for %s, %s", a, b)
		}
	})
}

func TestPropIntersectionAssociative(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b, c := reqGen("k").Draw(t, "a"), reqGen("k").Draw(t, "b"), reqGen("k").Draw(t, "c")
		sameSet(t, a.Intersection(b).Intersection(c), a.Intersection(b.Intersection(c)))
	})
}

func TestPropIntersectionIdempotent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := reqGen("k").Draw(t, "a")
		sameSet(t, a.Intersection(a), a)
	})
}

func TestPropExistsIdentityDoesNotExistAbsorbs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := reqGen("k").Draw(t, "a")
		exists, dne := MustNew("k", Exists), MustNew("k", DoesNotExist)
		sameSet(t, exists.Intersection(a), a)
		sameSet(t, a.Intersection(exists), a)
		want := dne.WithMinValues(a.MinValues())
		sameSet(t, dne.Intersection(a), want)
		sameSet(t, a.Intersection(dne), want)
		if a.Intersects(dne) || dne.Intersects(a) {
			t.Fatalf("%s intersects DoesNotExist", a)
		}
	})
}

func TestPropIntersectsIffNonEmpty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := reqGen("k").Draw(t, "a"), reqGen("k").Draw(t, "b")
		in := a.Intersection(b)
		if a.Intersects(b) != !in.IsEmpty() {
			t.Fatalf("Intersects(%s, %s)=%v but intersection %s IsEmpty=%v", a, b, a.Intersects(b), in, in.IsEmpty())
		}
		if in.MinValues() != max(a.MinValues(), b.MinValues()) {
			t.Fatalf("minValues of %s", in)
		}
	})
}

func TestPropHasOfIntersection(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := reqGen("k").Draw(t, "a"), reqGen("k").Draw(t, "b")
		in := a.Intersection(b)
		probes := append(slices.Clone(probeValues), rapid.String().Draw(t, "extraProbe"))
		for _, v := range probes {
			if in.Has(v) != (a.Has(v) && b.Has(v)) {
				t.Fatalf("Has(%q): %s ∩ %s = %s", v, a, b, in)
			}
		}
	})
}

func TestPropAnyAndEmptiness(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := reqGen("k").Draw(t, "a")
		if a.IsEmpty() {
			for _, v := range probeValues {
				if a.Has(v) {
					t.Fatalf("empty %s has %q", a, v)
				}
			}
			return
		}
		if v := a.Any(); !a.Has(v) || v != a.Any() {
			t.Fatalf("Any()=%q of %s", v, a)
		}
	})
}

// satisfies is the label-by-label oracle: for each key of rs, a present label must be in the
// requirement, and an absent one needs a negative (unbounded NotIn or DoesNotExist) requirement.
func satisfies(labels map[string]string, rs Requirements) bool {
	for k, r := range rs {
		if v, ok := labels[k]; ok {
			if !r.Has(v) {
				return false
			}
			continue
		}
		_, hasGte, _, hasLte := r.Bounds()
		if op := r.Operator(); (op != NotIn && op != DoesNotExist) || hasGte || hasLte {
			return false
		}
	}
	return true
}

func TestPropCompatibleMatchesLabels(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		labels := labelsGen.Draw(t, "labels")
		rs := requirementsGen.Draw(t, "requirements")
		want := satisfies(labels, rs)
		node := FromLabels(labels)
		err := node.Compatible(rs, nil)
		if (err == nil) != want {
			t.Fatalf("labels %v vs %s: oracle %v, Compatible %v", labels, rs, want, err)
		}
		if node.IsCompatible(rs, nil) != want {
			t.Fatalf("IsCompatible disagrees with oracle %v", want)
		}
	})
}

func TestPropBooleanFormsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := requirementsGen.Draw(t, "a"), requirementsGen.Draw(t, "b")
		var allow KeySet
		if rapid.Bool().Draw(t, "allowSomeUndefined") {
			allow = KeySet{rapid.SampledFrom(keyUniverse).Draw(t, "allowedKey"): true}
		}
		if (a.Compatible(b, allow) == nil) != a.IsCompatible(b, allow) {
			t.Fatalf("Compatible/IsCompatible disagree on %s vs %s", a, b)
		}
		if (a.Intersects(b) == nil) != a.HasIntersection(b) {
			t.Fatalf("Intersects/HasIntersection disagree on %s vs %s", a, b)
		}
		if a.HasIntersection(b) != b.HasIntersection(a) {
			t.Fatalf("HasIntersection not symmetric on %s vs %s", a, b)
		}
		// Compatible is Intersects plus the undefined-key rule.
		if a.IsCompatible(b, allow) && !a.HasIntersection(b) {
			t.Fatalf("compatible but not intersecting: %s vs %s", a, b)
		}
	})
}

func TestPropRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.SampledFrom([]string{"k", v1.LabelTopologyZone, "beta.kubernetes.io/arch"}).Draw(t, "key")
		r := reqGen(key).Draw(t, "r")
		back, err := FromNodeSelectorRequirements(r.NodeSelectorRequirements()...)
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		if got := back.Get(r.Key); !got.Equal(r) || len(back) != 1 {
			t.Fatalf("round trip of %s gave %s", r, back)
		}
		rs := requirementsGen.Draw(t, "rs")
		backs, err := FromNodeSelectorRequirements(rs.NodeSelectorRequirements()...)
		if err != nil || !backs.Equal(rs) || backs.Hash() != rs.Hash() || backs.String() != rs.String() {
			t.Fatalf("round trip of %s gave %s (%v)", rs, backs, err)
		}
	})
}

func TestPropOrderIndependent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var list []*Requirement
		for i, n := 0, rapid.IntRange(0, 6).Draw(t, "n"); i < n; i++ {
			list = append(list, reqGen(rapid.SampledFrom(keyUniverse).Draw(t, "key")).Draw(t, "req"))
		}
		perm := rapid.Permutation(list).Draw(t, "perm")
		a, b := NewRequirements(list...), NewRequirements(perm...)
		if !a.Equal(b) || a.Hash() != b.Hash() || a.String() != b.String() {
			t.Fatalf("%s vs %s", a, b)
		}
	})
}
