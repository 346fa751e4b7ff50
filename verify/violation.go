package verify

import (
	"fmt"
	"strings"
)

// ViolationCode names the rule a plan breaks.
type ViolationCode string

// Codes of verify.Solve.
const (
	// PodMissing: an input pod is neither placed nor in PodErrors.
	PodMissing ViolationCode = "PodMissing"
	// PodDuplicated: a pod is placed twice, or placed and also in PodErrors.
	PodDuplicated ViolationCode = "PodDuplicated"
	// PodUnknown: the result holds a pod that is neither an input pod nor a pod of a deleting
	// node.
	PodUnknown ViolationCode = "PodUnknown"
	// NodeUnknown: pods are placed on an existing node the input does not have.
	NodeUnknown ViolationCode = "NodeUnknown"
	// NodeDeleting: pods are placed on a node that is deleting (cluster.Node.Deleting: marked
	// by the Deleting fork, or a Node or NodeClaim with a deletionTimestamp).
	NodeDeleting ViolationCode = "NodeDeleting"
	// ClaimEmpty: a new NodeClaim carries no pod.
	ClaimEmpty ViolationCode = "ClaimEmpty"
	// ClaimNodePoolUnknown: a new NodeClaim names a NodePool the input does not have (or a
	// static or deleting one, which never launches for pods).
	ClaimNodePoolUnknown ViolationCode = "ClaimNodePoolUnknown"
	// LaunchMissing: a new NodeClaim has no InstanceType or no Offering.
	LaunchMissing ViolationCode = "LaunchMissing"
	// LaunchTypeNotAllowed: the launched instance type is not one of the NodePool's, or not
	// among the claim's InstanceTypeOptions (Key names the type).
	LaunchTypeNotAllowed ViolationCode = "LaunchTypeNotAllowed"
	// LaunchOfferingUnavailable: the offering is not one of the type's, or not available.
	LaunchOfferingUnavailable ViolationCode = "LaunchOfferingUnavailable"
	// LaunchRequirements: the launched type and offering (and the labels they give the node)
	// do not satisfy the claim's requirements (Key names the label).
	LaunchRequirements ViolationCode = "LaunchRequirements"
	// LaunchNodePool: the launched node's labels do not satisfy the NodePool's requirements
	// or lack its template labels (Key names the label).
	LaunchNodePool ViolationCode = "LaunchNodePool"
	// ResourcesExceeded: the pods of a node or claim (with DaemonSet overhead) request more
	// of resource Key than its allocatable (Got and Limit in millicores for cpu, in units
	// otherwise).
	ResourcesExceeded ViolationCode = "ResourcesExceeded"
	// NodeSelectorMismatch: the node's labels do not satisfy the pod's nodeSelector and
	// required node affinity.
	NodeSelectorMismatch ViolationCode = "NodeSelectorMismatch"
	// TaintNotTolerated: the pod does not tolerate the node's NoSchedule/NoExecute taint Key.
	TaintNotTolerated ViolationCode = "TaintNotTolerated"
	// HostPortConflict: Pod and OtherPod (or a DaemonSet pod) use host port Key on one node.
	HostPortConflict ViolationCode = "HostPortConflict"
	// VolumeTopology: the node is outside the topology of the pod's volume Key (a bound
	// PersistentVolume's node affinity, a StorageClass's allowedTopologies).
	VolumeTopology ViolationCode = "VolumeTopology"
	// TopologySpread: the pod's DoNotSchedule spread over Key is broken in the final
	// placement: Got is the skew of the pod's domain, Limit the maxSkew (Got -1: the node
	// lacks the key).
	TopologySpread ViolationCode = "TopologySpread"
	// TopologySpreadAffinityIgnored: a spread with nodeAffinityPolicy Ignore holds only
	// when, as Karpenter does, the minimum leaves out the domains the pod's own node
	// affinity excludes; kube-scheduler counts them under Ignore and will not bind the pod.
	TopologySpreadAffinityIgnored ViolationCode = "TopologySpreadAffinityIgnored"
	// TopologySpreadAsLaunched: the pod's DoNotSchedule spread holds only if kube-scheduler
	// binds the pod before the pods the spread merely selects (it checks a spread only when
	// it binds a pod that carries it): once all are bound, the pod's domain (its node, over
	// kubernetes.io/hostname) holds Got more of the selected pods than the least populated
	// domain the spread counts, above maxSkew (Limit).
	TopologySpreadAsLaunched ViolationCode = "TopologySpreadAsLaunched"
	// PodAffinity: no pod the pod's required affinity over Key selects is in its domain.
	PodAffinity ViolationCode = "PodAffinity"
	// PodAffinityBootstrap: the pod's required affinity over Key starts a domain of its
	// own (no pod it selects is in a domain its node affinity allows, Karpenter's rule for
	// the first pod of a group) although pods it selects run elsewhere: kube-scheduler
	// starts a group only when no pod in the cluster matches, so it will not bind the pod
	// there.
	PodAffinityBootstrap ViolationCode = "PodAffinityBootstrap"
	// PodAntiAffinity: Pod and OtherPod share a domain of Key although one of them has a
	// required anti-affinity to the other.
	PodAntiAffinity ViolationCode = "PodAntiAffinity"
	// NodePoolLimit: the NodePool's existing and launched nodes exceed spec.limits[Key]
	// (Got and Limit in millicores for cpu, in units otherwise).
	NodePoolLimit ViolationCode = "NodePoolLimit"
	// ReservationExceeded: more new NodeClaims launch on capacity reservation Key than it has
	// instances left (Got launches, Limit its capacity).
	ReservationExceeded ViolationCode = "ReservationExceeded"
)

