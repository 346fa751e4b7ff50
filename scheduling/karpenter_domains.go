package scheduling

import "slices"

// Karpenter builds its topology again every provisioning round, and a group counting the
// cluster (a spread, a pod affinity, a pod anti-affinity term seen from its owner: not the
// inverse group of the pods it keeps away) takes as domains, besides those its NodePools
// offer, the label of every node on the group's key that passes its node filter. So a node
// an earlier round launched registers its domains in the later rounds' groups, even one the
// NodePools gave the group no domain for (an anti-affinity's creator did not tolerate the
// NodePool's PreferNoSchedule taint: plan:810021). Karpenter mode keeps its groups over the
// rounds and adds those domains as each NodeClaim launches (addLaunched), and to the groups
// a later round makes (universe.domains).

// launchedDomain is the domain a node launched with option l adds to g ("", false: none).
func launchedDomain(g *topologyGroup, l launchOption) (string, bool) {
	if g.hostname || g.rule.repels() || !launchedPasses(g, l) {
		return "", false
	}
	return l.value(g.key)
}

// addLaunched registers the domains of a node launched with option l in every group, and
// with the universe for the groups made later.
func (t *topology) addLaunched(l launchOption) {
	t.universe.launched = append(t.universe.launched, l)
	for _, g := range t.ordered {
		v, ok := launchedDomain(g, l)
		if !ok {
			continue
		}
		i, found := slices.BinarySearch(g.domains, v)
		if found {
			continue
		}
		g.domains = slices.Insert(g.domains, i, v)
		g.multi = nil // keyed by positions in g.domains
	}
}
