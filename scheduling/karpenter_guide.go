package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// The default's greedy takes each pod's cheapest option as it comes, and an early choice can
// spend what a later pod needed: app-3's first NodeClaim took zone c's one-instance
// reservation, its cheapest, and app-2's zone spread then needed zone c, where only an
// on-demand c6-16x32 was left (difftest default plan:1010267: $0.78/h, where Karpenter put
// app-3 in zone a on a reservation of three and placed the same pods for $0.31/h). When
// Karpenter mode's answer places as many pods of each priority for less, the default plans
// once more with each pod Karpenter placed on a new NodeClaim preferring that NodeClaim's
// NodePool, zone and capacity type, and each pod it bound to a node that node (a preference
// relaxed like the pod's own, after its pod affinities), and keeps that plan when it is better: the default's own rules hold it, so it
// keeps every constraint as launched where Karpenter's answer may not.

// followKarpenter is res, or the plan guided by Karpenter mode's answer (karp) when that
// answer places as many pods of each priority as res for less and the guided plan is better
// than res (better), keeps the reservations and no spread over the cap. It comes after the
// guard on the price of preferences, which may already have found a cheaper plan (difftest
// plan:1004004: guided before the guard, the plan kept its preferences at Karpenter's
// $1.753/h where the guard's plan without them cost $0.912/h).
func followKarpenter(snap *cluster.Snapshot, opts Options, cache *Cache, tune []func(*solver), karp *lazyPlan, res *Result) (*Result, error) {
	guide, err := karpenterGuide(snap, karp, res)
	if err != nil || guide == nil {
		return res, err
	}
	alt, info, err := solveOnce(snap, opts, cache, variant{guide: guide}, tune)
	if err != nil {
		return nil, err
	}
	if better(alt, res) && reservationsHold(alt) && !info.overSkew {
		return alt, nil
	}
	return res, nil
}

// karpenterGuide is, when Karpenter mode's answer (karp) places as many pods of each priority
// as res for less, the NodePool, zone and capacity type of the NodeClaim it puts each pod on,
// and the hostname of the node of snap it binds a pod to (difftest plan:1012287: Karpenter's
// five and five pods on node-0 and node-1, where the default's four and six left a NodeClaim
// dearer); nil otherwise.
func karpenterGuide(snap *cluster.Snapshot, karp *lazyPlan, res *Result) (map[*corev1.Pod]requirements.Requirements, error) {
	k, err := karp.get()
	if err != nil || len(k.PodErrors) > len(res.PodErrors) || byPriority(k, res) < 0 ||
		k.Price() >= res.Price()-priceEpsilon {
		return nil, err
	}
	// in is the requirement that key has value (nil when value is unknown: no requirement).
	in := func(key, value string) *requirements.Requirement {
		if value == "" {
			return nil
		}
		return requirements.MustNew(key, requirements.In, value)
	}
	guide := map[*corev1.Pod]requirements.Requirements{}
	for _, c := range k.NewNodeClaims {
		if c.Offering == nil {
			continue
		}
		r := requirements.NewRequirements(in(v1.NodePoolLabelKey, c.NodePool),
			in(v1.LabelTopologyZone, c.Offering.Zone()), in(v1.CapacityTypeLabelKey, c.Offering.CapacityType()))
		for _, p := range c.Pods {
			guide[p] = r
		}
	}
	for _, m := range k.Bindings {
		if n := snap.Find(m.To); n != nil && n.Node != nil && n.Node.Labels[v1.LabelHostname] != "" {
			guide[m.Pod] = requirements.NewRequirements(in(v1.LabelHostname, n.Node.Labels[v1.LabelHostname]))
		}
	}
	if len(guide) == 0 {
		return nil, nil
	}
	return guide, nil
}

// guided is the form with r as its first preferred node term, or f itself when its strict
// requirements rule r out.
func (f *podForm) guided(r requirements.Requirements) *podForm {
	if !f.strict.HasIntersection(r) {
		return f
	}
	n := *f
	n.owned, n.settling, n.settlingDone = nil, nil, false
	n.preferredNode = append([]requirements.Requirements{r}, f.preferredNode...)
	n.derive()
	return &n
}
