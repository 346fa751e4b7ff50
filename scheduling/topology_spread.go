package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	"slices"

	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// spreadRule is a topology spread constraint: a pod may join a domain that keeps the group
// within maxSkew of its least populated domain.
type spreadRule struct {
	maxSkew    int32
	minDomains int32
	// The node filter (nodeAffinityPolicy / nodeTaintsPolicy Honor): only nodes passing it
	// count and make domains.
	filterTerms       []requirements.Requirements // ORed; nil: every node
	filterTolerations []corev1.Toleration
	honorTaints       bool
	// preferNoSchedule: a PreferNoSchedule taint keeps a node out too, unless tolerated
	// (Karpenter mode: Karpenter's filter checks every taint; kube-scheduler's does not).
	preferNoSchedule bool
}

func (*spreadRule) name() string        { return "spread" }
func (*spreadRule) code() ReasonCode    { return ReasonTopologySpread }
func (*spreadRule) repels() bool        { return false }
func (*spreadRule) countsDecided() bool { return true }
func (*spreadRule) bootstraps() bool    { return false }
func (*spreadRule) needsKey() bool      { return true }

// exclusiveHost: a spread of skew 1 over hostnames lets none of its own pods share a host.
func (s *spreadRule) exclusiveHost(self bool) bool { return s.maxSkew == 1 && self }

// countOpen: a spread counts no pod in an open domain (countsDecided).
func (*spreadRule) countOpen(*topology, *topologyGroup, *requirements.Requirement) []string {
	return nil
}

func (*spreadRule) settle(t *topology, oc openCount, v string)   { t.settleEveryOpen(oc, v) }
func (*spreadRule) unsettle(t *topology, oc openCount, v string) { t.unsettleEveryOpen(oc, v) }

// admissible: the domains within maxSkew of the global minimum, over the domains the pod's
// strict node requirements allow (zero with fewer than minDomains of them).
func (s *spreadRule) admissible(t *topology, g *topologyGroup, self bool, strict requirements.Requirements) admissibleDomains {
	a := s.admissibleWith(t, g, self, strict, g.counts, nil)
	if g.family != nil && slices.ContainsFunc(g.family.groups, func(h *topologyGroup) bool { return len(h.heldNow) > 0 }) {
		// A carrier held by the nodes' counts alone binds before the NodeClaims' pods: no
		// carrier that binds later may join it there (verify's TopologySpreadAsLaunched), nor,
		// when its skew was taken over the Nodes' domains only (not asKarpenters), any domain
		// (carriedNowOnly); a node that takes the pod now may still, over the nodes' counts
		// (admissibleNow).
		if !t.asKarpenters {
			a.domains = nil
		} else {
			a.domains = slices.DeleteFunc(slices.Clone(a.domains), func(d string) bool {
				return slices.ContainsFunc(g.family.groups, func(h *topologyGroup) bool { return h.heldNow[d] > 0 })
			})
		}
	}
	return a
}

// admissibleWith is admissible over these counts of g's domains; in the default mode the
// minimum is over the domains in over when it is not nil (nodesDomains), over the
// launchable ones otherwise.
func (s *spreadRule) admissibleWith(t *topology, g *topologyGroup, self bool, strict requirements.Requirements, counts map[string]int, over map[string]bool) admissibleDomains {
	// The global minimum is over the domains the pod's strict node requirements allow
	// (preferred node affinity never narrows it); under nodeAffinityPolicy Ignore every
	// node counts, so over every domain, as kube-scheduler checks it. Karpenter narrows it
	// then too, and places pods kube-scheduler refuses: Karpenter mode does as it does.
	// kube-scheduler's filter admits a node that matches any of the pod's required
	// node-affinity terms, so in the default mode the domains are those of every term, not
	// only of the term the pod's form is placed under (difftest default plan:890140: a pod
	// placed under its second term, capacity-type In [spot], counted spot alone and went
	// there 11 above reserved).
	var minCount int
	if t.karpenter {
		n := 0
		minCount = int(^uint(0) >> 1)
		for _, d := range g.domains {
			if t.get(strict, g.key).Has(d) {
				n++
				minCount = min(minCount, counts[d])
			}
		}
		if n < int(s.minDomains) || n == 0 {
			minCount = 0
		}
	} else {
		minCount = t.defaultLow(g, counts, over)
	}
	a := admissibleDomains{low: minCount}
	for _, d := range g.domains {
		if counts[d]+boolInt(self)-minCount <= int(s.maxSkew) {
			a.domains = append(a.domains, d)
		}
	}
	return a
}

