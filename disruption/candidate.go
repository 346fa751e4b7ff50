package disruption

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

const podDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// clusterNode is the snapshot's node, which node embeds (as Karpenter's Candidate embeds its
// StateNode): its Node, NodeClaim, Pods, Name, Labels and Deleting are the snapshot's.
type clusterNode = cluster.Node

// node is what Plan computes about one node of the snapshot, beside the node itself.
type node struct {
	*clusterNode
	index int // position in the sorted node list (identity)
	rank  int // position in SavingsRatio order (rankByRatio)
	// nominated: the provisioner or an earlier command sends pods here (state.nominated
	// says which).
	nominated bool
	poolName  string       // the karpenter.sh/nodepool label (or the NodeClaim's)
	pool      *v1.NodePool // nil: unmanaged or unknown NodePool

	initialized bool // the karpenter.sh/initialized label, and a Node
	counted     bool // counts toward its NodePool's budget node count
	disrupting  bool // counted and already disrupting in the input (NotReady, deleting)

	// notCandidate is why the node cannot be a candidate of any graceful or eventual method
	// (not managed, not initialized, deleting, do-not-disrupt node, ...; "" if it can), with
	// the object it concerns (a Blocker's code and object: the node struct stays small).
	notCandidate       BlockCode
	notCandidateObject string
	// unavailable: notCandidate is a reason Karpenter checks before nomination (unmanaged,
	// no Node, deleting, not initialized), so it is the reason reported even when nominated.
	unavailable bool
	// podBlockers are every reason the node's pods forbid a graceful disruption
	// (do-not-disrupt pods, PDBs); none if they do not.
	podBlockers []Blocker
	hasTGP      bool

	reschedulable []*corev1.Pod // pods a graceful disruption reschedules
	driftPods     []*corev1.Pod // pods a drift reschedules (pods held for good stay, with TGP)
	cost          float64       // RescheduleDisruptionCost
	price         float64
	it            *cloudprovider.InstanceType
	// offeringKnown: its instance type (one its NodePool offers), zone and capacity type are
	// known, so consolidation can price it and its replacements (else consolidationUnfit
	// says what is missing).
	offeringKnown bool

	consolidatableAt time.Time
	drift            Drift // Reason "": not drifted
	driftTime        time.Time
	expiresAt        time.Time // zero: never
}

func (n *node) empty() bool      { return n.cost <= 1.0 }
func (n *node) drifted() bool    { return n.drift.Reason != "" }
func (n *node) podBlocked() bool { return len(n.podBlockers) > 0 }
func (n *node) ratio() float64   { return n.price / n.cost }
func (n *node) static() bool     { return n.pool != nil && n.pool.Spec.Replicas != nil }
func (n *node) isSpot() bool     { return n.capacityType() == v1.CapacityTypeSpot }
func (n *node) zone() string     { return n.Labels()[v1.LabelTopologyZone] }
func (n *node) capacityType() string {
	return n.Labels()[v1.CapacityTypeLabelKey]
}
func (n *node) policy() v1.ConsolidationPolicy {
	return n.pool.Spec.Disruption.ConsolidationPolicy
}

// podBlocks are the reasons p forbids a graceful disruption of its node: its active
// do-not-disrupt annotation, then a PodDisruptionBudget allowing no disruption of it
// (pdbBlocks: the PodDisruptionBudgets forbid evicting it now).
func (s *state) podBlocks(p *corev1.Pod, pdbBlocks bool) []Blocker {
	var out []Blocker
	pod := ""
	key := func() string { // only for a pod that blocks: most do not
		if pod == "" {
			pod = cluster.PodKey(p)
		}
		return pod
	}
	if value, until, ok := doNotDisrupt(p, s.now); ok {
		out = append(out, Blocker{Code: BlockDoNotDisruptPod, Object: key(), Pod: key(), Annotation: value, At: until})
	}
	if !pdbBlocks {
		return out
	}
	if pdb, pdbs := s.pdbsBlocking(p); pdb != "" {
		out = append(out, Blocker{Code: BlockPDB, Object: pdb, Pod: key()})
	} else if len(pdbs) > 0 {
		out = append(out, Blocker{Code: BlockPDBConflict, Object: key(), Pod: key(), PDBs: pdbs})
	}
	return out
}

