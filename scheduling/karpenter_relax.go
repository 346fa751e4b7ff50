package scheduling

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

// Karpenter mode: a relaxation that changes a pod's spread node filter gives it new spread
// groups, which count only what the round started with.
//
// Karpenter keys a topology spread group by its whole node filter: the pod's node selector
// and required node affinity terms and its tolerations, whatever the constraint's
// nodeAffinityPolicy and nodeTaintsPolicy (TopologyGroup.Hash). When a pod that failed is
// relaxed so that the filter changes (a required term dropped, or PreferNoSchedule taints
// tolerated), Topology.Update finds no group under the new hash and makes one, counting the
// pods countDomains lists from the cluster: those bound before the round, none that the round
// placed on nodes or NodeClaims. From then on it counts every pod placed. A relaxed pod's
// spread may so let it into a domain the round has already filled, and the plan breaks the
// spread as launched (difftest plan:530132: app-3-7, relaxed to tolerate PreferNoSchedule,
// joins test-zone-b at 4 pods against test-zone-c's 2).
//
// nodeplan interns those groups with the pod's form (so they are in every pod's selection
// and count all along) and, at the start of each round, keeps a copy of their counts; the
// first relaxed form of the round to use one puts the copy back ("birth"). A group that a
// queued pod's own, unrelaxed form uses is Karpenter's from the round's start, and born then.

// spreadTwins are the spread groups of a pod's relaxed forms, indexed like its constraints.
type spreadTwins struct {
	byTerms   [][]*topologyGroup // [k-1]: with the first k required node affinity terms dropped
	tolerated []*topologyGroup   // with PreferNoSchedule tolerated (and the last term left)
}

// groupCounts is a copy of a group's counts.
type groupCounts struct {
	counts         map[string]int
	total          int
	hostCounts     []int32
	occupiedClaims int
}

// spreadTwins interns, in Karpenter mode, the spread groups (of constraints tscs) f's later
// relaxations give the pod, and records them in f.
func (s *solver) spreadTwins(pod *corev1.Pod, f *podForm, tscs []corev1.TopologySpreadConstraint) error {
	tw := &spreadTwins{}
	build := func(terms []requirements.Requirements, tolerations []corev1.Toleration, doNotScheduleOnly bool) ([]*topologyGroup, error) {
		strict := strictTermsOf(f.nodeSelector, terms)
		out := make([]*topologyGroup, len(tscs))
		for j, i := range f.spreadIdx {
			if doNotScheduleOnly && f.scheduleAnyway[j] {
				continue // relaxed away before PreferNoSchedule is tolerated
			}
			g, err := s.topo.spreadGroup(pod, tscs[i], strict, tolerations, spreadPath(i))
			if err != nil {
				return nil, err
			}
			out[i] = g
			s.topo.addTwin(g)
		}
		return out, nil
	}
	for k := 1; k < len(f.requiredTerms); k++ {
		gs, err := build(f.requiredTerms[k:], f.tolerations, false)
		if err != nil {
			return err
		}
		tw.byTerms = append(tw.byTerms, gs)
	}
	if s.pns().adds(f.tolerations) {
		terms := f.requiredTerms
		if len(terms) > 1 {
			terms = terms[len(terms)-1:]
		}
		gs, err := build(terms, preferNoScheduleTolerated(f.tolerations), true)
		if err != nil {
			return err
		}
		tw.tolerated = gs
	}
	if len(tw.byTerms) > 0 || tw.tolerated != nil {
		f.twins = tw
	}
	return nil
}

// strictTermsOf is the ORed node filter of a pod with node selector sel and required terms.
func strictTermsOf(sel requirements.Requirements, terms []requirements.Requirements) []requirements.Requirements {
	if len(terms) == 0 {
		return []requirements.Requirements{sel}
	}
	out := make([]requirements.Requirements, 0, len(terms))
	for _, t := range terms {
		out = append(out, sel.Union(t))
	}
	return out
}

