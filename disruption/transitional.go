package disruption

import (
	"errors"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/interruption"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Input is Plan's input before issue #8: the fields of a cluster.Snapshot written out by
// hand, plus the time and the options. PlanInput plans it through Snapshot.
//
// Transitional (issue #8 stage 2 removes it): build a cluster.Snapshot and call Plan.
type Input struct {
	// Now is the time decisions are made at (consolidateAfter, expireAfter, budget
	// schedules, do-not-disrupt durations). Plan never reads the clock.
	Now time.Time
	// NodePools are the cluster's NodePools. Missing defaults (budgets, consolidateAfter,
	// consolidationPolicy, expireAfter) are filled in on copies, as the CRD would.
	NodePools []*v1.NodePool
	// InstanceTypes are the instance types of each NodePool, keyed by NodePool name.
	InstanceTypes map[string]cloudprovider.InstanceTypes
	// WellKnownLabels are passed to the scheduler (nil: v1.WellKnownLabels).
	WellKnownLabels requirements.KeySet
	// Nodes are the existing nodes (and in-flight NodeClaims) with their bound pods.
	Nodes []*scheduling.Node
	// Pods are the pending pods; they take part in every scheduling simulation, as in
	// Karpenter.
	Pods []*corev1.Pod
	// DaemonSets add their pods' requests to new and existing nodes.
	DaemonSets []*appsv1.DaemonSet
	// PodDisruptionBudgets block candidates whose pods may not be evicted.
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	// Volumes, passed through to the scheduler.
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	StorageClasses         []*storagev1.StorageClass
	CSINodes               []*storagev1.CSINode
	Namespaces             []*corev1.Namespace
	// Interruptions are the interruption events read from the cloud (Karpenter's SQS
	// queue, parsed by package interruption): see interruption.go for what each does.
	Interruptions []interruption.Event
	// RepairPolicies are the CloudProvider's RepairPolicies: a node whose condition matches
	// one for longer than its toleration is repaired (forcefully replaced). Empty: node repair
	// is off (Karpenter's NodeRepair feature gate, default off).
	RepairPolicies []cloudprovider.RepairPolicy
	// ProviderDrift is the CloudProvider's IsDrifted answer per NodeClaim name ("" or absent:
	// not drifted), asked by the host before Plan so that Plan stays pure.
	ProviderDrift map[string]cloudprovider.DriftReason
	// Options tune the semantics.
	Options Options
}

// Snapshot is in as a cluster.Snapshot (cluster.Assemble): the nodes as given
// (MarkedForDeletion as Deleting; UnderConsolidateAfter is ignored, as Plan always did), the
// pending pods as given, the PDBs read against them and every node's pods.
//
// Transitional (issue #8 stage 2 removes it).
func (in *Input) Snapshot() *cluster.Snapshot {
	nodes := make([]cluster.AssembledNode, 0, len(in.Nodes))
	for _, n := range in.Nodes {
		if n != nil {
			nodes = append(nodes, cluster.AssembledNode{Node: &cluster.Node{Node: n.Node, NodeClaim: n.NodeClaim, Pods: n.Pods}, Deleting: n.MarkedForDeletion})
		}
	}
	return cluster.Assemble(cluster.Objects{
		NodePools:              in.NodePools,
		InstanceTypes:          in.InstanceTypes,
		WellKnownLabels:        in.WellKnownLabels,
		DaemonSets:             in.DaemonSets,
		PodDisruptionBudgets:   in.PodDisruptionBudgets,
		PersistentVolumeClaims: in.PersistentVolumeClaims,
		PersistentVolumes:      in.PersistentVolumes,
		StorageClasses:         in.StorageClasses,
		CSINodes:               in.CSINodes,
		Namespaces:             in.Namespaces,
		Interruptions:          in.Interruptions,
		RepairPolicies:         in.RepairPolicies,
		ProviderDrift:          in.ProviderDrift,
	}, nodes, in.Pods, nil)
}

// PlanInput is Plan over in.Snapshot() at in.Now with in.Options.
//
// Transitional (issue #8 stage 2 removes it).
func PlanInput(in *Input) (*Result, error) {
	if in == nil {
		return nil, errors.New("disruption: nil input")
	}
	return Plan(in.Snapshot(), in.Now, in.Options)
}
