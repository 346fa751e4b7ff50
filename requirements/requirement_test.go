package requirements

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exp describes an expected requirement shape: derived operator, values and bounds.
type exp struct {
	op       string
	values   []string
	gte, lte *int64
}

func b(n int64) *int64 { return &n }

func checkShape(t *testing.T, r *Requirement, want exp) {
	t.Helper()
	assert.Equal(t, want.op, r.Operator(), "operator of %s", r)
	assert.Equal(t, want.values, slices.Clone(r.Values()), "values of %s", r)
	gte, hasGte, lte, hasLte := r.Bounds()
	if want.gte == nil {
		assert.False(t, hasGte, "unexpected lower bound in %s", r)
	} else if assert.True(t, hasGte, "missing lower bound in %s", r) {
		assert.Equal(t, *want.gte, gte, "lower bound of %s", r)
	}
	if want.lte == nil {
		assert.False(t, hasLte, "unexpected upper bound in %s", r)
	} else if assert.True(t, hasLte, "missing upper bound in %s", r) {
		assert.Equal(t, *want.lte, lte, "upper bound of %s", r)
	}
}

// universe is the sample of values every table row checks Has against.
var universe = []string{"A", "B", "1", "2", "5", "8", "9", "10", "007"}

// TestOperatorPairs covers every pair of the eight operators (both orders), checking the
// intersection's shape, Intersects, and Has over a sample of values.
func TestOperatorPairs(t *testing.T) {
	samples := map[string]*Requirement{
		In:           MustNew("k", In, "1", "9", "A"),
		NotIn:        MustNew("k", NotIn, "1", "B"),
		Exists:       MustNew("k", Exists),
		DoesNotExist: MustNew("k", DoesNotExist),
		Gt:           MustNew("k", Gt, "1"),
		Lt:           MustNew("k", Lt, "9"),
		Gte:          MustNew("k", Gte, "5"),
		Lte:          MustNew("k", Lte, "5"),
	}
	dne := exp{op: DoesNotExist}
	all := slices.Clone(universe)
	tests := []struct {
		a, b string
		want exp
		has  []string
	}{
		{In, In, exp{op: In, values: []string{"1", "9", "A"}}, []string{"A", "1", "9"}},
		{In, NotIn, exp{op: In, values: []string{"9", "A"}}, []string{"A", "9"}},
		{In, Exists, exp{op: In, values: []string{"1", "9", "A"}}, []string{"A", "1", "9"}},
		{In, DoesNotExist, dne, nil},
		{In, Gt, exp{op: In, values: []string{"9"}}, []string{"9"}},
		{In, Lt, exp{op: In, values: []string{"1"}}, []string{"1"}},
		{In, Gte, exp{op: In, values: []string{"9"}}, []string{"9"}},
		{In, Lte, exp{op: In, values: []string{"1"}}, []string{"1"}},

		{NotIn, NotIn, exp{op: NotIn, values: []string{"1", "B"}}, []string{"A", "2", "5", "8", "9", "10", "007"}},
		{NotIn, Exists, exp{op: NotIn, values: []string{"1", "B"}}, []string{"A", "2", "5", "8", "9", "10", "007"}},
		{NotIn, DoesNotExist, dne, nil},
		{NotIn, Gt, exp{op: Exists, gte: b(2)}, []string{"2", "5", "8", "9", "10", "007"}},
		{NotIn, Lt, exp{op: NotIn, values: []string{"1"}, lte: b(8)}, []string{"2", "5", "8", "007"}},
		{NotIn, Gte, exp{op: Exists, gte: b(5)}, []string{"5", "8", "9", "10", "007"}},
		{NotIn, Lte, exp{op: NotIn, values: []string{"1"}, lte: b(5)}, []string{"2", "5"}},

		{Exists, Exists, exp{op: Exists}, all},
		{Exists, DoesNotExist, dne, nil},
		{Exists, Gt, exp{op: Exists, gte: b(2)}, []string{"2", "5", "8", "9", "10", "007"}},
		{Exists, Lt, exp{op: Exists, lte: b(8)}, []string{"1", "2", "5", "8", "007"}},
		{Exists, Gte, exp{op: Exists, gte: b(5)}, []string{"5", "8", "9", "10", "007"}},
		{Exists, Lte, exp{op: Exists, lte: b(5)}, []string{"1", "2", "5"}},

		{DoesNotExist, DoesNotExist, dne, nil},
		{DoesNotExist, Gt, dne, nil},
		{DoesNotExist, Lt, dne, nil},
		{DoesNotExist, Gte, dne, nil},
		{DoesNotExist, Lte, dne, nil},

		{Gt, Gt, exp{op: Exists, gte: b(2)}, []string{"2", "5", "8", "9", "10", "007"}},
		{Gt, Lt, exp{op: Exists, gte: b(2), lte: b(8)}, []string{"2", "5", "8", "007"}},
		{Gt, Gte, exp{op: Exists, gte: b(5)}, []string{"5", "8", "9", "10", "007"}},
		{Gt, Lte, exp{op: Exists, gte: b(2), lte: b(5)}, []string{"2", "5"}},

		{Lt, Lt, exp{op: Exists, lte: b(8)}, []string{"1", "2", "5", "8", "007"}},
		{Lt, Gte, exp{op: Exists, gte: b(5), lte: b(8)}, []string{"5", "8", "007"}},
		{Lt, Lte, exp{op: Exists, lte: b(5)}, []string{"1", "2", "5"}},

		{Gte, Gte, exp{op: Exists, gte: b(5)}, []string{"5", "8", "9", "10", "007"}},
		{Gte, Lte, exp{op: Exists, gte: b(5), lte: b(5)}, []string{"5"}},

		{Lte, Lte, exp{op: Exists, lte: b(5)}, []string{"1", "2", "5"}},
	}
	seen := map[[2]string]bool{}
	for _, tc := range tests {
		for _, pair := range [][2]string{{tc.a, tc.b}, {tc.b, tc.a}} {
			seen[pair] = true
			t.Run(pair[0]+"∩"+pair[1], func(t *testing.T) {
				x, y := samples[pair[0]], samples[pair[1]]
				got := x.Intersection(y)
				checkShape(t, got, tc.want)
				empty := tc.want.op == DoesNotExist
				assert.Equal(t, empty, got.IsEmpty())
				assert.Equal(t, !empty, x.Intersects(y), "Intersects")
				for _, v := range universe {
					assert.Equal(t, slices.Contains(tc.has, v), got.Has(v), "Has(%q) of %s", v, got)
					assert.Equal(t, x.Has(v) && y.Has(v), got.Has(v), "Has(%q) of both", v)
				}
			})
		}
	}
	ops := []string{In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte}
	for _, a := range ops {
		for _, c := range ops {
			assert.True(t, seen[[2]string{a, c}], "pair %s∩%s not covered", a, c)
		}
	}
}

