package cluster

import (
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// Objects are the plain slices a Snapshot is built from, as a cluster (or a dump of one)
// holds them. New never modifies them.
type Objects struct {
	// NodePools are the cluster's NodePools.
	NodePools []*v1.NodePool
	// InstanceTypes are the instance types each NodePool may use, keyed by NodePool name.
	InstanceTypes map[string]cloudprovider.InstanceTypes
	// WellKnownLabels are the label keys whose values the cloud decides (nil:
	// v1.WellKnownLabels).
	WellKnownLabels requirements.KeySet
	// Nodes and NodeClaims are paired by New (see the package doc); a NodeClaim without a
	// Node is in flight.
	Nodes      []*corev1.Node
	NodeClaims []*v1.NodeClaim
	// Pods are every pod: pending, bound, finished, DaemonSet pods (see the package doc).
	Pods []*corev1.Pod
	// DaemonSets are the DaemonSets whose pods' requests the engines count as overhead.
	DaemonSets []*appsv1.DaemonSet
	// PodDisruptionBudgets are read once by New (Snapshot.PDBLimits).
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	// The volume objects: which zones and nodes a pod's volumes allow, and per-node limits.
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	StorageClasses         []*storagev1.StorageClass
	CSINodes               []*storagev1.CSINode
	// Namespaces' labels are what pod affinity's namespace selectors match.
	Namespaces []*corev1.Namespace
	// Leases are passed through (neither engine reads them).
	Leases []*coordinationv1.Lease

	// The cloud's observations disruption.Plan reads (the host asks the cloud before Plan,
	// so that Plan stays pure).
	//
	// Interruptions are the interruption events read from the cloud (Karpenter's SQS
	// queue, parsed by package interruption).
	Interruptions []interruption.Event
	// RepairPolicies are the CloudProvider's RepairPolicies: a node whose condition matches
	// one for longer than its toleration is repaired. Empty: node repair is off
	// (Karpenter's NodeRepair feature gate, default off).
	RepairPolicies []cloudprovider.RepairPolicy
	// ProviderDrift is the CloudProvider's IsDrifted answer per NodeClaim name ("" or
	// absent: not drifted).
	ProviderDrift map[string]cloudprovider.DriftReason
}

// Snapshot is a read-only view of a cluster (see the package doc). The zero value is an
// empty cluster; build one with New (manifest.Set.Snapshot builds one from manifests).
type Snapshot struct {
	// objs are the objects New was given; forks keep all but Nodes, NodeClaims and Pods
	// current (those live in nodes, pending and notPlanned).
	objs Objects
	// nodes are the Nodes in input order, then the in-flight NodeClaims in input order.
	nodes []*Node
	// idx indexes nodes by the name pods bind to (see key), built once, on first use by
	// forks that move nodes.
	idx *nameIndex
	// pending are the pending pods in input order; moving the pods WithMoving added.
	pending    []*corev1.Pod
	moving     []*corev1.Pod
	notPlanned []NotPlanned
	// pdbs is the reading of the PodDisruptionBudgets against every bound and pending pod.
	pdbs *PDBLimits
	// names are the namespace/names of the pending, not planned and bound pods.
	names *podNames
	// dropped is how Without made the snapshot (see DroppedFrom); nil when it did not.
	dropped *dropped
	// left are the nodes Leaving dropped, whose pods that do not move still run (Left).
	left []*Node
	// doNotDisruptAt is when scheduling.Solve judges a duration of karpenter.sh/do-not-disrupt
	// on the pods of deleting nodes (DoNotDisruptAt; zero: only "true" counts).
	doNotDisruptAt time.Time
}

// nameIndex maps the name pods bind to onto a position in nodes. Forks that keep every
// node at its position share it; it is built at most once (safe for concurrent readers).
type nameIndex struct {
	once sync.Once
	m    map[string]int
	// pos maps both names of every node (key and Name) onto its position, built on first
	// use by named; unique is false when two nodes share a name (an in-flight claim
	// shadowing a node, or a claim's status.nodeName naming another node), where pos cannot
	// say which nodes a name picks.
	posOnce  sync.Once
	posBuilt atomic.Bool
	pos      map[string]int
	unique   bool
}

// positions is the index of both names of nodes (the nodes of the snapshots sharing ix);
// ok is false when a name belongs to two nodes.
func (ix *nameIndex) positions(nodes []*Node) (map[string]int, bool) {
	ix.posOnce.Do(func() {
		pos := make(map[string]int, len(nodes))
		for i, n := range nodes {
			for _, name := range [2]string{key(n), n.Name()} {
				if j, dup := pos[name]; dup && j != i {
					return
				}
				pos[name] = i
			}
		}
		ix.pos, ix.unique = pos, true
	})
	ix.posBuilt.Store(true)
	return ix.pos, ix.unique
}

// builtIndex is an index already built (the constructors and the forks that add nodes fill
// it themselves).
func builtIndex(m map[string]int) *nameIndex {
	ix := &nameIndex{m: m}
	ix.once.Do(func() {})
	return ix
}

// byName is the name index, built from nodes on first use.
func (s *Snapshot) byName() map[string]int {
	if s.idx == nil {
		return nil
	}
	s.idx.once.Do(func() {
		m := make(map[string]int, len(s.nodes))
		for i, n := range s.nodes {
			m[key(n)] = i
		}
		s.idx.m = m
	})
	return s.idx.m
}

// New builds a Snapshot: it pairs Nodes with NodeClaims, binds pods to their nodes and sorts
// the rest into pending and not planned (see the package doc). Every error is an
// *InvalidInputError naming the object: a nil object in any slice of o; two NodePools, two
// Nodes, two NodeClaims or two pods (by namespace/name) of one name; an in-flight NodeClaim
// named like a Node paired with another claim; an instance type without a name, with a nil
// offering or a negative price.
func New(o Objects) (*Snapshot, error) {
	const op = "cluster.New"
	s := &Snapshot{objs: o, idx: builtIndex(make(map[string]int, len(o.Nodes)+len(o.NodeClaims)))}
	if s.objs.InstanceTypes == nil {
		s.objs.InstanceTypes = map[string]cloudprovider.InstanceTypes{}
	}
	if err := refuseNils(&o); err != nil {
		return nil, err
	}
	if err := refuseDuplicatePools(op, o.NodePools); err != nil {
		return nil, err
	}
	if err := checkInstanceTypes(op, o.InstanceTypes); err != nil {
		return nil, err
	}
	for _, n := range o.Nodes {
		if _, dup := s.idx.m[n.Name]; dup {
			return nil, invalid(op, InputDuplicate, "Node", n.Name, "", "two Nodes of this name")
		}
		s.idx.m[n.Name] = len(s.nodes)
		s.nodes = append(s.nodes, &Node{Node: n})
	}
	if err := s.addClaims(op, o.NodeClaims); err != nil {
		return nil, err
	}
	own := func(i int) *Node { return s.nodes[i] }
	seen := make(map[podName]struct{}, len(o.Pods))
	for _, p := range o.Pods {
		k := nameOf(p)
		if _, dup := seen[k]; dup {
			return nil, invalid(op, InputDuplicate, "Pod", PodKey(p), "", "two pods of this namespace/name")
		}
		seen[k] = struct{}{}
		s.file(p, own)
	}
	for _, n := range s.nodes {
		sortPods(n.Pods)
	}
	sortNotPlanned(s.notPlanned)
	s.readPDBs()
	s.names = &podNames{base: builtNames(seen)}
	return s, nil
}

// podName is a pod's namespace and name, a map key that needs no string built.
type podName struct{ namespace, name string }

func nameOf(p *corev1.Pod) podName { return podName{p.Namespace, p.Name} }

// appendNames is names with the names of pods appended.
func appendNames(names []podName, pods []*corev1.Pod) []podName {
	for _, p := range pods {
		names = append(names, nameOf(p))
	}
	return names
}

// file adds p where the snapshot holds it: not planned (with its reason), bound to its
// spec.nodeName's node (node(i) is node i as s may change it), or pending. It reports
// whether the PDB reading counts p (pending or bound).
func (s *Snapshot) file(p *corev1.Pod, node func(i int) *Node) bool {
	switch r := s.notPlannedReason(p); {
	case r != "":
		s.notPlanned = append(s.notPlanned, NotPlanned{Pod: p, Reason: r})
		return false
	case p.Spec.NodeName != "":
		n := node(s.byName()[p.Spec.NodeName])
		n.Pods = append(n.Pods, p)
	default:
		s.pending = append(s.pending, p)
	}
	return true
}

// readPDBs reads the PodDisruptionBudgets against every bound and pending pod (the
// disruption controller's view; pods the snapshot does not plan are not counted). A fork
// that changed pods recounts its parent's reading (same PDBs, selectors and index).
func (s *Snapshot) readPDBs() {
	pods := append([]*corev1.Pod(nil), s.pending...)
	for _, n := range s.nodes {
		pods = append(pods, n.Pods...)
	}
	if s.pdbs != nil {
		s.pdbs = s.pdbs.recount(pods)
		return
	}
	s.pdbs = NewPDBLimits(s.objs.PodDisruptionBudgets, pods)
}

// pairedNode is the index of the Node nc belongs to, by status.nodeName, providerID or name.
func (s *Snapshot) pairedNode(nc *v1.NodeClaim, byProviderID map[string]int) (int, bool) {
	if name := nc.Status.NodeName; name != "" {
		if i, ok := s.byName()[name]; ok && s.nodes[i].Node != nil {
			return i, true
		}
	}
	if id := nc.Status.ProviderID; id != "" {
		if i, ok := byProviderID[id]; ok {
			return i, true
		}
	}
	if i, ok := s.byName()[nc.Name]; ok && s.nodes[i].Node != nil && s.nodes[i].NodeClaim == nil {
		return i, true
	}
	return 0, false
}

// NodePools are the snapshot's NodePools.
func (s *Snapshot) NodePools() []*v1.NodePool { return s.objs.NodePools }

// NodePool is the NodePool of that name, or nil.
func (s *Snapshot) NodePool(name string) *v1.NodePool {
	for _, np := range s.objs.NodePools {
		if np != nil && np.Name == name {
			return np
		}
	}
	return nil
}

// InstanceTypes are the instance types of each NodePool, keyed by NodePool name.
func (s *Snapshot) InstanceTypes() map[string]cloudprovider.InstanceTypes {
	return s.objs.InstanceTypes
}

// Nodes are the Nodes (with their NodeClaims and bound pods) in input order, then the
// in-flight NodeClaims in input order (forks say how they change the order).
func (s *Snapshot) Nodes() []*Node { return s.nodes }

// Node is the Node or in-flight NodeClaim pods bound to name run on, or nil.
func (s *Snapshot) Node(name string) *Node {
	if i, ok := s.byName()[name]; ok {
		return s.nodes[i]
	}
	return nil
}

// Pending are the pods waiting to be placed, in input order.
func (s *Snapshot) Pending() []*corev1.Pod { return s.pending }

// Moving are the pods WithMoving added: placed again by scheduling.Solve together with the
// pending pods (after them), kept as they are (spec.nodeName included).
func (s *Snapshot) Moving() []*corev1.Pod { return s.moving }

// PDBLimits is the snapshot's reading of its PodDisruptionBudgets against every bound and
// pending pod, computed when it was built. Forks that only remove or mark nodes, or add
// moving pods, keep their parent's reading; forks that add or remove pods read again.
func (s *Snapshot) PDBLimits() *PDBLimits { return s.pdbs }

// NotPlanned are the pods neither pending nor bound to a node of the snapshot, sorted by
// namespace/name.
func (s *Snapshot) NotPlanned() []NotPlanned { return s.notPlanned }

// DaemonSets are the DaemonSets as given (their pods' requests are overhead).
func (s *Snapshot) DaemonSets() []*appsv1.DaemonSet { return s.objs.DaemonSets }

// PodDisruptionBudgets are the PDBs as given (PDBLimits is their reading).
func (s *Snapshot) PodDisruptionBudgets() []*policyv1.PodDisruptionBudget {
	return s.objs.PodDisruptionBudgets
}

// Namespaces are the namespaces as given (pod affinity's namespace selectors read their
// labels).
func (s *Snapshot) Namespaces() []*corev1.Namespace { return s.objs.Namespaces }

// Leases are the Leases as given (neither engine reads them; the CLI takes the time of a
// dump from their renewTime).
func (s *Snapshot) Leases() []*coordinationv1.Lease { return s.objs.Leases }

// WellKnownLabels are the label keys whose values the cloud decides, as given (nil:
// v1.WellKnownLabels).
func (s *Snapshot) WellKnownLabels() requirements.KeySet { return s.objs.WellKnownLabels }

// PersistentVolumeClaims are the volume claims as given.
func (s *Snapshot) PersistentVolumeClaims() []*corev1.PersistentVolumeClaim {
	return s.objs.PersistentVolumeClaims
}

// PersistentVolumes are the volumes as given.
func (s *Snapshot) PersistentVolumes() []*corev1.PersistentVolume { return s.objs.PersistentVolumes }

// StorageClasses are the storage classes as given.
func (s *Snapshot) StorageClasses() []*storagev1.StorageClass { return s.objs.StorageClasses }

// CSINodes are the CSINodes (per-node volume limits) as given.
func (s *Snapshot) CSINodes() []*storagev1.CSINode { return s.objs.CSINodes }

// Interruptions are the cloud's interruption events the snapshot holds (see Objects).
func (s *Snapshot) Interruptions() []interruption.Event { return s.objs.Interruptions }

// RepairPolicies are the cloud's repair policies the snapshot holds (see Objects).
func (s *Snapshot) RepairPolicies() []cloudprovider.RepairPolicy { return s.objs.RepairPolicies }

// ProviderDrift is the cloud's IsDrifted answer per NodeClaim name (see Objects).
func (s *Snapshot) ProviderDrift() map[string]cloudprovider.DriftReason {
	return s.objs.ProviderDrift
}
