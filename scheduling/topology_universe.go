package scheduling

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// universe records where topology domains come from: the templates and offering pools, the
// existing nodes (readNodes). Each key's domains are read on first use.
type universe struct {
	templates []*template
	pools     []offeringPool
	karpenter bool
	readNodes func() []universeNode // nil: no nodes
	// reachable maps key -> domain -> the taints of each NodePool that can launch a node in
	// it: the domains of pod (anti-)affinity.
	reachable map[string]map[string][][]corev1.Taint
	// offered is as reachable for every domain a NodePool or its instance types name,
	// whether or not an offering there is available or fits the NodePool: the domains of a
	// topology spread, as Karpenter discovers them (a domain nothing can launch in keeps the
	// spread's minimum at zero).
	offered   map[string]map[string][][]corev1.Taint
	nodes     []universeNode
	nodesRead bool
	// discovered ranks each domain of a key by where Karpenter's topology first meets it
	// (NodePools in their order, their instance types and offerings in catalog order, then
	// the nodes): its small domain maps iterate in about that order, so Karpenter mode breaks
	// its ties with it (nil outside Karpenter mode).
	discovered map[string]map[string]int
	// launched are the options Karpenter mode's earlier rounds launched NodeClaims with
	// (addLaunched): nodes, to the later rounds' new groups.
	launched []launchOption
}

// existing are the nodes' labels, requirements and effective taints.
func (u *universe) existing() []universeNode {
	if !u.nodesRead && u.readNodes != nil {
		u.nodes, u.nodesRead = u.readNodes(), true
	}
	return u.nodes
}

// reachableOn is reachable[key] (none for the hostname, whose domains are the nodes).
func (u *universe) reachableOn(key string) map[string][][]corev1.Taint {
	if key == v1.LabelHostname {
		return nil
	}
	if from, ok := u.reachable[key]; ok {
		return from
	}
	from := map[string][][]corev1.Taint{}
	for _, t := range u.templates {
		seen := map[string]bool{}
		tr := t.reqs.Get(key)
		if t.reqs.Has(key) && tr.Operator() == requirements.In {
			for _, v := range tr.Values() {
				seen[v] = true
			}
		}
		for _, tt := range t.types {
			for _, v := range typeValues(tt.it, key, t.reqs) {
				if tr.Has(v) {
					seen[v] = true
				}
			}
		}
		for v := range seen {
			from[v] = append(from[v], t.taints)
		}
	}
	if u.reachable == nil {
		u.reachable = map[string]map[string][][]corev1.Taint{}
	}
	u.reachable[key] = from
	return from
}

// offeredOn is offered[key] (none for the hostname).
func (u *universe) offeredOn(key string) map[string][][]corev1.Taint {
	if key == v1.LabelHostname {
		return nil
	}
	if from, ok := u.offered[key]; ok {
		return from
	}
	if u.offered == nil {
		u.offered = map[string]map[string][][]corev1.Taint{}
	}
	u.offered[key] = offeredDomains(key, u.pools)
	return u.offered[key]
}

// discoveredOn is discovered[key] in Karpenter mode (none for the hostname, or otherwise).
func (u *universe) discoveredOn(key string) map[string]int {
	if !u.karpenter || key == v1.LabelHostname {
		return nil
	}
	if rank, ok := u.discovered[key]; ok {
		return rank
	}
	if u.discovered == nil {
		u.discovered = map[string]map[string]int{}
	}
	u.discovered[key] = discoveryRank(key, u.pools, u.existing())
	return u.discovered[key]
}

// discoveryRank ranks the domains of key as Karpenter's topology first meets them.
func discoveryRank(key string, pools []offeringPool, nodes []universeNode) map[string]int {
	rank := map[string]int{}
	add := func(v string) {
		if _, ok := rank[v]; !ok {
			rank[v] = len(rank)
		}
	}
	for _, p := range pools {
		pr, constrained := p.reqs[key]
		for _, it := range p.types {
			if it == nil {
				continue
			}
			for _, o := range it.Offerings {
				if o == nil {
					continue
				}
				if r, ok := o.Requirements[key]; ok && r.Operator() == requirements.In {
					for _, v := range r.Values() {
						if !constrained || pr.Has(v) {
							add(v)
						}
					}
				}
			}
			if r, ok := it.Requirements[key]; ok && r.Operator() == requirements.In {
				for _, v := range r.Values() {
					if !constrained || pr.Has(v) {
						add(v)
					}
				}
			}
		}
	}
	for _, n := range nodes {
		if v, ok := n.labels[key]; ok {
			add(v)
		}
	}
	return rank
}

// byDiscovery orders domains by rank (discoveredOn), those never discovered last and
// equal to each other.
func byDiscovery(rank map[string]int) func(a, b string) int {
	return func(a, b string) int {
		ra, oka := rank[a]
		rb, okb := rank[b]
		switch {
		case oka && okb:
			return ra - rb
		case oka:
			return -1
		case okb:
			return 1
		}
		return 0
	}
}