// TestReferenceExamples are the examples of reference sections 2.2 and 6.1.
func TestReferenceExamples(t *testing.T) {
	tests := []struct {
		name string
		a, b *Requirement
		want exp
	}{
		{"In[A]∩In[A,B]", MustNew("k", In, "A"), MustNew("k", In, "A", "B"), exp{op: In, values: []string{"A"}}},
		{"In[A]∩In[B]", MustNew("k", In, "A"), MustNew("k", In, "B"), exp{op: DoesNotExist}},
		{"In[A]∩NotIn[A]", MustNew("k", In, "A"), MustNew("k", NotIn, "A"), exp{op: DoesNotExist}},
		{"In[A]∩NotIn[1,2]", MustNew("k", In, "A"), MustNew("k", NotIn, "1", "2"), exp{op: In, values: []string{"A"}}},
		{"In[A]∩Gt1", MustNew("k", In, "A"), MustNew("k", Gt, "1"), exp{op: DoesNotExist}},
		{"In[1,9]∩Gt1", MustNew("k", In, "1", "9"), MustNew("k", Gt, "1"), exp{op: In, values: []string{"9"}}},
		{"In[1,9]∩Lt9", MustNew("k", In, "1", "9"), MustNew("k", Lt, "9"), exp{op: In, values: []string{"1"}}},
		{"In[1]∩Gt1", MustNew("k", In, "1"), MustNew("k", Gt, "1"), exp{op: DoesNotExist}},
		{"NotIn[1,2]∩NotIn[A]", MustNew("k", NotIn, "1", "2"), MustNew("k", NotIn, "A"), exp{op: NotIn, values: []string{"1", "2", "A"}}},
		{"NotIn[1,2]∩Gt1", MustNew("k", NotIn, "1", "2"), MustNew("k", Gt, "1"), exp{op: NotIn, values: []string{"2"}, gte: b(2)}},
		{"NotIn[1,2]∩Gt9", MustNew("k", NotIn, "1", "2"), MustNew("k", Gt, "9"), exp{op: Exists, gte: b(10)}},
		{"Gt1∩Gt9", MustNew("k", Gt, "1"), MustNew("k", Gt, "9"), exp{op: Exists, gte: b(10)}},
		{"Gt1∩Lt9", MustNew("k", Gt, "1"), MustNew("k", Lt, "9"), exp{op: Exists, gte: b(2), lte: b(8)}},
		{"Gt1∩Lt1", MustNew("k", Gt, "1"), MustNew("k", Lt, "1"), exp{op: DoesNotExist}},
		{"Gt9∩Lt9", MustNew("k", Gt, "9"), MustNew("k", Lt, "9"), exp{op: DoesNotExist}},
		{"Gt4∩Gte5", MustNew("k", Gt, "4"), MustNew("k", Gte, "5"), exp{op: Exists, gte: b(5)}},
		{"Gt5∩Gte5", MustNew("k", Gt, "5"), MustNew("k", Gte, "5"), exp{op: Exists, gte: b(6)}},
		{"Gt3∩Gte6", MustNew("k", Gt, "3"), MustNew("k", Gte, "6"), exp{op: Exists, gte: b(6)}},
		{"Lt5∩Lte5", MustNew("k", Lt, "5"), MustNew("k", Lte, "5"), exp{op: Exists, lte: b(4)}},
		{"Lt9∩Lte5", MustNew("k", Lt, "9"), MustNew("k", Lte, "5"), exp{op: Exists, lte: b(5)}},
		{"Gte0∩Lte MaxInt64 drops the upper bound", MustNew("k", Gte, "0"), MustNew("k", Lte, strconv.FormatInt(math.MaxInt64, 10)), exp{op: Exists, gte: b(0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkShape(t, tc.a.Intersection(tc.b), tc.want)
			checkShape(t, tc.b.Intersection(tc.a), tc.want)
			assert.Equal(t, tc.want.op != DoesNotExist, tc.a.Intersects(tc.b))
			assert.Equal(t, tc.want.op != DoesNotExist, tc.b.Intersects(tc.a))
		})
	}
}

func TestSerialisedBounds(t *testing.T) {
	ser := func(r *Requirement) [][2]string {
		var out [][2]string
		for _, e := range r.NodeSelectorRequirements() {
			out = append(out, [2]string{string(e.Operator), lo(e.Values)})
		}
		return out
	}
	assert.Equal(t, [][2]string{{Gte, "5"}}, ser(MustNew("k", Gt, "4").Intersection(MustNew("k", Gte, "5"))))
	assert.Equal(t, [][2]string{{Gte, "6"}}, ser(MustNew("k", Gt, "5").Intersection(MustNew("k", Gte, "5"))))
	assert.Equal(t, [][2]string{{Gte, "6"}}, ser(MustNew("k", Gt, "3").Intersection(MustNew("k", Gte, "6"))))
	assert.Equal(t, [][2]string{{Lte, "4"}}, ser(MustNew("k", Lt, "5").Intersection(MustNew("k", Lte, "5"))))
	assert.Equal(t, [][2]string{{Lte, "5"}}, ser(MustNew("k", Lt, "9").Intersection(MustNew("k", Lte, "5"))))
	assert.Equal(t, [][2]string{{Gte, "2"}, {Lte, "8"}}, ser(MustNew("k", Gt, "1").Intersection(MustNew("k", Lt, "9"))))
	assert.Equal(t, [][2]string{{Gte, "2"}, {NotIn, "2"}}, ser(MustNew("k", NotIn, "1", "2").Intersection(MustNew("k", Gt, "1"))))
	assert.Equal(t, [][2]string{{Exists, ""}}, ser(MustNew("k", Exists)))
	assert.Equal(t, [][2]string{{DoesNotExist, ""}}, ser(MustNew("k", Gt, strconv.FormatInt(math.MaxInt64, 10))))
	assert.Equal(t, [][2]string{{In, "a b"}}, ser(MustNew("k", In, "b", "a", "b")))
	assert.Equal(t, [][2]string{{NotIn, "a"}}, ser(MustNew("k", NotIn, "a")))
}

func lo(vs []string) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += " "
		}
		s += v
	}
	return s
}

