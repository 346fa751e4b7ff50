package disruption

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// minSpotToSpotTypes is Karpenter's MinInstanceTypesForSpotToSpotConsolidation.
const minSpotToSpotTypes = 15

// maxMultiNodeCandidates caps the prefix multi-node consolidation searches.
const maxMultiNodeCandidates = 100

// simulation is a scheduling.Solve of the candidates' pods on the rest of the cluster.
type simulation struct {
	res  *scheduling.Result
	own  map[*corev1.Pod]bool // the candidates' pods (the others are pending pods)
	fail string               // why the candidates' pods cannot all be rescheduled
}

// simulate reschedules podsOf(candidate) for every candidate, together with the pending
// pods, on every node that is neither a candidate nor in an earlier command (plus the
// in-flight replacements of earlier commands).
func (s *state) simulate(cands []*node, podsOf func(*node) []*corev1.Pod) (*simulation, error) {
	excluded := map[*node]bool{}
	for _, c := range cands {
		excluded[c] = true
	}
	in := &scheduling.Input{
		Cache:                  s.cache,
		NodePools:              s.in.NodePools,
		InstanceTypes:          s.in.InstanceTypes,
		WellKnownLabels:        s.in.WellKnownLabels,
		DaemonSets:             s.in.DaemonSets,
		PersistentVolumeClaims: s.in.PersistentVolumeClaims,
		PersistentVolumes:      s.in.PersistentVolumes,
		StorageClasses:         s.in.StorageClasses,
		CSINodes:               s.in.CSINodes,
		Namespaces:             s.in.Namespaces,
		PodDisruptionBudgets:   s.in.PodDisruptionBudgets,
		Options: scheduling.Options{
			MinValuesPolicy:                  s.in.Options.MinValuesPolicy,
			PreferencePolicy:                 s.in.Options.PreferencePolicy,
			Packing:                          s.in.Options.Packing,
			DefaultTopologySpreadConstraints: s.in.Options.DefaultTopologySpreadConstraints,
		},
	}
	in.Nodes = make([]*scheduling.Node, 0, len(s.nodes)+len(s.inflight))
	for _, n := range s.nodes {
		if s.taken[n] || excluded[n] {
			continue
		}
		sn := n.sn
		if moved := s.moved[n.name]; len(moved) > 0 {
			cp := *sn
			cp.Pods = append(append(make([]*corev1.Pod, 0, len(sn.Pods)+len(moved)), sn.Pods...), moved...)
			sn = &cp
		}
		in.Nodes = append(in.Nodes, sn)
	}
	in.Nodes = append(in.Nodes, s.inflight...)
	sim := &simulation{own: map[*corev1.Pod]bool{}}
	in.Pods = append(append([]*corev1.Pod(nil), s.in.Pods...), s.pending...)
	for _, c := range cands {
		for _, p := range append(podsOf(c), s.moved[c.name]...) {
			if !sim.own[p] {
				sim.own[p] = true
				in.Pods = append(in.Pods, p)
			}
		}
	}
	res, err := scheduling.Solve(in)
	if err != nil {
		return nil, fmt.Errorf("disruption: simulating %s: %w", joinNames(cands), err)
	}
	sim.res = res
	for _, e := range res.PodErrors {
		if sim.own[e.Pod] {
			sim.fail = fmt.Sprintf("pod %s/%s cannot be rescheduled: %s", e.Pod.Namespace, e.Pod.Name, e.Reason)
			return sim, nil
		}
	}
	for _, pl := range res.ExistingNodes {
		if !s.uninit[pl.Name] {
			continue
		}
		for _, p := range pl.Pods {
			if sim.own[p] {
				sim.fail = fmt.Sprintf("pod %s/%s would only fit on uninitialized node %s", p.Namespace, p.Name, pl.Name)
				return sim, nil
			}
		}
	}
	return sim, nil
}

func reschedulable(n *node) []*corev1.Pod { return n.reschedulable }
func driftPods(n *node) []*corev1.Pod     { return n.driftPods }

func totalPrice(cands []*node) float64 {
	p := 0.0
	for _, c := range cands {
		p += c.price
	}
	return p
}

func claimsPrice(claims []*scheduling.NodeClaim) float64 {
	p := 0.0
	for _, c := range claims {
		if c != nil && c.Offering != nil && !math.IsNaN(c.Offering.Price) {
			p += c.Offering.Price
		}
	}
	return p
}

// consolidate is Karpenter's computeConsolidation: a command, or why there is none.
func (s *state) consolidate(cands []*node, multi bool) (*Command, *simulation, string, error) {
	sim, err := s.simulate(cands, reschedulable)
	if err != nil {
		return nil, nil, "", err
	}
	if sim.fail != "" {
		return nil, nil, sim.fail, nil
	}
	method := MethodSingleNode
	if multi {
		method = MethodMultiNode
	}
	candPrice := totalPrice(cands)
	switch n := len(sim.res.NewNodeClaims); {
	case n == 0:
		return &Command{Method: method, Reason: ReasonUnderutilized, SavingsPerHour: candPrice}, sim, "", nil
	case n > 1:
		return nil, nil, fmt.Sprintf("consolidation would need %d new nodes (it replaces nodes by at most one)", n), nil
	}
	r, why := s.cheaper(sim.res.NewNodeClaims[0], cands, candPrice, multi)
	if r == nil {
		return nil, nil, why, nil
	}
	return &Command{Method: method, Reason: ReasonUnderutilized, Replacements: []*scheduling.NodeClaim{r}, SavingsPerHour: candPrice - r.Offering.Price}, sim, "", nil
}

