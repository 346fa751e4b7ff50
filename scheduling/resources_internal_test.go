package scheduling

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestVectorArithmeticNeverWraps: sums saturate, and a sum beyond int64 never fits.
func TestVectorArithmeticNeverWraps(t *testing.T) {
	const max, min = math.MaxInt64, math.MinInt64
	assert.False(t, fits2(vec{7 << 60}, vec{1 << 60}, vec{7 << 60}), "8Ei does not fit 7Ei")
	assert.False(t, fits2(vec{max}, vec{1}, vec{max}))
	assert.True(t, fits2(vec{max - 1}, vec{1}, vec{max}))
	assert.True(t, fits2(vec{0}, vec{max}, vec{max}))
	assert.True(t, fits2(vec{-5}, vec{min}, vec{0}), "below MinInt64 is below any limit")

	v := vec{max - 1, min + 1, 5}
	v.add(vec{10, -10, max})
	assert.Equal(t, vec{max, min, max}, v)
	v = vec{min + 1, max - 1, 0}
	v.sub(vec{10, -10, min})
	assert.Equal(t, vec{min, max, max}, v)
	v = vec{3}
	v.sub(vec{5})
	assert.Equal(t, vec{-2}, v)
	assert.Equal(t, int64(7), satAdd(3, 4))
}

func TestResourceIndexFirst(t *testing.T) {
	ri := newResourceIndex()
	ri.add("z.io/x") // built in map order: the name decides among extended resources
	ri.add("a.io/y")
	ext := func(r int) bool { return r >= 4 }
	if got := ri.first(ext); got != "a.io/y" {
		t.Errorf("first extended = %q, want a.io/y", got)
	}
	if got := ri.first(func(r int) bool { return ext(r) || ri.names[r] == "memory" }); got != "memory" {
		t.Errorf("first = %q, want memory (core resources come first)", got)
	}
	if got := ri.first(func(int) bool { return false }); got != "" {
		t.Errorf("first of none = %q, want \"\"", got)
	}
}