func TestBoundsHas(t *testing.T) {
	gte2, lte8 := MustNew("k", Gte, "2"), MustNew("k", Lte, "8")
	assert.True(t, gte2.Has("2"))
	assert.True(t, gte2.Has("3"))
	assert.False(t, gte2.Has("1"))
	assert.False(t, gte2.Has("x"))
	assert.True(t, lte8.Has("8"))
	assert.True(t, lte8.Has("0"))
	assert.False(t, lte8.Has("9"))
	assert.True(t, gte2.Equal(MustNew("k", Gt, "1")), "Gte2 is Gt1")
	assert.True(t, lte8.Equal(MustNew("k", Lt, "9")), "Lte8 is Lt9")
	gte0, lte0 := MustNew("k", Gte, "0"), MustNew("k", Lte, "0")
	assert.True(t, gte0.Has("0"))
	assert.False(t, gte0.Has("-1"))
	assert.True(t, lte0.Has("0"))
	assert.False(t, lte0.Has("1"))
	// Values parse like strconv.ParseInt: signs and leading zeros are accepted.
	assert.True(t, gte2.Has("+7"))
	assert.True(t, gte2.Has("007"))
	assert.False(t, gte2.Has("9223372036854775808"), "overflow is not an integer")
}

func TestEmptyBounds(t *testing.T) {
	gtMax := MustNew("k", Gt, strconv.FormatInt(math.MaxInt64, 10))
	assert.Equal(t, DoesNotExist, gtMax.Operator())
	assert.Equal(t, 0, gtMax.Len())
	assert.True(t, gtMax.IsEmpty())
	lt0 := MustNew("k", Lt, "0")
	assert.Equal(t, DoesNotExist, lt0.Operator())
	assert.True(t, lt0.IsEmpty())
	assert.False(t, lt0.Has("0"))
}