// nowLow is the global minimum of spread g over its nodeCounts, over the domains of the
// existing nodes it counts (defaultLow over nodesDomains).
func (t *topology) nowLow(g *topologyGroup) int {
	return t.defaultLow(g, g.nodeCounts, t.nowDomains(g))
}

// nowDomains are the domains a pod a node takes now sees (nodesDomains) outside asKarpenters;
// nil (the launchable domains) otherwise.
func (t *topology) nowDomains(g *topologyGroup) map[string]bool {
	if t.asKarpenters {
		return nil
	}
	return t.nodesDomains(g)
}

// defaultLow is the default mode's global minimum of spread g over these counts: over the
// domains in over when it is not nil (nodesDomains: a pod a node takes now sees no other),
// otherwise over the domains a node the spread counts can be in (launchableDomains), as
// kube-scheduler sees no other; zero with fewer than minDomains of them.
func (t *topology) defaultLow(g *topologyGroup, counts map[string]int, over map[string]bool) int {
	minCount, n := int(^uint(0)>>1), 0
	domains := over
	if domains == nil {
		domains = t.launchableDomains(g)
	}
	for _, d := range g.domains {
		if g.filterAdmits(t, d) && (domains == nil || domains[d]) {
			n++
			minCount = min(minCount, counts[d])
		}
	}
	if n < int(g.spread.minDomains) || n == 0 {
		return 0
	}
	return minCount
}

// nodesDomains are the domains of spread g's key on the Nodes that g counts, not in-flight
// NodeClaims nor Nodes being deleted (universeNode.live): all kube-scheduler sees when it binds a pod to a node that takes
// it now, before any NodeClaim of the plan launches, so the least of g's nodeCounts is taken
// over them alone (admissibleNow, nowLow), as verify's and hack/difftest's holdsNow take it.
// A domain only a NodePool could launch a node in holds no minimum at zero then (difftest
// default plan:1000232: app-4's zone spread, maxSkew 1, one pod bound in zone b; zone a, where
// pool-1 offers types but a NodeClaim there would fall short of its minValues, kept app-4-1
// off initialized node-1 in zone c, where Karpenter and kube-scheduler put it).
func (t *topology) nodesDomains(g *topologyGroup) map[string]bool {
	if g.onNodes != nil {
		return g.onNodes
	}
	out := map[string]bool{}
	for _, n := range t.universe.existing() {
		if v, ok := n.labels[g.key]; ok && n.live && !out[v] && g.passesFilter(n.reqs, schedulingTaints(n.taints), nil) {
			out[v] = true
		}
	}
	g.onNodes = out
	return out
}

// narrow: the least populated admissible domains the node allows; the NodeClaim settles in
// the cheapest of them when the pod is counted (launch.go). Karpenter takes one of them in
// map order, which may be one the NodeClaim cannot launch in.
func (s *spreadRule) narrow(t *topology, g *topologyGroup, adm admissibleDomains, r *requirements.Requirement) *requirements.Requirement {
	var best []string
	var mask uint64 // best as bits of g.domains, when it has at most 64
	bestCount, j := 0, 0
	filtered := !t.karpenter && hasFilter(g)
	for i, d := range g.domains {
		if j == len(adm.domains) || adm.domains[j] != d {
			continue
		}
		j++
		if !r.Has(d) || filtered && !t.nodeDomain(g, d) {
			continue // no node the pod passes the filter of, the pod's own, can be there
		}
		switch c := g.counts[d]; {
		case t.widen:
			best = append(best, d)
		case len(best) == 0 || c < bestCount:
			best, bestCount, mask = append(t.tieBuf[:0], d), c, 0
		case c == bestCount:
			best = append(best, d)
		default:
			continue
		}
		if i < 64 {
			mask |= 1 << i
		}
	}
	t.tieBuf = best
	if t.karpenter && len(best) > 1 {
		// Karpenter takes one least populated domain in map order and retries the pod until
		// its NodeClaim can launch there: the first discovered one it can launch in.
		return g.domainRequirement(t.firstLaunchable(g, best))
	}
	switch len(best) {
	case 0:
		return nil
	case 1:
		return g.domainRequirement(best[0])
	}
	return g.domainsRequirement(best, mask)
}

