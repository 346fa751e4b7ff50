package cluster

import (
	corev1 "k8s.io/api/core/v1"
)

// AssembledNode is a node of Assemble with the state the forks would set.
//
// Transitional (issue #8 stage 2 removes it).
type AssembledNode struct {
	Node *Node
	// Deleting marks the node as the Deleting fork does; ClosedToMoves as ClosedToMoves does.
	Deleting, ClosedToMoves bool
}

// Assemble is a snapshot of already paired nodes, taken as given (order, nodes with
// neither a Node nor a NodeClaim, duplicate names: the old scheduling.Input and
// disruption.Input allowed them), with pending pods taken as given too (spec.nodeName or
// not, no NotPlanned sorting). o's Nodes, NodeClaims and Pods are ignored. pdbs is the PDB
// reading to use; nil reads o.PodDisruptionBudgets against the pending pods and every
// node's pods. Nil nodes are dropped.
//
// Transitional (issue #8 stage 2 removes it): it lets scheduling.SolveInput,
// disruption.PlanInput, verify.SolveInput and verify.PlanInput feed the snapshot API.
func Assemble(o Objects, nodes []AssembledNode, pending []*corev1.Pod, pdbs *PDBLimits) *Snapshot {
	o.Nodes, o.NodeClaims, o.Pods = nil, nil, nil
	s := &Snapshot{objs: o, pending: pending, idx: &nameIndex{}}
	for _, an := range nodes {
		if an.Node == nil {
			continue
		}
		n := an.Node
		if an.Deleting || an.ClosedToMoves {
			cp := *n
			cp.markedDeleting = cp.markedDeleting || an.Deleting
			cp.closedToMoves = cp.closedToMoves || an.ClosedToMoves
			n = &cp
		}
		s.nodes = append(s.nodes, n)
	}
	if pdbs != nil {
		s.pdbs = pdbs
	} else {
		s.readPDBs()
	}
	return s
}
