package requirements

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

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
//
// Canonical form. Every constructor and operation keeps the representation canonical, so
// that two requirements allow exactly the same values if and only if they are [Requirement.Equal]
// (given the same key and minValues):
//   - a finite set (complement false) never carries bounds: bounds are applied to its values
//     and then dropped;
//   - a complement's excluded values all lie within its bounds (an excluded value outside
//     the bounds excludes nothing and is dropped);
//   - an upper bound of math.MaxInt64 next to a lower bound is dropped (it excludes nothing
//     that the lower bound admits);
//   - empty bounds (lower > upper), Gt math.MaxInt64 and Lt 0 become DoesNotExist.
//
// A value "parses as an integer" when strconv.ParseInt(v, 10, 64) accepts it (so "+7" and
// "007" are the integer 7, as with Karpenter's strconv.Atoi). Because every integer has
// infinitely many such spellings, a complement whose bounds admit at least one integer is
// never empty.
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

// fieldError is a validation failure of one field of a node selector requirement ("operator"
// or "values"), kept apart so that callers can name the field path.
type fieldError struct {
	field string
	msg   string
}

// build parses one node selector requirement into canonical form. values is never retained.
func build(key, operator string, values []string) (*Requirement, *fieldError) {
	r := &Requirement{Key: v1.NormalizeLabelKey(key)}
	switch operator {
	case In:
		if len(values) == 0 {
			return nil, &fieldError{"values", "operator In requires at least one value"}
		}
		r.values = sortedUnique(values)
	case NotIn:
		r.complement = true
		r.values = sortedUnique(values)
	case Exists, DoesNotExist:
		if len(values) != 0 {
			return nil, &fieldError{"values", fmt.Sprintf("operator %s takes no values, got %d", operator, len(values))}
		}
		r.complement = operator == Exists
	case Gt, Lt, Gte, Lte:
		if len(values) != 1 {
			return nil, &fieldError{"values", fmt.Sprintf("operator %s requires exactly one value, got %d", operator, len(values))}
		}
		n, ok := parseOperand(values[0])
		if !ok {
			return nil, &fieldError{"values", fmt.Sprintf("operator %s requires a non-negative integer, got %q", operator, values[0])}
		}
		r.complement = true
		switch operator {
		case Gt:
			if n == math.MaxInt64 {
				r.complement = false // nothing is greater than the largest integer
			} else {
				r.hasGte, r.gte = true, n+1
			}
		case Lt:
			if n == 0 {
				r.complement = false // integer operands are non-negative: nothing is below 0
			} else {
				r.hasLte, r.lte = true, n-1
			}
		case Gte:
			r.hasGte, r.gte = true, n
		case Lte:
			r.hasLte, r.lte = true, n
		}
	default:
		return nil, &fieldError{"operator", fmt.Sprintf("unsupported operator %q", operator)}
	}
	return r, nil
}

// New builds a requirement from an operator and its values. The key is normalised
// (deprecated beta label keys map to their stable names). It returns an error naming the key
// for an unknown operator, for In without values, for Exists/DoesNotExist with values, and for
// Gt/Lt/Gte/Lte without exactly one non-negative integer.
//
// An integer operand is a non-empty string of ASCII digits within int64 (no sign). Gt
// math.MaxInt64 and Lt 0 admit no value and yield DoesNotExist. NotIn without values is
// Exists. values is copied, sorted and de-duplicated.
func New(key, operator string, values ...string) (*Requirement, error) {
	r, ferr := build(key, operator, values)
	if ferr != nil {
		return nil, fmt.Errorf("requirement on key %q: %s", key, ferr.msg)
	}
	return r, nil
}

// MustNew is New for literals known to be valid; it panics on error.
func MustNew(key, operator string, values ...string) *Requirement {
	r, err := New(key, operator, values...)
	if err != nil {
		panic(err)
	}
	return r
}

// WithMinValues returns a copy of r requiring at least n distinct values (0 removes it; a
// negative n is treated as 0).
func (r *Requirement) WithMinValues(n int) *Requirement {
	c := *r
	c.minValues = max(n, 0)
	return &c
}

// MinValues is the requirement's minValues, 0 when unset.
func (r *Requirement) MinValues() int { return r.minValues }

