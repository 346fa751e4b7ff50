package cloudprovider

import (
	"fmt"
	"math"
	"sort"
	"strings"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// cheapestAvailablePrice is the price of the cheapest available offering of it compatible
// with reqs (NaN as +Inf), and false when there is none.
func (it *InstanceType) cheapestAvailablePrice(reqs requirements.Requirements) (float64, bool) {
	found := false
	best := math.Inf(1)
	for _, o := range it.Offerings {
		if o == nil || !o.Available || !o.isCompatible(reqs) {
			continue
		}
		if p := sortablePrice(o.Price); !found || p < best {
			best = p
		}
		found = true
	}
	return best, found
}

// OrderByPrice returns a new list (the receiver is not modified) sorted ascending by the
// price of each type's cheapest available offering compatible with reqs. Types without such
// an offering come last; NaN prices count as +Inf; equal prices are ordered by name. The sort
// is stable, so types with equal price and name keep their input order.
func (its InstanceTypes) OrderByPrice(reqs requirements.Requirements) InstanceTypes {
	type keyed struct {
		it    *InstanceType
		price float64
		ok    bool
	}
	ks := make([]keyed, 0, len(its))
	for _, it := range its {
		if it == nil {
			ks = append(ks, keyed{})
			continue
		}
		p, ok := it.cheapestAvailablePrice(reqs)
		ks = append(ks, keyed{it: it, price: p, ok: ok})
	}
	sort.SliceStable(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		if (a.it == nil) != (b.it == nil) {
			return b.it == nil
		}
		if a.it == nil {
			return false
		}
		if a.ok != b.ok {
			return a.ok
		}
		if a.price != b.price {
			return a.price < b.price
		}
		return a.it.Name < b.it.Name
	})
	out := make(InstanceTypes, 0, len(its))
	for _, k := range ks {
		if k.it != nil {
			out = append(out, k.it)
		}
	}
	return out
}

// Compatible returns the types, in order, that have an available offering compatible with
// reqs and whose own requirements intersect reqs.
func (its InstanceTypes) Compatible(reqs requirements.Requirements) InstanceTypes {
	var out InstanceTypes
	for _, it := range its {
		if it == nil {
			continue
		}
		if _, ok := it.cheapestAvailablePrice(reqs); !ok {
			continue
		}
		if !it.Requirements.HasIntersection(reqs) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// minValuesKeys returns the keys of reqs that carry minValues, sorted.
func minValuesKeys(reqs requirements.Requirements) []string {
	var keys []string
	for k, r := range reqs {
		if r != nil && r.MinValues() > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// HasMinValues reports whether some requirement of reqs carries minValues.
func HasMinValues(reqs requirements.Requirements) bool {
	for _, r := range reqs {
		if r != nil && r.MinValues() > 0 {
			return true
		}
	}
	return false
}

// valuesFor returns the values key takes on it that req admits. For the zone and
// capacity-type keys they come from its available offerings compatible with reqs; for any
// other key from its In requirement (a type whose requirement on key is not a finite set
// contributes nothing).
func (it *InstanceType) valuesFor(key string, req *requirements.Requirement, reqs requirements.Requirements) []string {
	var vals []string
	switch key {
	case v1.LabelTopologyZone, v1.CapacityTypeLabelKey:
		for _, o := range it.Offerings {
			if o == nil || !o.Available || !o.isCompatible(reqs) {
				continue
			}
			if key == v1.LabelTopologyZone {
				vals = append(vals, o.Zone())
			} else {
				vals = append(vals, o.CapacityType())
			}
		}
	default:
		if !it.Requirements.Has(key) {
			return nil
		}
		r := it.Requirements.Get(key)
		if r.Operator() != requirements.In {
			return nil
		}
		vals = r.Values()
	}
	out := vals[:0:0]
	for _, v := range vals {
		if req.Has(v) {
			out = append(out, v)
		}
	}
	return out
}

// SatisfiesMinValues walks the list in order and counts, for every key of reqs with
// minValues, the distinct values the types seen so far expose (see valuesFor: only values
// reqs admits count). It returns the length of the shortest prefix that satisfies every
// minValues. When the whole list does not, it returns len(its), the keys still short with the
// number of distinct values reached, and an error. Without minValues in reqs it returns
// (0, nil, nil). Callers usually order the list by price first.
func (its InstanceTypes) SatisfiesMinValues(reqs requirements.Requirements) (minNeeded int, unsatisfied map[string]int, err error) {
	keys := minValuesKeys(reqs)
	if len(keys) == 0 {
		return 0, nil, nil
	}
	seen := make(map[string]map[string]struct{}, len(keys))
	for _, k := range keys {
		seen[k] = map[string]struct{}{}
	}
	short := func() map[string]int {
		var m map[string]int
		for _, k := range keys {
			if n := len(seen[k]); n < reqs[k].MinValues() {
				if m == nil {
					m = map[string]int{}
				}
				m[k] = n
			}
		}
		return m
	}
	for i, it := range its {
		if it == nil {
			continue
		}
		for _, k := range keys {
			for _, v := range it.valuesFor(k, reqs[k], reqs) {
				seen[k][v] = struct{}{}
			}
		}
		if short() == nil {
			return i + 1, nil, nil
		}
	}
	unsatisfied = short()
	parts := make([]string, 0, len(unsatisfied))
	for _, k := range keys {
		if n, ok := unsatisfied[k]; ok {
			parts = append(parts, fmt.Sprintf("%s: %d of %d", k, n, reqs[k].MinValues()))
		}
	}
	return len(its), unsatisfied, fmt.Errorf("minValues requirement is not met (%s)", strings.Join(parts, ", "))
}

// Truncate orders the list by price for reqs (see OrderByPrice) and keeps the first max
// types. When reqs carry minValues that the kept types no longer satisfy, it returns the
// receiver unchanged and an error naming the keys. A negative max is an error.
func (its InstanceTypes) Truncate(reqs requirements.Requirements, max int) (InstanceTypes, error) {
	if max < 0 {
		return its, fmt.Errorf("truncating instance types: negative maximum %d", max)
	}
	ordered := its.OrderByPrice(reqs)
	if len(ordered) > max {
		ordered = ordered[:max]
	}
	if HasMinValues(reqs) {
		if _, _, err := ordered.SatisfiesMinValues(reqs); err != nil {
			return its, fmt.Errorf("validating minValues after truncating to %d instance types, %w", max, err)
		}
	}
	return ordered, nil
}
