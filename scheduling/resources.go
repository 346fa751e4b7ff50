package scheduling

import (
	"math"
	"math/bits"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/internal/quantity"
)

// resourceIndex maps resource names to positions in a vec. cpu is in millicores, everything
// else in whole units (bytes, counts).
type resourceIndex struct {
	names []corev1.ResourceName
	pos   map[corev1.ResourceName]int
}

// vec is a resource vector laid out by a resourceIndex.
type vec []int64

func newResourceIndex() *resourceIndex {
	ri := &resourceIndex{pos: map[corev1.ResourceName]int{}}
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage} {
		ri.add(n)
	}
	return ri
}

func (ri *resourceIndex) add(name corev1.ResourceName) {
	if _, ok := ri.pos[name]; !ok {
		ri.pos[name] = len(ri.names)
		ri.names = append(ri.names, name)
	}
}

func (ri *resourceIndex) addAll(rl corev1.ResourceList) {
	for name := range rl {
		ri.add(name)
	}
}

// first is the name of the first resource (cpu, memory, pods, ephemeral-storage, then by
// name, whatever order the index was built in) for which pick holds, or "".
func (ri *resourceIndex) first(pick func(r int) bool) string {
	best := -1
	for r, name := range ri.names {
		if !pick(r) {
			continue
		}
		if best < 0 || r >= 4 && best >= 4 && name < ri.names[best] {
			best = r
		}
	}
	if best < 0 {
		return ""
	}
	return string(ri.names[best])
}

// vec converts a resource list; names not in the index are ignored (the index is built from
// every list first, so none are).
func (ri *resourceIndex) vec(rl corev1.ResourceList) vec {
	v := make(vec, len(ri.names))
	for name, q := range rl {
		if i, ok := ri.pos[name]; ok {
			v[i] = quantityValue(name, q)
		}
	}
	return v
}

// quantityValue is q in the vector's unit; a value beyond int64 saturates (validate
// rejects those before any vector is built).
func quantityValue(name corev1.ResourceName, q resource.Quantity) int64 {
	v, _ := quantity.Int64(name, q)
	return v
}

// list converts back to a resource list, leaving out zeros.
func (ri *resourceIndex) list(v vec) corev1.ResourceList {
	rl := corev1.ResourceList{}
	for i, x := range v {
		if x == 0 {
			continue
		}
		rl[ri.names[i]] = ri.quantity(i, x)
	}
	return rl
}

// quantity is x, the vector value of resource r, as a Quantity (a value, so that list
// allocates none).
func (ri *resourceIndex) quantity(r int, x int64) resource.Quantity {
	switch name := ri.names[r]; {
	case name == corev1.ResourceCPU:
		return *resource.NewMilliQuantity(x, resource.DecimalSI)
	case name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix):
		return *resource.NewQuantity(x, resource.BinarySI)
	default:
		return *resource.NewQuantity(x, resource.DecimalSI)
	}
}

// amount is quantity for a Cause.
func (ri *resourceIndex) amount(r int, x int64) *resource.Quantity {
	q := ri.quantity(r, x)
	return &q
}

// fits2 reports whether a+b <= limit for every resource; a sum beyond int64 never fits.
func fits2(a, b, limit vec) bool {
	for i := range limit {
		s := a[i] + b[i]
		switch {
		case b[i] > 0 && s < a[i]: // beyond MaxInt64
			return false
		case b[i] < 0 && s > a[i]: // below MinInt64
		case s > limit[i]:
			return false
		}
	}
	return true
}

// add and sub saturate at the int64 bounds instead of wrapping, so that no overflow can
// make a sum small enough to fit.
func (v vec) add(o vec) {
	for i := range v {
		v[i] = satAdd(v[i], o[i])
	}
}

func (v vec) sub(o vec) {
	for i := range v {
		if o[i] == math.MinInt64 {
			v[i] = satAdd(satAdd(v[i], math.MaxInt64), 1)
			continue
		}
		v[i] = satAdd(v[i], -o[i])
	}
}

func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

func (v vec) clone() vec { return append(vec(nil), v...) }

// raise makes each element of v at least that of o.
func (v vec) raise(o vec) {
	for i, x := range o {
		if x > v[i] {
			v[i] = x
		}
	}
}

// bitset is a set of small integers (instance-type positions within a template).
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func fullBitset(n int) bitset {
	b := newBitset(n)
	for i := 0; i < n; i++ {
		b.set(i)
	}
	return b
}

func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) clear(i int)    { b[i>>6] &^= 1 << (uint(i) & 63) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) clone() bitset  { return append(bitset(nil), b...) }

// subsetOf reports whether every element of b is in o (o may be shorter: nil holds none).
func (b bitset) subsetOf(o bitset) bool {
	for i, w := range b {
		if i >= len(o) {
			if w != 0 {
				return false
			}
			continue
		}
		if w&^o[i] != 0 {
			return false
		}
	}
	return true
}
func (b bitset) andWith(o bitset) {
	for i := range b {
		b[i] &= o[i]
	}
}
func (b bitset) empty() bool {
	for _, w := range b {
		if w != 0 {
			return false
		}
	}
	return true
}

func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// anyReverse reports whether f holds for some member, trying the largest first.
func (b bitset) anyReverse(f func(i int) bool) bool {
	for wi := len(b) - 1; wi >= 0; wi-- {
		w := b[wi]
		for w != 0 {
			t := 63 - bits.LeadingZeros64(w)
			if f(wi<<6 + t) {
				return true
			}
			w &^= 1 << uint(t)
		}
	}
	return false
}

// fits reports whether v <= limit for every resource.
func (v vec) fits(limit vec) bool {
	for i := range limit {
		if v[i] > limit[i] {
			return false
		}
	}
	return true
}

// filter returns the members of b that keep accepts.
func (b bitset) filter(keep func(i int) bool) bitset {
	out := make(bitset, len(b))
	b.each(func(i int) bool {
		if keep(i) {
			out.set(i)
		}
		return true
	})
	return out
}

// each calls f for every member in ascending order until f returns false.
func (b bitset) each(f func(i int) bool) {
	for wi, w := range b {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			if !f(wi<<6 + t) {
				return
			}
			w &= w - 1
		}
	}
}