func TestMinValues(t *testing.T) {
	a := MustNew("k", Exists).WithMinValues(1)
	c := MustNew("k", In, "A", "B").WithMinValues(2)
	got := a.Intersection(c)
	checkShape(t, got, exp{op: In, values: []string{"A", "B"}})
	assert.Equal(t, 2, got.MinValues())
	assert.Equal(t, 2, c.Intersection(a).MinValues())
	// DoesNotExist keeps minValues, also when produced by empty bounds.
	assert.Equal(t, 3, MustNew("k", DoesNotExist).Intersection(MustNew("k", In, "A").WithMinValues(3)).MinValues())
	assert.Equal(t, 3, MustNew("k", Gt, "9").WithMinValues(3).Intersection(MustNew("k", Lt, "9")).MinValues())
	assert.Equal(t, 0, a.WithMinValues(0).MinValues())
	assert.Equal(t, 0, a.WithMinValues(-4).MinValues())
	assert.Equal(t, 1, a.MinValues(), "WithMinValues copies")
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		op     string
		values []string
		msg    string
	}{
		{"Foo", nil, `requirement on key "k": unsupported operator "Foo"`},
		{In, nil, `requirement on key "k": operator In requires at least one value`},
		{Exists, []string{"a"}, `requirement on key "k": operator Exists takes no values, got 1`},
		{DoesNotExist, []string{"a"}, `requirement on key "k": operator DoesNotExist takes no values, got 1`},
		{Gt, nil, `requirement on key "k": operator Gt requires exactly one value, got 0`},
		{Lt, []string{"1", "2"}, `requirement on key "k": operator Lt requires exactly one value, got 2`},
		{Gte, []string{"-1"}, `requirement on key "k": operator Gte requires a non-negative integer, got "-1"`},
		{Lte, []string{"x"}, `requirement on key "k": operator Lte requires a non-negative integer, got "x"`},
		{Gt, []string{""}, `requirement on key "k": operator Gt requires a non-negative integer, got ""`},
		{Gt, []string{"+1"}, `requirement on key "k": operator Gt requires a non-negative integer, got "+1"`},
		{Gt, []string{"1.5"}, `requirement on key "k": operator Gt requires a non-negative integer, got "1.5"`},
		{Gt, []string{"9223372036854775808"}, `requirement on key "k": operator Gt requires a non-negative integer, got "9223372036854775808"`},
	}
	for _, tc := range tests {
		_, err := New("k", tc.op, tc.values...)
		assert.EqualError(t, err, tc.msg)
	}
	assert.Panics(t, func() { MustNew("k", "Foo") })
}

func TestNewNormalisesAndCopies(t *testing.T) {
	vals := []string{"b", "a", "b"}
	r := MustNew("failure-domain.beta.kubernetes.io/zone", In, vals...)
	assert.Equal(t, "topology.kubernetes.io/zone", r.Key)
	assert.Equal(t, []string{"a", "b"}, r.Values())
	vals[0] = "zzz"
	assert.Equal(t, []string{"a", "b"}, r.Values(), "New must not retain its argument")
	for old, stable := range map[string]string{
		"failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
		"beta.kubernetes.io/arch":                  "kubernetes.io/arch",
		"beta.kubernetes.io/os":                    "kubernetes.io/os",
		"beta.kubernetes.io/instance-type":         "node.kubernetes.io/instance-type",
	} {
		assert.Equal(t, stable, MustNew(old, Exists).Key)
	}
	assert.Equal(t, Exists, MustNew("k", NotIn).Operator(), "NotIn without values is Exists")
}

