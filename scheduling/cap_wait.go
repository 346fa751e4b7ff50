package scheduling

// A pod a required zone or capacity-type spread only selects may find no place under the cap
// (host_spread_cap.go) only because its own spread's least populated domains are not the
// least populated of the spread that selects it: with maxSkew 1 each leaves it its minimum's
// domains, and those may not meet. Placed then without the cap it breaks the other spread as
// launched unless later pods fill that spread's least populated domains; with the cap strict
// it stays pending (BenchmarkSolve at 100,000 pods: 115 pods, though the counts rose past
// them later). Such a pod's place under the cap opens when one of those minimums rises, as
// later pods fill the least populated domains: so the pod waits, out of the queue, until a
// minimum it was held to rises, then is tried first; pods still waiting when nothing else is
// left to place take their turn as any pod that failed, the fallback without the cap
// included.

// capWaiter is a pod waiting for the minimum of a spread it was held to under the cap to rise.
type capWaiter struct {
	p      *podData
	groups []*topologyGroup
	lows   []int
}

// waitsForCap reports whether p (form f), refused under the cap, waits for a minimum to rise
// instead of trying its fallback now: only while the queue has other pods to place, and only
// for a spread over a key other than the hostname that selects it and holds carriers.
func (s *solver) waitsForCap(p *podData, f *podForm) bool {
	if !s.capWaits {
		return false
	}
	for _, g := range p.selectedBy {
		if !g.hostname && len(g.carriedIn) > 0 && !f.carries(g) {
			return true
		}
	}
	return false
}

// wait takes p out of the queue until a minimum it was held to rises (release).
func (s *solver) wait(p *podData) {
	w := capWaiter{p: p}
	add := func(g *topologyGroup) {
		w.groups = append(w.groups, g)
		w.lows = append(w.lows, g.capLow(s.topo))
	}
	f := p.form
	for _, g := range p.selectedBy {
		if !g.hostname && len(g.carriedIn) > 0 && !f.carries(g) {
			add(g)
		}
	}
	for i, g := range f.spread {
		if !g.hostname && !f.scheduleAnyway[i] {
			add(g)
		}
	}
	s.waiting = append(s.waiting, w)
}

// release appends to ready the waiting pods, in the order they began to wait, a minimum of
// whose rose since.
func (s *solver) release(ready []*podData) []*podData {
	kept := s.waiting[:0]
	for _, w := range s.waiting {
		rose := false
		for i, g := range w.groups {
			if g.capLow(s.topo) > w.lows[i] {
				rose = true
				break
			}
		}
		if rose {
			ready = append(ready, w.p)
		} else {
			kept = append(kept, w)
		}
	}
	clear(s.waiting[len(kept):])
	s.waiting = kept
	return ready
}
