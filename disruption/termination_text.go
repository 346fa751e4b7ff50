package disruption

import (
	"fmt"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Message is the English of Code, built from the pod's data ("" without a code).
func (p PodDrain) Message() string {
	pod := ""
	if p.Pod != nil {
		pod = p.Pod.Namespace + "/" + p.Pod.Name
	}
	switch p.Code {
	case PodDrainFinished:
		return "finished"
	case PodDrainStaticPod:
		return "static pod: the kubelet owns it, it ends with the node"
	case PodDrainToleratesDisruptedTaint:
		return "tolerates " + v1.DisruptedTaintKey + ":NoSchedule"
	case PodDrainDoNotDisrupt:
		return v1.DoNotDisruptAnnotationKey + "=" + doNotDisruptText(p.Annotation, p.Until)
	case PodDrainPDB:
		return pdbBlocksText(p.PDB, pod)
	case PodDrainPDBConflict:
		return pdbConflictText(pod, p.PDBs)
	case PodDrainPDBGranted:
		return fmt.Sprintf("PodDisruptionBudget %s allows %d disruptions, granted to earlier evictions", p.PDB, p.Allowed)
	}
	return string(p.Code)
}

// PendingMessage is the English of PendingCode ("" when the pod lands).
func (p PodDrain) PendingMessage() string {
	switch p.PendingCode {
	case PendingNewNodeClaim:
		return fmt.Sprintf("needs a new NodeClaim from NodePool %q: the next Solve launches it", p.NodePool)
	case PendingUnschedulable:
		if p.PodError == nil {
			return "cannot be scheduled"
		}
		return "cannot be scheduled: " + p.PodError.Message()
	}
	return string(p.PendingCode)
}

// StallMessage is the English of StallCode ("" when the drain is not stalled).
func (d Drain) StallMessage() string {
	switch d.StallCode {
	case StallUntilDeadline:
		return "pods wait for their PodDisruptionBudget or do-not-disrupt until the terminationGracePeriod deadline"
	case StallNoDeadline:
		return "pods wait for their PodDisruptionBudget or do-not-disrupt and no terminationGracePeriod forces them"
	}
	return string(d.StallCode)
}