// preferNoScheduleTolerated is tolerations with Karpenter's relaxation toleration added.
func preferNoScheduleTolerated(tolerations []corev1.Toleration) []corev1.Toleration {
	return append(slices.Clip(tolerations), corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule})
}

// afterDropping is the spreads (constraint indexes idx) of a form whose first k required terms
// were dropped, cur when there are no twins (the default mode, or nothing changes).
func (tw *spreadTwins) afterDropping(k int, cur []*topologyGroup, idx []int) []*topologyGroup {
	if tw == nil || k > len(tw.byTerms) {
		return cur
	}
	return pick(tw.byTerms[k-1], cur, idx)
}

// tolerating is the spreads of a form relaxed to tolerate PreferNoSchedule.
func (tw *spreadTwins) tolerating(cur []*topologyGroup, idx []int) []*topologyGroup {
	if tw == nil || tw.tolerated == nil {
		return cur
	}
	return pick(tw.tolerated, cur, idx)
}

func pick(from, cur []*topologyGroup, idx []int) []*topologyGroup {
	out := make([]*topologyGroup, len(idx))
	for j, i := range idx {
		out[j] = from[i]
		if out[j] == nil {
			out[j] = cur[j]
		}
	}
	return out
}

// addTwin notes g as a group a relaxation makes.
func (t *topology) addTwin(g *topologyGroup) {
	if t.twinSet == nil {
		t.twinSet = map[*topologyGroup]bool{}
	}
	if !t.twinSet[g] {
		t.twinSet[g] = true
		t.twins = append(t.twins, g)
	}
}

// startRound copies the counts of every relaxation group no queued pod's own form uses:
// Karpenter makes it only when a pod relaxes, from what the round started with (bear).
// A group born in the last round first gets back the pods that round counted before its
// birth: Karpenter builds every group of the next round from the cluster, where they are
// now bound (difftest plan:870119).
func (t *topology) startRound(queue []*podData) {
	if len(t.twins) == 0 {
		return
	}
	for _, g := range t.twins {
		if l := g.lost; l != nil {
			g.lost = nil
			for d, n := range l.counts {
				g.counts[d] += n
			}
			g.total += l.total
			for h, n := range l.hostCounts {
				for h >= len(g.hostCounts) {
					g.hostCounts = append(g.hostCounts, 0)
				}
				g.hostCounts[h] += n
			}
			g.occupiedClaims += l.occupiedClaims
		}
	}
	initial := map[*topologyGroup]bool{}
	for _, p := range queue {
		if p.form != nil {
			for _, g := range p.form.spread {
				initial[g] = true
			}
		}
	}
	for _, g := range t.twins {
		g.unborn = nil
		if !initial[g] {
			g.unborn = &groupCounts{counts: maps.Clone(g.counts), total: g.total, hostCounts: slices.Clone(g.hostCounts), occupiedClaims: g.occupiedClaims}
		}
	}
}

// bear gives each group of gs not yet made this round the counts the round started with.
func (t *topology) bear(gs []*topologyGroup) {
	for _, g := range gs {
		if c := g.unborn; c != nil {
			g.lost = countsSince(g, c)
			g.counts, g.total, g.hostCounts, g.occupiedClaims = c.counts, c.total, c.hostCounts, c.occupiedClaims
			g.unborn = nil
		}
	}
}

// countsSince is what g counts beyond the copy c of its earlier counts.
func countsSince(g *topologyGroup, c *groupCounts) *groupCounts {
	d := &groupCounts{counts: map[string]int{}, total: g.total - c.total, occupiedClaims: g.occupiedClaims - c.occupiedClaims}
	for k, n := range g.counts {
		if n != c.counts[k] {
			d.counts[k] = n - c.counts[k]
		}
	}
	if len(g.hostCounts) > 0 {
		d.hostCounts = make([]int32, len(g.hostCounts))
		for h, n := range g.hostCounts {
			d.hostCounts[h] = n
			if h < len(c.hostCounts) {
				d.hostCounts[h] -= c.hostCounts[h]
			}
		}
	}
	return d
}
