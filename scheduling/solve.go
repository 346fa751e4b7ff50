package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// solver is the state of one Solve call.
type solver struct {
	snap *cluster.Snapshot
	// toPlace are the snapshot's pending pods, then its moving pods.
	toPlace   []*corev1.Pod
	opts      Options
	wellKnown requirements.KeySet
	res       *resourceIndex
	// store holds the nodes' facts: the Cache's, else this Solve's own.
	store     *nodeStore
	templates []*template
	// templateErrors explain NodePools that can launch nothing.
	templateErrors []Cause
	// offeringPools are the ready NodePools with instance types, usable or not: where
	// Karpenter finds the domains of a topology spread.
	offeringPools            []offeringPool
	toleratePreferNoSchedule bool
	topo                     *topology
	// canRelax: the form being tried relaxes into one with spread groups of its own
	// (Karpenter mode, relaxBears); relaxedRedraw: a form of the pod most likely missed its
	// draw, so its relaxed forms draw again (tryForms).
	canRelax, relaxedRedraw bool
	existing                []*existingNode
	// room indexes the existing nodes' room left for placement's first fit, built once
	// scanned (the nodes checked one by one) exceeds roomIndexAfter times their number
	// (placeOnExisting).
	room    *roomIndex
	scanned int
	// placedOn are the indexes in existing of the nodes this Solve placed pods on, in the
	// order of their first pod.
	placedOn []int
	// claims are the NodeClaims opened in this Solve, in creation order; head/tail chain them
	// fewest pods first (Karpenter's stable re-sort by pod count, kept incrementally).
	claims      []*claim
	head, tail  *claim
	lastOfCount map[int]*claim
	runSize     int // of the chain's runs (claim_runs.go); 0: defaultRunSize
	trackedKeys *runKeys
	valuesBuf   []string
	hostnameSeq int
	hostname    string // nextHostname's, for hostnameSeq = hostnameFor-1 (0: none yet)
	hostnameFor int
	scratch     bitset
	daemons     []*podData
	// pendingRequests are the requests of the pending pods, computed once when needed
	// (requestsOf) and dropped once the pods are prepared.
	pendingRequests    []corev1.ResourceList
	filterBuf          []domainFilter
	finalCache         map[finalKey]*finalOptions
	volumes            *volumeIndex
	noDynamicNodePools bool
	cache              *Cache
	// deleting are the names of the Deleting nodes (movesFromLiveNode; nil until asked).
	deleting map[string]bool
	// nodes are the snapshot's nodes that have a Node or a NodeClaim, recs their facts.
	nodes []*cluster.Node
	recs  []*nodeFacts
	// leftNodes are the nodes the snapshot is leaving (cluster.Snapshot.Leaving), leftRecs
	// their facts: no pod goes there, their staying pods count where they run.
	leftNodes []*cluster.Node
	leftRecs  []*nodeFacts
	// base is the Cache's reading of the node list the snapshot was made from by Without,
	// when the nodes were read from it (existing_base.go); gone are the indexes there of the
	// nodes the snapshot dropped.
	base *baseNodes
	gone bitset
	// dropped are the positions in base.existing of the existing nodes the snapshot dropped.
	dropped []int
	// pending are toPlace plus the reschedulable pods of Deleting nodes.
	pending []*corev1.Pod
	// reservations is the capacity left in each capacity reservation (the smallest
	// ReservationCapacity any instance type reports for it).
	reservations map[string]int
	// fullReservations counts the reservations NodeClaims hold all of (reservations.go).
	fullReservations int
	// held counts, per capacity reservation, the NodeClaims not yet finalised that hold it
	// (reservations.go).
	held map[string]int
	// cloudLeft (Karpenter mode) is each reservation's instances not launched by an earlier
	// round, unheld those no NodeClaim of the round holds (karpenter_reservations.go).
	cloudLeft, unheld map[string]int
	// limitRefused is set when a NodePool's remaining limits refused a new NodeClaim in the
	// current round (rounds.go).
	limitRefused bool
	// limitsBound, when set, is raised when a NodePool's limits take instance types out of a
	// new NodeClaim or refuse one: shared by every Solve one call to solve makes
	// (Result.LimitsBound).
	limitsBound *bool
	// claimMinValuesRefused is set when an open NodeClaim's minValues refused a pod in the
	// current round (rounds.go: the pod's own failure names only the NodePools).
	claimMinValuesRefused bool
	// karpenter is Karpenter mode (karpenter.go); launched are the NodeClaims its earlier
	// rounds launched, tried before the open ones as Karpenter tries existing nodes.
	karpenter bool
	launched  []*claim
	// lastChange is what the last pod to reach the NodeClaims did to them (karpenter_create.go).
	lastChange claimChange
	// korder is Karpenter's slice of the round's NodeClaims, korderOff set once it stopped
	// keeping it (karpenter_order.go).
	korder    []*claim
	korderOff bool
	round     int // the current round, from 1
	// minValuesRound: a round after minValues refused pods (rounds.go).
	minValuesRound bool
	// groupIDs number the topology groups for the repack's shapes (packing_repack.go).
	groupIDs map[*topologyGroup]int
	// variant is how this Solve differs from solve's first (solveOnce); noted is what it
	// tells solveBest about its plan, for the second tries (onceInfo).
	variant
	noted
	// uncapped: a pod was placed without the cap (host_spread_cap.go).
	uncapped bool
	// heldNow: the existing node check just passed holds the pod's spreads over the nodes'
	// counts alone (existingNode.check, holdNow).
	heldNow bool
	// noNewClaims: a pod may join existing nodes and NodeClaims only (fillHostFloors).
	noNewClaims bool
	// watchTries: the plan is small enough for the second tries that price joins
	// (guardMaxPods; not Karpenter mode, not disruption's simulations): note the joins they
	// would price (noted.spreadJoins, noted.headJoins).
	watchTries bool
	// capWaits: a pod refused only under the cap waits for a minimum to rise (cap_wait.go);
	// waitCap: the pod trySchedule just failed waits; waiting are those that wait.
	capWaits, waitCap bool
	waiting           []capWaiter
	// reservedDeferred: in the first round of a strictReserved Solve a new NodeClaim refused
	// a pod whose every capacity reservation other NodeClaims hold (heldBack).
	reservedDeferred bool
}

