package scheduling

import (
	"iter"
	"slices"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// nodeFacts is what every Solve reads of an existing node and its bound pods the same way,
// read once per node (nodeKey) by a Cache: snapshots share unchanged nodes and the forks that
// only mark a node keep its objects, so disruption's many simulations over thousands of nodes
// read each once. Nothing here depends on the Solve but the vectors (kept at the resource
// index's length) and proto (kept for one existingContext).
type nodeFacts struct {
	key         nodeKey
	name        string
	labels      map[string]string
	reqs        requirements.Requirements // see nodeRequirements
	host        int32                     // the hostname's id (topology_hostname.go)
	managed     bool                      // has a NodePool label
	initialized bool
	pool        string
	typeName    string
	// order is the name Karpenter tries the node by (karpenterOrder); orderedAfter the facts
	// of a node found to come no later in that order (inOrder).
	order        string
	orderedAfter *nodeFacts
	// deleting: the node's objects say it is going away (cluster.Node.Deleting but for the
	// Deleting fork's mark, which is the snapshot's); claimDeleting: an in-flight claim being
	// deleted, whose pods no topology counts.
	deleting, claimDeleting bool
	// taints are the effective taints (effectiveTaints), except for a managed Node without its
	// claim that is not initialized yet (poolStartup): its startup taints are its NodePool's.
	taints      []corev1.Taint
	poolStartup bool
	nodeTaints  []corev1.Taint // the Node's taints, else the claim's
	// volumePods are the bound pods that are not terminal and have volumes.
	volumePods []*corev1.Pod
	ports      []hostPort
	namespaces []string        // of all its bound pods, terminal or not, each once
	daemons    map[string]bool // namespace/name of the DaemonSets with a pod here; nil if none
	// inverse are the bound pods with a required pod anti-affinity (their inverse groups);
	// reschedulable those that move when the node is deleted, PodDisruptionBudgets aside;
	// moves those of them that movesPDBs (immutable) lets go (reschedule.go).
	inverse, reschedulable, moves []*corev1.Pod
	movesPDBs                     *cluster.PDBLimits
	// capacity is what the node counts against its NodePool's limits: the Node's capacity,
	// else the claim's, else allocatable.
	capacity corev1.ResourceList
	// used is the pods' summed requests, valid while its length is the index's; nil when a
	// sum could saturate, where subtracting pod by pod gives a different result.
	used vec
	// alloc is allocatable as a vector (the Node's, else the claim's); capacityVec capacity.
	// Both are kept at the index's length. Solves clone alloc.
	alloc, capacityVec vec
	// proto is the node as every Solve with protoCtx starts from it (buildExisting), shared.
	proto    *existingNode
	protoCtx *existingContext
}

// nodeKey is a node's identity for the facts: its objects and its pod list. The forks that
// mark a node (Deleting, ClosedToMoves) copy the cluster.Node but keep all three, so a marked
// node finds its facts; a fork that changes a node's objects or its pods makes a new key.
type nodeKey struct {
	node  *corev1.Node
	claim *v1.NodeClaim
	pods  **corev1.Pod // the pod list's first element (nil: none)
	count int
}

func keyOf(n *cluster.Node) nodeKey {
	k := nodeKey{node: n.Node, claim: n.NodeClaim, count: len(n.Pods)}
	if len(n.Pods) > 0 {
		k.pods = &n.Pods[0]
	}
	return k
}

// nodeStore holds the facts of every node read so far and the host ids of their hostnames
// (a Cache's, or one Solve's own).
type nodeStore struct {
	facts map[nodeKey]*nodeFacts
	// byNode are the facts of the cluster.Nodes read so far that a later snapshot may share
	// (the one a node's facts were first read from): a pointer hashes cheaper than a
	// nodeKey, and a simulation's fork shares all its nodes but the few it marks.
	byNode map[*cluster.Node]*nodeFacts
	hosts  hostIDs
	// lastNodes and lastRecs are the last Solve's nodes and their facts: a simulation's fork
	// lists the nodes of the one before it mostly in the same places, so readNodes finds
	// most facts there by pointer, without hashing.
	lastNodes []*cluster.Node
	lastRecs  []*nodeFacts
}

func newNodeStore() *nodeStore {
	return &nodeStore{facts: map[nodeKey]*nodeFacts{}, byNode: map[*cluster.Node]*nodeFacts{}, hosts: hostIDs{}}
}

// readNodes reads the snapshot's nodes (those with a Node or a NodeClaim into s.nodes, with
// their facts in s.recs), validating each the first time it is met (checkNode).
func (s *solver) readNodes() error {
	if !s.readFromBase() {
		if err := s.readList(s.snap.Nodes()); err != nil {
			return err
		}
	}
	return s.readLeft()
}

// readLeft reads the facts of the nodes the snapshot is leaving (cluster.Snapshot.Leaving):
// they take no pod, but their pods that stay count in the topology (countBoundPods).
func (s *solver) readLeft() error {
	s.leftNodes, s.leftRecs = nil, nil
	for _, n := range s.snap.Left() {
		if n == nil || n.Node == nil && n.NodeClaim == nil {
			continue
		}
		f, err := s.lookupFacts(n)
		if err != nil {
			return err
		}
		s.leftNodes, s.leftRecs = append(s.leftNodes, n), append(s.leftRecs, f)
	}
	return nil
}

// readList is readNodes of these nodes.
func (s *solver) readList(nodes []*cluster.Node) error {
	s.nodes = make([]*cluster.Node, 0, len(nodes))
	s.recs = make([]*nodeFacts, 0, len(nodes))
	last, lastRecs := s.store.lastNodes, s.store.lastRecs
	j := 0 // where n would be in the last Solve's list
	for _, n := range nodes {
		if n == nil {
			continue
		}
		if n.Node == nil && n.NodeClaim == nil {
			if err := checkNode(n, s.cache); err != nil {
				return err
			}
			continue
		}
		// The facts of a node are a function of its key (byNode holds a node's only with
		// them, and the store's maps only grow), so the last Solve's facts of the same
		// pointer, or of a marked copy with the same key, are the ones a lookup would find.
		var f *nodeFacts
		for d := j; d < min(j+lookAhead, len(last)); d++ {
			if last[d] == n {
				f, j = lastRecs[d], d+1
				break
			}
		}
		if f == nil {
			k := keyOf(n)
			for d := j; d < min(j+lookAhead, len(last)); d++ {
				if lastRecs[d].key == k {
					f, j = lastRecs[d], d+1
					break
				}
			}
		}
		if f == nil {
			var err error
			if f, err = s.lookupFacts(n); err != nil {
				return err
			}
		}
		s.nodes = append(s.nodes, n)
		s.recs = append(s.recs, f)
	}
	s.store.lastNodes, s.store.lastRecs = s.nodes, s.recs
	return nil
}

// lookAhead is how far readNodes looks for a node in the last Solve's list: forks drop a few
// nodes (the candidates) here and there.
const lookAhead = 4

// lookupFacts are n's facts, read (and n checked) the first time n's objects are met.
func (s *solver) lookupFacts(n *cluster.Node) (*nodeFacts, error) {
	if f, ok := s.store.byNode[n]; ok {
		return f, nil
	}
	k := keyOf(n)
	if f, ok := s.store.facts[k]; ok {
		return f, nil
	}
	if err := checkNode(n, s.cache); err != nil {
		return nil, err
	}
	f := s.newFacts(n)
	s.store.facts[k] = f
	s.store.byNode[n] = f
	return f, nil
}

// newFacts reads n and registers the resource names of its allocatable and its pods.
func (s *solver) newFacts(n *cluster.Node) *nodeFacts {
	lbls := nodeLabels(n)
	f := &nodeFacts{key: keyOf(n), name: n.Name(), labels: lbls, pool: lbls[v1.NodePoolLabelKey], typeName: lbls[v1.LabelInstanceType]}
	f.order = karpenterOrder(n, f.pool)
	_, f.managed = lbls[v1.NodePoolLabelKey]
	f.initialized = !f.managed || lbls[v1.NodeInitializedLabelKey] == "true"
	f.reqs = nodeRequirements(n)
	f.host = s.store.hosts.id(f.reqs[v1.LabelHostname].Values()[0])
	f.claimDeleting = n.NodeClaim != nil && n.Node == nil && n.NodeClaim.DeletionTimestamp != nil
	f.deleting = (n.Node != nil && n.Node.DeletionTimestamp != nil) || (n.NodeClaim != nil && n.NodeClaim.DeletionTimestamp != nil) || n.InstanceTerminating()
	if n.Node != nil {
		f.nodeTaints = n.Node.Spec.Taints
	} else {
		f.nodeTaints = n.NodeClaim.Spec.Taints
	}
	f.poolStartup = !f.initialized && n.NodeClaim == nil && f.managed
	f.taints = effectiveTaints(n, f)
	f.capacity = nodeCapacity(n)
	if n.Node != nil {
		s.res.addAll(n.Node.Status.Allocatable)
	}
	if n.NodeClaim != nil {
		s.res.addAll(n.NodeClaim.Status.Allocatable)
	}
	for _, p := range n.Pods {
		if p == nil {
			continue
		}
		s.res.addRequests(p)
		if !slices.Contains(f.namespaces, p.Namespace) {
			f.namespaces = append(f.namespaces, p.Namespace)
		}
		if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			f.inverse = append(f.inverse, p)
		}
		if cluster.IsReschedulable(p) && p.Annotations[v1.DoNotDisruptAnnotationKey] != "true" {
			f.reschedulable = append(f.reschedulable, p)
		}
	}
	for _, p := range livePods(n) {
		if len(p.Spec.Volumes) > 0 {
			f.volumePods = append(f.volumePods, p)
		}
		f.ports = append(f.ports, hostPortsOf(p)...)
		for _, o := range p.OwnerReferences {
			if o.Kind == "DaemonSet" {
				if f.daemons == nil {
					f.daemons = map[string]bool{}
				}
				f.daemons[p.Namespace+"/"+o.Name] = true
			}
		}
	}
	return f
}

