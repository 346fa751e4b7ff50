package scheduling

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// The default's queue is first-fit decreasing: a pod placed early can take what a later
// one needed most — the room of the only node it fits (difftest plan:830060), a NodePool
// limit, or every domain of a required anti-affinity between two sets of pods, of which
// only one can run (plan:830028: three large pods on new NodeClaims keep out four small
// ones that fit an existing node). When a plan leaves valid pods out, the default packing
// solves once more with those pods at the head of the queue and keeps that plan when it
// leaves out less (leavesOutLess): never fewer pods than the first order, Karpenter's, nor a
// pod for more pods of a lower priority; a plan placing as many of each keeps the first. A
// plan that places every pod (the benchmarks', most clusters') costs nothing more, nor do
// disruption's simulations (SkipRepack).

// karpenterPlaced are the pods res leaves out that Karpenter mode places, when Karpenter mode
// leaves out fewer pods than res (nil otherwise). First-fit decreasing may place pods that
// keep more pods out than they are, where Karpenter's own refusals leave those out: difftest
// default plan:930122, three app-0 pods with a zone anti-affinity placed first on NodeClaims
// of a NodePool whose team label seven app-4 pods avoid, while Karpenter refused app-0 and
// placed app-4 (the pods left out, placed first, included app-0 again). The default's next
// try places those pods first.
func karpenterPlaced(karp *lazyPlan, res *Result) (map[*corev1.Pod]bool, error) {
	k, err := karp.get()
	if err != nil || len(k.PodErrors) >= len(res.PodErrors) {
		return nil, err
	}
	left := make(map[*corev1.Pod]bool, len(k.PodErrors))
	for _, e := range k.PodErrors {
		left[e.Pod] = true
	}
	var out map[*corev1.Pod]bool
	for _, e := range res.PodErrors {
		if !left[e.Pod] {
			if out == nil {
				out = map[*corev1.Pod]bool{}
			}
			out[e.Pod] = true
		}
	}
	return out, nil
}

// karpenterSet: while Karpenter mode still leaves out fewer pods, the default plans once more
// with every pod Karpenter mode places first (placedPods). The pods the plan leaves out,
// placed first, can still lose the room to a pod Karpenter leaves out: difftest default
// plan:1011058, node-0's last 0.34 cpu, which app-4-0 (0.5 cpu) took before the 0.1-cpu app-2
// pods, where Karpenter, refusing app-4-0, bound two more app-2 pods there; placed first,
// Karpenter's seven pods all run on node-0.

// placedPods are the pods r places, on nodes and new NodeClaims.
func placedPods(r *Result) map[*corev1.Pod]bool {
	out := map[*corev1.Pod]bool{}
	for _, c := range r.NewNodeClaims {
		for _, p := range c.Pods {
			out[p] = true
		}
	}
	for _, m := range r.Bindings {
		out[m.Pod] = true
	}
	return out
}

// karpenterOrder: when Karpenter mode still leaves out fewer pods than the default's best
// plan, the default plans once more joining open NodeClaims in Karpenter's order alone,
// fewest pods first, without first looking for one whose cheapest type has the room. That
// preference puts pods together at no extra cost, which can take from pods left out the
// nodes or domains they needed: difftest default plan:990091, both app-3 pods on one
// NodeClaim, where four app-0 pods need a node with an app-3 pod (required hostname
// affinity) and their zone spread (maxSkew 2) lets that node take two; Karpenter's order put
// the app-3 pods on two NodeClaims in two zones, and all four followed. The plan is kept
// only when it leaves out less (leavesOutLess), breaks no spread as launched the first plan
// keeps, and none over the cap.

