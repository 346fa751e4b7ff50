package scheduling

import (
	corev1 "k8s.io/api/core/v1"
)

// The default's queue is first-fit decreasing: a pod placed early can take what a later
// one needed most — the room of the only node it fits (difftest plan:830060), a NodePool
// limit, or every domain of a required anti-affinity between two sets of pods, of which
// only one can run (plan:830028: three large pods on new NodeClaims keep out four small
// ones that fit an existing node). When a plan leaves valid pods out, the default packing
// solves once more with those pods at the head of the queue and keeps that plan when it
// leaves out less (leavesOutLess): never fewer pods than the first order, Karpenter's, nor a
// pod for more pods of a lower priority; a plan placing as many of each keeps the first. A plan that places every pod (the benchmarks', most
// clusters') costs nothing more, nor do disruption's simulations (SkipRepack).

// starved are the valid pods the Solve left out (nil: none).
func starved(pods []*podData, errs map[*podData]podFailure) map[*corev1.Pod]bool {
	var out map[*corev1.Pod]bool
	for _, p := range pods {
		if _, failed := errs[p]; failed && p.invalid == nil {
			if out == nil {
				out = map[*corev1.Pod]bool{}
			}
			out[p.pod] = true
		}
	}
	return out
}

// spreadsOverSkew reports whether a pod placed with a required spread on a key other than
// the hostname ends, as launched, more than maxSkew above the least populated domain it may
// use: kube-scheduler checks the spread when it binds that pod, so if the pods the spread
// only selects, placed after it in the queue, bind first, the pod finds its domain too full.
// Placing the left-out pods first can put such a pod ahead of them (difftest default
// plan:890198: four app-1 pods, whose capacity-type spread counts only app-3, placed first
// on spot, then nine app-3 pods on spot: skew 9 > 2 against on-demand); a second try that
// does is not kept.
func (s *solver) spreadsOverSkew() bool {
	// As launched, a spread's domains are those some node is in: the existing nodes' and
	// the NodeClaims' launch domains (a domain only a NodePool allows holds no node).
	launched := make([]func(key string) string, 0, len(s.existing)+len(s.claims))
	for _, e := range s.existing {
		launched = append(launched, func(key string) string { return singleValue(s.topo.get(e.reqs, key)) })
	}
	var onClaim []func(key string) string
	for _, c := range s.claims {
		l, ok := cheapestLaunch(c.t, c.countingReqs(), c.types, anyType)
		onClaim = append(onClaim, func(key string) string {
			if v := singleValue(s.topo.get(c.reqs, key)); v != "" || !ok {
				return v
			}
			v, _ := l.value(key)
			return v
		})
	}
	launched = append(launched, onClaim...)
	present := map[string]map[string]bool{}
	lowest := func(g *topologyGroup, f *podForm) int {
		if present[g.key] == nil {
			present[g.key] = map[string]bool{}
			for _, domainOf := range launched {
				if v := domainOf(g.key); v != "" {
					present[g.key][v] = true
				}
			}
		}
		eligible := g.domains
		if g.spread.filterTerms != nil {
			eligible = g.domainsIn(s.topo.get(f.strict, g.key))
		}
		low := -1
		for _, d := range eligible {
			if present[g.key][d] && (low < 0 || g.counts[d] < low) {
				low = g.counts[d]
			}
		}
		return max(low, 0)
	}
	over := func(p *podData, domainOf func(key string) string) bool {
		f := p.form
		for i, g := range f.spread {
			if g.hostname || f.scheduleAnyway[i] {
				continue
			}
			if d := domainOf(g.key); d != "" && g.counts[d]-lowest(g, f) > int(g.spread.maxSkew) {
				return true
			}
		}
		return false
	}
	for _, i := range s.placedOn {
		for _, p := range s.existing[i].placed {
			if over(p, launched[i]) {
				return true
			}
		}
	}
	for j, c := range s.claims {
		for _, p := range c.pods {
			if over(p, onClaim[j]) {
				return true
			}
		}
	}
	return false
}
