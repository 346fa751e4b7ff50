package disruption

import (
	"fmt"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
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
	fail Blocker              // why the candidates' pods cannot all be rescheduled (code "" if they can)
}

// simulate reschedules podsOf(candidate) for every candidate, together with the pending
// pods and the pods of every deleting, expired or earlier-command node, against the bound
// pods of the other nodes and the NodeClaims in flight (Karpenter's SimulateScheduling).
func (s *state) simulate(cands []*node, podsOf func(*node) []*corev1.Pod) (*simulation, error) {
	return s.simulateFor(cands, podsOf, false)
}

// simulateConsolidation is simulate with Karpenter's consolidateAfter rule for destinations:
// pods moved off the candidates may not land on nodes still inside their consolidateAfter.
func (s *state) simulateConsolidation(cands []*node) (*simulation, error) {
	return s.simulateFor(cands, reschedulable, true)
}

// simulateFor forks the snapshot: without the candidates, the taken nodes marked deleting,
// (for consolidation) the nodes under consolidateAfter closed to moves, and the
// candidates' pods moving.
func (s *state) simulateFor(cands []*node, podsOf func(*node) []*corev1.Pod, consolidation bool) (*simulation, error) {
	excluded := make(map[*node]bool, len(cands))
	gone := make([]string, 0, len(cands))
	for _, c := range cands {
		excluded[c] = true
		gone = append(gone, c.Name())
	}
	var taken, recent []string
	for _, n := range s.nodes {
		if excluded[n] {
			continue
		}
		if s.taken[n] && !n.MarkedDeleting() {
			taken = append(taken, n.Name())
		}
		if consolidation && s.underConsolidateAfter(n) {
			recent = append(recent, n.Name())
		}
	}
	sim := &simulation{own: map[*corev1.Pod]bool{}}
	var moving []*corev1.Pod
	for _, c := range cands {
		for _, p := range podsOf(c) {
			if !sim.own[p] {
				sim.own[p] = true
				moving = append(moving, p)
			}
		}
	}
	fork := s.base.Without(gone...).Deleting(taken...).ClosedToMoves(recent...).WithMoving(moving...)
	res, err := s.cache.Solve(fork, s.simOptions())
	if err != nil {
		return nil, fmt.Errorf("disruption: simulating %s: %w", joinNames(cands), err)
	}
	sim.res = res
	for i := range res.PodErrors {
		// Every pod that is not merely pending must find a home: the candidates' pods, and
		// those of deleting nodes (Karpenter's AllNonPendingPodsScheduled).
		if e := &res.PodErrors[i]; sim.own[e.Pod] || e.Pod.Spec.NodeName != "" {
			pod := cluster.PodKey(e.Pod)
			sim.fail = Blocker{Code: BlockPodUnschedulable, Object: pod, Pod: pod, PodError: e}
			return sim, nil
		}
	}
	// A candidate's pod may not rely on a node that is not initialized yet; pods of deleting
	// nodes may (their replacements are coming up for them).
	for _, b := range res.Bindings {
		if s.uninit[b.To] && sim.own[b.Pod] {
			pod := cluster.PodKey(b.Pod)
			sim.fail = Blocker{Code: BlockPodUnschedulable, Object: pod, Pod: pod, Node: b.To}
			return sim, nil
		}
	}
	return sim, nil
}

// simOptions are the scheduling options of every simulation: one Karpenter Solve.
func (s *state) simOptions() scheduling.Options {
	o := s.opts.Scheduling
	o.SingleRound = true
	return o
}