// Operator is the operator that describes r: In, NotIn, Exists or DoesNotExist (a bounded
// complement reads as Exists; see Bounds).
func (r *Requirement) Operator() string {
	switch {
	case r.complement && len(r.values) > 0:
		return NotIn
	case r.complement:
		return Exists
	case len(r.values) > 0:
		return In
	default:
		return DoesNotExist
	}
}

// Values are the sorted values of an In or NotIn requirement. The caller must not modify
// the slice.
func (r *Requirement) Values() []string { return r.values }

// Bounds returns the inclusive integer bounds, with ok flags.
func (r *Requirement) Bounds() (gte int64, hasGte bool, lte int64, hasLte bool) {
	return r.gte, r.hasGte, r.lte, r.hasLte
}

// hasBounds reports whether r carries an integer bound.
func (r *Requirement) hasBounds() bool { return r.hasGte || r.hasLte }

// inBounds reports whether v satisfies r's bounds (always true without bounds).
func (r *Requirement) inBounds(v string) bool {
	if !r.hasGte && !r.hasLte {
		return true
	}
	n, ok := parseInt(v)
	if !ok {
		return false
	}
	return (!r.hasGte || n >= r.gte) && (!r.hasLte || n <= r.lte)
}

// Has reports whether value v satisfies r. With a bound set, v must parse as an integer
// within it. It does not allocate.
func (r *Requirement) Has(v string) bool {
	if !r.inBounds(v) {
		return false
	}
	_, found := slices.BinarySearch(r.values, v)
	return found != r.complement
}

// Intersection returns the requirement satisfied by exactly the values that satisfy both r
// and o, keeping the larger minValues. o's key is ignored (the result has r's key).
func (r *Requirement) Intersection(o *Requirement) *Requirement {
	res := &Requirement{
		Key:        r.Key,
		complement: r.complement && o.complement,
		minValues:  max(r.minValues, o.minValues),
	}
	res.hasGte, res.gte = lower(r, o)
	res.hasLte, res.lte = upper(r, o)
	if res.hasGte && res.hasLte && res.gte > res.lte {
		return &Requirement{Key: r.Key, minValues: res.minValues}
	}
	var vals []string
	switch {
	case r.complement && o.complement:
		vals = mergeUnion(r.values, o.values, res)
	case r.complement:
		vals = filterSet(o.values, r, res)
	case o.complement:
		vals = filterSet(r.values, o, res)
	default:
		vals = mergeIntersect(r.values, o.values, res)
	}
	res.values = vals
	if !res.complement {
		res.hasGte, res.gte, res.hasLte, res.lte = false, 0, false, 0
	}
	res.normalise()
	return res
}

// normalise drops an upper bound of math.MaxInt64 next to a lower bound (ParseInt rejects
// larger values, so it excludes nothing) and zeroes unset bounds.
func (r *Requirement) normalise() {
	if r.hasGte && r.hasLte && r.lte == math.MaxInt64 {
		r.hasLte = false
	}
	if !r.hasGte {
		r.gte = 0
	}
	if !r.hasLte {
		r.lte = 0
	}
}

// lower is the tighter (larger) of two optional lower bounds.
func lower(a, b *Requirement) (bool, int64) {
	switch {
	case a.hasGte && b.hasGte:
		return true, max(a.gte, b.gte)
	case a.hasGte:
		return true, a.gte
	case b.hasGte:
		return true, b.gte
	}
	return false, 0
}

// upper is the tighter (smaller) of two optional upper bounds.
func upper(a, b *Requirement) (bool, int64) {
	switch {
	case a.hasLte && b.hasLte:
		return true, min(a.lte, b.lte)
	case a.hasLte:
		return true, a.lte
	case b.hasLte:
		return true, b.lte
	}
	return false, 0
}

// mergeUnion is the sorted union of two sorted sets, keeping values within bounds' bounds.
func mergeUnion(a, b []string, bounds *Requirement) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		c := -1 // a[i] comes first
		switch {
		case i >= len(a):
			c = 1
		case j < len(b):
			c = strings.Compare(a[i], b[j])
		}
		var v string
		switch {
		case c < 0:
			v = a[i]
			i++
		case c > 0:
			v = b[j]
			j++
		default:
			v = a[i]
			i++
			j++
		}
		if bounds.inBounds(v) {
			out = append(out, v)
		}
	}
	return out
}

// mergeIntersect is the sorted intersection of two sorted sets, keeping values within
// bounds' bounds.
func mergeIntersect(a, b []string, bounds *Requirement) []string {
	var out []string
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			if bounds.inBounds(a[i]) {
				out = append(out, a[i])
			}
			i++
			j++
		}
	}
	return out
}