// Solve places the snapshot's pending pods, then its moving pods (cluster.Snapshot.Moving),
// then the reschedulable pods of its Deleting nodes (not DaemonSet or static pods, not
// terminal, without karpenter.sh/do-not-disrupt=true or a duration active at the snapshot's
// DoNotDisruptAt time, not kept in place by a
// PodDisruptionBudget of snap.PDBLimits), against the bound pods of the other nodes. Deleting
// nodes take no pods; a node ClosedToMoves takes no pod with spec.nodeName unless it comes
// from a Deleting node. Solve never modifies snap.
//
// It returns an error only for invalid input (a nil snapshot, a nil pod, a NodePool whose
// requirements do not parse, an instance type without a name or with a nil offering, and a
// resource quantity of a NodePool's limits, an instance type, a node, a bound pod or a
// DaemonSet that is negative or beyond an int64 of millicores or units); pods that cannot be
// placed, pending pods the API server would reject included (invalid resources, spread
// constraints, tolerations, names), are reported in Result.PodErrors, never dropped.
func Solve(snap *cluster.Snapshot, opts Options) (*Result, error) { return solve(snap, opts, nil) }

// Solve is scheduling.Solve remembering per-pod and per-node work in c across Solves (a nil
// Cache remembers nothing).
func (c *Cache) Solve(snap *cluster.Snapshot, opts Options) (*Result, error) {
	return solve(snap, opts, c)
}

// solve is Solve; tune (tests) adjusts the solver before its first placement.
func solve(snap *cluster.Snapshot, opts Options, cache *Cache, tune ...func(*solver)) (res *Result, err error) {
	if snap == nil {
		return nil, invalid(opSolve, cluster.InputNil, "Snapshot", "", "", "nil snapshot")
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, cluster.Internal(opSolve, r)
		}
	}()
	bound := false
	tune = append(tune[:len(tune):len(tune)], func(s *solver) { s.limitsBound = &bound })
	defer func() {
		if res != nil {
			res.LimitsBound = bound
		}
	}()
	karp, plain := newKarpenterAnswer(snap, opts, tune), newPlainAnswer(snap, opts, cache, tune)
	res, err = solveBest(snap, opts, cache, tune, karp)
	if err == nil && guardsPreferences(snap, opts, res) {
		var soft *lazyPlan
		if hasSoftTaint(snap) {
			soft = newSoftTaintsAnswer(snap, opts, cache, tune)
		}
		res, err = preferencesAtKarpentersPrice(res, karp, plain, soft)
	}
	if err == nil && opts.Packing != PackingKarpenter && !opts.SkipRepack && opts.PreferencePolicy != PreferencesIgnore &&
		!opts.repairOnly && !reservationsHold(res) {
		// A preference pinned NodeClaims to capacity only a full reservation offers (a
		// ScheduleAnyway capacity-type spread's least populated "reserved"), so they launch
		// on it past its capacity: the plan without preferences, if it keeps the
		// reservations and leaves out no more pods (difftest plan:993113: five launches of a
		// 2-instance one).
		var alt *Result
		if alt, err = plain.get(); err == nil && reservationsHold(alt) && leavesOutLess(alt, res) >= 0 {
			res = alt
		}
	}
	if err == nil && opts.Packing != PackingKarpenter && !opts.SkipRepack && !opts.repairOnly && !opts.unguarded && planSize(res) <= guardMaxPods {
		res, err = followKarpenter(snap, opts, cache, tune, karp, res)
	}
	return res, err
}

