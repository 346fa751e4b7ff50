package aws

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Waiters share the creation's answer; when the creating call's own context ended, a waiter
// creates the template itself instead of failing for someone else's deadline.
func TestEnsureSharesOneCreation(t *testing.T) {
	l := newLaunchTemplates()
	var calls atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	leaderCtx, cancelLeader := context.WithCancel(context.Background())
	leaderErr := make(chan error)
	go func() {
		leaderErr <- l.ensure(leaderCtx, "lt", func(ctx context.Context) error {
			calls.Add(1)
			close(started)
			<-release
			return ctx.Err()
		})
	}()
	<-started
	waiterErr := make(chan error)
	go func() {
		waiterErr <- l.ensure(context.Background(), "lt", func(context.Context) error { calls.Add(1); return nil })
	}()
	time.Sleep(10 * time.Millisecond) // the waiter is waiting on the leader's call
	cancelLeader()
	close(release)
	assert.ErrorIs(t, <-leaderErr, context.Canceled)
	require.NoError(t, <-waiterErr, "the waiter created it itself")
	assert.Equal(t, int32(2), calls.Load())
	require.NoError(t, l.ensure(context.Background(), "lt", func(context.Context) error { t.Fatal("known now"); return nil }))

	// Another error fails the call; the next call tries again.
	boom := errors.New("UnauthorizedOperation")
	require.ErrorIs(t, l.ensure(context.Background(), "lt2", func(context.Context) error { return boom }), boom)
	require.NoError(t, l.ensure(context.Background(), "lt2", func(context.Context) error { return nil }))
}
