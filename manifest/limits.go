package manifest

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nodeplan/nodeplan/internal/bounded"
)

// Limits cap what LoadLimited reads, so that an endless or enormous input is an error
// naming the file and the limit rather than a process that grows until it dies. Zero fields
// take the defaults.
type Limits struct {
	// MaxFileBytes caps one file or standard input (default DefaultMaxFileBytes).
	MaxFileBytes int64
	// MaxPods caps the Pod objects given, and separately the pods the workloads expand into
	// (default MaxExpandedPods for both).
	MaxPods int
	// FIFOWait is how long a named pipe is waited on for a writer (default DefaultFIFOWait).
	FIFOWait time.Duration
}

// DefaultMaxFileBytes is the most Load reads from one file or from standard input.
const DefaultMaxFileBytes int64 = 512 << 20

// DefaultFIFOWait is how long Load waits for a writer of a named pipe.
const DefaultFIFOWait = 10 * time.Second

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxPods <= 0 {
		l.MaxPods = maxExpandedPods
	}
	if l.FIFOWait <= 0 {
		l.FIFOWait = DefaultFIFOWait
	}
	return l
}

// ErrTooLarge is wrapped by the errors of inputs over a limit of Limits.
var ErrTooLarge = errors.New("input over a limit")

// overLimit is an error that errors.Is matches with ErrTooLarge.
type overLimit struct{ error }

func (e overLimit) Is(target error) bool { return target == ErrTooLarge }
func (e overLimit) Unwrap() error        { return e.error }

// readInput reads a file or standard input within the limits.
func (l Limits) readInput(f string) ([]byte, error) {
	var data []byte
	var err error
	if f == Stdin {
		data, err = bounded.Read(os.Stdin, l.MaxFileBytes)
	} else {
		data, err = bounded.ReadFile(f, l.MaxFileBytes, l.FIFOWait)
	}
	var tl *bounded.TooLargeError
	if errors.As(err, &tl) {
		return nil, overLimit{err}
	}
	return data, err
}

// admitPod counts a Pod object against MaxPods; past it the parser stops reading.
func (p *parser) admitPod(o *object) bool {
	p.pods++
	if p.pods <= p.limits.MaxPods {
		return true
	}
	p.fail(o.src, o.ref, "", overLimit{fmt.Errorf("more than %d Pod objects, the most nodeplan reads", p.limits.MaxPods)})
	p.stopped = true
	return false
}

func newParser(limits Limits) *parser {
	return &parser{set: NewSet(), limits: limits.withDefaults()}
}

// expansionCap is the most pods the set's workloads may expand into.
func (s *Set) expansionCap() int {
	if s.maxPods > 0 {
		return s.maxPods
	}
	return maxExpandedPods
}
