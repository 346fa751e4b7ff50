package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
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
	// pod and form are the pod being narrowed (requirementsFor): a domain another of its
	// groups on the same key refuses does not launch it either (othersRefuse).
	pod  *podData
	form *podForm
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

// firstLaunchable is the first tied domain of ds (tieOrder), or with redraw the first one
// the probed NodeClaim can launch in and the pod's other groups on the key admit (the first
// when there is no probe or none can).
func (t *topology) firstLaunchable(g *topologyGroup, ds []string) string {
	return t.draw(g, ds, t.tieOrder(g.key, ds))
}

// firstDiscoveredLaunchable is firstLaunchable for a self-affinity starting its group:
// Karpenter takes the first domain of the group's map (discovery order), and retries the pod
// as for a spread's tie when its NodeClaim cannot launch there (difftest plan:956029: zone a
// had no type for the pod).
func (t *topology) firstDiscoveredLaunchable(g *topologyGroup, ds []string) string {
	if len(ds) == 0 {
		return ""
	}
	return t.draw(g, ds, byDiscovery(t.universe.discoveredOn(g.key)))
}

// draw is the first domain of ds in order, or with redraw the first the probed NodeClaim can
// launch in (see firstLaunchable); with redrawOthers, the first that the pod's other groups on
// the key admit too (othersRefuse).
func (t *topology) draw(g *topologyGroup, ds []string, order func(a, b string) int) string {
	first := slices.MinFunc(ds, order)
	if t.probe.c == nil {
		return first
	}
	launches := t.probe.launches(g, first)
	if launches && !t.othersRefuse(g, first) {
		return first
	}
	switch {
	case !launches && !t.redraw:
		t.missedDraw = true
		if k := t.probe.drawKey(g); !slices.Contains(t.missed, k) {
			t.missed = append(t.missed, k) // a draw may be probed more than once
			t.missOdds *= 1 - t.launchShare(g, ds)
		}
		return first
	case launches && !t.redrawOthers:
		t.othersMissed = true
		return first
	}
	sorted := slices.Clone(ds)
	slices.SortStableFunc(sorted, order)
	for _, d := range sorted {
		if d != first && t.probe.launches(g, d) && (!t.redrawOthers || !t.othersRefuse(g, d)) {
			return d
		}
	}
	return first
}

// drawKey is a group's draw for an open NodeClaim, or for a new one of a NodePool.
type drawKey struct {
	c *claim
	t *template
	g *topologyGroup
}

// drawKey is the key of g's draw for the probed NodeClaim.
func (lp *launchProbe) drawKey(g *topologyGroup) drawKey {
	if len(lp.c.pods) == 0 {
		return drawKey{t: lp.c.t, g: g}
	}
	return drawKey{c: lp.c, g: g}
}

// launchShare is the share of the tied domains ds the probed NodeClaim launches in: the
// odds that Karpenter's draw among them, in map order and so as good as random, lands in one.
func (t *topology) launchShare(g *topologyGroup, ds []string) float64 {
	n := 0
	for _, d := range ds {
		if t.probe.launches(g, d) {
			n++
		}
	}
	return float64(n) / float64(len(ds))
}

// othersRefuse reports whether another spread, pod affinity or (inverse) anti-affinity of the
// probed pod on g's key admits no pod in domain d. Karpenter draws each group's domain on its
// own and intersects them: a draw another group refuses fails the NodePool; the pod's next
// attempt is relaxed and draws again, and a pod that fails every attempt is retried from the
// queue with fresh draws until one lands where every group admits it. So trySchedule redraws
// such a refusal only once the whole relaxation has failed (difftest plan:956005: a zone
// spread's first tied zone is one an anti-affinity keeps the pod out of; plan:956129: one the
// pod's affinity does not hold; plan:956594: the relaxed attempt joins an open NodeClaim).
func (t *topology) othersRefuse(g *topologyGroup, d string) bool {
	p, f := t.probe.pod, t.probe.form
	if p == nil {
		return false
	}
	refuses := func(o *topologyGroup) bool {
		if o == g || o.key != g.key || o.hostname {
			return false
		}
		switch o.rule.(type) {
		case antiAffinityRule, inverseRule, affinityRule, *spreadRule:
			return !slices.Contains(t.admissible(o, p, f).domains, d)
		}
		return false
	}
	for _, o := range f.owned {
		if refuses(o) {
			return true
		}
	}
	for _, o := range p.blockedBy {
		if refuses(o) {
			return true
		}
	}
	return false
}

// tieOrder orders a spread's tied domains on key as Karpenter's map iteration mostly meets
// them: a NodeClaim's requirement that its NodePool lists once with In keeps the listed
// order (a small Go map iterates from a random slot, so its first inserted value comes
// first 7 times in 8 for two values), the rest follow in discovery order.
func (t *topology) tieOrder(key string, ds []string) func(a, b string) int {
	discovered := byDiscovery(t.universe.discoveredOn(key))
	var listed []string
	if t.probe.c != nil {
		listed = listedIn(t.probe.c.t.nodePool, key)
	}
	if listed == nil {
		return discovered
	}
	return func(a, b string) int {
		ia, ib := slices.Index(listed, a), slices.Index(listed, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return discovered(a, b)
	}
}

// listedIn is the values of np's one In requirement on key, in its order (nil when np has
// none, or more than one requirement on key: Karpenter intersects them in map order).
func listedIn(np *v1.NodePool, key string) []string {
	if np == nil {
		return nil
	}
	var listed []string
	for _, r := range np.Spec.Template.Spec.Requirements {
		if r.Key != key {
			continue
		}
		if listed != nil || r.Operator != corev1.NodeSelectorOpIn {
			return nil
		}
		listed = r.Values
	}
	return listed
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
	t.probe.pod, t.probe.form = nil, nil
}