// Codes of verify.Plan.
const (
	// PlanNodeUnknown: a command or Blocked names a node the input does not have.
	PlanNodeUnknown ViolationCode = "PlanNodeUnknown"
	// PlanNodeTwice: a node is in more than one command, or in a command and in Blocked, or
	// in Blocked twice.
	PlanNodeTwice ViolationCode = "PlanNodeTwice"
	// PlanNodeUnaccounted: a managed node is in no command and not in Blocked.
	PlanNodeUnaccounted ViolationCode = "PlanNodeUnaccounted"
	// PlanNodeNotCandidate: a command disrupts a node that cannot be a candidate (not
	// managed, NodePool unknown, already deleting, not initialized, no Node yet).
	PlanNodeNotCandidate ViolationCode = "PlanNodeNotCandidate"
	// PlanBudget: the NodePool's disruptions for reason Key (counting nodes already
	// disrupting and earlier commands) exceed its budget: Got disrupted, Limit allowed.
	PlanBudget ViolationCode = "PlanBudget"
	// PlanPDB: the command evicts Pod although PodDisruptionBudget Key allows no
	// disruption (Got: healthy pods, Limit: desired healthy), or Pod is selected by more
	// than one PodDisruptionBudget (Key lists them).
	PlanPDB ViolationCode = "PlanPDB"
	// PlanDoNotDisruptPod: the command disrupts a node running Pod, which has an active
	// karpenter.sh/do-not-disrupt annotation.
	PlanDoNotDisruptPod ViolationCode = "PlanDoNotDisruptPod"
	// PlanDoNotDisruptNode: the command disrupts a node annotated karpenter.sh/do-not-disrupt.
	PlanDoNotDisruptNode ViolationCode = "PlanDoNotDisruptNode"
	// PlanConsolidateAfter: an emptiness or consolidation command disrupts a node whose
	// NodePool's consolidateAfter (Key; "Never") has not elapsed since the node's last pod
	// event: Got seconds since, Limit seconds needed.
	PlanConsolidateAfter ViolationCode = "PlanConsolidateAfter"
	// PlanDestinationDisrupted: a command disrupts a node that it or an earlier command
	// sends pods to (its Destinations): a nominated node is no candidate.
	PlanDestinationDisrupted ViolationCode = "PlanDestinationDisrupted"
	// PlanNoDestination: a reschedulable pod of a disrupted node fits neither a replacement
	// nor any remaining node.
	PlanNoDestination ViolationCode = "PlanNoDestination"
	// PlanMoveMissing: a pod a command displaces (Node: its candidate) is not in its Moves,
	// or a pending pod of the snapshot (Command -1) is not in Result.PendingPods.
	PlanMoveMissing ViolationCode = "PlanMoveMissing"
	// PlanMoveTwice: a command's Moves list a pod twice.
	PlanMoveTwice ViolationCode = "PlanMoveTwice"
	// PlanMoveNotDisplaced: a command's Moves list a pod its candidates do not displace (or
	// from another node, Node), or Result.PendingPods a pod that is not pending (Command -1).
	PlanMoveNotDisplaced ViolationCode = "PlanMoveNotDisplaced"
	// PlanMoveMalformed: a move sets not exactly one of Node, Replacement, Provisioned and
	// Pending, has no pod, or has an Error without being Unschedulable or the reverse.
	PlanMoveMalformed ViolationCode = "PlanMoveMalformed"
	// PlanMoveNodeUnknown: a move sends its pod to a node the input does not have.
	PlanMoveNodeUnknown ViolationCode = "PlanMoveNodeUnknown"
	// PlanMoveNodeDisrupted: a move sends its pod to a node a command disrupts or the input
	// deletes.
	PlanMoveNodeDisrupted ViolationCode = "PlanMoveNodeDisrupted"
	// PlanMoveClaimUnknown: a move's Replacement or Provisioned index is out of range.
	PlanMoveClaimUnknown ViolationCode = "PlanMoveClaimUnknown"
	// PlanMoveNotOnClaim: a move sends its pod to a replacement or provisioned NodeClaim whose
	// Pods do not list it.
	PlanMoveNotOnClaim ViolationCode = "PlanMoveNotOnClaim"
)

