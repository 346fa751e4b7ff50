package scheduling

import (
	"errors"
	"fmt"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/internal/quantity"
)

// Solve's and Apply's errors are *cluster.InvalidInputError (the input is refused: a nil
// snapshot, a NodePool, instance type, node, bound pod or DaemonSet with a field nodeplan
// cannot read) or *cluster.InternalError (a bug, a panic recovered); see package cluster.

const opSolve = "scheduling.Solve"

// invalidField is Solve's InvalidInputError for the object kind/name whose field err names
// (a quantity's or pod spec's *quantity.FieldError gives the field; another error is the
// whole object's).
func invalidField(kind, name string, err error) error {
	e := &cluster.InvalidInputError{Op: opSolve, Code: cluster.InputInvalid, Kind: kind, Name: name, Err: err}
	var fe *quantity.FieldError
	if errors.As(err, &fe) {
		e.Field, e.Err = fe.Field, fe.Err
	}
	return e
}

// invalid is an InvalidInputError of op, its message formatted.
func invalid(op string, code cluster.InputCode, kind, name, field, format string, args ...any) error {
	return &cluster.InvalidInputError{Op: op, Code: code, Kind: kind, Name: name, Field: field, Err: fmt.Errorf(format, args...)}
}
