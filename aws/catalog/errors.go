package catalog

import (
	"errors"
	"fmt"
	"strings"
)

// FieldError is a value of a catalog file or a spot-price file that nodeplan refuses: the
// file, the entry (instanceTypes[2], SpotPriceHistory[7]), the instance type and zone it
// concerns when known, the field within the entry, and why.
type FieldError struct {
	Source       string
	Entry        string
	InstanceType string
	Zone         string
	// Field is the path within the entry (offerings[1].price, capacity.cpu, SpotPrice).
	Field string
	Err   error
}

func (e *FieldError) Error() string {
	where := e.Entry
	switch {
	case e.InstanceType != "" && e.Zone != "":
		where += fmt.Sprintf(" (%s in %s)", e.InstanceType, e.Zone)
	case e.InstanceType != "":
		where += " (" + e.InstanceType + ")"
	}
	parts := []string{e.Source}
	for _, p := range []string{where, e.Field} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ") + ": " + e.Err.Error()
}

func (e *FieldError) Unwrap() error { return e.Err }

// The reasons errors.Is finds in a FieldError's Err, for the checks that have one.
var (
	// ErrPrice: a price that is not a plain decimal number of dollars per hour in range (0 to
	// MaxPrice; a spot price above 0).
	ErrPrice = errors.New("not a price")
	// ErrQuantity: a capacity or overhead that no node has: cpu in bytes (4Gi), memory below
	// MinMemory, a fraction of a whole unit (pods: 1.5).
	ErrQuantity = errors.New("not a node's quantity")
)

// reason is an error that wraps a sentinel but reads as its own text.
type reason struct {
	kind error
	msg  string
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.kind }

func reasonf(kind error, format string, args ...any) error {
	return &reason{kind: kind, msg: fmt.Sprintf(format, args...)}
}
