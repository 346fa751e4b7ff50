package disruption

import (
	"fmt"
	"strings"
	"time"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// String is the blocker in English, built from its data: the only place a blocker's text is
// made (Blocked.Message is its first blocker's).
func (b Blocker) String() string {
	if b.Drift.Reason != "" {
		return "drifted (" + b.Drift.String() + "), but " + b.text()
	}
	return b.text()
}

// text is the blocker's English without the drift note.
func (b Blocker) text() string {
	switch b.Code {
	case BlockNodePoolNotFound:
		if b.Object == "" {
			return "not managed by Karpenter (no " + v1.NodePoolLabelKey + " label)"
		}
		return fmt.Sprintf("NodePool %q not found", b.Object)
	case BlockNoNode:
		return "NodeClaim has no Node yet"
	case BlockDeleting:
		return "already deleting"
	case BlockUninitialized:
		return "not initialized"
	case BlockDoNotDisruptNode:
		return "node has " + v1.DoNotDisruptAnnotationKey + "=true"
	case BlockNoInstanceTypes:
		return fmt.Sprintf("NodePool %q has no instance types", b.Object)
	case BlockNominated:
		if b.Command > 0 {
			return fmt.Sprintf("nominated: command %d's simulation sends pods of its candidates to it", b.Command)
		}
		return "nominated: the provisioner's pass places pods on it (pending pods, or pods of deleting or expired nodes)"
	case BlockBudget:
		if b.Detail != "" {
			return fmt.Sprintf("disruption budget of NodePool %q is invalid: %s", b.Object, b.Detail)
		}
		return fmt.Sprintf("disruption budget of NodePool %q allows no more %s disruptions (%d of %d nodes allowed, %d already disrupting)",
			b.Object, b.Budget, b.Allowed, b.Nodes, b.Disrupting)
	case BlockStatic:
		return "static NodePool (static drift is not modelled)"
	case BlockDoNotDisruptPod:
		return fmt.Sprintf("pod %s has %s=%s", b.Pod, v1.DoNotDisruptAnnotationKey, doNotDisruptText(b.Annotation, b.At))
	case BlockPDB:
		return pdbBlocksText(b.Object, b.Pod)
	case BlockPDBConflict:
		return pdbConflictText(b.Pod, b.PDBs)
	case BlockConsolidateAfter:
		return fmt.Sprintf("not consolidatable yet: consolidateAfter %s elapses at %s", durationText(b.Duration), timeText(b.At))
	case BlockConsolidateNever:
		return "consolidateAfter is Never"
	case BlockWhenEmpty:
		return "consolidationPolicy is WhenEmpty and the node is not empty"
	case BlockNotConsolidatable:
		if b.Label != "" {
			return "node has no " + b.Label + " label"
		}
		return fmt.Sprintf("instance type %q is not offered by NodePool %q", b.Object, b.NodePool)
	case BlockPodUnschedulable:
		if b.PodError == nil {
			return fmt.Sprintf("pod %s would schedule on uninitialized node %s", b.Pod, b.Node)
		}
		return fmt.Sprintf("pod %s cannot be rescheduled: %s", b.Pod, b.PodError.Message())
	case BlockTooManyReplacements:
		return fmt.Sprintf("consolidation would need %d new nodes (it replaces nodes by at most one)", b.NewNodes)
	case BlockNoCheaperReplacement:
		return b.replacementText()
	case BlockBalanced:
		return fmt.Sprintf("NodePool %q is Balanced and scores this move %.2f, below %.2f (its savings are too small for the pods it disrupts)",
			b.NodePool, b.Score, 1.0/balancedK)
	case BlockRepairPending:
		return fmt.Sprintf("unhealthy (%s), repaired at %s once its toleration of %s ends", b.conditionText(), timeText(b.At), b.Duration)
	case BlockRepairLimited:
		scope := "the cluster"
		if b.NodePool != "" {
			scope = fmt.Sprintf("NodePool %q", b.NodePool)
		}
		return fmt.Sprintf("unhealthy (%s), but node repair is blocked: %d of %d nodes of %s are unhealthy, more than %d%% (%d)",
			b.conditionText(), b.Unhealthy, b.Nodes, scope, maxUnhealthyPercent, b.Allowed)
	case BlockNoDisruption:
		return "no disruption found: the node is needed as it is"
	}
	return string(b.Code)
}

func (b Blocker) replacementText() string {
	switch b.Replacement {
	case ReplacementSpotToSpotDisabled:
		return "spot-to-spot consolidation is disabled (SpotToSpotConsolidation) and every candidate is spot"
	case ReplacementTooFewSpotTypes:
		return fmt.Sprintf("spot-to-spot consolidation needs at least %d cheaper spot instance types, found %d", minSpotToSpotTypes, b.InstanceTypes)
	case ReplacementMinValues:
		return "filtering the replacement's instance types by price breaks minValues: " + b.Detail
	case ReplacementSameInstanceType:
		return "the replacement would be the instance type of a candidate"
	}
	s := fmt.Sprintf("no replacement is cheaper than $%.4f/h", b.Price)
	if b.CheapestType != "" {
		s += fmt.Sprintf(" (cheapest fit: %s at $%.4f/h)", b.CheapestType, b.CheapestPrice)
	}
	return s
}

func (b Blocker) conditionText() string {
	if b.Condition == nil {
		return "?"
	}
	return conditionText(*b.Condition)
}

// doNotDisruptText is a do-not-disrupt annotation as the reasons show it: "true", or the
// duration with when it ends.
func doNotDisruptText(value string, until *time.Time) string {
	switch {
	case value == "true":
		return value
	case until == nil:
		return value + " (pod has no start time)"
	}
	return value + ", until " + timeText(until)
}

func pdbBlocksText(pdb, pod string) string {
	return fmt.Sprintf("PodDisruptionBudget %s allows no disruption of pod %s", pdb, pod)
}

func pdbConflictText(pod string, pdbs []string) string {
	return fmt.Sprintf("pod %s is selected by more than one PodDisruptionBudget (%s)", pod, strings.Join(pdbs, ", "))
}

func timeText(t *time.Time) string {
	if t == nil {
		return "?"
	}
	return t.UTC().Format(time.RFC3339)
}

// durationText is d as people write it: 2h, 1h30m, 90s (not Go's 2h0m0s).
func durationText(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