// addPodBlock records b once per code and object (one PDB blocking many pods is one blocker).
func (n *node) addPodBlock(b Blocker) {
	n.podBlockers = appendNew(n.podBlockers, b)
}

// evictionCost is Karpenter's EvictionCost.
func evictionCost(p *corev1.Pod) float64 {
	cost := 1.0
	if v, ok := p.Annotations[podDeletionCostAnnotation]; ok {
		if c, err := strconv.ParseInt(v, 10, 32); err == nil {
			cost += float64(c) / math.Pow(2, 27)
		}
	}
	if p.Spec.Priority != nil {
		cost += float64(*p.Spec.Priority) / math.Pow(2, 25)
	}
	return math.Max(-10, math.Min(10, cost))
}

func hasCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true // a snapshot without conditions is taken as Ready
}

// buildNode derives everything Plan needs about sn.
func (s *state) buildNode(sn *cluster.Node, index int) *node {
	n := &node{clusterNode: sn, index: index}
	labels := sn.Labels()
	n.poolName = labels[v1.NodePoolLabelKey]
	if n.poolName == "" && sn.NodeClaim != nil {
		n.poolName = sn.NodeClaim.Labels[v1.NodePoolLabelKey]
	}
	n.pool = s.pools[n.poolName]
	n.initialized = labels[v1.NodeInitializedLabelKey] == "true"
	if sn.NodeClaim != nil && sn.Node == nil {
		n.initialized = false
	}
	if sn.NodeClaim != nil {
		n.hasTGP = sn.NodeClaim.Spec.TerminationGracePeriod != nil
	}
	if n.pool != nil && !n.hasTGP && sn.NodeClaim == nil {
		n.hasTGP = n.pool.Spec.Template.Spec.TerminationGracePeriod != nil
	}
	// Karpenter's budget mapping skips a terminating instance's node but counts other
	// deleting ones (as disrupting).
	n.counted = n.pool != nil && n.initialized && !sn.InstanceTerminating()
	n.disrupting = n.counted && (sn.Deleting() || (sn.Node != nil && !nodeReady(sn.Node)))

	notCand := func(code BlockCode, object string) { n.notCandidate, n.notCandidateObject = code, object }
	switch {
	case n.poolName == "":
		notCand(BlockNodePoolNotFound, "")
	case n.pool == nil:
		notCand(BlockNodePoolNotFound, n.poolName)
	case sn.Node == nil:
		notCand(BlockNoNode, "")
	case sn.Deleting():
		notCand(BlockDeleting, "")
	case !n.initialized:
		notCand(BlockUninitialized, "")
	}
	n.unavailable = n.notCandidate != ""
	switch {
	case n.notCandidate != "":
	case sn.Node.Annotations[v1.DoNotDisruptAnnotationKey] == "true":
		notCand(BlockDoNotDisruptNode, sn.Name())
	case len(s.snap.InstanceTypes()[n.poolName]) == 0:
		notCand(BlockNoInstanceTypes, n.poolName)
	}

	// Pods: blockers, reschedulable pods, disruption cost.
	n.cost = 1.0
	for _, p := range sn.Pods {
		if p == nil {
			continue
		}
		active := !cluster.IsTerminal(p) && p.DeletionTimestamp == nil
		held := false // kept on the node for good: do-not-disrupt, or PDBs that forbid any eviction
		if active {
			now, forGood := s.pdbs.BlockingWith(s.opts.PDBMatches, p)
			for _, b := range s.podBlocks(p, now) {
				n.addPodBlock(b)
				held = held || b.Code == BlockDoNotDisruptPod
			}
			held = held || forGood
		}
		if cluster.IsReschedulable(p) {
			n.reschedulable = append(n.reschedulable, p)
			n.cost += math.Max(0, evictionCost(p))
			if !held {
				// Karpenter's IsCurrentlyReschedulable: a pod a PDB only holds back for now
				// is evicted later, so its replacement capacity is planned now.
				n.driftPods = append(n.driftPods, p)
			}
		}
	}

	// Price, from the offering matching the node's zone and capacity type.
	if n.pool != nil {
		name, zone, ct := labels[v1.LabelInstanceType], labels[v1.LabelTopologyZone], labels[v1.CapacityTypeLabelKey]
		for _, it := range s.snap.InstanceTypes()[n.poolName] {
			if it != nil && it.Name == name {
				n.it = it
				break
			}
		}
		if n.it != nil {
			best := math.Inf(1)
			for _, o := range n.it.Offerings {
				if o != nil && o.Zone() == zone && o.CapacityType() == ct && o.Price < best {
					best = o.Price
				}
			}
			if !math.IsInf(best, 1) && !math.IsNaN(best) {
				n.price = best
			}
		}
		s.timing(n)
	}
	n.offeringKnown = consolidationUnfit(n).Code == ""
	return n
}

