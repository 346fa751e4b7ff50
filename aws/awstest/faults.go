package awstest

import (
	"sync"
)

// Fault is a failure the local servers inject into a request.
type Fault int

const (
	// Throttle answers with the service's throttling error before doing anything; the SDK
	// retries it.
	Throttle Fault = iota + 1
	// ServerError answers 500 before doing anything; the SDK retries it.
	ServerError
	// ServerErrorAfter does the operation, then answers 500 (the reply is lost); the SDK
	// retries it, so the operation must be idempotent (CreateFleet keeps its client token).
	ServerErrorAfter
	// MalformedBody does the operation, then answers 200 with a body that is not XML/JSON;
	// the SDK does not retry, and the caller does not learn the outcome.
	MalformedBody
	// Timeout does the operation, then loses the reply (the connection closes without one);
	// the SDK retries, so the operation must be idempotent.
	Timeout
	// Stall does the operation, then holds the reply until the client gives up (its context
	// ends and it closes the connection): the caller's deadline passes while the call is in
	// flight and the outcome is unknown to it.
	Stall
)

func (f Fault) String() string {
	switch f {
	case Throttle:
		return "Throttle"
	case ServerError:
		return "ServerError"
	case ServerErrorAfter:
		return "ServerErrorAfter"
	case MalformedBody:
		return "MalformedBody"
	case Timeout:
		return "Timeout"
	case Stall:
		return "Stall"
	}
	return "Fault(?)"
}

// before reports whether the fault strikes before the operation runs.
func (f Fault) before() bool { return f == Throttle || f == ServerError }

// Faults is a schedule of faults per action. The zero value injects nothing and is ready to
// use; it is safe for concurrent use.
type Faults struct {
	mu      sync.Mutex
	pending map[string][]Fault // action ("" = any) -> faults to serve, in order
	served  []string
}

// Inject makes the next n requests for action ("" for any action) fail with f, after the
// faults already scheduled for that action.
func (fs *Faults) Inject(action string, f Fault, n int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.pending == nil {
		fs.pending = map[string][]Fault{}
	}
	for range n {
		fs.pending[action] = append(fs.pending[action], f)
	}
}

// next pops the fault for action, if any (action-specific faults first).
func (fs *Faults) next(action string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, key := range []string{action, ""} {
		if q := fs.pending[key]; len(q) > 0 {
			fs.pending[key] = q[1:]
			fs.served = append(fs.served, action+":"+q[0].String())
			return q[0], true
		}
	}
	return 0, false
}

// Served lists the faults served so far as "Action:Fault", in order.
func (fs *Faults) Served() []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]string(nil), fs.served...)
}

// Pending is the number of faults not yet served.
func (fs *Faults) Pending() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := 0
	for _, q := range fs.pending {
		n += len(q)
	}
	return n
}

// Clear drops the faults not yet served.
func (fs *Faults) Clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.pending = nil
}
