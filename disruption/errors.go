package disruption

import (
	"fmt"

	"github.com/nodeplan/nodeplan/cluster"
)

// Plan's and Apply's errors are *cluster.InvalidInputError (the input is refused) or
// *cluster.InternalError (a bug, a panic recovered); see package cluster.

const opPlan = "disruption.Plan"

// invalid is an InvalidInputError of op, its message formatted.
func invalid(op string, code cluster.InputCode, kind, name, field, format string, args ...any) error {
	return &cluster.InvalidInputError{Op: op, Code: code, Kind: kind, Name: name, Field: field, Err: fmt.Errorf(format, args...)}
}
