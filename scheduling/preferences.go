package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
)

// The default honours preferences (preferred node affinity, preferred pod affinity and
// anti-affinity, ScheduleAnyway spreads) as Karpenter does, as requirements until a pod
// cannot be placed, but its order of placement is not Karpenter's: where Karpenter's order
// makes a pod fail and relaxes its preferences, the default may honour them at a price
// (difftest plan:930132: five pods preferring family r open three r NodeClaims for
// $0.60/h where Karpenter, its pods relaxed, puts them on its $0.03/h reserved c7 claims).
// A preference never costs more than Karpenter's plan: when the default's plan of pods
// with preferences costs more than Karpenter mode's answer for the same input, Solve plans
// again with the preferences ignored (PreferencesIgnore) and keeps that plan when it leaves
// out no more pods, none of a higher priority, and costs less. Nor does a preference keep
// another pod out: a plan that leaves pods out is planned without preferences too, and that
// plan is kept when it leaves out fewer, whatever it costs (difftest plan:1007222).
// Disruption's simulations (SkipRepack) and plans without a preference cost nothing more.
//
// A PreferNoSchedule taint is a preference too: the default honours it until a pod cannot be
// placed, as Karpenter does, whose last relaxation tolerates it, but Karpenter's failures are
// not the default's (difftest plan:1007098: Karpenter's zone spread drew a zone the pods'
// affinity refused, so they relaxed onto node-0's free room, tainted PreferNoSchedule by its
// NodePool, where the default opened a $0.087/h NodeClaim beside it). When the plan without
// preferences still costs more than Karpenter's, Solve plans once more with every pod
// tolerating PreferNoSchedule from the start (Options.softTaintsTolerated) and keeps that
// plan on the same terms. kube-scheduler only scores such a taint, so the plan stays valid.
//
// The guard costs a Karpenter-mode Solve: on generic workloads with ScheduleAnyway spreads
// (BenchmarkGenericWorkload) it added 45 % of CPU at 500 pods and 75 % at 2,000, where the
// default's plans (1.03 times the lower bound) are far cheaper than Karpenter's and it never
// fired. It holds plans of up to guardMaxPods pods, a provisioning batch, where a Solve
// takes milliseconds.

// guardMaxPods is the most pods a plan held to Karpenter's price may place or leave out.
const guardMaxPods = 256

// priceEpsilon absorbs the rounding of summed prices.
const priceEpsilon = 1e-9

// guardsPreferences reports whether res, the default's plan, is held to Karpenter's price:
// it opens NodeClaims, plans at most guardMaxPods pods, and one of them has a preference (a
// PreferNoSchedule taint of a NodePool it does not tolerate counts as one).
func guardsPreferences(snap *cluster.Snapshot, opts Options, res *Result) bool {
	if opts.Packing == PackingKarpenter || opts.SkipRepack || opts.PreferencePolicy == PreferencesIgnore || opts.unguarded ||
		len(res.NewNodeClaims) == 0 {
		return false
	}
	defaultsPrefer := false
	for _, c := range opts.DefaultTopologySpreadConstraints {
		defaultsPrefer = defaultsPrefer || c.WhenUnsatisfiable == corev1.ScheduleAnyway
	}
	softTaints := hasSoftTaint(snap)
	prefers := func(p *corev1.Pod) bool {
		return hasPreference(p) || defaultsPrefer && len(p.Spec.TopologySpreadConstraints) == 0 && len(p.Labels) > 0 ||
			softTaints && !toleratesPreferNoSchedule(p.Spec.Tolerations)
	}
	if planSize(res) > guardMaxPods {
		return false
	}
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			if prefers(p) {
				return true
			}
		}
	}
	for _, m := range res.Bindings {
		if prefers(m.Pod) {
			return true
		}
	}
	for _, e := range res.PodErrors {
		if prefers(e.Pod) {
			return true
		}
	}
	return false
}

