package simulate

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
)

// traceBuilder accumulates the trace as the run goes.
type traceBuilder struct {
	trace    Trace
	totals   Totals
	events   []Event // what happened at the current instant
	waiting  int     // pods waiting now (walkPending)
	unpriced map[string]bool
}

func (t *traceBuilder) start(s *sim) {
	t.trace.Start, t.trace.End = s.in.Start, s.end
	t.totals.Disruptions = map[string]int{}
	t.totals.MaxPendingSeconds = map[string]float64{}
	t.unpriced = map[string]bool{}
}

// event records that something happened now.
func (t *traceBuilder) event(e Event) { t.events = append(t.events, e) }

// flush closes the current instant: a point when something happened or a value changed.
func (t *traceBuilder) flush(s *sim) {
	price, unpriced := s.state.Price()
	for _, n := range unpriced {
		t.unpriced[n] = true
	}
	p := Point{Time: s.now, PricePerHour: price, Nodes: len(s.state.Nodes()), PendingPods: t.waiting, Events: t.events}
	t.events = nil
	series := t.trace.Series
	if k := len(series); k > 0 {
		last := series[k-1]
		if last.Time.Equal(p.Time) {
			p.Events = append(last.Events, p.Events...)
			series[k-1] = p
			return
		}
		if len(p.Events) == 0 && last.PricePerHour == p.PricePerHour && last.Nodes == p.Nodes && last.PendingPods == p.PendingPods {
			return
		}
	}
	t.trace.Series = append(series, p)
}

// finish integrates the series over the run and closes the pods still waiting.
func (s *sim) finish() *Trace {
	t := &s.trace
	series := t.trace.Series
	for i, p := range series {
		until := s.end
		if i+1 < len(series) {
			until = series[i+1].Time
		}
		hours := until.Sub(p.Time).Hours()
		t.totals.Cost += p.PricePerHour * hours
		t.totals.NodeHours += float64(p.Nodes) * hours
		t.totals.PeakNodes = max(t.totals.PeakNodes, p.Nodes)
	}
	keys := make([]string, 0, len(s.pending))
	for k := range s.pending {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s.waited(k, s.end)
	}
	for n := range t.unpriced {
		t.totals.Unpriced = append(t.totals.Unpriced, n)
	}
	sort.Strings(t.totals.Unpriced)
	t.trace.Totals = t.totals
	return &t.trace
}

// walkPending follows every pod's wait: from becoming pending until it runs. A pod waits when
// it is pending, or bound to a node that is not ready yet.
func (s *sim) walkPending() {
	s.generation++
	waiting := 0
	see := func(p *corev1.Pod) {
		k := cluster.PodKey(p)
		w := p.Status.Phase != corev1.PodRunning && !cluster.IsTerminal(p) && p.DeletionTimestamp == nil
		ps := s.pending[k]
		switch {
		case w && ps == nil:
			s.pending[k] = &pendingSince{since: s.now, seen: s.generation}
			s.workloadOf(p)
		case w:
			ps.seen = s.generation
		case ps != nil:
			s.waited(k, s.now)
		}
		if w {
			waiting++
		}
	}
	for _, p := range s.state.Pending() {
		see(p)
	}
	for _, n := range s.state.Nodes() {
		for _, p := range n.Pods {
			see(p)
		}
	}
	for k, ps := range s.pending {
		if ps.seen != s.generation { // deleted while waiting
			s.waited(k, s.now)
		}
	}
	s.trace.waiting = waiting
}

// waited ends a pod's wait at t.
func (s *sim) waited(key string, t time.Time) {
	ps := s.pending[key]
	if ps == nil {
		return
	}
	delete(s.pending, key)
	w := s.workloadName[key]
	if secs := t.Sub(ps.since).Seconds(); secs > s.trace.totals.MaxPendingSeconds[w] {
		s.trace.totals.MaxPendingSeconds[w] = secs
	} else if _, ok := s.trace.totals.MaxPendingSeconds[w]; !ok {
		s.trace.totals.MaxPendingSeconds[w] = secs
	}
}

// workloadOf names the pod's workload for MaxPendingSeconds (remembered by pod key):
// "<Kind> <namespace>/<name>" of the input workload that owns it, else of its controller,
// else "Pod <namespace>/*" (the pods of the namespace without a controller, together).
func (s *sim) workloadOf(p *corev1.Pod) string {
	k := cluster.PodKey(p)
	if w, ok := s.workloadName[k]; ok {
		return w
	}
	bare := "Pod " + p.Namespace + "/*"
	name := bare
	for _, w := range s.in.Workloads {
		if w.Owns(p) {
			name = w.Kind + " " + w.Namespace + "/" + w.Name
			break
		}
	}
	if name == bare {
		for _, r := range p.OwnerReferences {
			if r.Controller != nil && *r.Controller {
				name = r.Kind + " " + p.Namespace + "/" + r.Name
				break
			}
		}
	}
	s.workloadName[k] = name
	return name
}