// boundByLimits records that a NodePool's limits took instance types out of a new NodeClaim
// or refused one (Result.LimitsBound).
func (s *solver) boundByLimits() {
	if s.limitsBound != nil {
		*s.limitsBound = true
	}
}

// solveBest is solve without the guard on the price of preferences (preferences.go); karp is
// Karpenter mode's answer for the same snapshot and opts.
func solveBest(snap *cluster.Snapshot, opts Options, cache *Cache, tune []func(*solver), karp *lazyPlan) (*Result, error) {
	v := variant{}
	res, info, err := solveOnce(snap, opts, cache, v, tune)
	if err == nil && info.overSkew {
		// A pod placed without the cap broke a spread as launched: plan again with the cap
		// strict (host_spread_cap.go), unless that plan breaks one too (a count that moved
		// with a NodeClaim's launch), when the first, which places more, stays.
		strict := v
		strict.strictCap = true
		var sRes *Result
		var sInfo onceInfo
		sRes, sInfo, err = solveOnce(snap, opts, cache, strict, tune)
		if err == nil && !sInfo.overSkew {
			res, info, v = sRes, sInfo, strict
		}
	}
	if err != nil {
		return nil, err
	}
	if opts.repairOnly {
		// The first pass and its repair alone, as tests hold them (Options.repairOnly).
		return res, nil
	}
	if len(info.unpin) > 0 {
		// Pods kept zones free for pending pods that then found no place: without holding
		// their domains the plan may be cheaper or place more (unpinned.go).
		u := v
		u.unpinned = info.unpin
		alt, altInfo, err := solveOnce(snap, opts, cache, u, tune)
		if err != nil {
			return nil, err
		}
		if better(alt, res) && !altInfo.overSkew {
			res, v, info.starved, info.spreadBreaks = alt, u, altInfo.starved, altInfo.spreadBreaks
		}
	}
	// try plans variant v and keeps its plan when keep says it beats res and it breaks no
	// spread over the cap, nor one of a kind the plan before it keeps (breaksMore).
	try := func(v variant, keep func(alt *Result) bool) error {
		alt, altInfo, err := solveOnce(snap, opts, cache, v, tune)
		if err == nil && keep(alt) && !altInfo.overSkew && !breaksMore(altInfo.spreadBreaks, info.spreadBreaks) {
			res = alt
		}
		return err
	}
	leavesOutFewer := func(alt *Result) bool { return leavesOutLess(alt, res) > 0 }
	betterHolding := func(alt *Result) bool { return better(alt, res) && reservationsHold(alt) }
	if len(info.starved) > 0 && !opts.firstOrderOnly {
		// The greedy's order gave the room, a limit or a domain the pods left out needed to
		// pods placed before them: placed first, they may leave out fewer (starved.go).
		v.first = info.starved
		if err := try(v, leavesOutFewer); err != nil {
			return nil, err
		}
		// While Karpenter mode still leaves out fewer pods (karpenterPlaced), one more try
		// after another follows it (starved.go).
		for _, next := range []struct {
			when bool
			v    func(first map[*corev1.Pod]bool) (variant, error)
		}{
			// Karpenter's own choices can leave out pods that take more from the others than
			// they give: placed first, the pods it places that the plan left out.
			{true, func(first map[*corev1.Pod]bool) (variant, error) { w := v; w.first = first; return w, nil }},
			// Its order of open NodeClaims, fewest pods first, without the default's
			// preference for one with room on its cheapest type (karpenterOrder).
			{true, func(map[*corev1.Pod]bool) (variant, error) { return variant{karpenterOrder: true}, nil }},
			// Its order of a pod's required node-affinity terms, when a pod went to an
			// existing node by a term after its first (termsInOrder).
			{info.laterTerm, func(map[*corev1.Pod]bool) (variant, error) { return variant{termsInOrder: true}, nil }},
			// Every pod it places, first, so a pod it leaves out takes none of their room
			// (karpenterSet).
			{true, func(map[*corev1.Pod]bool) (variant, error) {
				k, err := karp.get()
				return variant{first: placedPods(k)}, err
			}},
		} {
			first, err := karpenterPlaced(karp, res)
			if err != nil {
				return nil, err
			}
			if first == nil {
				break
			}
			if !next.when {
				continue
			}
			alt, err := next.v(first)
			if err != nil {
				return nil, err
			}
			if err := try(alt, leavesOutFewer); err != nil {
				return nil, err
			}
		}
		for _, alt := range []struct {
			when bool
			v    variant
		}{
			// A spread refused a node that takes the pod now for pods of NodeClaims that
			// bind after it (existingNode.check).
			{info.heldBack, variant{bindNow: true, first: info.starved}},
			{leftOutCarryHostSpread(res), variant{hostFloor: true}},
			{leftOutForMinValues(res), variant{limitMinValues: true}},
			{leftOutForMinValues(res) && info.limitRounds, variant{limitMinValues: true, minValuesFirst: true}},
		} {
			if !alt.when {
				continue
			}
			if err := try(alt.v, leavesOutFewer); err != nil {
				return nil, err
			}
		}
		// Karpenter mode places as many pods of each priority, other ones, for less: its pods
		// placed first may cost less too (starved.go: karpenterCheaperSet).
		first, err := karpenterCheaperSet(karp, res)
		if err != nil {
			return nil, err
		}
		if first != nil {
			if err := try(variant{first: first}, func(alt *Result) bool { return better(alt, res) }); err != nil {
				return nil, err
			}
		}
	}
	priced := opts.Packing != PackingKarpenter && !opts.SkipRepack && planSize(res) <= guardMaxPods
	for _, alt := range []struct {
		when bool
		v    variant
	}{
		// Spreads' carriers grew NodeClaims: priced, they may open cheaper ones (paid_joins.go).
		{info.spreadJoins && priced, variant{priceJoins: true}},
		// A new NodeClaim took a pod Karpenter holds back for its next round: as Karpenter,
		// the plan may place it on a node the first round launched instead (strictReserved).
		{info.reservedWaits && opts.Packing != PackingKarpenter, variant{strictReserved: true}},
		// A free join raised its NodeClaim's launch: with such joins not free, the plan may
		// be cheaper (headJoinCosts).
		{info.headJoins && priced, variant{priceHeads: true, priceJoins: info.spreadJoins}},
	} {
		if !alt.when {
			continue
		}
		if err := try(alt.v, betterHolding); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// pns is when this Solve's relaxation tolerates PreferNoSchedule taints.
func (s *solver) pns() pnsRelax {
	switch {
	case !s.toleratePreferNoSchedule:
		return pnsNever
	case s.karpenter:
		return pnsUnlisted
	}
	return pnsUntolerated
}

// variant is how a Solve differs from the first one solve runs.
type variant struct {
	// unpinned are pods that hold no domain against a zone anti-affinity (unpinned.go).
	unpinned map[*corev1.Pod]bool
	// strictCap: the cap on hostname spreads' carriers never yields (host_spread_cap.go).
	strictCap bool
	// first are pods placed ahead of the others in the queue (starved.go).
	first map[*corev1.Pod]bool
	// hostFloor: the pods left out try the nodes once more with each hostname spread's
	// minimum at its least count over the nodes (host_floor.go).
	hostFloor bool
	// limitMinValues: the round a limit refusal starts is a minValues round too (rounds.go);
	// minValuesFirst: a minValues round alone, the recount the round after.
	limitMinValues, minValuesFirst bool
	// karpenterOrder: a pod joins the open NodeClaims in Karpenter's fewest-pods-first order
	// only, not first one whose cheapest type has its room (starved.go).
	karpenterOrder bool
	// termsInOrder: a pod tries its required node-affinity terms in order, existing nodes
	// included, as Karpenter does, not the existing nodes by every term first
	// (onExistingByAnyTerm; starved.go).
	termsInOrder bool
	// priceJoins: a pod tied to its domain (a spread's carrier, tiedToDomain) grows a
	// NodeClaim only when that costs no more than a new one (paid_joins.go).
	priceJoins bool
	// strictReserved: in the first round a new NodeClaim refuses a pod whose every capacity
	// reservation other NodeClaims hold (heldBack), as Karpenter's strict reserved-offering
	// mode does.
	strictReserved bool
	// priceHeads: addToOpenClaim's free join is one that leaves the NodeClaim's cheapest
	// launch at its price (headJoinCosts).
	priceHeads bool
	// bindNow: a spread may also hold over the nodes' counts alone on a node that takes the
	// pod now (existingNode.check; always in disruption's simulations, one Solve each).
	bindNow bool
	// guide: a pod prefers the NodePool, zone and capacity type of the NodeClaim Karpenter
	// mode's cheaper answer puts it on, or the node it binds it to (karpenter_guide.go).
	guide map[*corev1.Pod]requirements.Requirements
}

// noted is what a Solve notes for solveBest's second tries.
type noted struct {
	// limitRounds: a NodePool's limits refused a pod and started a later round (rounds.go).
	limitRounds bool
	// spreadJoins: a pod tied to its domain (tiedToDomain) joined a NodeClaim past its
	// cheapest type's room (paid_joins.go).
	spreadJoins bool
	// reservedWaits: a new NodeClaim took a pod Karpenter's strict reserved-offering mode
	// holds back for its next round (variant.strictReserved).
	reservedWaits bool
	// headJoins: a free join raised its NodeClaim's cheapest launch (headJoinCosts).
	headJoins bool
	// heldBack: a spread refused a pod a node that takes it now, where it holds over the
	// nodes' counts alone (variant.bindNow).
	heldBack bool
	// laterTerm: a pod went to an existing node by a required node-affinity term after its
	// first (onExistingByAnyTerm; variant.termsInOrder).
	laterTerm bool
}

// onceInfo is what one Solve tells solve about its plan.
type onceInfo struct {
	// unpin are the pods that held a domain against a zone anti-affinity and were not
	// placed (the first Solve only; only in the default packing, when it repairs its plan:
	// a retry is worth it there).
	unpin map[*corev1.Pod]bool
	// overSkew: a pod placed without the cap broke a spread as launched (checked too for a
	// Solve with the cap strict).
	overSkew bool
	// spreadBreaks are the kinds of required spreads over other keys the plan breaks as
	// launched (a Solve that left pods out, or placed some first: starved.go).
	spreadBreaks map[spreadBreak]bool
	// starved are the valid pods the Solve left out (a Solve in the first queue order,
	// in the default packing when it repairs its plan: starved.go).
	starved map[*corev1.Pod]bool
	noted
}

// solveOnce is one Solve of variant v.
func solveOnce(snap *cluster.Snapshot, opts Options, cache *Cache, v variant, tune []func(*solver)) (*Result, onceInfo, error) {
	s, pods, err := prepare(snap, opts, cache, true)
	if err != nil {
		return nil, onceInfo{}, err
	}
	for _, t := range tune {
		t(s)
	}
	if s.noDynamicNodePools {
		errs := map[*podData]podFailure{}
		failure := noNodePoolFailure(s.templateErrors)
		for _, p := range pods {
			errs[p] = failure
		}
		return s.result(pods, errs), onceInfo{}, nil
	}
	for _, p := range pods {
		p.first = v.first[p.pod]
		if r := v.guide[p.pod]; r != nil && p.form != nil {
			p.form = p.form.guided(r)
		}
	}
	firstAffinity(pods)
	s.variant = v
	s.watchTries = !s.karpenter && !s.opts.SkipRepack && len(pods) <= guardMaxPods
	s.countPinned(pods)
	errs := s.run(pods)
	if v.hostFloor {
		s.fillHostFloors(pods, errs)
	}
	if !s.karpenter && !s.opts.SkipRepack && !v.hostFloor {
		s.repack()
	}
	var info onceInfo
	if !s.karpenter && !s.opts.SkipRepack {
		if v.unpinned == nil {
			info.unpin = unplacedPinned(pods, errs)
		}
		if v.first == nil {
			info.starved = starved(pods, errs)
		}
	}
	info.noted = s.noted
	res := s.result(pods, errs)
	if v.first != nil || info.starved != nil || s.uncapped || v.strictCap || v.karpenterOrder || v.termsInOrder {
		info.spreadBreaks = s.spreadBreaks(res)
	}
	// A first-order plan with a pod placed without the cap, or planned with it strict, is
	// judged on every key; a second try is compared on the other keys (breaksMore).
	info.overSkew = (s.uncapped || v.strictCap) && (s.carriersOverSkew() || v.first == nil && len(info.spreadBreaks) > 0)
	if v.hostFloor {
		info.overSkew = s.carriersOverSkew()
	}
	return res, info, nil
}

// asKarpenters reports whether the Solve stands for Karpenter's scheduler: Karpenter mode, or
// disruption's simulations and provisioner pass (SingleRound), whose answers decide what
// Karpenter's disruption controller does, so they count and order as Karpenter does where
// the default's plans do better.
func (s *solver) asKarpenters() bool { return s.karpenter || s.opts.SingleRound }