// termsInOrder: when Karpenter mode still leaves out fewer pods than the default's best plan
// and a pod of that plan went to an existing node by a required node-affinity term after its
// first (onExistingByAnyTerm: kube-scheduler binds a pod to a node of any term, so the
// default offers the existing nodes every term before it opens a NodeClaim), the default
// plans once more trying each pod's terms in order, existing nodes and NodeClaims under the
// first before the next, as Karpenter does. A free node a later term admits can be in a
// domain that the spreads counting the pod need left as it is: difftest default
// plan:1010017, app-2 (zone b, or family not r) took free node-0 in zone a by its second
// term, where app-1's zone spread (maxSkew 1), which counts app-2 and whose NodePool cannot
// launch in zone b, needed app-2 in zone b to rise above zones a and c; Karpenter opened
// NodeClaims in zone b for all three app-2 pods and placed three to five app-1 pods (Karpenter
// mode five), the default two. The plan is kept on the terms of the other second tries (leavesOutLess,
// no spread broken as launched that the first plan keeps, none over the cap).

// firstAffinity places first too the pods a required pod affinity of a pod placed first
// selects: the pod needs one of them placed before it. difftest default plan:980196: app-1
// needs zone c, where its affinity's app-0 pod is pinned by its volume, and the zone spread
// of eight larger app-2 pods counts app-1; placed first alone, app-1 found no app-0 yet and
// was retried behind the app-2 pods, which had filled zone c by then (Karpenter's tie draws
// left room there).
func firstAffinity(pods []*podData) {
	var needed map[*topologyGroup]bool
	for _, p := range pods {
		if !p.first || p.form == nil {
			continue
		}
		for _, g := range p.form.requiredAffinity {
			if needed == nil {
				needed = map[*topologyGroup]bool{}
			}
			needed[g] = true
		}
	}
	if needed == nil {
		return
	}
	for _, p := range pods {
		if p.first || p.invalid != nil {
			continue
		}
		for _, g := range p.selectedBy {
			if needed[g] {
				p.first = true
				break
			}
		}
	}
}

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

// spreadBreak is a kind of break of a required spread as launched: its key, and whether the
// spread selects the pod that carries it.
type spreadBreak struct {
	key  string
	self bool
}

