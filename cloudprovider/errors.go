package cloudprovider

import "errors"

// InsufficientCapacityError means the cloud could not launch any compatible offering. A host
// program should delete the NodeClaim and plan again; the provider is expected to mark the
// offerings it tried as unavailable.
type InsufficientCapacityError struct {
	err error
}

// NewInsufficientCapacityError wraps err (which may be nil) as an InsufficientCapacityError.
func NewInsufficientCapacityError(err error) *InsufficientCapacityError {
	return &InsufficientCapacityError{err: err}
}

// Error implements error: "insufficient capacity, <cause>".
func (e *InsufficientCapacityError) Error() string {
	return wrapMessage("insufficient capacity", e.err)
}

// Unwrap returns the cause.
func (e *InsufficientCapacityError) Unwrap() error { return e.err }

// Is reports whether target is an *InsufficientCapacityError, so that
// errors.Is(err, &InsufficientCapacityError{}) matches any insufficient-capacity error.
func (e *InsufficientCapacityError) Is(target error) bool {
	_, ok := target.(*InsufficientCapacityError)
	return ok
}

// IsInsufficientCapacityError reports whether err is, or wraps, an InsufficientCapacityError.
func IsInsufficientCapacityError(err error) bool {
	var target *InsufficientCapacityError
	return errors.As(err, &target)
}

// IgnoreInsufficientCapacityError returns nil for an InsufficientCapacityError, err otherwise.
func IgnoreInsufficientCapacityError(err error) error {
	if IsInsufficientCapacityError(err) {
		return nil
	}
	return err
}

// NodeClaimNotFoundError means the machine behind a NodeClaim does not exist (any more).
type NodeClaimNotFoundError struct {
	err error
}

// NewNodeClaimNotFoundError wraps err (which may be nil) as a NodeClaimNotFoundError.
func NewNodeClaimNotFoundError(err error) *NodeClaimNotFoundError {
	return &NodeClaimNotFoundError{err: err}
}

// Error implements error: "nodeclaim not found, <cause>".
func (e *NodeClaimNotFoundError) Error() string { return wrapMessage("nodeclaim not found", e.err) }

// Unwrap returns the cause.
func (e *NodeClaimNotFoundError) Unwrap() error { return e.err }

// Is reports whether target is a *NodeClaimNotFoundError.
func (e *NodeClaimNotFoundError) Is(target error) bool {
	_, ok := target.(*NodeClaimNotFoundError)
	return ok
}

// IsNodeClaimNotFoundError reports whether err is, or wraps, a NodeClaimNotFoundError.
func IsNodeClaimNotFoundError(err error) bool {
	var target *NodeClaimNotFoundError
	return errors.As(err, &target)
}

// IgnoreNodeClaimNotFoundError returns nil for a NodeClaimNotFoundError, err otherwise.
func IgnoreNodeClaimNotFoundError(err error) error {
	if IsNodeClaimNotFoundError(err) {
		return nil
	}
	return err
}

// NodeClassNotReadyError means the NodeClaim's NodeClass cannot be used to launch yet.
type NodeClassNotReadyError struct {
	err error
}

// NewNodeClassNotReadyError wraps err (which may be nil) as a NodeClassNotReadyError.
func NewNodeClassNotReadyError(err error) *NodeClassNotReadyError {
	return &NodeClassNotReadyError{err: err}
}

// Error implements error: "NodeClassRef not ready, <cause>".
func (e *NodeClassNotReadyError) Error() string { return wrapMessage("NodeClassRef not ready", e.err) }

// Unwrap returns the cause.
func (e *NodeClassNotReadyError) Unwrap() error { return e.err }

// Is reports whether target is a *NodeClassNotReadyError.
func (e *NodeClassNotReadyError) Is(target error) bool {
	_, ok := target.(*NodeClassNotReadyError)
	return ok
}

// IsNodeClassNotReadyError reports whether err is, or wraps, a NodeClassNotReadyError.
func IsNodeClassNotReadyError(err error) bool {
	var target *NodeClassNotReadyError
	return errors.As(err, &target)
}

// IgnoreNodeClassNotReadyError returns nil for a NodeClassNotReadyError, err otherwise.
func IgnoreNodeClassNotReadyError(err error) error {
	if IsNodeClassNotReadyError(err) {
		return nil
	}
	return err
}

// CreateError is a launch failure that should be reported on the NodeClaim's Launched
// condition with ConditionReason and ConditionMessage.
type CreateError struct {
	err error
	// ConditionReason is a CamelCase reason for the Launched=False condition.
	ConditionReason string
	// ConditionMessage is a human-readable message for that condition.
	ConditionMessage string
}

// NewCreateError wraps err (which may be nil) as a CreateError with a condition reason and
// message.
func NewCreateError(err error, reason, message string) *CreateError {
	return &CreateError{err: err, ConditionReason: reason, ConditionMessage: message}
}

// Error implements error: "creating nodeclaim, <cause>".
func (e *CreateError) Error() string { return wrapMessage("creating nodeclaim", e.err) }

// Unwrap returns the cause.
func (e *CreateError) Unwrap() error { return e.err }

// Is reports whether target is a *CreateError.
func (e *CreateError) Is(target error) bool {
	_, ok := target.(*CreateError)
	return ok
}

// IsCreateError reports whether err is, or wraps, a CreateError.
func IsCreateError(err error) bool {
	var target *CreateError
	return errors.As(err, &target)
}

// IgnoreCreateError returns nil for a CreateError, err otherwise.
func IgnoreCreateError(err error) error {
	if IsCreateError(err) {
		return nil
	}
	return err
}

func wrapMessage(prefix string, err error) string {
	if err == nil {
		return prefix
	}
	return prefix + ", " + err.Error()
}
