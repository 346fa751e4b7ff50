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
	// narrowed are the domains the pod's earlier topology groups took (requirementsFor).
	narrowed requirements.Requirements
	// minValues: the NodeClaim must keep minValues (strict, not yet launched).
	minValues bool
	// types, keys and saved are scratch space kept across probes.
	types bitset
	keys  []string
	saved []probeSaved
}

// probeSaved is a requirement of the probe's reqs as it was before a probe narrowed it.
type probeSaved struct {
	key string
	r   *requirements.Requirement // nil: reqs had none
}

// launches reports whether the NodeClaim, narrowed by the pod's earlier topology groups and
// its requirement on g's key set to domain d, keeps a type with a launchable offering that
// fits the pod, and enough of them for its minValues (Karpenter refuses the pod there and
// retries it, drawing another tied domain).
func (lp *launchProbe) launches(g *topologyGroup, d string) bool {
	t := lp.c.t
	// Narrow reqs in place for the check and put it back (it may be the NodeClaim's own).
	lp.keys = append(lp.keys[:0], lp.changed...)
	lp.saved = lp.saved[:0]
	narrow := func(key string, r *requirements.Requirement) {
		lp.saved = append(lp.saved, probeSaved{key, lp.reqs[key]})
		lp.reqs[key] = lp.reqs.Get(key).Intersection(r)
		lp.keys = append(lp.keys, key)
	}
	for k, r := range lp.narrowed {
		narrow(k, r)
	}
	narrow(g.key, g.domainRequirement(d))
	types := append(lp.types[:0], lp.c.types...)
	lp.types = types
	t.narrowTypes(types, lp.keys, lp.reqs)
	ok := types.anyReverse(lp.fitsPod)
	if ok && lp.minValues {
		key, _, _ := t.minValuesShortfall(types.filter(lp.fitsPod), lp.reqs)
		ok = key == ""
	}
	for i := len(lp.saved) - 1; i >= 0; i-- {
		if sv := lp.saved[i]; sv.r != nil {
			lp.reqs[sv.key] = sv.r
		} else {
			delete(lp.reqs, sv.key)
		}
	}
	return ok
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
// from c's, for a pod that fits fitsPod's types (Karpenter mode only); minValues when the
// NodeClaim must keep them.
func (t *topology) probing(c *claim, reqs requirements.Requirements, changed []string, fitsPod func(int) bool, minValues bool) {
	if t.karpenter {
		t.probe.c, t.probe.reqs, t.probe.changed, t.probe.fitsPod, t.probe.minValues = c, reqs, changed, fitsPod, minValues
	}
}

// probed ends probing.
func (t *topology) probed() {
	t.probe.c, t.probe.reqs, t.probe.changed, t.probe.fitsPod, t.probe.narrowed = nil, nil, nil, nil, nil
}
