package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress tells a person at a terminal what a long run is doing, on stderr: one line,
// rewritten in place and cleared at the end. It is silent when stderr is not a terminal (a
// pipe, a file, CI) and for inputs too small to wait on.
type progress struct {
	w       io.Writer // nil: silent
	started time.Time
	shown   bool
}

// progressPods is the input size, in pods, from which a run says what it is doing (20,000
// pods take about 10 s of CPU).
const progressPods = 2000

// newProgress is a progress line on stderr when it is a terminal.
func newProgress(stderr io.Writer) *progress {
	f, ok := stderr.(*os.File)
	if !ok {
		return &progress{}
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return &progress{}
	}
	return &progress{w: stderr, started: time.Now()}
}

// step shows what the run does now, for an input of pods pods.
func (p *progress) step(pods int, format string, args ...any) {
	if p.w == nil || pods < progressPods {
		return
	}
	p.shown = true
	fmt.Fprintf(p.w, "\r\033[Knodeplan: %s (%.1fs)", fmt.Sprintf(format, args...), time.Since(p.started).Seconds())
}

// done clears the line.
func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
