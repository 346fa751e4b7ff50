package scheduling

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// Input is a read-only snapshot of what the scheduler needs. Solve never modifies it.
type Input struct {
	// Pods are the pending pods to place.
	Pods []*corev1.Pod
	// NodePools are the NodePools that may launch nodes (static and deleting ones are
	// ignored, as Karpenter does).
	NodePools []*v1.NodePool
	// InstanceTypes are the instance types each NodePool may use, keyed by NodePool name.
	InstanceTypes map[string]cloudprovider.InstanceTypes
	// WellKnownLabels are the label keys whose values the cloud decides, so a NodePool need
	// not define them for a pod to require them. Nil means v1.WellKnownLabels.
	WellKnownLabels requirements.KeySet
	// Nodes are the cluster's existing nodes and in-flight NodeClaims with their bound pods.
	Nodes []*Node
	// DaemonSets add their pods' requests to every node they would run on.
	DaemonSets []*appsv1.DaemonSet
	// PersistentVolumeClaims, PersistentVolumes and StorageClasses give the pods' volumes
	// their topology (a bound volume's zone, a class's allowed topologies).
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	StorageClasses         []*storagev1.StorageClass
	// CSINodes give existing nodes their per-driver volume attach limits.
	CSINodes []*storagev1.CSINode
	// Namespaces resolve pod affinity terms' namespaceSelectors. Every namespace a pod lives
	// in is known anyway, with its kubernetes.io/metadata.name label; list Namespaces here to
	// select on other labels.
	Namespaces []*corev1.Namespace
	// PodDisruptionBudgets keep pods of nodes marked for deletion in place while they allow
	// no disruption of them (see PDBLimits).
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	// PDBLimits, when set, is the reading of the PodDisruptionBudgets to use instead (a
	// caller running many Solves over one snapshot, as disruption does, reads them once
	// against the whole cluster). Nil: read from PodDisruptionBudgets and this Input's pods.
	PDBLimits *PDBLimits
	// Options tune the semantics.
	Options Options
	// Cache, when set, remembers per-pod and per-node work across Solves (see Cache).
	Cache *Cache
}

// Node is an existing node (Node set), an in-flight NodeClaim that has no Node yet
// (Node nil, NodeClaim set), or both.
type Node struct {
	Node      *corev1.Node
	NodeClaim *v1.NodeClaim
	// Pods are the pods bound to the node (they keep their place and use its resources).
	Pods []*corev1.Pod
	// UnderConsolidateAfter marks a node whose NodePool's consolidateAfter has not elapsed
	// since its last pod change. In a consolidation simulation (Options) pods being moved
	// off other nodes may not land on it, unless they come from a node marked for deletion.
	UnderConsolidateAfter bool
	// MarkedForDeletion nodes take no new pods, and their reschedulable pods (not DaemonSet
	// or static pods, not terminal, not fully blocked by a PodDisruptionBudget) are planned
	// again together with the pending pods, as Karpenter does for nodes being disrupted. A
	// Node with a deletionTimestamp counts as marked.
	MarkedForDeletion bool
}

// Name is the node's name, or the NodeClaim's name for an in-flight claim.
func (n *Node) Name() string {
	if n.Node != nil {
		return n.Node.Name
	}
	if n.NodeClaim != nil {
		if n.NodeClaim.Status.NodeName != "" {
			return n.NodeClaim.Status.NodeName
		}
		return n.NodeClaim.Name
	}
	return ""
}

// DeepCopy copies the node, its NodeClaim and its pods.
func (n *Node) DeepCopy() *Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Node = n.Node.DeepCopy()
	c.NodeClaim = n.NodeClaim.DeepCopy()
	c.Pods = nil
	for _, p := range n.Pods {
		c.Pods = append(c.Pods, p.DeepCopy())
	}
	return &c
}

// Labels are the Node's labels, or for an in-flight NodeClaim its labels plus its
// single-valued requirements. The caller must not modify the map.
func (n *Node) Labels() map[string]string {
	if n.Node != nil {
		return n.Node.Labels
	}
	out := map[string]string{}
	if n.NodeClaim == nil {
		return out
	}
	if reqs, err := requirements.FromNodeSelectorRequirements(n.NodeClaim.Spec.Requirements...); err == nil {
		for k, v := range reqs.Labels() {
			out[k] = v
		}
	}
	for k, v := range n.NodeClaim.Labels {
		out[k] = v
	}
	return out
}

// MinValuesPolicy says what to do when a NodeClaim cannot satisfy a requirement's minValues.
type MinValuesPolicy string

