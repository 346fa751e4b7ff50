package scheduling

import (
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// Input is the scheduler's input before issue #8: the fields of a cluster.Snapshot written
// out by hand. SolveInput solves it through Snapshot.
//
// Transitional (issue #8 stage 2 removes it): build a cluster.Snapshot and call Solve.
type Input struct {
	// Pods are the pods to place (pending, or bound ones being moved).
	Pods []*corev1.Pod
	// NodePools are the NodePools that may launch nodes (static and deleting ones are
	// ignored, as Karpenter does).
	NodePools []*v1.NodePool
	// InstanceTypes are the instance types each NodePool may use, keyed by NodePool name.
	InstanceTypes map[string]cloudprovider.InstanceTypes
	// WellKnownLabels are the label keys whose values the cloud decides (nil:
	// v1.WellKnownLabels).
	WellKnownLabels requirements.KeySet
	// Nodes are the cluster's existing nodes and in-flight NodeClaims with their bound pods.
	Nodes                  []*Node
	DaemonSets             []*appsv1.DaemonSet
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	PersistentVolumes      []*corev1.PersistentVolume
	StorageClasses         []*storagev1.StorageClass
	CSINodes               []*storagev1.CSINode
	Namespaces             []*corev1.Namespace
	PodDisruptionBudgets   []*policyv1.PodDisruptionBudget
	// PDBLimits, when set, is the reading of the PodDisruptionBudgets to use instead of one
	// read from PodDisruptionBudgets, Pods and the nodes' pods.
	PDBLimits *cluster.PDBLimits
	// ConsolidationSimulation closes the nodes marked UnderConsolidateAfter to moved pods
	// (cluster.Snapshot.ClosedToMoves).
	ConsolidationSimulation bool
	Options                 Options
	// Cache, when set, is the Cache to Solve with (Cache.Solve).
	Cache *Cache
}

// Node is a node of Input with the flags the snapshot's forks set now:
// MarkedForDeletion is cluster.Snapshot.Deleting, UnderConsolidateAfter (with
// Input.ConsolidationSimulation) is cluster.Snapshot.ClosedToMoves.
//
// Transitional (issue #8 stage 2 removes it): use cluster.Node.
type Node struct {
	Node                  *corev1.Node
	NodeClaim             *v1.NodeClaim
	Pods                  []*corev1.Pod
	UnderConsolidateAfter bool
	MarkedForDeletion     bool
}

// Name is cluster.Node.Name.
func (n *Node) Name() string { return n.cluster().Name() }

// Labels is cluster.Node.Labels.
func (n *Node) Labels() map[string]string { return n.cluster().Labels() }

// DeepCopy copies the node, its NodeClaim and its pods.
func (n *Node) DeepCopy() *Node {
	if n == nil {
		return nil
	}
	c := *n
	cn := n.cluster().DeepCopy()
	c.Node, c.NodeClaim, c.Pods = cn.Node, cn.NodeClaim, cn.Pods
	return &c
}

func (n *Node) cluster() *cluster.Node {
	return &cluster.Node{Node: n.Node, NodeClaim: n.NodeClaim, Pods: n.Pods}
}

// Snapshot is in as a cluster.Snapshot (cluster.Assemble): the nodes as given, in.Pods
// pending as given, MarkedForDeletion as Deleting, UnderConsolidateAfter as ClosedToMoves
// when in.ConsolidationSimulation, and the PDB reading of before (in.PDBLimits, else
// in.PodDisruptionBudgets read against in.Pods and the pods of the nodes that have a Node
// or NodeClaim).
//
// Transitional (issue #8 stage 2 removes it).
func (in *Input) Snapshot() *cluster.Snapshot {
	nodes := make([]cluster.AssembledNode, 0, len(in.Nodes))
	for _, n := range in.Nodes {
		if n == nil {
			continue
		}
		nodes = append(nodes, cluster.AssembledNode{Node: n.cluster(), Deleting: n.MarkedForDeletion,
			ClosedToMoves: in.ConsolidationSimulation && n.UnderConsolidateAfter})
	}
	pdbs := in.PDBLimits
	if pdbs == nil {
		pods := append([]*corev1.Pod(nil), in.Pods...)
		for _, n := range in.Nodes {
			if n != nil && (n.Node != nil || n.NodeClaim != nil) {
				pods = append(pods, n.Pods...)
			}
		}
		pdbs = cluster.NewPDBLimits(in.PodDisruptionBudgets, pods)
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
	}, nodes, in.Pods, pdbs)
}

// SolveInput is Solve (with in.Cache, Cache.Solve) over in.Snapshot() with in.Options.
//
// Transitional (issue #8 stage 2 removes it).
func SolveInput(in *Input) (*Result, error) {
	if in == nil {
		return nil, errors.New("scheduling: nil input")
	}
	return in.Cache.Solve(in.Snapshot(), in.Options)
}
