package aws_test

import (
	"sync"
	"time"
)

// gate holds callers until want of them wait (then lets them all through together) or hold
// passes, so that calls a test means to overlap do overlap.
type gate struct {
	want int
	hold time.Duration

	mu      sync.Mutex
	waiting int
	open    chan struct{}
}

func newGate(want int, hold time.Duration) *gate { return &gate{want: want, hold: hold} }

func (g *gate) wait() {
	g.mu.Lock()
	if g.open == nil {
		g.open = make(chan struct{})
	}
	open := g.open
	g.waiting++
	if g.waiting == g.want {
		g.release(open)
	}
	g.mu.Unlock()
	select {
	case <-open:
	case <-time.After(g.hold):
		g.mu.Lock()
		g.release(open)
		g.mu.Unlock()
	}
}

// release opens the gate open if it is still the current one; callers hold mu.
func (g *gate) release(open chan struct{}) {
	if g.open == open {
		close(open)
		g.waiting, g.open = 0, nil
	}
}
