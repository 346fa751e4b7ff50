package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// progressLog appends one line per finished case to <out>/progress.txt as the run goes, so a
// long run that is stopped (or still running) has its partial results on disk.
type progressLog struct {
	mu sync.Mutex
	f  *os.File
}

// newProgressLog starts <out>/progress.txt afresh (or writes nothing when on is false).
func newProgressLog(out string, on bool) *progressLog {
	l := &progressLog{}
	if !on {
		return l
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return l
	}
	l.f, _ = os.Create(filepath.Join(out, "progress.txt"))
	return l
}

// add writes "kind seed status fewer dearer invalid karpenter-breaks [class] features".
func (l *progressLog) add(r *caseResult) {
	if l.f == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	v := r.Verdict
	fmt.Fprintf(l.f, "%s %d %s fewer=%t dearer=%t invalid=%t karpenter-breaks=%t [%s] %s\n", r.Kind, r.Seed, r.Status,
		v.Fewer, v.Dearer, v.Invalid, v.KarpenterBreaks, r.Class, strings.Join(r.Features, ","))
}

func (l *progressLog) close() {
	if l.f != nil {
		_ = l.f.Close()
	}
}

// parseProgress reads the results of a progress.txt back (for -tally).
func parseProgress(text string) ([]*caseResult, error) {
	var out []*caseResult
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if line == "" {
			continue
		}
		open, closing, last := strings.Index(line, " ["), strings.LastIndex(line, "] "), strings.LastIndexByte(line, ' ')
		if open < 0 || closing < open || last < closing {
			return nil, fmt.Errorf("line %d: %q is not a progress line", i+1, line)
		}
		r := &caseResult{Class: line[open+2 : closing]}
		var fewer, dearer, invalid, breaks bool
		if _, err := fmt.Sscanf(line[:open], "%s %d %s fewer=%t dearer=%t invalid=%t karpenter-breaks=%t",
			&r.Kind, &r.Seed, &r.Status, &fewer, &dearer, &invalid, &breaks); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		r.Verdict = verdict{Fewer: fewer, Dearer: dearer, Invalid: invalid, KarpenterBreaks: breaks}
		if f := line[last+1:]; f != "" && f != "]" {
			r.Features = strings.Split(f, ",")
		}
		out = append(out, r)
	}
	return out, nil
}