// newPlainAnswer is the default's plan of the input with preferences ignored (as
// PreferencesIgnore), made when first asked: the guard on their price and the check of the
// reservations they pin NodeClaims to both read it (solve).
func newPlainAnswer(snap *cluster.Snapshot, opts Options, cache *Cache, tune []func(*solver)) *lazyPlan {
	opts.PreferencePolicy = PreferencesIgnore
	return &lazyPlan{plan: func() (*Result, error) {
		return solveBest(snap, opts, cache, tune, newKarpenterAnswer(snap, opts, tune))
	}}
}

// newSoftTaintsAnswer is the plan of newPlainAnswer with every pod tolerating PreferNoSchedule
// taints from the start, made when first asked.
func newSoftTaintsAnswer(snap *cluster.Snapshot, opts Options, cache *Cache, tune []func(*solver)) *lazyPlan {
	opts.PreferencePolicy = PreferencesIgnore
	opts.softTaintsTolerated = true
	return &lazyPlan{plan: func() (*Result, error) {
		return solveBest(snap, opts, cache, tune, newKarpenterAnswer(snap, opts, tune))
	}}
}

// hasSoftTaint reports whether a NodePool's template has a PreferNoSchedule taint, which
// Karpenter's relaxation then tolerates (solve_prepare.go).
func hasSoftTaint(snap *cluster.Snapshot) bool {
	for _, np := range snap.NodePools() {
		for _, t := range np.Spec.Template.Spec.Taints {
			if t.Effect == corev1.TaintEffectPreferNoSchedule {
				return true
			}
		}
	}
	return false
}

// planSize is how many pods res places or leaves out.
func planSize(res *Result) int {
	n := len(res.Bindings) + len(res.PodErrors)
	for _, c := range res.NewNodeClaims {
		n += len(c.Pods)
	}
	return n
}

// hasPreference reports whether the pod declares a preference of its own.
func hasPreference(p *corev1.Pod) bool {
	for _, c := range p.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == corev1.ScheduleAnyway {
			return true
		}
	}
	a := p.Spec.Affinity
	if a == nil {
		return false
	}
	return a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 ||
		a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 ||
		a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0
}

// preferencesAtKarpentersPrice is res, the default's plan, or the plan without preferences
// (plain) when it leaves out fewer pods (by priority: leavesOutLess) or, when res costs more
// than Karpenter mode's plan of the same input (karp), when it leaves out no more pods (and
// none of a higher priority) and costs less; and when the plan kept still costs more than
// Karpenter's, the plan without preferences whose pods tolerate PreferNoSchedule taints
// (soft, nil when no NodePool has such a taint), on the same terms. A preference is a pod's
// own wish and never keeps another pod out: honoured, it can fill the domains a spread's
// carriers need (difftest plan:1007222: five app-0 pods preferring family c filled the spot
// capacity type and zone b that an app-2 pod's spreads over them needed, where Karpenter,
// their preference relaxed, put four on on-demand nodes in zone a and placed the app-2 pod).
func preferencesAtKarpentersPrice(res *Result, karp, plain, soft *lazyPlan) (*Result, error) {
	if len(res.PodErrors) > 0 {
		alt, err := plain.get()
		if err != nil {
			return nil, err
		}
		if leavesOutLess(alt, res) > 0 {
			return alt, nil
		}
	}
	k, err := karp.get()
	if err != nil || res.Price() <= k.Price()+priceEpsilon {
		return res, err
	}
	for _, l := range []*lazyPlan{plain, soft} {
		if l == nil || res.Price() <= k.Price()+priceEpsilon {
			break
		}
		alt, err := l.get()
		if err != nil {
			return nil, err
		}
		if len(alt.PodErrors) <= len(res.PodErrors) && byPriority(alt, res) >= 0 && alt.Price() < res.Price()-priceEpsilon {
			res = alt
		}
	}
	return res, nil
}
