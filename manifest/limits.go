package manifest

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nodeplan/nodeplan/internal/bounded"
)

// Limits cap what LoadLimited reads in total, so that an endless or enormous input is an
// error naming the file and the limit rather than a process that grows until it dies: the
// bytes of every file together, and the objects of every kind. Zero fields take the defaults.
type Limits struct {
	// MaxInputBytes caps the bytes read from every file and standard input together (default
	// DefaultMaxInputBytes).
	MaxInputBytes int64
	// MaxPods caps the Pod objects given, and separately the pods the workloads expand into
	// (default MaxExpandedPods for both).
	MaxPods int
	// MaxObjects caps the objects of each other kind nodeplan reads, kind by kind: Nodes,
	// NodeClaims, NodePools, workloads, PersistentVolumeClaims, ..., and interruption
	// messages (default DefaultMaxObjects). Skipped kinds are only counted.
	MaxObjects int
	// FIFOWait is how long a named pipe is waited on for a writer (default DefaultFIFOWait).
	FIFOWait time.Duration
}

// DefaultMaxInputBytes is the most Load reads from all files and standard input together.
const DefaultMaxInputBytes int64 = 512 << 20

// DefaultMaxObjects is the most objects of one kind (other than Pod) Load reads: ten times
// the nodes of the largest clusters, as many as MaxExpandedPods pods.
const DefaultMaxObjects = 100000

// DefaultFIFOWait is how long Load waits for a writer of a named pipe.
const DefaultFIFOWait = 10 * time.Second

func (l Limits) withDefaults() Limits {
	if l.MaxInputBytes <= 0 {
		l.MaxInputBytes = DefaultMaxInputBytes
	}
	if l.MaxPods <= 0 {
		l.MaxPods = maxExpandedPods
	}
	if l.MaxObjects <= 0 {
		l.MaxObjects = DefaultMaxObjects
	}
	if l.FIFOWait <= 0 {
		l.FIFOWait = DefaultFIFOWait
	}
	return l
}

// ErrTooLarge is wrapped by the errors of inputs over a limit of Limits.
var ErrTooLarge = errors.New("input over a limit")

// LimitError is an input over one of Limits: Limit names the field (MaxInputBytes, MaxPods,
// MaxObjects), Max its value, and Kind what MaxPods or MaxObjects counted (Pod,
// Node, InterruptionMessages, ...; "expanded pods" for the pods workloads expand into).
// errors.Is matches it with ErrTooLarge.
type LimitError struct {
	Limit string
	Max   int64
	Kind  string
}

// The Limits fields a LimitError names.
const (
	LimitInputBytes = "MaxInputBytes"
	LimitPods       = "MaxPods"
	LimitObjects    = "MaxObjects"
)

func (e *LimitError) Error() string {
	switch {
	case e.Limit == LimitInputBytes:
		return fmt.Sprintf("brings the input over %s, the most nodeplan reads from all files and standard input together", bounded.Size(e.Max))
	case e.Kind == expandedPods:
		return fmt.Sprintf("the workloads expand into more than %d pods, the most nodeplan expands", e.Max)
	case e.Kind == InterruptionKind:
		return fmt.Sprintf("more than %d interruption messages, the most nodeplan reads", e.Max)
	case e.Limit == LimitPods:
		return fmt.Sprintf("more than %d Pod objects, the most nodeplan reads", e.Max)
	}
	return fmt.Sprintf("more than %d %s objects, the most nodeplan reads of one kind", e.Max, e.Kind)
}

func (e *LimitError) Is(target error) bool { return target == ErrTooLarge }

// expandedPods is the Kind of the limit on the pods workloads expand into.
const expandedPods = "expanded pods"

// readInput reads a file or standard input within what is left of MaxInputBytes.
func (p *parser) readInput(f string) ([]byte, error) {
	left := p.limits.MaxInputBytes - p.set.InputBytes
	var data []byte
	var err error
	if f == Stdin {
		data, err = bounded.Read(os.Stdin, left)
	} else {
		data, err = bounded.ReadFile(f, left, p.limits.FIFOWait)
	}
	var tl *bounded.TooLargeError
	if errors.As(err, &tl) {
		return nil, &LimitError{Limit: LimitInputBytes, Max: p.limits.MaxInputBytes}
	}
	p.set.InputBytes += int64(len(data))
	return data, err
}

// admit counts an object of kind against its limit (MaxPods for Pods, MaxObjects for every
// other kind); past it the parser reports the object and stops reading.
func (p *parser) admit(kind string, src Source, ref ObjectRef) bool {
	if p.counts == nil {
		p.counts = map[string]int{}
	}
	p.counts[kind]++
	limit, max := LimitObjects, p.limits.MaxObjects
	if kind == "Pod" {
		limit, max = LimitPods, p.limits.MaxPods
	}
	if p.counts[kind] <= max {
		return true
	}
	p.fail(src, ref, "", &LimitError{Limit: limit, Max: int64(max), Kind: kind})
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