// timing fills consolidatableAt, expiresAt and drift.
func (s *state) timing(n *node) {
	sn, pool := n.clusterNode, n.pool
	var created, lastEvent time.Time
	if sn.NodeClaim != nil {
		created = sn.NodeClaim.CreationTimestamp.Time
		lastEvent = sn.NodeClaim.Status.LastPodEventTime.Time
		if lastEvent.IsZero() {
			if c := hasCondition(sn.NodeClaim.Status.Conditions, v1.ConditionTypeInitialized); c != nil && c.Status == metav1.ConditionTrue {
				lastEvent = c.LastTransitionTime.Time
			}
		}
	}
	if created.IsZero() && sn.Node != nil {
		created = sn.Node.CreationTimestamp.Time
	}
	if lastEvent.IsZero() {
		lastEvent = created
		if sn.Node != nil && !sn.Node.CreationTimestamp.IsZero() {
			lastEvent = sn.Node.CreationTimestamp.Time
		}
	}
	if ca := pool.Spec.Disruption.ConsolidateAfter; ca.Duration != nil {
		n.consolidatableAt = lastEvent.Add(*ca.Duration)
	}
	// Expiration reads the NodeClaim's own expireAfter (copied from the NodePool when it was
	// launched; a later change to the NodePool is drift, not expiration). A Node without a
	// NodeClaim falls back to its NodePool's.
	ea := pool.Spec.Template.Spec.ExpireAfter
	if sn.NodeClaim != nil && !sn.NodeClaim.Spec.ExpireAfter.IsZero() {
		ea = sn.NodeClaim.Spec.ExpireAfter
	}
	if ea.Duration != nil && !created.IsZero() {
		n.expiresAt = created.Add(*ea.Duration)
	}

	// Drift.
	n.driftTime = s.now
	n.drift = staticDrift(pool, sn.NodeClaim) // drift_static.go
	if !n.drifted() {
		if reqs := s.poolRequirements[n.poolName]; reqs != nil {
			if err := labelsCompatible(sn.Labels(), reqs); err != nil {
				n.drift = Drift{Reason: RequirementsDrifted, Detail: err.Error()}
			}
		}
	}
	// InstanceTypeNotFound: after an hour, a node whose instance type (or its zone and
	// capacity type) the NodePool no longer offers has drifted.
	if !n.drifted() && !created.IsZero() && s.now.Sub(created) >= instanceTypeNotFoundAge && sn.Labels()[v1.LabelInstanceType] != "" && !s.offered(n) {
		n.drift = Drift{Reason: InstanceTypeNotFound}
	}
	if !n.drifted() {
		n.drift = Drift{Reason: s.providerDrift(n)}
	}
	if sn.NodeClaim != nil {
		if c := hasCondition(sn.NodeClaim.Status.Conditions, v1.ConditionTypeDrifted); c != nil && c.Status == metav1.ConditionTrue {
			if !n.drifted() {
				n.drift = Drift{Reason: cloudprovider.DriftReason(c.Reason)}
				if c.Reason == "" {
					n.drift.Reason = Drifted
				}
			}
			n.driftTime = c.LastTransitionTime.Time
		}
	}
}