// MinValues policies.
const (
	// MinValuesStrict leaves the pod unscheduled (Karpenter's default).
	MinValuesStrict MinValuesPolicy = "Strict"
	// MinValuesBestEffort lowers minValues to what the remaining types achieve.
	MinValuesBestEffort MinValuesPolicy = "BestEffort"
)

// PreferencePolicy says whether preferences (preferred affinities, ScheduleAnyway spread)
// are honoured until relaxed, or ignored.
type PreferencePolicy string

// Preference policies.
const (
	PreferencesRespect PreferencePolicy = "Respect"
	PreferencesIgnore  PreferencePolicy = "Ignore"
)

// Options tune Solve. The zero value is Karpenter's default behaviour except for Packing,
// whose zero value is PackingCostAware (see Packing).
type Options struct {
	MinValuesPolicy  MinValuesPolicy
	PreferencePolicy PreferencePolicy
	// MaxInstanceTypes caps the instance-type options of a NodeClaim (0: 600, Karpenter's).
	MaxInstanceTypes int
	// Packing chooses among open NodeClaims that can take a pod; the zero value is
	// PackingCostAware.
	Packing Packing
	// ConsolidationSimulation enables Karpenter's consolidateAfter rule for destinations:
	// a bound pod (one with spec.nodeName, i.e. being moved) may not land on a node that is
	// UnderConsolidateAfter unless its own node is marked for deletion.
	ConsolidationSimulation bool
	// SingleRound stops after one provisioning round: pods NodePool limits refused stay
	// refused, as in one Karpenter Solve (its disruption simulations are one Solve). By
	// default Solve gives them Karpenter's later rounds, which count each NodeClaim at the
	// type it launches.
	SingleRound bool
	// DefaultTopologySpreadConstraints are applied to pods that declare none of their own,
	// with the selector of the pod's own labels (kube-scheduler's cluster defaults).
	DefaultTopologySpreadConstraints []corev1.TopologySpreadConstraint
}

// Packing is how a pod chooses among the NodeClaims opened earlier in the same Solve.
type Packing string

const (
	// PackingCostAware first looks for a NodeClaim whose cheapest remaining instance type
	// still has room for the pod (adding it costs nothing), in Karpenter's order, and only
	// then falls back to Karpenter's rule. It launches the same number of nodes or fewer and
	// cuts the price of Karpenter's own benchmark by about a quarter.
	PackingCostAware Packing = "CostAware"
	// PackingKarpenter is Karpenter's rule exactly: the first NodeClaim, fewest pods first,
	// that can take the pod.
	PackingKarpenter Packing = "Karpenter"
)

// DefaultMaxInstanceTypes is Karpenter's cap on a NodeClaim's instance-type options.
const DefaultMaxInstanceTypes = 600

// Result is what Solve decided.
type Result struct {
	// NewNodeClaims are the NodeClaims to create, in the order they were opened.
	NewNodeClaims []*NodeClaim
	// ExistingNodes lists, for each existing node or in-flight NodeClaim that receives
	// pending pods, the pods placed there, by node name.
	ExistingNodes []*ExistingNodePlacement
	// PodErrors holds a reason for every pod that could not be placed (input order).
	PodErrors []PodError
}

// NodeClaim is a node to launch.
type NodeClaim struct {
	// NodePool is the NodePool it comes from.
	NodePool string
	// Hostname is the placeholder hostname the pods' topology was computed with.
	Hostname string
	// Pods are the pods it will run, in the order they were placed.
	Pods []*corev1.Pod
	// Requirements are the NodePool's requirements narrowed by the pods and by topology,
	// including the instance-type options.
	Requirements requirements.Requirements
	// InstanceTypeOptions are the instance types that fit, cheapest first.
	InstanceTypeOptions cloudprovider.InstanceTypes
	// InstanceType and Offering are the cheapest launchable choice among the options.
	InstanceType *cloudprovider.InstanceType
	Offering     *cloudprovider.Offering
	// Labels are the NodePool template's labels plus resolved custom labels.
	Labels map[string]string
	// Taints are the NodePool template's taints (StartupTaints separately).
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	// Requests are the pods' requests plus the DaemonSet overhead.
	Requests corev1.ResourceList
	// MinValuesRelaxed is true when BestEffort lowered a minValues.
	MinValuesRelaxed bool
}

// ExistingNodePlacement lists the pending pods placed on an existing node.
type ExistingNodePlacement struct {
	Name string
	Pods []*corev1.Pod
}