// byPrice keeps the types whose worst-case launch price for reqs is below maxPrice.
func byPrice(its cloudprovider.InstanceTypes, reqs requirements.Requirements, maxPrice float64) cloudprovider.InstanceTypes {
	var out cloudprovider.InstanceTypes
	for _, it := range its {
		if it != nil && it.Offerings.Available().WorstLaunchPrice(reqs) < maxPrice {
			out = append(out, it)
		}
	}
	return out
}

func launchable(its cloudprovider.InstanceTypes, reqs requirements.Requirements) cloudprovider.InstanceTypes {
	var out cloudprovider.InstanceTypes
	for _, it := range its {
		if it != nil && it.Offerings.Available().HasCompatible(reqs) {
			out = append(out, it)
		}
	}
	return out
}

func minValuesError(its cloudprovider.InstanceTypes, reqs requirements.Requirements) (int, string) {
	if !cloudprovider.HasMinValues(reqs) {
		return 0, ""
	}
	n, _, err := its.SatisfiesMinValues(reqs)
	if err != nil {
		return n, "filtering the replacement's instance types by price breaks minValues: " + err.Error()
	}
	return n, ""
}

// cheaper narrows the simulation's replacement to instance types strictly cheaper than the
// candidates (Karpenter's price filter, spot-to-spot rules, spot preference and, for
// multi-node, filterOutSameInstanceType). It returns nil and why when none is left.
func (s *state) cheaper(claim *scheduling.NodeClaim, cands []*node, candPrice float64, multi bool) (*scheduling.NodeClaim, string) {
	reqs := claim.Requirements.Copy()
	opts := claim.InstanceTypeOptions.OrderByPrice(reqs)
	allSpot := true
	for _, c := range cands {
		allSpot = allSpot && c.isSpot()
	}
	ct := reqs.Get(v1.CapacityTypeLabelKey)
	noCheaper := fmt.Sprintf("no replacement is cheaper than $%.4f/h", candPrice)
	if len(opts) > 0 {
		if p, ok := cheapestOffering(opts[:1], reqs); ok {
			noCheaper += fmt.Sprintf(" (cheapest fit: %s at $%.4f/h)", opts[0].Name, p.Price)
		}
	}
	if allSpot && ct.Has(v1.CapacityTypeSpot) {
		if !s.in.Options.SpotToSpotConsolidation {
			return nil, "spot-to-spot consolidation is disabled (SpotToSpotConsolidation) and every candidate is spot"
		}
		reqs.Add(requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeSpot))
		opts = byPrice(launchable(opts, reqs), reqs, candPrice)
		if len(opts) == 0 {
			return nil, noCheaper
		}
		need, why := minValuesError(opts, reqs)
		if why != "" {
			return nil, why
		}
		if !multi {
			if len(opts) < minSpotToSpotTypes {
				return nil, fmt.Sprintf("spot-to-spot consolidation needs at least %d cheaper spot instance types, found %d", minSpotToSpotTypes, len(opts))
			}
			opts = opts[:min(len(opts), max(minSpotToSpotTypes, need))]
		}
	} else {
		opts = byPrice(opts, reqs, candPrice)
		if len(opts) == 0 {
			return nil, noCheaper
		}
		if _, why := minValuesError(opts, reqs); why != "" {
			return nil, why
		}
		if ct.Has(v1.CapacityTypeSpot) && ct.Has(v1.CapacityTypeOnDemand) {
			spot := reqs.Copy()
			spot.Add(requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeSpot))
			if l := launchable(opts, spot); len(l) > 0 {
				reqs, opts = spot, l
			}
		}
	}
	if multi {
		var why string
		if opts, why = filterOutSameInstanceType(opts, reqs, cands); why != "" {
			return nil, why
		}
	}
	names := make([]string, 0, len(opts))
	for _, it := range opts {
		names = append(names, it.Name)
	}
	reqs.Add(requirements.MustNew(v1.LabelInstanceType, requirements.In, names...))
	r := *claim
	r.Requirements = reqs
	r.InstanceTypeOptions = opts
	var best *cloudprovider.Offering
	for _, it := range opts {
		if o, ok := cheapestOffering(cloudprovider.InstanceTypes{it}, reqs); ok && (best == nil || o.Price < best.Price) {
			best, r.InstanceType = o, it
		}
	}
	if best == nil {
		return nil, noCheaper
	}
	r.Offering = best
	return &r, ""
}

func cheapestOffering(its cloudprovider.InstanceTypes, reqs requirements.Requirements) (*cloudprovider.Offering, bool) {
	var best *cloudprovider.Offering
	for _, it := range its {
		if o := it.Offerings.Available().Compatible(reqs).Cheapest(); o != nil && (best == nil || o.Price < best.Price) {
			best = o
		}
	}
	return best, best != nil
}

// filterOutSameInstanceType: when a replacement option is the instance type of a candidate,
// the replacement must be cheaper than the cheapest such candidate (no "delete 2×A, launch
// 1×A" when "delete 1×A" would do).
func filterOutSameInstanceType(opts cloudprovider.InstanceTypes, reqs requirements.Requirements, cands []*node) (cloudprovider.InstanceTypes, string) {
	names := map[string]bool{}
	for _, it := range opts {
		names[it.Name] = true
	}
	maxPrice, same := math.Inf(1), false
	for _, c := range cands {
		if c.it != nil && names[c.it.Name] {
			same = true
			maxPrice = math.Min(maxPrice, c.price)
		}
	}
	if !same {
		return opts, ""
	}
	opts = byPrice(opts, reqs, maxPrice)
	if len(opts) == 0 {
		return nil, "the replacement would be the instance type of a candidate"
	}
	if _, why := minValuesError(opts, reqs); why != "" {
		return nil, why
	}
	return opts, ""
}
