package cloudprovider

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestErrors(t *testing.T) {
	cause := errors.New("boom")
	cases := []struct {
		name    string
		err     error
		msg     string
		is      func(error) bool
		ignore  func(error) error
		target  error
		otherIs []func(error) bool
	}{
		{"insufficient capacity", NewInsufficientCapacityError(cause), "insufficient capacity, boom",
			IsInsufficientCapacityError, IgnoreInsufficientCapacityError, &InsufficientCapacityError{},
			[]func(error) bool{IsNodeClaimNotFoundError, IsNodeClassNotReadyError, IsCreateError}},
		{"not found", NewNodeClaimNotFoundError(cause), "nodeclaim not found, boom",
			IsNodeClaimNotFoundError, IgnoreNodeClaimNotFoundError, &NodeClaimNotFoundError{},
			[]func(error) bool{IsInsufficientCapacityError, IsNodeClassNotReadyError, IsCreateError}},
		{"nodeclass not ready", NewNodeClassNotReadyError(cause), "NodeClassRef not ready, boom",
			IsNodeClassNotReadyError, IgnoreNodeClassNotReadyError, &NodeClassNotReadyError{},
			[]func(error) bool{IsInsufficientCapacityError, IsNodeClaimNotFoundError, IsCreateError}},
		{"create", NewCreateError(cause, "LaunchFailed", "no subnet"), "creating nodeclaim, boom",
			IsCreateError, IgnoreCreateError, &CreateError{},
			[]func(error) bool{IsInsufficientCapacityError, IsNodeClaimNotFoundError, IsNodeClassNotReadyError}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.msg, tc.err.Error())
			assert.True(t, tc.is(tc.err))
			wrapped := fmt.Errorf("outer: %w", tc.err)
			assert.True(t, tc.is(wrapped), "detected through wrapping")
			assert.True(t, errors.Is(wrapped, tc.target), "errors.Is against a zero value of the type")
			assert.True(t, errors.Is(wrapped, cause), "cause reachable via Unwrap")
			assert.NoError(t, tc.ignore(wrapped))
			assert.Equal(t, cause, tc.ignore(cause))
			assert.False(t, tc.is(cause))
			assert.False(t, tc.is(nil))
			for _, other := range tc.otherIs {
				assert.False(t, other(tc.err))
			}
		})
	}
}

func TestErrorsNilCause(t *testing.T) {
	assert.Equal(t, "insufficient capacity", NewInsufficientCapacityError(nil).Error())
	assert.Equal(t, "nodeclaim not found", NewNodeClaimNotFoundError(nil).Error())
	assert.Equal(t, "NodeClassRef not ready", NewNodeClassNotReadyError(nil).Error())
	assert.Equal(t, "creating nodeclaim", NewCreateError(nil, "R", "M").Error())
	assert.Nil(t, errors.Unwrap(NewInsufficientCapacityError(nil)))
}

func TestCreateErrorCondition(t *testing.T) {
	err := fmt.Errorf("launch: %w", NewCreateError(errors.New("x"), "InsufficientFleet", "fleet failed"))
	var ce *CreateError
	if assert.True(t, errors.As(err, &ce)) {
		assert.Equal(t, "InsufficientFleet", ce.ConditionReason)
		assert.Equal(t, "fleet failed", ce.ConditionMessage)
	}
}

func TestWrappedInsideOtherTypedError(t *testing.T) {
	err := NewCreateError(NewInsufficientCapacityError(errors.New("no spot")), "ICE", "")
	assert.True(t, IsCreateError(err))
	assert.True(t, IsInsufficientCapacityError(err))
}