// offeringPool is a NodePool as the source of topology domains.
type offeringPool struct {
	reqs   requirements.Requirements
	taints []corev1.Taint
	types  cloudprovider.InstanceTypes
	// t is the NodePool's template (nil when it can launch nothing): the types it can launch
	// a node of (domainsOfNodes).
	t *template
}

// addOfferingPool records a ready NodePool (t: its template, nil when it can launch nothing)
// with its instance types, unless it has none.
func (s *solver) addOfferingPool(np *v1.NodePool, t *template, types cloudprovider.InstanceTypes) {
	if len(types) == 0 {
		return
	}
	var reqs requirements.Requirements
	if t != nil {
		reqs = t.reqs
	} else if r, _, err := poolRequirements(np); err == nil {
		reqs = r
	} else {
		return
	}
	s.offeringPools = append(s.offeringPools, offeringPool{reqs: reqs, taints: np.Spec.Template.Spec.Taints, types: types, t: t})
}

// offeredDomains maps each domain of key the pools name to the taints of those pools: the
// values of a pool's own In requirement on key, and the values of each instance type's In
// requirement on key that the pool allows (Karpenter intersects the two key by key, so a
// type the pool cannot launch for another reason still names its zones).
func offeredDomains(key string, pools []offeringPool) map[string][][]corev1.Taint {
	out := map[string][][]corev1.Taint{}
	for _, p := range pools {
		seen := map[string]bool{}
		pr, constrained := p.reqs[key]
		if constrained && pr.Operator() == requirements.In {
			for _, v := range pr.Values() {
				seen[v] = true
			}
		}
		for _, it := range p.types {
			if it == nil {
				continue
			}
			r, ok := it.Requirements[key]
			if !ok || r.Operator() != requirements.In {
				continue
			}
			for _, v := range r.Values() {
				if !constrained || pr.Has(v) {
					seen[v] = true
				}
			}
		}
		for v := range seen {
			out[v] = append(out[v], p.taints)
		}
	}
	return out
}

// registers reports whether g takes the domains of a NodePool with these taints: a spread
// honouring taints only those its pods tolerate (admitsTaints); in Karpenter mode a pod (anti-)affinity
// group only those its creator tolerates, PreferNoSchedule included (Karpenter's
// TopologyDomainGroup.ForEachDomain checks every taint unless the policy is Ignore, and an
// (anti-)affinity group's policy is unset), so a NodePool the pods cannot tolerate adds no
// empty domain for anti-affinity to pick; otherwise every NodePool's.
func (u *universe) registers(g *topologyGroup, taints []corev1.Taint) bool {
	if s := g.spread; s != nil {
		return s.admitsTaints(taints)
	}
	return g.creator == nil || tolerates(g.creator.Spec.Tolerations, taints)
}

type universeNode struct {
	labels map[string]string
	reqs   requirements.Requirements
	taints []corev1.Taint
	// live: a Node (not an in-flight NodeClaim) not being deleted, which kube-scheduler sees
	// when it binds a pod (nodesDomains).
	live bool
}

// domains are the domains a group starts with: for a spread group those NodePools offer,
// otherwise those they can produce (for a spread group honouring taints, only from NodePools
// whose taints its pods tolerate), and the labels of existing nodes (for a spread group, only
// nodes passing its node filter).
func (u *universe) domains(g *topologyGroup, wellKnown requirements.KeySet) []string {
	seen := map[string]bool{}
	spread := g.spread
	var from map[string][][]corev1.Taint
	if spread != nil || g.creator != nil {
		// Karpenter mode: an (anti-)affinity group takes its domains as Karpenter's
		// buildDomainGroups does, from every NodePool and its instance types, as a spread.
		from = u.offeredOn(g.key)
	} else {
		from = u.reachableOn(g.key)
	}
	for d, taintSets := range from {
		for _, taints := range taintSets {
			if u.registers(g, taints) {
				seen[d] = true
				break
			}
		}
	}
	if g.creator != nil && g.rule.repels() {
		// Karpenter builds the group of an anti-affinity's owners without counting the
		// cluster (updateInverseAntiAffinity): an existing node adds no domain to it.
		return slices.Sorted(maps.Keys(seen))
	}
	for _, n := range u.existing() {
		v, ok := n.labels[g.key]
		if !ok || seen[v] {
			continue
		}
		if !g.passesFilter(n.reqs, schedulingTaints(n.taints), nil) {
			continue
		}
		seen[v] = true
	}
	for _, l := range u.launched {
		if v, ok := launchedDomain(g, l); ok {
			seen[v] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// schedulingTaints drops PreferNoSchedule taints, which never keep a pod off a node.
func schedulingTaints(taints []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		if t.Effect != corev1.TaintEffectPreferNoSchedule {
			out = append(out, t)
		}
	}
	return out
}