// resizeFacts recomputes f's vectors when the resource index has grown since they were
// summed (a Cache's index grows as later Solves meet new resource names).
func (s *solver) resizeFacts(f *nodeFacts, n *cluster.Node) {
	if len(f.alloc) != len(s.res.names) {
		f.used = s.sumPods(n)
		f.alloc = s.res.vec(allocatable(n))
		f.capacityVec = s.res.vec(f.capacity)
	}
}

// safeSum bounds the summed requests and the allocatable they are taken from, so that no
// step of either subtraction saturates and both give the same vector.
const safeSum = 1 << 61

// sumPods is the node's live pods' summed requests, or nil when a sum may reach safeSum or
// a request is negative.
func (s *solver) sumPods(n *cluster.Node) vec {
	sum := make(vec, len(s.res.names))
	for _, p := range livePods(n) {
		for i, x := range s.podVec(p) {
			if x < 0 || x >= safeSum-sum[i] {
				return nil
			}
			sum[i] += x
		}
	}
	return sum
}

// subPods takes the node's pods' requests off available, as subtracting each would.
func (s *solver) subPods(available vec, n *cluster.Node, f *nodeFacts) {
	if f.used != nil && len(f.used) == len(available) && withinSafeSum(available) {
		available.sub(f.used)
		return
	}
	for _, p := range livePods(n) {
		available.sub(s.podVec(p))
	}
}

