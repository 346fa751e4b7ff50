// Package quantity converts resource quantities to the int64 units nodeplan computes with
// (millicores for cpu, whole units — bytes, counts — for everything else) exactly or not at
// all, and validates them: a quantity that is negative, or whose value does not fit an int64
// in its unit, is an error naming it. It never rounds a too-large value to 0 or lets it wrap.
package quantity

import (
	"fmt"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

var (
	maxUnits = *resource.NewQuantity(math.MaxInt64, resource.DecimalSI)
	maxMilli = *resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)
	minUnits = *resource.NewQuantity(math.MinInt64, resource.DecimalSI)
	minMilli = *resource.NewMilliQuantity(math.MinInt64, resource.DecimalSI)
)

// milli reports whether name is counted in thousandths (cpu) rather than whole units.
func milli(name corev1.ResourceName) bool { return name == corev1.ResourceCPU }

// Int64 is q in name's unit (fractions rounded up, as Kubernetes does), and false when it
// does not fit an int64; the value is then math.MaxInt64 or math.MinInt64, by sign.
func Int64(name corev1.ResourceName, q resource.Quantity) (int64, bool) {
	hi, lo := maxUnits, minUnits
	if milli(name) {
		hi, lo = maxMilli, minMilli
	}
	if q.Cmp(hi) > 0 {
		return math.MaxInt64, false
	}
	if q.Cmp(lo) < 0 {
		return math.MinInt64, false
	}
	if milli(name) {
		return q.MilliValue(), true
	}
	return q.Value(), true
}

// Check returns an error when q is negative or does not fit name's unit.
func Check(name corev1.ResourceName, q resource.Quantity) error {
	if q.Sign() < 0 {
		return fmt.Errorf("%s: must not be negative", q.String())
	}
	if _, ok := Int64(name, q); !ok {
		max := maxUnits
		if milli(name) {
			max = maxMilli
		}
		return fmt.Errorf("%s: more than nodeplan can count (at most %s)", q.String(), max.String())
	}
	return nil
}

// FieldError is a quantity of a resource list that Check rejects, with its field path.
type FieldError struct {
	Field string // e.g. spec.containers[0].resources.requests.cpu
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// CheckList checks every quantity of rl (in name order, so the first error is stable) and
// returns a *FieldError for the first one rejected, its field being field + "." + name.
func CheckList(field string, rl corev1.ResourceList) error {
	bad := false // the common case, all valid, needs no sorting
	for n, q := range rl {
		if Check(n, q) != nil {
			bad = true
			break
		}
	}
	if !bad {
		return nil
	}
	names := make([]string, 0, len(rl))
	for n := range rl {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		if err := Check(corev1.ResourceName(n), rl[corev1.ResourceName(n)]); err != nil {
			return &FieldError{Field: field + "." + n, Err: err}
		}
	}
	return nil
}
