package requirements

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Operators. The first six are Kubernetes' NodeSelectorOperator values; Gte and Lte are
// Karpenter's inclusive bounds.
const (
	In           = string(corev1.NodeSelectorOpIn)
	NotIn        = string(corev1.NodeSelectorOpNotIn)
	Exists       = string(corev1.NodeSelectorOpExists)
	DoesNotExist = string(corev1.NodeSelectorOpDoesNotExist)
	Gt           = string(corev1.NodeSelectorOpGt)
	Lt           = string(corev1.NodeSelectorOpLt)
	Gte          = "Gte"
	Lte          = "Lte"
)

// Requirement is the set of values a label key may take: a finite set (In), or the
// complement of a finite set (NotIn, Exists), optionally narrowed by inclusive integer bounds
// (Gt/Lt/Gte/Lte), plus an optional minValues. DoesNotExist is the empty finite set.
//
// A Requirement is immutable once built: every operation returns a new value, so one
// Requirement may be shared freely between Requirements sets and goroutines.
type Requirement struct {
	Key string

	complement bool
	values     []string // sorted, unique
	hasGte     bool
	gte        int64
	hasLte     bool
	lte        int64
	minValues  int // 0: none
}

// New builds a requirement from an operator and its values. The key is normalised
// (deprecated beta label keys map to their stable names). It returns an error naming the key
// for an unknown operator, for In without values, for Exists/DoesNotExist with values, and for
// Gt/Lt/Gte/Lte without exactly one non-negative integer.
func New(key, operator string, values ...string) (*Requirement, error) { panic("unimplemented") }

// MustNew is New for literals known to be valid; it panics on error.
func MustNew(key, operator string, values ...string) *Requirement { panic("unimplemented") }

// WithMinValues returns a copy of r requiring at least n distinct values (0 removes it).
func (r *Requirement) WithMinValues(n int) *Requirement { panic("unimplemented") }

// MinValues is the requirement's minValues, 0 when unset.
func (r *Requirement) MinValues() int { panic("unimplemented") }

// Operator is the operator that describes r: In, NotIn, Exists or DoesNotExist (a bounded
// complement reads as Exists; see Bounds).
func (r *Requirement) Operator() string { panic("unimplemented") }

// Values are the sorted values of an In or NotIn requirement. The caller must not modify
// the slice.
func (r *Requirement) Values() []string { panic("unimplemented") }

// Bounds returns the inclusive integer bounds, with ok flags.
func (r *Requirement) Bounds() (gte int64, hasGte bool, lte int64, hasLte bool) {
	panic("unimplemented")
}

// Has reports whether value v satisfies r. With a bound set, v must parse as an integer
// within it. It does not allocate.
func (r *Requirement) Has(v string) bool { panic("unimplemented") }

// Intersection returns the requirement satisfied by exactly the values that satisfy both r
// and o, keeping the larger minValues. o's key is ignored (the result has r's key).
func (r *Requirement) Intersection(o *Requirement) *Requirement { panic("unimplemented") }

// Intersects reports whether some value satisfies both r and o. It does not allocate.
func (r *Requirement) Intersects(o *Requirement) bool { panic("unimplemented") }

// Len is the number of allowed values; for a complement it is math.MaxInt minus the number
// of excluded values (effectively infinite).
func (r *Requirement) Len() int { panic("unimplemented") }

// IsEmpty reports whether no value satisfies r (DoesNotExist, or bounds that exclude every
// value of the set).
func (r *Requirement) IsEmpty() bool { panic("unimplemented") }

// Any returns a deterministic value satisfying r: the smallest value of an In set; for a
// complement the smallest non-negative integer within the bounds that is not excluded; ""
// when r is empty.
func (r *Requirement) Any() string { panic("unimplemented") }

// String renders r as "key Op [v1 v2 ...]" with bounds and minValues, deterministically.
// Long value lists are cut after 5 values with "and N others".
func (r *Requirement) String() string { panic("unimplemented") }

// NodeSelectorRequirements serialises r back to the API form. Bounds are written as Gte/Lte
// (two entries when both are set); a complement with excluded values and no bound as NotIn;
// otherwise In, Exists or DoesNotExist. minValues is kept on every entry.
func (r *Requirement) NodeSelectorRequirements() []v1.NodeSelectorRequirementWithMinValues {
	panic("unimplemented")
}
