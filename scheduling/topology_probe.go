package scheduling

import (
	"slices"

	"github.com/nodeplan/nodeplan/requirements"
)

// launchProbe is a new NodeClaim being narrowed for a pod, as Karpenter mode's spread asks
// whether it can launch in a domain (c nil: no probe).
type launchProbe struct {
	c       *claim
	reqs    requirements.Requirements
	fitsPod func(int) bool
	// changed are the keys reqs narrowed and the NodeClaim's types do not reflect yet (the
	// joining pod's own requirements): a domain launches only with a type they allow.
	changed []string
	// types and keys are scratch space kept across probes.
	types bitset
	keys  []string
}

// launches reports whether the NodeClaim, its requirement on g's key set to domain d, keeps
// a type with a launchable offering that fits the pod.
func (lp *launchProbe) launches(g *topologyGroup, d string) bool {
	t, key := lp.c.t, g.key
	// Narrow reqs in place for the check and put it back (it may be the NodeClaim's own).
	saved, had := lp.reqs[key]
	lp.reqs[key] = lp.reqs.Get(key).Intersection(g.domainRequirement(d))
	types := append(lp.types[:0], lp.c.types...)
	lp.types = types
	lp.keys = append(append(lp.keys[:0], lp.changed...), key)
	t.narrowTypes(types, lp.keys, lp.reqs)
	if had {
		lp.reqs[key] = saved
	} else {
		delete(lp.reqs, key)
	}
	return types.anyReverse(lp.fitsPod)
}

// firstLaunchable is the first discovered domain of ds the probed NodeClaim can launch in,
// or the first discovered one when there is no probe or none can.
func (t *topology) firstLaunchable(g *topologyGroup, ds []string) string {
	first := t.firstDiscovered(g.key, ds)
	if t.probe.c == nil || t.probe.launches(g, first) {
		return first
	}
	order := slices.Clone(ds)
	slices.SortStableFunc(order, byDiscovery(t.universe.discoveredOn(g.key)))
	for _, d := range order {
		if d != first && t.probe.launches(g, d) {
			return d
		}
	}
	return first
}

// probing sets the probe to NodeClaim c with requirements reqs, narrowed on keys changed
// from c's, for a pod that fits fitsPod's types (Karpenter mode only).
func (t *topology) probing(c *claim, reqs requirements.Requirements, changed []string, fitsPod func(int) bool) {
	if t.karpenter {
		t.probe.c, t.probe.reqs, t.probe.changed, t.probe.fitsPod = c, reqs, changed, fitsPod
	}
}

// probed ends probing.
func (t *topology) probed() {
	t.probe.c, t.probe.reqs, t.probe.changed, t.probe.fitsPod = nil, nil, nil, nil
}