// filterSet keeps the values of a finite set that the complement c does not exclude and that
// lie within bounds' bounds.
func filterSet(set []string, c, bounds *Requirement) []string {
	var out []string
	for _, v := range set {
		if _, excluded := slices.BinarySearch(c.values, v); !excluded && bounds.inBounds(v) {
			out = append(out, v)
		}
	}
	return out
}

// Intersects reports whether some value satisfies both r and o. It does not allocate.
func (r *Requirement) Intersects(o *Requirement) bool {
	switch {
	case r.complement && o.complement:
		// Each admits every spelling of every integer in its bounds (or every string), minus
		// finitely many: they meet unless the combined bounds are empty.
		hasGte, gte := lower(r, o)
		hasLte, lte := upper(r, o)
		return !hasGte || !hasLte || gte <= lte
	case r.complement:
		return anyHas(o.values, r)
	case o.complement:
		return anyHas(r.values, o)
	}
	return sortedIntersect(r.values, o.values)
}

// sortedIntersect reports whether two sorted sets share a value: by binary search of the
// smaller in the larger when their sizes differ a lot, by a merge otherwise.
func sortedIntersect(a, b []string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return false
	}
	if len(a)*8 < len(b) {
		for _, v := range a {
			if _, found := slices.BinarySearch(b, v); found {
				return true
			}
		}
		return false
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			return true
		}
	}
	return false
}

// anyHas reports whether c has one of values.
func anyHas(values []string, c *Requirement) bool {
	for _, v := range values {
		if c.Has(v) {
			return true
		}
	}
	return false
}

// Len is the number of allowed values; for a complement it is math.MaxInt minus the number
// of excluded values (effectively infinite).
func (r *Requirement) Len() int {
	if r.complement {
		return math.MaxInt - len(r.values)
	}
	return len(r.values)
}

// IsEmpty reports whether no value satisfies r (DoesNotExist, or bounds that exclude every
// value of the set). Thanks to the canonical form this is exactly "a finite set without
// values".
func (r *Requirement) IsEmpty() bool { return !r.complement && len(r.values) == 0 }

// Any returns a deterministic value satisfying r: the smallest value of an In set; for a
// complement the smallest non-negative integer within the bounds that is not excluded; ""
// when r is empty.
//
// In the corner case where every integer of a bounded range is excluded in its plain decimal
// spelling, Any returns a zero-padded spelling ("02"), which still parses within the bounds.
func (r *Requirement) Any() string {
	if !r.complement {
		if len(r.values) == 0 {
			return ""
		}
		return r.values[0]
	}
	lo, hi := int64(0), int64(math.MaxInt64)
	if r.hasGte {
		lo = max(lo, r.gte)
	}
	if r.hasLte {
		hi = r.lte
	}
	if lo > hi { // an upper bound below 0, which New never builds
		return strconv.FormatInt(hi, 10)
	}
	// At most len(values) spellings are excluded, so this terminates after at most
	// len(values)+1 candidates.
	for pad := ""; ; pad += "0" {
		for n := lo; ; n++ {
			v := pad + strconv.FormatInt(n, 10) // n >= 0
			if _, excluded := slices.BinarySearch(r.values, v); !excluded {
				return v
			}
			if n == hi {
				break
			}
		}
	}
}

// String renders r as "key Op [v1 v2 ...]" with bounds and minValues, deterministically.
// Long value lists are cut after 5 values with "and N others". For example
// "topology.kubernetes.io/zone In [a b]", "integer NotIn [4] >=2 <=8 minValues 2",
// "k Exists >=5".
func (r *Requirement) String() string {
	var b strings.Builder
	b.WriteString(r.Key)
	b.WriteByte(' ')
	b.WriteString(r.Operator())
	if len(r.values) > 0 {
		b.WriteString(" [")
		for i, v := range r.values[:min(len(r.values), 5)] {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(v)
		}
		if len(r.values) > 5 {
			fmt.Fprintf(&b, " and %d others", len(r.values)-5)
		}
		b.WriteByte(']')
	}
	if r.hasGte {
		fmt.Fprintf(&b, " >=%d", r.gte)
	}
	if r.hasLte {
		fmt.Fprintf(&b, " <=%d", r.lte)
	}
	if r.minValues > 0 {
		fmt.Fprintf(&b, " minValues %d", r.minValues)
	}
	return b.String()
}