// Violation is one broken rule, as data. Fields that do not apply to the code are empty
// (Claim and Command are -1).
type Violation struct {
	Code ViolationCode
	// Pod and OtherPod are namespace/name.
	Pod, OtherPod string
	// Node is an existing node's name.
	Node string
	// Claim is the index of the NodeClaim in Result.NewNodeClaims (Solve) or in the
	// command's Replacements (Plan).
	Claim int
	// Command is the index in disruption Result.Commands.
	Command int
	// NodePool is the NodePool concerned.
	NodePool string
	// Key is the resource, label or topology key, taint, host port, budget reason or
	// PodDisruptionBudget the rule is about.
	Key string
	// Got and Limit quantify the breach where the code says so.
	Got, Limit int64
}

// newViolation is a violation with no claim and no command.
func newViolation(code ViolationCode) Violation {
	return Violation{Code: code, Claim: -1, Command: -1}
}

// Error is String.
func (v Violation) Error() string { return v.String() }

// String is a one-line description: the code, the objects and the numbers.
func (v Violation) String() string {
	var parts []string
	if v.Command >= 0 {
		parts = append(parts, fmt.Sprintf("command %d", v.Command))
	}
	if v.Claim >= 0 {
		parts = append(parts, fmt.Sprintf("claim %d", v.Claim))
	}
	if v.Node != "" {
		parts = append(parts, "node "+v.Node)
	}
	if v.NodePool != "" {
		parts = append(parts, "NodePool "+v.NodePool)
	}
	if v.Pod != "" {
		parts = append(parts, "pod "+v.Pod)
	}
	if v.OtherPod != "" {
		parts = append(parts, "other pod "+v.OtherPod)
	}
	where := strings.Join(parts, ", ")
	what := describe[v.Code]
	if what == "" {
		what = "violation"
	}
	s := fmt.Sprintf("%s: %s", v.Code, what)
	if v.Key != "" {
		s += fmt.Sprintf(" (%s)", v.Key)
	}
	if v.Got != 0 || v.Limit != 0 {
		switch v.Code {
		case PlanPDB:
			s += fmt.Sprintf(": %d healthy, %d must stay", v.Got, v.Limit)
		case TopologySpread, TopologySpreadAffinityIgnored, TopologySpreadAsLaunched:
			s += fmt.Sprintf(": skew %d, maxSkew %d", v.Got, v.Limit)
		case PlanBudget:
			s += fmt.Sprintf(": %d disrupting, %d allowed", v.Got, v.Limit)
		case PlanConsolidateAfter:
			s += fmt.Sprintf(": %ds since the last pod event, %ds needed", v.Got, v.Limit)
		default:
			s += fmt.Sprintf(": %d > %d", v.Got, v.Limit)
		}
	}
	if where != "" {
		s += " [" + where + "]"
	}
	return s
}

