package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ReasonCode classifies why a pod could not be placed. The set is closed; the English
// Reason next to it stays the human text (and is what the CLI prints).
type ReasonCode string

const (
	// UntoleratedTaint: the pod does not tolerate the NodePool's taints.
	UntoleratedTaint ReasonCode = "UntoleratedTaint"
	// RequirementsUnsatisfiable: the pod's requirements conflict with the NodePool's, or no
	// instance type of the NodePool satisfies them.
	RequirementsUnsatisfiable ReasonCode = "RequirementsUnsatisfiable"
	// InsufficientResource: no instance type of the NodePool has room for the pod's requests.
	InsufficientResource ReasonCode = "InsufficientResource"
	// NodePoolLimit: the NodePool's node limit or resource limits leave no instance type.
	NodePoolLimit ReasonCode = "NodePoolLimit"
	// TopologyUnsatisfiable: no domain of Key satisfies the pod's topology spread or pod
	// (anti-)affinity constraints.
	TopologyUnsatisfiable ReasonCode = "TopologyUnsatisfiable"
	// HostPort: the pod's host ports conflict.
	HostPort ReasonCode = "HostPort"
	// VolumeTopology: no topology the pod's volumes allow is compatible with the NodePool.
	VolumeTopology ReasonCode = "VolumeTopology"
	// VolumeUnresolved: a volume's claim, volume or storage class is missing or unusable.
	VolumeUnresolved ReasonCode = "VolumeUnresolved"
	// OfferingUnavailable: the instance types that fit have no available offering.
	OfferingUnavailable ReasonCode = "OfferingUnavailable"
	// MinValues: the instance types that fit offer fewer values of Key than minValues asks.
	MinValues ReasonCode = "MinValues"
	// InvalidPodSpec: the pod's spec is invalid (names, resources, selectors, constraints).
	InvalidPodSpec ReasonCode = "InvalidPodSpec"
	// NotProvisionable: Karpenter does not provision for the pod (DaemonSet or Node owned,
	// Dynamic Resource Allocation, or a requirement excluding every Karpenter node).
	NotProvisionable ReasonCode = "NotProvisionable"
	// NodePoolNotReady: the NodePool's Ready condition is not True.
	NodePoolNotReady ReasonCode = "NodePoolNotReady"
	// NoNodePool: no NodePool can launch nodes at all; Causes say why for each.
	NoNodePool ReasonCode = "NoNodePool"
)

// Cause is one structured reason: its code, the object it concerns and its English text.
type Cause struct {
	Code ReasonCode
	// NodePool is the NodePool the cause concerns, or "".
	NodePool string
	// Key is the label or topology key the cause concerns (TopologyUnsatisfiable, MinValues), or "".
	Key string
	// Resource is the resource the cause concerns, or "": for InsufficientResource the first
	// (cpu, memory, pods, then by name) no instance type alone has room for, for NodePoolLimit
	// the first whose remaining limit every instance type exceeds.
	Resource string
	// Reason is the English text, as it appears in PodError.Reason.
	Reason string
}

// failed reports whether c is a rejection (the zero Cause means success).
func (c Cause) failed() bool { return c.Code != "" }

func cause(code ReasonCode, pool, key, reason string) Cause {
	return Cause{Code: code, NodePool: pool, Key: key, Reason: reason}
}

// podFailure is a pod's error while Solve runs: its code, the English reason and its causes.
type podFailure struct {
	code   ReasonCode
	reason string
	causes []Cause
}

func singleFailure(c Cause) podFailure {
	return podFailure{code: c.Code, reason: c.Reason, causes: []Cause{c}}
}

// nodePoolsFailure is the failure of a pod every NodePool rejected (causes in weight order).
func nodePoolsFailure(causes []Cause) podFailure {
	return podFailure{code: causes[0].Code, reason: joinReasons(causes), causes: causes}
}

// noNodePoolFailure is the failure of every pod when no NodePool can launch nodes.
func noNodePoolFailure(templateErrors []Cause) podFailure {
	if len(templateErrors) == 0 {
		return singleFailure(cause(NoNodePool, "", "", "no dynamic NodePools found (none given, or all static, deleting or not ready)"))
	}
	return podFailure{code: NoNodePool, reason: "no NodePool can launch nodes: " + joinReasons(templateErrors), causes: templateErrors}
}

func joinReasons(cs []Cause) string {
	texts := make([]string, len(cs))
	for i, c := range cs {
		texts[i] = c.Reason
	}
	return strings.Join(texts, "; ")
}

// noTypesReason says why a NodePool has no instance type to launch: its requirements, or
// offerings that are all unavailable (not to be mistaken for requirements).
func noTypesReason(pool string, types, unavailable int) Cause {
	switch {
	case unavailable == 0:
		return cause(RequirementsUnsatisfiable, pool, "", fmt.Sprintf("NodePool %q: its requirements filtered out all %d instance types", pool, types))
	case unavailable == types:
		return cause(OfferingUnavailable, pool, "", fmt.Sprintf("NodePool %q: none of its %d instance types has an available offering its requirements allow", pool, types))
	}
	return cause(OfferingUnavailable, pool, "", fmt.Sprintf("NodePool %q: its requirements filtered out %d of %d instance types and the other %d have no available offering its requirements allow",
		pool, types-unavailable, types, unavailable))
}

func newPodError(pod *corev1.Pod, f podFailure) PodError {
	return PodError{Pod: pod, Reason: f.reason, Code: f.code, Causes: f.causes}
}