// underConsolidateAfter is Karpenter's IsUnderConsolidateAfter: an initialized node whose
// NodePool's non-zero consolidateAfter has not elapsed since its last pod event. A node that
// is not initialized yet is never under it.
func (s *state) underConsolidateAfter(n *node) bool {
	if n.pool == nil || !n.initialized {
		return false
	}
	ca := n.pool.Spec.Disruption.ConsolidateAfter.Duration
	return ca != nil && *ca > 0 && s.now.Before(n.consolidatableAt)
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
func (s *state) consolidate(cands []*node, multi bool) (*Command, *simulation, Blocker, error) {
	sim, err := s.simulateConsolidation(cands)
	if err != nil {
		return nil, nil, Blocker{}, err
	}
	if sim.fail.Code != "" {
		return nil, nil, sim.fail, nil
	}
	method := MethodSingleNode
	if multi {
		method = MethodMultiNode
	}
	candPrice := totalPrice(cands)
	var cmd *Command
	switch n := len(sim.res.NewNodeClaims); {
	case n == 0:
		cmd = &Command{Method: method, Reason: ReasonUnderutilized, SavingsPerHour: candPrice}
	case n > 1:
		return nil, nil, Blocker{Code: BlockTooManyReplacements, NewNodes: n}, nil
	default:
		r, why := s.cheaper(sim.res.NewNodeClaims[0], cands, candPrice, multi)
		if r == nil {
			return nil, nil, why, nil
		}
		cmd = &Command{Method: method, Reason: ReasonUnderutilized, Replacements: []*scheduling.NodeClaim{r}, SavingsPerHour: candPrice - r.Offering.Price}
	}
	if why := s.balancedRejects(cands, cmd.SavingsPerHour); why.Code != "" {
		return nil, nil, why, nil
	}
	return cmd, sim, Blocker{}, nil
}

// balancedK is Karpenter's BalancedK: a Balanced NodePool approves a move when its share of
// the savings is at least 1/k of its share of the disruption.
const balancedK = 2

// balancedRejects scores a consolidation for every Balanced NodePool among the candidates
// (reference §3.13): savings are attributed to each NodePool by its share of the candidates'
// price; score = (pool savings / pool cost) / (candidates' disruption cost / pool disruption
// cost). Every Balanced NodePool must reach 1/k; other policies always pass.
func (s *state) balancedRejects(cands []*node, savings float64) Blocker {
	candPrice := totalPrice(cands)
	pools := map[string][]*node{}
	var names []string
	for _, c := range cands {
		if c.pool == nil || c.policy() != v1.ConsolidationPolicyBalanced {
			continue
		}
		if _, ok := pools[c.poolName]; !ok {
			names = append(names, c.poolName)
		}
		pools[c.poolName] = append(pools[c.poolName], c)
	}
	sort.Strings(names)
	for _, name := range names {
		var totalCost, totalDisruption, poolPrice, poolDisruption float64
		for _, n := range s.nodes {
			if n.poolName == name && n.pool != nil {
				totalCost += n.price
				totalDisruption += n.cost
			}
		}
		for _, c := range pools[name] {
			poolPrice += c.price
			poolDisruption += c.cost
		}
		score := 0.0
		if savings > 0 && candPrice > 0 && totalCost > 0 && totalDisruption > 0 {
			share := savings * poolPrice / candPrice / totalCost
			if poolDisruption <= 0 {
				score = math.Inf(1)
			} else {
				score = share / (poolDisruption / totalDisruption)
			}
		}
		if score < 1.0/balancedK {
			return Blocker{Code: BlockBalanced, NodePool: name, Score: score}
		}
	}
	return Blocker{}
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

// minValuesError is how many instance types minValues needs of its, or the
// ReplacementMinValues blocker when its break them.
func minValuesError(its cloudprovider.InstanceTypes, reqs requirements.Requirements) (int, *Blocker) {
	if !cloudprovider.HasMinValues(reqs) {
		return 0, nil
	}
	n, _, err := its.SatisfiesMinValues(reqs)
	if err != nil {
		return n, noReplacement(ReplacementMinValues, func(b *Blocker) { b.Detail = err.Error() })
	}
	return n, nil
}

// noReplacement is the NoCheaperReplacement blocker of code, with set's facts.
func noReplacement(code ReplacementCode, set func(*Blocker)) *Blocker {
	b := &Blocker{Code: BlockNoCheaperReplacement, Replacement: code}
	if set != nil {
		set(b)
	}
	return b
}

// cheaper narrows the simulation's replacement to instance types strictly cheaper than the
// candidates (Karpenter's price filter, spot-to-spot rules, spot preference and, for
// multi-node, filterOutSameInstanceType). It returns nil and why when none is left.
func (s *state) cheaper(claim *scheduling.NodeClaim, cands []*node, candPrice float64, multi bool) (*scheduling.NodeClaim, Blocker) {
	reqs := claim.Requirements.Copy()
	// Prices are judged as Karpenter sees the claim: open where nodeplan's settlement pinned it.
	priced := reqs
	if claim.PriceRequirements != nil {
		priced = claim.PriceRequirements.Copy()
	}
	opts := claim.InstanceTypeOptions.OrderByPrice(reqs)
	allSpot := true
	for _, c := range cands {
		allSpot = allSpot && c.isSpot()
	}
	ct := reqs.Get(v1.CapacityTypeLabelKey)
	noCheaper := noReplacement(ReplacementNotCheaper, func(b *Blocker) {
		b.Price = candPrice
		if len(opts) > 0 {
			if p, ok := cheapestOffering(opts[:1], reqs); ok {
				b.CheapestType, b.CheapestPrice = opts[0].Name, p.Price
			}
		}
	})
	if allSpot && ct.Has(v1.CapacityTypeSpot) {
		if !s.opts.SpotToSpotConsolidation {
			return nil, *noReplacement(ReplacementSpotToSpotDisabled, nil)
		}
		spot := requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeSpot)
		reqs.Add(spot)
		if claim.PriceRequirements != nil {
			priced.Add(spot)
		} else {
			priced = reqs
		}
		opts = byPrice(launchable(opts, reqs), priced, candPrice)
		if len(opts) == 0 {
			return nil, *noCheaper
		}
		need, why := minValuesError(opts, reqs)
		if why != nil {
			return nil, *why
		}
		if !multi {
			if len(opts) < minSpotToSpotTypes {
				found := len(opts)
				return nil, *noReplacement(ReplacementTooFewSpotTypes, func(b *Blocker) { b.InstanceTypes = found })
			}
			opts = opts[:min(len(opts), max(minSpotToSpotTypes, need))]
		}
	} else {
		opts = byPrice(opts, priced, candPrice)
		if len(opts) == 0 {
			return nil, *noCheaper
		}
		if _, why := minValuesError(opts, reqs); why != nil {
			return nil, *why
		}
		if ct.Has(v1.CapacityTypeSpot) && ct.Has(v1.CapacityTypeOnDemand) {
			spot := reqs.Copy()
			spot.Add(requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeSpot))
			if l := launchable(opts, spot); len(l) > 0 {
				reqs, opts = spot, l
				if claim.PriceRequirements != nil {
					priced = priced.Copy()
					priced.Add(requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeSpot))
				} else {
					priced = reqs
				}
			}
		}
	}
	if multi {
		var why *Blocker
		if opts, why = filterOutSameInstanceType(opts, reqs, priced, cands); why != nil {
			return nil, *why
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
		return nil, *noCheaper
	}
	r.Offering = best
	return &r, Blocker{}
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
func filterOutSameInstanceType(opts cloudprovider.InstanceTypes, reqs, priced requirements.Requirements, cands []*node) (cloudprovider.InstanceTypes, *Blocker) {
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
		return opts, nil
	}
	opts = byPrice(opts, priced, maxPrice)
	if len(opts) == 0 {
		return nil, noReplacement(ReplacementSameInstanceType, nil)
	}
	if _, why := minValuesError(opts, reqs); why != nil {
		return nil, why
	}
	return opts, nil
}