func TestAny(t *testing.T) {
	assert.Equal(t, "5", MustNew("k", Gte, "5").Any())
	assert.Equal(t, "0", MustNew("k", Lte, "10").Any())
	assert.Equal(t, "0", MustNew("k", Exists).Any())
	assert.Equal(t, "2", MustNew("k", NotIn, "0", "1", "a").Any())
	assert.Equal(t, "a", MustNew("k", In, "c", "a", "b").Any())
	assert.Equal(t, "", MustNew("k", DoesNotExist).Any())
	// Every plain spelling in range excluded: a padded spelling still satisfies it.
	r := MustNew("k", NotIn, "2", "3").Intersection(MustNew("k", Gte, "2")).Intersection(MustNew("k", Lte, "3"))
	assert.Equal(t, "02", r.Any())
	assert.True(t, r.Has(r.Any()))
	for i := 0; i < 3; i++ {
		assert.Equal(t, "3", MustNew("k", NotIn, "1", "2").Intersection(MustNew("k", Gt, "0")).Any(), "deterministic")
	}
}

func TestLenAndOperator(t *testing.T) {
	assert.Equal(t, 2, MustNew("k", In, "a", "b").Len())
	assert.Equal(t, math.MaxInt-1, MustNew("k", NotIn, "a").Len())
	assert.Equal(t, math.MaxInt, MustNew("k", Exists).Len())
	assert.Equal(t, 0, MustNew("k", DoesNotExist).Len())
	assert.Equal(t, Exists, MustNew("k", Gt, "3").Operator())
}

func TestString(t *testing.T) {
	assert.Equal(t, "k In [a b]", MustNew("k", In, "b", "a").String())
	assert.Equal(t, "k In [1 2 3 4 5 and 2 others]", MustNew("k", In, "1", "2", "3", "4", "5", "6", "7").String())
	assert.Equal(t, "k Exists >=2 <=8 minValues 3", MustNew("k", Gt, "1").Intersection(MustNew("k", Lt, "9")).WithMinValues(3).String())
	assert.Equal(t, "k NotIn [2] >=2", MustNew("k", NotIn, "1", "2").Intersection(MustNew("k", Gt, "1")).String())
	assert.Equal(t, "k DoesNotExist", MustNew("k", DoesNotExist).String())
}

func TestEqualAndHash(t *testing.T) {
	a := MustNew("k", In, "a", "b")
	assert.True(t, a.Equal(MustNew("k", In, "b", "a", "a")))
	assert.Equal(t, a.Hash(), MustNew("k", In, "b", "a").Hash())
	assert.False(t, a.Equal(MustNew("k", NotIn, "a", "b")))
	assert.False(t, a.Equal(MustNew("j", In, "a", "b")))
	assert.False(t, a.Equal(a.WithMinValues(1)))
	assert.NotEqual(t, a.Hash(), a.WithMinValues(1).Hash())
	assert.NotEqual(t, MustNew("k", In, "ab").Hash(), MustNew("k", In, "a", "b").Hash())
	assert.False(t, MustNew("k", Gte, "1").Equal(MustNew("k", Lte, "1")))
	assert.True(t, (*Requirement)(nil).Equal(nil))
	assert.False(t, a.Equal(nil))
}

func TestParseIntMatchesStrconv(t *testing.T) {
	for _, s := range []string{"", "0", "-0", "+0", "007", "-", "+", "1_000", "12a", " 1", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "-9223372036854775809", "99999999999999999999", "0x10", "١"} {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseInt(s)
		require.Equal(t, err == nil, ok, "%q", s)
		if ok {
			require.Equal(t, want, got, "%q", s)
		}
	}
}

func TestTypoHintInternals(t *testing.T) {
	assert.Equal(t, 1, editDistance("topology.kubernetes.io/regio", "topology.kubernetes.io/region"))
	assert.Equal(t, 3, editDistance("kitten", "sitting"))
	assert.Equal(t, 1, editDistance("exmaple", "example"))
	assert.Equal(t, 0, editDistance("", ""))
	assert.Equal(t, 3, editDistance("", "abc"))
	assert.Equal(t, 3, editDistance("abc", ""))
	assert.Equal(t, 3, editDistance("ca", "abc")) // OSA, not full Damerau
	assert.Equal(t, "zone", labelName("topology.kubernetes.io/zone"))
	assert.Equal(t, "zone", labelName("zone"))
}