// spreadBreaks are the kinds of required spreads on a key other than the hostname that a
// placed pod carrying one breaks as launched: its domain ends more than maxSkew above the
// least populated domain it may use. kube-scheduler checks a spread when it binds a pod that
// carries it, so if pods the spread only selects bind first, the pod may find its domain too
// full. The first queue order (Karpenter's) does not hold the pods a spread only selects to
// it, and its plans can end so; a second try (starved.go) is held to the same standard: it
// is not kept when it breaks a kind of spread its first plan keeps (breaksMore). Placing the
// left-out pods first can put a carrier ahead of the pods its spread only selects (difftest
// default plan:890198: four app-1 pods, whose capacity-type spread counts only app-3, placed
// first on spot, then nine app-3 pods on spot: skew 9 > 2 against on-demand, where the first
// plan broke no spread); but where the first plan ends with the same kind of skew, so may
// the second (plan:890036, zone spreads of app-0 and app-2: the second try placed all 22
// pods, the first 11; plan:910085).
func (s *solver) spreadBreaks(res *Result) map[spreadBreak]bool {
	// As launched, a spread's domains are those some node is in: the existing nodes' and
	// the NodeClaims' launch domains (a domain only a NodePool allows holds no node), the
	// result's when it launches a NodeClaim elsewhere than topology counted it (a
	// reservation without room left, say: difftest default plan:890140).
	launched := make([]func(key string) string, 0, len(s.existing)+len(s.claims))
	for _, e := range s.existing {
		launched = append(launched, func(key string) string { return singleValue(s.topo.get(e.reqs, key)) })
	}
	byHost := map[string]*NodeClaim{}
	if res != nil {
		for _, nc := range res.NewNodeClaims {
			byHost[nc.Hostname] = nc
		}
	}
	var counted, onClaim []func(key string) string
	for _, c := range s.claims {
		l, ok := cheapestLaunch(c.t, c.countingReqs(), c.types, anyType)
		count := func(key string) string {
			if v := singleValue(s.topo.get(c.reqs, key)); v != "" || !ok {
				return v
			}
			v, _ := l.value(key)
			return v
		}
		counted = append(counted, count)
		nc := byHost[c.hostname]
		onClaim = append(onClaim, func(key string) string {
			if v := launchedValue(nc, key); v != "" {
				return v
			}
			return count(key)
		})
	}
	launched = append(launched, onClaim...)
	// A node counts for a spread only when it passes the spread's node filter.
	passes := make([]func(g *topologyGroup) bool, 0, len(launched))
	for _, e := range s.existing {
		passes = append(passes, func(g *topologyGroup) bool { return g.passesFilter(e.reqs, e.taints, s.wellKnown) })
	}
	for _, c := range s.claims {
		// As launched, the node has its instance type's and offering's labels too: a
		// NodeClaim open on the filter's key may launch as a type or capacity type that
		// fails it (verify TestPropSolveIsValidFound: a spot-only spread read zone 3 as
		// holding none of its pods where only an on-demand NodeClaim launched).
		reqs := c.countingReqs()
		if nc := byHost[c.hostname]; nc != nil && nc.InstanceType != nil {
			reqs = reqs.Union(nc.InstanceType.Requirements)
			if nc.Offering != nil {
				reqs = reqs.Union(nc.Offering.Requirements)
			}
		}
		passes = append(passes, func(g *topologyGroup) bool { return g.passesFilter(reqs, c.t.taints, s.wellKnown) })
	}
	// The counts as launched: the pods a spread selects on a NodeClaim the result launches
	// elsewhere than topology counted them count there.
	adjusted := map[*topologyGroup]map[string]int{}
	countsOf := func(g *topologyGroup) map[string]int {
		if m, ok := adjusted[g]; ok {
			return m
		}
		m, cloned := g.counts, false
		for j, c := range s.claims {
			from, to := counted[j](g.key), onClaim[j](g.key)
			if from == to {
				continue
			}
			n := 0
			for _, p := range c.pods {
				if g.selects(p.pod) {
					n++
				}
			}
			if n == 0 {
				continue
			}
			if !cloned {
				m, cloned = maps.Clone(g.counts), true
			}
			if from != "" {
				m[from] -= n
			}
			if to != "" {
				m[to] += n
			}
		}
		adjusted[g] = m
		return m
	}
	present := map[*topologyGroup]map[string]bool{}
	lowest := func(g *topologyGroup) int {
		if present[g] == nil {
			present[g] = map[string]bool{}
			for i, domainOf := range launched {
				if v := domainOf(g.key); v != "" && passes[i](g) {
					present[g][v] = true
				}
			}
		}
		counts := countsOf(g)
		low, n := -1, 0
		for _, d := range g.domains {
			if g.filterAdmits(s.topo, d) && present[g][d] {
				n++
				if low < 0 || counts[d] < low {
					low = counts[d]
				}
			}
		}
		if n < int(g.spread.minDomains) {
			return 0 // fewer domains than minDomains: the global minimum is zero
		}
		return max(low, 0)
	}
	// A pod on a node that takes it now binds before the NodeClaims' pods: its spread holds
	// too if it holds over the nodes' counts alone (topologyGroup.nodeCounts), against the
	// least of the existing nodes' domains.
	// later are, per spread, the domains where a carrier is on a NodeClaim or a node not
	// initialized: it binds after the pods of the nodes that take them now.
	later := map[*topologyGroup]map[string]bool{}
	laterIn := func(g *topologyGroup) map[string]bool {
		if m, ok := later[g]; ok {
			return m
		}
		m := map[string]bool{}
		carries := func(f *podForm) bool {
			return slices.ContainsFunc(g.family.groups, func(h *topologyGroup) bool { return f.carriesRequired(h) })
		}
		for j, c := range s.claims {
			for _, p := range c.pods {
				if carries(p.form) {
					m[onClaim[j](g.key)] = true
				}
			}
		}
		for _, i := range s.placedOn {
			if e := s.existing[i]; !e.bindsNow {
				for _, p := range e.placed {
					if carries(p.form) {
						m[launched[i](g.key)] = true
					}
				}
			}
		}
		later[g] = m
		return m
	}
	holdsNow := func(g *topologyGroup, d string) bool {
		if laterIn(g)[d] {
			return false
		}
		low, n := -1, 0
		seen := map[string]bool{}
		for i := range s.existing {
			v := launched[i](g.key)
			if v == "" || seen[v] || !passes[i](g) {
				continue
			}
			seen[v] = true
			n++
			if low < 0 || g.nodeCounts[v] < low {
				low = g.nodeCounts[v]
			}
		}
		if n < int(g.spread.minDomains) || low < 0 {
			low = 0
		}
		return g.nodeCounts[d]-low <= int(g.spread.maxSkew)
	}
	var out map[spreadBreak]bool
	over := func(p *podData, domainOf func(key string) string, now bool) {
		f := p.form
		for i, g := range f.spread {
			if g.hostname || f.scheduleAnyway[i] {
				continue
			}
			if d := domainOf(g.key); d != "" && countsOf(g)[d]-lowest(g) > int(g.spread.maxSkew) && !(now && holdsNow(g, d)) {
				if out == nil {
					out = map[spreadBreak]bool{}
				}
				out[spreadBreak{g.key, g.selects(p.pod)}] = true
			}
		}
	}
	for _, i := range s.placedOn {
		for _, p := range s.existing[i].placed {
			over(p, launched[i], s.existing[i].bindsNow)
		}
	}
	for j, c := range s.claims {
		for _, p := range c.pods {
			over(p, onClaim[j], false)
		}
	}
	return out
}