// NodeSelectorRequirements serialises r back to the API form. Bounds are written as Gte/Lte
// (two entries when both are set); a complement with excluded values and no bound as NotIn;
// otherwise In, Exists or DoesNotExist. minValues is kept on every entry.
//
// Unlike Karpenter, a bounded complement that also excludes values keeps them as an extra
// NotIn entry (after the bounds), so FromNodeSelectorRequirements(r.NodeSelectorRequirements())
// always rebuilds a requirement Equal to r.
func (r *Requirement) NodeSelectorRequirements() []v1.NodeSelectorRequirementWithMinValues {
	entry := func(op string, values ...string) v1.NodeSelectorRequirementWithMinValues {
		e := v1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: corev1.NodeSelectorOperator(op), Values: values}
		if r.minValues > 0 {
			n := r.minValues
			e.MinValues = &n
		}
		return e
	}
	if !r.complement {
		if len(r.values) == 0 {
			return []v1.NodeSelectorRequirementWithMinValues{entry(DoesNotExist)}
		}
		return []v1.NodeSelectorRequirementWithMinValues{entry(In, slices.Clone(r.values)...)}
	}
	var out []v1.NodeSelectorRequirementWithMinValues
	if r.hasGte {
		out = append(out, entry(Gte, strconv.FormatInt(r.gte, 10)))
	}
	if r.hasLte {
		out = append(out, entry(Lte, strconv.FormatInt(r.lte, 10)))
	}
	if len(r.values) > 0 {
		out = append(out, entry(NotIn, slices.Clone(r.values)...))
	}
	if len(out) == 0 {
		out = append(out, entry(Exists))
	}
	return out
}

// Equal reports whether r and o have the same key, allow the same values and have the same
// minValues. Two nil requirements are equal. It does not allocate.
func (r *Requirement) Equal(o *Requirement) bool {
	if r == nil || o == nil {
		return r == o
	}
	return r.Key == o.Key &&
		r.complement == o.complement &&
		slices.Equal(r.values, o.values) &&
		r.hasGte == o.hasGte && (!r.hasGte || r.gte == o.gte) &&
		r.hasLte == o.hasLte && (!r.hasLte || r.lte == o.lte) &&
		r.minValues == o.minValues
}

// Hash is a 64-bit FNV-1a digest of r's canonical form (key, complement, values, bounds,
// minValues). Equal requirements have equal hashes. It depends only on r's contents (not on
// the process, map order or pointer identity), so it is stable across runs of the same
// version of this package; it is not a cryptographic hash. It does not allocate.
func (r *Requirement) Hash() uint64 {
	h := newHasher()
	h.str(r.Key)
	flags := uint64(0)
	if r.complement {
		flags |= 1
	}
	if r.hasGte {
		flags |= 2
	}
	if r.hasLte {
		flags |= 4
	}
	h.u64(flags)
	h.u64(uint64(len(r.values)))
	for _, v := range r.values {
		h.str(v)
	}
	h.u64(uint64(r.gte))
	h.u64(uint64(r.lte))
	h.u64(uint64(r.minValues))
	return uint64(h)
}

// hasher is FNV-1a 64 with length-prefixed strings.
type hasher uint64

func newHasher() hasher { return 14695981039346656037 }

func (h *hasher) byte(b byte) {
	*h ^= hasher(b)
	*h *= 1099511628211
}

func (h *hasher) u64(v uint64) {
	for i := 0; i < 8; i++ {
		h.byte(byte(v >> (8 * i)))
	}
}

func (h *hasher) str(s string) {
	h.u64(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		h.byte(s[i])
	}
}

// sortedUnique returns a sorted, de-duplicated copy of values (nil when empty).
func sortedUnique(values []string) []string {
	if len(values) == 0 {
		return nil
	}
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}

// parseInt is strconv.ParseInt(s, 10, 64) without allocating on failure: an optional sign,
// then one or more ASCII digits, within int64.
func parseInt(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	switch s[0] {
	case '+':
		s = s[1:]
	case '-':
		neg = true
		s = s[1:]
	}
	if s == "" {
		return 0, false
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if u > (limit-d)/10 {
			return 0, false
		}
		u = u*10 + d
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// parseOperand parses the operand of Gt/Lt/Gte/Lte: ASCII digits only, within int64.
func parseOperand(s string) (int64, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	return parseInt(s)
}