func withinSafeSum(v vec) bool {
	for _, x := range v {
		if x >= safeSum || x <= -safeSum {
			return false
		}
	}
	return true
}

// livePods yields the node's bound pods that are not terminal.
func livePods(n *cluster.Node) iter.Seq2[int, *corev1.Pod] {
	return func(yield func(int, *corev1.Pod) bool) {
		for i, p := range n.Pods {
			if p != nil && !cluster.IsTerminal(p) && !yield(i, p) {
				return
			}
		}
	}
}

// allocatable is the Node's allocatable, else (none given, or no Node) the NodeClaim's.
func allocatable(n *cluster.Node) corev1.ResourceList {
	var alloc corev1.ResourceList
	if n.Node != nil {
		alloc = n.Node.Status.Allocatable
	}
	if len(alloc) == 0 && n.NodeClaim != nil {
		alloc = n.NodeClaim.Status.Allocatable
	}
	return alloc
}

// nodeCapacity is the Node's capacity, else the NodeClaim's, else allocatable: what the node
// counts against its NodePool's limits.
func nodeCapacity(n *cluster.Node) corev1.ResourceList {
	var capacity corev1.ResourceList
	if n.Node != nil {
		capacity = n.Node.Status.Capacity
	}
	if len(capacity) == 0 && n.NodeClaim != nil {
		capacity = n.NodeClaim.Status.Capacity
	}
	if len(capacity) == 0 {
		capacity = allocatable(n)
	}
	return capacity
}

// nodeRequirements are a node's labels as requirements (a deprecated alias only where its
// stable label is missing), with kubernetes.io/hostname defaulting to the node's name.
func nodeRequirements(n *cluster.Node) requirements.Requirements {
	lbls := nodeLabels(n)
	withHost := make(map[string]string, len(lbls)+1)
	for k, v := range lbls {
		// A deprecated alias beside its stable label is ignored: kube-scheduler (and verify)
		// read the stable one, and folding both would put a node whose two disagree in no
		// zone at all, uncounted by the spreads that count it.
		if stable, alias := v1.NormalizedLabels[k]; alias {
			if _, both := lbls[stable]; both {
				continue
			}
		}
		withHost[k] = v
	}
	if withHost[v1.LabelHostname] == "" {
		withHost[v1.LabelHostname] = n.Name()
	}
	return requirements.FromLabels(withHost)
}