// allowsHost: a new host is always an empty domain, so the minimum is zero.
func (s *spreadRule) allowsHost(g *topologyGroup, self bool, count int32) bool {
	return count+int32(boolInt(self)) <= s.maxSkew+g.hostFloor
}

// admitsTaints reports whether a node with these taints counts (it always does unless the
// spread honours taints). PreferNoSchedule taints keep no node out in the default mode:
// kube-scheduler's node inclusion reads NoSchedule and NoExecute alone. Karpenter's filter
// checks them too (TopologyNodeFilter.Matches), so in Karpenter mode a node with one counts
// only for a spread whose pod tolerates it, as once relaxed (karpenter_relax.go).
func (s *spreadRule) admitsTaints(taints []corev1.Taint) bool {
	if !s.honorTaints {
		return true
	}
	if s.preferNoSchedule {
		return tolerates(s.filterTolerations, taints)
	}
	return tolerates(s.filterTolerations, schedulingTaints(taints))
}

// filterAdmits reports whether spread g's node filter admits a node in domain d of g's key:
// some filter term allows d (every domain when g has no affinity filter).
func (g *topologyGroup) filterAdmits(t *topology, d string) bool {
	if g.spread.filterTerms == nil {
		return true
	}
	for _, term := range g.spread.filterTerms {
		if t.get(term, g.key).Has(d) {
			return true
		}
	}
	return false
}

// passesFilter reports whether a node with these requirements and taints counts for a
// spread group (every node counts for the other kinds).
func (g *topologyGroup) passesFilter(nodeReqs requirements.Requirements, taints []corev1.Taint, wellKnown requirements.KeySet) bool {
	s := g.spread
	if s == nil {
		return true
	}
	if !s.admitsTaints(taints) {
		return false
	}
	if s.filterTerms == nil {
		return true
	}
	for _, t := range s.filterTerms {
		if nodeReqs.IsCompatible(t, wellKnown) {
			return true
		}
	}
	return false
}

// filterDecided reports whether a node with requirements reqs and taints passes g's node
// filter, and whether that is decided whatever the node launches as (ok=false: some options
// pass and others fail).
func (g *topologyGroup) filterDecided(reqs requirements.Requirements, taints []corev1.Taint, wellKnown requirements.KeySet) (pass, ok bool) {
	s := g.spread
	isSpread := s != nil
	if !isSpread || s.filterTerms == nil {
		return !isSpread || s.admitsTaints(taints), true
	}
	if !s.admitsTaints(taints) {
		return false, true
	}
	compatible := false
	for _, term := range s.filterTerms {
		if !reqs.IsCompatible(term, wellKnown) {
			continue
		}
		compatible = true
		if termWithin(reqs, term, wellKnown) {
			return true, true
		}
	}
	return false, !compatible
}

// termWithin reports whether every node meeting reqs meets filter term term.
func termWithin(reqs, term requirements.Requirements, wellKnown requirements.KeySet) bool {
	for k, r := range term {
		cur, ok := reqs[k]
		if !ok {
			// A label the NodeClaim does not name is missing unless it is well-known.
			if wellKnown[k] || !negative(r) {
				return false
			}
			continue
		}
		if !cur.Intersection(r).Equal(cur) {
			return false
		}
	}
	return true
}

// filterTerms are a spread group's node filter terms (ORed; nil: every node, and for the
// other kinds).
func (g *topologyGroup) filterTerms() []requirements.Requirements {
	if g.spread != nil {
		return g.spread.filterTerms
	}
	return nil
}

// nodeDomain reports whether d is a domain where a node passing g's node filter could be
// (domainsOfNodes, loose: any type of a NodePool, whatever its requirements on other labels
// and its limits): narrow keeps a pod's NodeClaim out of other domains.
func (t *topology) nodeDomain(g *topologyGroup, d string) bool {
	if g.filterDomains == nil {
		g.filterDomains = t.domainsOfNodes(g.key, g.spread.filterTerms, false, nil)
	}
	return g.filterDomains[d]
}

// launchable reports whether d is a domain where a node that g counts can be
// (launchableDomains): the least count as launched is over such domains only, since a
// domain no node is in is none of kube-scheduler's.
func (t *topology) launchable(g *topologyGroup, d string) bool {
	return t.launchableDomains(g)[d]
}

