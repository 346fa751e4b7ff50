package cluster

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// The two kinds of error nodeplan's core returns. Every error of New, the forks, the apply
// helpers, scheduling.Solve and disruption.Plan is (or wraps) one of them, so a host tells
// them apart with errors.As:
//
//   - *InvalidInputError: the input breaks the contract (an object is nil, given twice,
//     refers to what the snapshot does not hold, or has a field nodeplan refuses). Nothing
//     was computed; the error names the call, the object and the field. Fix the input.
//   - *InternalError: a bug in nodeplan (a broken invariant, a recovered panic). The input
//     may be fine; report it with the error's Stack.
//
// A pod that cannot be placed is neither: it is a result (scheduling.PodError).

// InputCode says what is wrong with an input an InvalidInputError names.
type InputCode string

// Input codes. New codes may be added; existing ones keep their meaning.
const (
	// InputNil: a nil object in a list, or a nil argument (a snapshot, a result).
	InputNil InputCode = "Nil"
	// InputDuplicate: two objects of one name where names must be unique (NodePools,
	// Nodes, NodeClaims, pods by namespace/name).
	InputDuplicate InputCode = "Duplicate"
	// InputInvalid: a field nodeplan refuses (a negative price, a quantity it cannot count,
	// requirements that do not parse, a zero time).
	InputInvalid InputCode = "Invalid"
	// InputNotFound: the input names an object the snapshot does not hold.
	InputNotFound InputCode = "NotFound"
	// InputMismatch: a result, command or launched list that does not belong to the
	// snapshot, or to each other (launched claims for another plan).
	InputMismatch InputCode = "Mismatch"
)

// InvalidInputError is input that breaks the contract of the call Op: what is wrong (Code),
// the object (Kind and Name) and the field concerned. Err says it in words and may wrap the
// cause (a quantity's or a selector's error).
type InvalidInputError struct {
	// Op is the call that refused: "cluster.New", "cluster.WithPods" (a method: its type
	// left out), "scheduling.Solve", "disruption.Plan", "disruption.Apply", ...
	Op   string
	Code InputCode
	// Kind is the object's kind ("NodePool", "Pod", "Node", "NodeClaim", "InstanceType",
	// "DaemonSet", "Snapshot", ...); "" when the error is about an argument that is no object
	// (a time).
	Kind string
	// Name is the object's name (namespace/name for a namespaced one); "" when it has none
	// (a nil object: Field then says where it was).
	Name string
	// Field is where in the object (or the call's arguments) the problem is, as in the
	// object's YAML or the Go argument: "spec.limits.cpu", "offerings[2].price",
	// "Objects.Pods[3]", "now"; "" when the whole object is at fault.
	Field string
	Err   error
}

// Error is `op: kind "name": field: message`, without the parts that are empty (the kind
// only with a name).
func (e *InvalidInputError) Error() string {
	parts := make([]string, 0, 4)
	if e.Op != "" {
		parts = append(parts, e.Op)
	}
	if e.Kind != "" && e.Name != "" {
		parts = append(parts, fmt.Sprintf("%s %q", e.Kind, e.Name))
	}
	if e.Field != "" {
		parts = append(parts, e.Field)
	}
	msg := string(e.Code)
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return strings.Join(append(parts, msg), ": ")
}

// Unwrap is the cause.
func (e *InvalidInputError) Unwrap() error { return e.Err }

// invalid is an InvalidInputError of New or a fork, its message formatted.
func invalid(op string, code InputCode, kind, name, field, format string, args ...any) *InvalidInputError {
	return &InvalidInputError{Op: op, Code: code, Kind: kind, Name: name, Field: field, Err: fmt.Errorf(format, args...)}
}

// InternalError is a bug in nodeplan met during Op: an invariant that did not hold or a
// panic, recovered so that a host's loop gets an error rather than a crash. The input may be
// valid; please report the error with its Stack.
type InternalError struct {
	Op string
	// Err is what went wrong (for a panic, the panic value as an error).
	Err error
	// Where is the function and line the panic happened at ("" when unknown).
	Where string
	// Stack is the goroutine's stack when it was caught.
	Stack []byte
}

// Error is `op: internal error at where: message (a bug in nodeplan)`.
func (e *InternalError) Error() string {
	at := ""
	if e.Where != "" {
		at = " at " + e.Where
	}
	return fmt.Sprintf("%s: internal error%s: %v (a bug in nodeplan)", e.Op, at, e.Err)
}

// Unwrap is the cause.
func (e *InternalError) Unwrap() error { return e.Err }

// Internal is the InternalError of Op for the value a deferred recover() returned: the call
// must be made by the deferred function itself, while the panic's stack is still there. A
// recovered error is kept as Err.
//
//	defer func() {
//		if r := recover(); r != nil {
//			res, err = nil, cluster.Internal("scheduling.Solve", r)
//		}
//	}()
func Internal(op string, recovered any) *InternalError {
	err, ok := recovered.(error)
	if !ok {
		err = fmt.Errorf("panic: %v", recovered)
	}
	return &InternalError{Op: op, Err: err, Where: panicSite(), Stack: debug.Stack()}
}

// panicSite is the function and line of the innermost frame below runtime.gopanic on the
// current stack: where the panic happened.
func panicSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !strings.HasPrefix(f.Function, "runtime."):
			return fmt.Sprintf("%s (%s:%d)", f.Function, shortFile(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// shortFile is the last two elements of a path: package directory and file.
func shortFile(path string) string {
	if i := strings.LastIndex(path, "/"); i > 0 {
		if j := strings.LastIndex(path[:i], "/"); j >= 0 {
			return path[j+1:]
		}
	}
	return path
}