var describe = map[ViolationCode]string{
	PodMissing:                    "input pod neither placed nor in PodErrors",
	PodDuplicated:                 "pod placed twice or both placed and unplaced",
	PodUnknown:                    "result holds a pod that is not an input pod",
	NodeUnknown:                   "placement on a node the input does not have",
	NodeDeleting:                  "placement on a deleting node",
	ClaimEmpty:                    "NodeClaim without pods",
	ClaimNodePoolUnknown:          "NodeClaim of an unknown, static or deleting NodePool",
	LaunchMissing:                 "NodeClaim without instance type or offering",
	LaunchTypeNotAllowed:          "launched instance type not allowed",
	LaunchOfferingUnavailable:     "launched offering not of the type or unavailable",
	LaunchRequirements:            "launch choice breaks the NodeClaim's requirements",
	LaunchNodePool:                "launched node breaks the NodePool's requirements or labels",
	ResourcesExceeded:             "requests exceed allocatable",
	NodeSelectorMismatch:          "node does not match the pod's nodeSelector or required node affinity",
	TaintNotTolerated:             "pod does not tolerate a taint",
	HostPortConflict:              "host port used twice",
	VolumeTopology:                "node outside the volume's topology",
	TopologySpread:                "DoNotSchedule topology spread broken",
	PodAffinity:                   "required pod affinity not met",
	TopologySpreadAffinityIgnored: "spread under nodeAffinityPolicy Ignore holds only with Karpenter's minimum",
	TopologySpreadAsLaunched:      "spread holds only if its pods bind before the pods it merely selects",
	PodAffinityBootstrap:          "required pod affinity started a second domain",
	PodAntiAffinity:               "required pod anti-affinity broken",
	NodePoolLimit:                 "NodePool limit exceeded",
	ReservationExceeded:           "capacity reservation launched past its capacity",
	PlanNodeUnknown:               "unknown node",
	PlanNodeTwice:                 "node in more than one command or blocked entry",
	PlanNodeUnaccounted:           "managed node neither in a command nor blocked",
	PlanNodeNotCandidate:          "disrupted node cannot be a candidate",
	PlanBudget:                    "disruption budget exceeded",
	PlanPDB:                       "PodDisruptionBudget forbids the eviction",
	PlanDoNotDisruptPod:           "node runs a do-not-disrupt pod",
	PlanDoNotDisruptNode:          "node is annotated do-not-disrupt",
	PlanConsolidateAfter:          "node consolidated within its consolidateAfter",
	PlanNoDestination:             "displaced pod has no destination",
	PlanDestinationDisrupted:      "command disrupts a node pods are sent to",
	PlanMoveMissing:               "displaced or pending pod missing from the moves",
	PlanMoveTwice:                 "pod moved twice by one command",
	PlanMoveNotDisplaced:          "move of a pod the command does not displace or that is not pending",
	PlanMoveMalformed:             "move without exactly one destination or reason",
	PlanMoveNodeUnknown:           "move to a node the input does not have",
	PlanMoveNodeDisrupted:         "move to a node being disrupted or deleted",
	PlanMoveClaimUnknown:          "move to a NodeClaim index out of range",
	PlanMoveNotOnClaim:            "move to a NodeClaim that does not list the pod",
}

// Codes lists the codes of violations, in the order given (for tests and logs).
func Codes(vs []Violation) []ViolationCode {
	out := make([]ViolationCode, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Code)
	}
	return out
}
