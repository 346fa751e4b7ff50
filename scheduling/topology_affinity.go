package scheduling

import (
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// affinityRule is a pod affinity term: a pod may join a domain holding a pod the group
// selects, or start the group anywhere when it selects itself and no pod matches yet.
type affinityRule struct{}

func (affinityRule) name() string        { return "affinity" }
func (affinityRule) code() ReasonCode    { return ReasonPodAffinity }
func (affinityRule) repels() bool        { return false }
func (affinityRule) countsDecided() bool { return false }
func (affinityRule) bootstraps() bool    { return true }
func (affinityRule) needsKey() bool      { return true }

func (affinityRule) exclusiveHost(bool) bool { return false }

// countOpen: affinity counts a pod on an open node in no domain, only in its total, so no pod
// starts the group elsewhere as if nothing matched (nothing on the hostname key, where a node
// is never open).
func (affinityRule) countOpen(_ *topology, g *topologyGroup, _ *requirements.Requirement) []string {
	if !g.hostname {
		g.total++
		return []string{}
	}
	return nil
}

// settle counts the pod in domain v, or drops it from the total when the node has no such
// label.
func (affinityRule) settle(_ *topology, oc openCount, v string) {
	if v == "" {
		oc.g.total--
	} else {
		oc.g.counts[v]++
	}
}

func (affinityRule) unsettle(_ *topology, oc openCount, v string) {
	if v == "" {
		oc.g.total++
	} else {
		oc.g.counts[v]--
	}
}

// admissible: the domains holding a match that the pod's strict node requirements allow.
func (affinityRule) admissible(t *topology, g *topologyGroup, self bool, strict requirements.Requirements) admissibleDomains {
	var a admissibleDomains
	pr := t.get(strict, g.key)
	for _, d := range g.domains {
		if g.counts[d] > 0 && pr.Has(d) {
			a.domains = append(a.domains, d)
		}
	}
	if t.karpenter && len(g.counts) > len(a.domains) {
		// Karpenter's Record registers a domain its group did not know when it counts a
		// match there (a NodePool whose taints the group's creator does not tolerate): the
		// match holds it, and the pod may start the group elsewhere only when no match is
		// in its reach (difftest plan:964991: app-0 on the spot NodePool app-1 does not
		// tolerate kept app-1 out of the on-demand one).
		n := len(a.domains)
		for d, c := range g.counts {
			if _, known := slices.BinarySearch(g.domains, d); c > 0 && !known && pr.Has(d) {
				a.domains = append(a.domains, d)
			}
		}
		slices.Sort(a.domains[n:])
	}
	// A pod may start its group only where no pod matches anywhere, as kube-scheduler
	// binds it. Karpenter starts one whenever no domain in the pod's reach counts a match:
	// when the matches are only out of its reach (TopologyGroup.anyCompatiblePodDomain),
	// launching a node the pod is never bound to (verify reports the broken affinity,
	// difftest plan:956396), and when they are only on open NodeClaims whose domain is not
	// decided yet, which its Record counts nowhere (plan:964343). Karpenter mode does too.
	if len(a.domains) == 0 && self && (g.total == 0 || t.karpenter) {
		a.domains, a.bootstrap = g.domains, true
	}
	return a
}

// narrow: the admissible domains the node allows; a pod starting the group takes the node's
// single domain, or every domain the node allows, and its NodeClaim settles in the cheapest
// of them (the round's end counts it there, rounds.go). In Karpenter mode it takes the first
// of the group's domains the node allows, as Karpenter takes the first in its map order,
// price-blind, and only among the group's domains: a node whose single value the group never
// registered (a NodePool whose taints the group's creator does not tolerate) starts nothing.
func (affinityRule) narrow(t *topology, g *topologyGroup, adm admissibleDomains, r *requirements.Requirement) *requirements.Requirement {
	if adm.bootstrap {
		if !t.karpenter {
			if singleValue(r) != "" {
				return r
			}
			if ds := allowedBy(g.domains, r); len(ds) > 0 {
				return requirements.MustNew(g.key, requirements.In, bootstrapPinned(g, ds)...)
			}
			return nil
		}
		if d := t.firstDiscoveredLaunchable(g, allowedBy(g.domains, r)); d != "" {
			return g.domainRequirement(d)
		}
		return nil
	}
	with := allowedBy(adm.domains, r)
	if len(with) == 0 {
		return nil
	}
	return requirements.MustNew(g.key, requirements.In, with...)
}

// bootstrapPinned are the domains of ds the most pending pods carrying g are pinned to, ds
// when none is: a pod starting the group goes where they can follow it (difftest default
// plan:971648: app-2-0 started its zone affinity in zone c, the cheapest, where app-2-1, its
// volume in zone b, could never join it; Karpenter placed both in zone b).
func bootstrapPinned(g *topologyGroup, ds []string) []string {
	most := 0
	for _, d := range ds {
		most = max(most, g.pinned[d])
	}
	if most == 0 {
		return ds
	}
	var out []string
	for _, d := range ds {
		if g.pinned[d] == most {
			out = append(out, d)
		}
	}
	return out
}

func (affinityRule) allowsHost(g *topologyGroup, self bool, count int32) bool {
	return count > 0 || (self && g.total == 0)
}
