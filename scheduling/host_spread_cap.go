package scheduling

// A required hostname spread whose selector also picks pods that do not carry it: such a pod
// joining a host that holds a carrier raises the carrier's count there, and kube-scheduler
// checks the spread only when it binds a carrier, so if the other pods bind first the
// carrier finds its host above maxSkew against the empty nodes (a new node is an empty
// domain: the minimum is zero). The plan must hold as launched, in any bind order (difftest
// default plan:820021: skew 3 > 2; 820102: 7 > 1; karpenter-workload 20000: 30 hosts).
//
// So in the default mode a pod a spread only selects is first offered only hosts where it
// keeps every carrier there within maxSkew (the cap); only when it finds no place at all
// under the cap (a NodePool limit, say) is it placed without it, where the plan holds only
// if the least populated host ends high enough (difftest 630181: a cap without this
// fallback left two pods unplaced whose plan held). When such a plan breaks a spread as
// launched (carriersOverSkew), Solve plans again with the cap strict (those pods stay
// unplaced): a broken rule is worse than a pod left pending. Plans that never leave the
// cap (Karpenter's benchmark mix, where a new NodeClaim is always an option) pay neither
// the check nor the second plan. The repair (packing_repack.go) keeps such pods
// off carriers' NodeClaims itself and never moves a carrier. Karpenter mode places as
// Karpenter does and verify reports the broken rule.
//
// The same holds the other way for a spread with a node filter: a NodeClaim whose filter is
// undecided leaves the pods the spread selects uncounted (topology.defers), and a carrier
// that joins it decides the filter (its node affinity is the filter), so under the cap a
// carrier counts them; without it (no place at all under the cap) it joins as Karpenter's
// would (plan-a731).

// carry records host as holding a pod placed with form f for each required hostname spread
// f carries (default mode only).
func (t *topology) carry(f *podForm, host int32) {
	if t.karpenter {
		return
	}
	for i, g := range f.spread {
		if !g.hostname || f.scheduleAnyway[i] {
			continue
		}
		for int(host) >= len(g.carriers) {
			g.carriers = append(g.carriers, 0)
		}
		g.carriers[host]++
	}
}

// carried reports whether a pod carrying g was placed on host this Solve.
func (g *topologyGroup) carried(host int32) bool {
	return int(host) < len(g.carriers) && g.carriers[host] > 0
}

// capsCarriers reports whether p (form f) is first placed under the cap: a hostname spread
// that some host holds a carrier of selects it and it does not carry, or it carries a
// required hostname spread with a node filter.
func (p *podData) capsCarriers(f *podForm) bool {
	for _, g := range p.selectedBy {
		if g.hostname && len(g.carriers) > 0 && !f.carries(g) {
			return true
		}
	}
	for i, g := range f.spread {
		if g.hostname && !f.scheduleAnyway[i] && (g.spread.filterTerms != nil || g.spread.honorTaints) {
			return true
		}
	}
	return false
}

// deferredCapped is the required hostname spread p (form f) carries that c's pods left
// uncounted would raise above maxSkew on c once p decides the filter, or nil.
func (c *claim) deferredCapped(p *podData, f *podForm) *topologyGroup {
	for i, g := range f.spread {
		if !g.hostname || f.scheduleAnyway[i] {
			continue
		}
		if d := deferredOf(c.deferred, g); d != nil && d.at == "" && !g.spread.allowsHost(g, p.selfSelects(g), g.hostCount(c.host)+int32(d.n)) {
			return g
		}
	}
	return nil
}

// carrierCapped is the spread whose carrier on host p would raise above maxSkew, or nil.
func (p *podData) carrierCapped(f *podForm, host int32) *topologyGroup {
	for _, g := range p.selectedBy {
		if g.hostname && g.spread != nil && g.carried(host) && !f.carries(g) && !g.spread.allowsHost(g, true, g.hostCount(host)) {
			return g
		}
	}
	return nil
}

// carriersOverSkew reports whether the plan leaves a host holding a pod that carries a
// required hostname spread more than maxSkew above the least populated node the spread
// counts (existing nodes and the plan's NodeClaims), as verify judges it.
func (s *solver) carriersOverSkew() bool {
	for _, g := range s.topo.ordered {
		if !g.hostname || g.spread == nil || len(g.carriers) == 0 {
			continue
		}
		low, high := int32(1<<30), int32(-1)
		see := func(host, n int32) {
			low = min(low, n)
			if g.carried(host) {
				high = max(high, n)
			}
		}
		for _, e := range s.existing {
			if g.passesFilter(e.reqs, e.taints, s.wellKnown) {
				see(e.host, g.hostCount(e.host))
			}
		}
		for _, c := range s.claims {
			if !g.passesFilter(c.reqs, c.t.taints, s.wellKnown) {
				continue
			}
			n := int32(0)
			for _, p := range c.pods {
				if g.selects(p.pod) {
					n++
				}
			}
			see(c.host, n)
		}
		if high >= 0 && high-low > g.spread.maxSkew {
			return true
		}
	}
	return false
}