// launchableDomains are the domains where a node that spread g counts can be (nil for a
// hostname spread, whose domains are the nodes, a new NodeClaim one more): an existing
// node's, or one a NodePool allows on g's key where an available offering, compatible with
// the NodePool, of an instance type it can launch (its requirements admit the type, its
// limits left room for it once the existing nodes were counted) has labels (the type's and
// offering's, then the NodePool's others) that meet one of g's node filter terms (any,
// without a filter). kube-scheduler counts only nodes passing the filter, so a domain no
// such node can be in never holds the spread's minimum at zero (difftest default
// plan:952340: app-2's zone spread, maxSkew 2, over pods that need a10g GPUs offered in zone
// b only: the default placed two of four where Karpenter and kube-scheduler place all four;
// plan:990122: "reserved", offered only by a NodePool whose cpu limit its nodes had used up,
// held a capacity-type spread's minimum at zero and kept an app-1 pod out). A NodePool's
// taints are read only under nodeTaintsPolicy Honor (the node must pass both halves of the
// filter); otherwise a domain counts wherever such a node could be, as hack/difftest's
// checker reads it (verify counts fewer: a NodePool's limits with the plan's nodes too).
func (t *topology) launchableDomains(g *topologyGroup) map[string]bool {
	if g.launchable != nil || g.hostname {
		return g.launchable
	}
	if hasFilter(g) || g.spread.honorTaints {
		// Under nodeTaintsPolicy Honor a node counts only if it passes both halves of the
		// filter: one NodePool's node must, not one NodePool's labels and another's taints
		// (difftest default plan:1009211: app-5 requires team Exists; pool-2 has the label but
		// a NoSchedule taint app-5 does not tolerate, pool-1 no label: neither launches a node
		// app-5's capacity-type spread counts, yet on-demand held its minimum at zero and the
		// default placed one app-5 pod of seven).
		var admits func([]corev1.Taint) bool
		if g.spread.honorTaints {
			admits = g.spread.admitsTaints
		}
		g.launchable = t.domainsOfNodes(g.key, g.spread.filterTerms, true, admits)
		return g.launchable
	}
	doms, ok := t.nodeDomains[g.key]
	if !ok {
		doms = t.domainsOfNodes(g.key, nil, true, nil)
		if t.nodeDomains == nil {
			t.nodeDomains = map[string]map[string]bool{}
		}
		t.nodeDomains[g.key] = doms
	}
	g.launchable = doms
	return doms
}

// domainsOfNodes are the values of key where a node meeting one of terms (nil: any node),
// with taints admits allows (nil: any), can be: launchable ones (strict, launchableDomains),
// or those nodeDomain reads.
func (t *topology) domainsOfNodes(key string, terms []requirements.Requirements, strict bool, admits func([]corev1.Taint) bool) map[string]bool {
	out := map[string]bool{}
	meets := func(r requirements.Requirements, within bool) bool {
		if terms == nil {
			return true
		}
		for _, term := range terms {
			if within && termWithin(r, term, nil) || !within && r.IsCompatible(term, t.wellKnown) {
				return true
			}
		}
		return false
	}
	for _, n := range t.universe.existing() {
		if v, ok := n.labels[key]; ok && !out[v] && meets(n.reqs, true) && (admits == nil || admits(n.taints)) { // a node's labels are all it has
			out[v] = true
		}
	}
	for _, p := range t.universe.pools {
		if admits != nil && !admits(p.taints) {
			continue
		}
		pr, constrained := p.reqs[key]
		offer := func(it *cloudprovider.InstanceType) {
			for _, o := range it.Offerings {
				if o == nil || !o.Available || strict && !offeringCompatible(o, p.reqs) {
					continue
				}
				r := it.Requirements.Union(o.Requirements)
				for k, pk := range p.reqs {
					if !r.Has(k) {
						r[k] = pk // a label the NodePool adds
					}
				}
				v := singleValue(r.Get(key))
				if v == "" || out[v] || constrained && !pr.Has(v) {
					continue
				}
				if meets(r, false) {
					out[v] = true
				}
			}
		}
		if !strict {
			for _, it := range p.types {
				if it != nil {
					offer(it)
				}
			}
			continue
		}
		if p.t == nil {
			continue // the NodePool can launch nothing
		}
		types := p.t.startTypes
		if types == nil {
			types = p.t.all // before the limits were read (markStartTypes)
		}
		types.each(func(i int) bool {
			offer(p.t.types[i].it)
			return true
		})
	}
	return out
}