// labelsCompatible is requirements.FromLabels(labels).Compatible(reqs, nil), reading only the
// labels whose keys reqs names (Compatible reads no other unless one conflicts, and then the
// typo hint of its error reads them all): a node's dozen labels are not made requirements
// for each node of each Plan.
func labelsCompatible(labels map[string]string, reqs requirements.Requirements) error {
	named := make(map[string]string, len(reqs))
	for key := range reqs {
		if v, ok := labels[key]; ok {
			named[key] = v
		}
	}
	for alias, key := range v1.NormalizedLabels { // FromLabels files a deprecated key under its stable one
		if _, ok := reqs[key]; !ok {
			continue
		}
		if v, ok := labels[alias]; ok {
			named[alias] = v
		}
	}
	if requirements.FromLabels(named).IsCompatible(reqs, nil) {
		return nil
	}
	return requirements.FromLabels(labels).Compatible(reqs, nil)
}

// sortByRatio orders candidates by SavingsRatio, highest first (ties: name, then index):
// by their rank in rankByRatio's order of all nodes.
func sortByRatio(ns []*node) {
	if len(ns) < bucketRanks {
		slices.SortFunc(ns, func(a, b *node) int { return cmp.Compare(a.rank, b.rank) })
		return
	}
	// Ranks are unique and below the node count: many candidates (every one, after every
	// command) are ordered by placing each at its rank, without comparing.
	top := 0
	for _, n := range ns {
		top = max(top, n.rank)
	}
	slots := make([]*node, top+1)
	for _, n := range ns {
		if slots[n.rank] != nil { // a node listed twice: compare after all
			slices.SortFunc(ns, func(a, b *node) int { return cmp.Compare(a.rank, b.rank) })
			return
		}
		slots[n.rank] = n
	}
	i := 0
	for _, n := range slots {
		if n != nil {
			ns[i] = n
			i++
		}
	}
}

// bucketRanks is how many candidates sortByRatio orders by placing at their ranks.
const bucketRanks = 64

// rankByRatio ranks the nodes by SavingsRatio, highest first, ties by index: a strict total
// order (a node's price and disruption cost are finite and fixed for the Plan, its index
// unique), so every method sorts its candidates by rank alone, not by ratio each pass.
func rankByRatio(nodes []*node) {
	order := slices.Clone(nodes)
	slices.SortFunc(order, func(a, b *node) int {
		if ra, rb := a.ratio(), b.ratio(); ra != rb {
			if ra > rb {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.index, b.index)
	})
	for r, n := range order {
		n.rank = r
	}
}

// instanceTypeNotFoundAge is how old a node must be before a vanished instance type counts as
// drift (Karpenter checks InstanceTypeNotFound only for NodeClaims older than an hour).
const instanceTypeNotFoundAge = time.Hour

// offered reports whether the node's NodePool still offers its instance type in its zone and
// capacity type (a reserved node may also match an on-demand offering).
func (s *state) offered(n *node) bool {
	if n.it == nil {
		return false
	}
	zone, nct := n.zone(), n.capacityType()
	for _, o := range n.it.Offerings {
		if o == nil || (zone != "" && o.Zone() != zone) {
			continue
		}
		if ct := o.CapacityType(); nct == "" || ct == nct || (nct == v1.CapacityTypeReserved && ct == v1.CapacityTypeOnDemand) {
			return true
		}
	}
	return false
}