// launchedValue is the value of key on the node NodeClaim nc launches as: its offering's
// zone and capacity type, its labels, or its instance type's single value ("": unknown).
func launchedValue(nc *NodeClaim, key string) string {
	if nc == nil {
		return ""
	}
	if nc.Offering != nil {
		if r, ok := nc.Offering.Requirements[key]; ok {
			if v := singleValue(r); v != "" {
				return v
			}
		}
	}
	if v, ok := nc.Labels[key]; ok {
		return v
	}
	if nc.InstanceType != nil {
		if r, ok := nc.InstanceType.Requirements[key]; ok {
			return singleValue(r)
		}
	}
	return ""
}

// breaksMore reports whether a breaks a kind of spread b keeps.
func breaksMore(a, b map[spreadBreak]bool) bool {
	for k := range a {
		if !b[k] {
			return true
		}
	}
	return false
}

// karpenterCheaperSet: when the default's plan res leaves pods out and Karpenter mode's
// answer leaves out as many of each priority, other pods, for less, the pods of res that
// Karpenter mode places (nil otherwise). First-fit decreasing places the largest pods first,
// and one of them can take a NodePool's limit, room or the only free domain that pods
// Karpenter places instead needed, where those are as many and cheaper (difftest default
// plan:1000191, an app-0 pod with a zone anti-affinity took the only free zone for a $0.184/h
// m7-4x16 where Karpenter placed an app-1 pod there on a $0.128/h r5-2x16; plan:1000135, a
// 3-cpu app-5 pod, which Karpenter does not place (its reading of an anti-affinity on a key
// the node lacks), took the cpu limit of five 0.1-cpu app-4 pods). The default's next try
// places those pods first and keeps its plan when it is better (better): as many pods of
// each priority for less.
func karpenterCheaperSet(karp *lazyPlan, res *Result) (map[*corev1.Pod]bool, error) {
	k, err := karp.get()
	if err != nil || len(k.PodErrors) != len(res.PodErrors) || byPriority(k, res) != 0 ||
		k.Price() >= res.Price()-priceEpsilon {
		return nil, err
	}
	left := make(map[*corev1.Pod]bool, len(k.PodErrors))
	for _, e := range k.PodErrors {
		left[e.Pod] = true
	}
	same := true
	for _, e := range res.PodErrors {
		same = same && left[e.Pod]
	}
	if same {
		return nil, nil
	}
	return placedPods(k), nil
}
