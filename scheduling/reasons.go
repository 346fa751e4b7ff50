package scheduling

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/requirements"
)

// ReasonCode classifies why a pod could not be placed on one NodePool, node or NodeClaim.
// The set is closed; its constants are Reason<Value> (the rule of every code type, see
// package disruption). Causes carry the code with the object and numbers it concerns; the
// English is built from them only by Cause.String and PodError.Message.
type ReasonCode string

const (
	// ReasonUntoleratedTaint: the pod does not tolerate Taint of the NodePool or node.
	ReasonUntoleratedTaint ReasonCode = "UntoleratedTaint"
	// ReasonRequirementsUnsatisfiable: the pod's requirement on Key (Requirement) conflicts with
	// the node's labels, or no instance type of the NodePool matches it. With InstanceTypes
	// set, the NodePool's own requirements (on Key, or "" for their combination) leave none of
	// its InstanceTypes.
	ReasonRequirementsUnsatisfiable ReasonCode = "RequirementsUnsatisfiable"
	// ReasonInsufficientResource: the pod needs Needed of Resource; a node has Available free, a
	// NodePool's largest instance type Available after DaemonSet overhead. Resource "": every
	// resource fits some instance type alone, none all of them together.
	ReasonInsufficientResource ReasonCode = "InsufficientResource"
	// ReasonNodePoolLimit: the NodePool's limit on Resource leaves Available while the smallest
	// of its instance types that would hold the pod needs Needed (Resource "nodes": the node
	// limit is reached; "": no single resource excludes every such type, their combination
	// does). A NodePool whose taints, requirements or types' sizes refuse the pod anyway
	// gives that cause instead: raising the limit would not help.
	ReasonNodePoolLimit ReasonCode = "NodePoolLimit"
	// ReasonTopologySpread: no domain of Key keeps the pod's topology spread within its skew.
	ReasonTopologySpread ReasonCode = "TopologySpread"
	// ReasonPodAffinity: no domain of Key satisfies the pod's required pod affinity.
	ReasonPodAffinity ReasonCode = "PodAffinity"
	// ReasonPodAntiAffinity: every domain of Key is taken by the pod's required anti-affinity, or
	// by that of a pod already there.
	ReasonPodAntiAffinity ReasonCode = "PodAntiAffinity"
	// ReasonHostPort: the pod's host Port/Protocol is taken (by a pod or a DaemonSet).
	ReasonHostPort ReasonCode = "HostPort"
	// ReasonVolumeTopology: no topology the pod's volumes allow is compatible with the NodePool
	// or node; Key is the label they disagree on (e.g. the zone).
	ReasonVolumeTopology ReasonCode = "VolumeTopology"
	// ReasonVolumeAttachLimit: the node cannot attach more volumes of CSI driver Key.
	ReasonVolumeAttachLimit ReasonCode = "VolumeAttachLimit"
	// ReasonVolumeUnresolved: a volume's claim, volume or storage class is missing or unusable
	// (Detail says which).
	ReasonVolumeUnresolved ReasonCode = "VolumeUnresolved"
	// ReasonOfferingUnavailable: the instance types that fit have no available offering; at
	// NodePool level Unavailable of its InstanceTypes have none and the rest are filtered
	// out by its requirements.
	ReasonOfferingUnavailable ReasonCode = "OfferingUnavailable"
	// ReasonMinValues: minValues of Key asks Needed values, the instance types that fit offer
	// Available.
	ReasonMinValues ReasonCode = "MinValues"
	// ReasonConsolidateAfter: in a consolidation simulation, the node is within its NodePool's
	// consolidateAfter and takes no pods of the nodes being removed.
	ReasonConsolidateAfter ReasonCode = "ConsolidateAfter"
	// ReasonInvalidPodSpec: the pod's spec is invalid (names, resources, selectors, constraints);
	// Detail is the validation error.
	ReasonInvalidPodSpec ReasonCode = "InvalidPodSpec"
	// ReasonNotProvisionable: Karpenter does not provision for the pod (DaemonSet or Node owned,
	// Dynamic Resource Allocation, or a requirement excluding every Karpenter node); Detail
	// says which.
	ReasonNotProvisionable ReasonCode = "NotProvisionable"
	// ReasonNodePoolNotReady: the NodePool's Ready condition is not True (Detail: its message).
	ReasonNodePoolNotReady ReasonCode = "NodePoolNotReady"
	// ReasonNodeClassUnsupported: the NodePool's nodeClassRef names a NodeClass kind the
	// cloud does not launch with (Options.NodeClasses; Detail: the kind as Kind.group).
	ReasonNodeClassUnsupported ReasonCode = "NodeClassUnsupported"
	// ReasonNoNodePool: no NodePool can launch nodes at all; Causes say why for each.
	ReasonNoNodePool ReasonCode = "NoNodePool"
	// ReasonLaunchRefused: Solve placed the pod on a new NodeClaim of NodePool, and the cloud
	// refused to launch it (an insufficient-capacity error over its InstanceTypes options);
	// the pod waits for the next Solve, which sees those offerings unavailable. Only
	// Result.Refused gives it: Solve itself never does.
	ReasonLaunchRefused ReasonCode = "LaunchRefused"
)

// Cause is one rejection as data: its code, the object it concerns and the numbers. Which
// fields a code sets is documented at the code; the rest are zero.
type Cause struct {
	Code ReasonCode
	// NodePool is the NodePool the cause concerns, or "".
	NodePool string
	// Node is the existing node or in-flight NodeClaim the cause concerns, or "".
	Node string
	// Key is the label or topology key (or CSI driver) the cause concerns, or "".
	Key string
	// Requirement is the pod's requirement on Key, as text (RequirementsUnsatisfiable).
	Requirement string
	// Resource is the resource the cause concerns, or "": for InsufficientResource the first
	// (cpu, memory, pods, then by name) that is short, for NodePoolLimit the first whose
	// remaining limit every instance type that would hold the pod exceeds.
	Resource string
	// Needed and Available are the amounts of Resource (or counts of values for MinValues),
	// nil where the code has none.
	Needed, Available *resource.Quantity
	// Taint is the first taint not tolerated (UntoleratedTaint).
	Taint *corev1.Taint
	// Port and Protocol are the host port taken (HostPort).
	Port     int32
	Protocol corev1.Protocol
	// InstanceTypes and Unavailable count a NodePool's instance types and those without an
	// available offering (NodePool-level RequirementsUnsatisfiable, OfferingUnavailable);
	// for MinValues of a NodeClaim, InstanceTypes are the cheapest options it was cut to.
	InstanceTypes, Unavailable int
	// Detail is the text of an input error a cause passes on (InvalidPodSpec,
	// VolumeUnresolved, NotProvisionable, NodePoolNotReady), or the NodeClass kind
	// (NodeClassUnsupported).
	Detail string
}

// String is the cause in English: the object, then what is wrong with it.
func (c Cause) String() string {
	switch {
	case c.Node != "":
		return fmt.Sprintf("node %q: %s", c.Node, c.text())
	case c.NodePool != "":
		return fmt.Sprintf("NodePool %q: %s", c.NodePool, c.text())
	}
	return c.text()
}

// text is the English of the cause without its object.
func (c Cause) text() string {
	switch c.Code {
	case ReasonUntoleratedTaint:
		if c.Taint == nil {
			return "untolerated taint"
		}
		return "untolerated taint " + c.Taint.ToString()
	case ReasonRequirementsUnsatisfiable:
		switch {
		case c.InstanceTypes > 0 && c.Key == "":
			return fmt.Sprintf("its requirements leave none of its %d instance types", c.InstanceTypes)
		case c.InstanceTypes > 0:
			return fmt.Sprintf("its requirement on %q leaves none of its %d instance types", c.Key, c.InstanceTypes)
		case c.Node != "":
			return fmt.Sprintf("labels do not satisfy %q%s", c.Key, c.requirementText())
		}
		return fmt.Sprintf("no instance type matches requirements key %q%s", c.Key, c.requirementText())
	case ReasonInsufficientResource:
		if c.Resource == "" {
			return "no instance type has room for all requests together"
		}
		return fmt.Sprintf("insufficient %s (%s)", c.Resource, c.amounts())
	case ReasonNodePoolLimit:
		switch c.Resource {
		case "":
			return "every instance type exceeds its remaining limits"
		case "nodes":
			return "node limit reached"
		}
		return fmt.Sprintf("limit on %s: %s", c.Resource, c.amounts())
	case ReasonTopologySpread:
		return fmt.Sprintf("no %q domain keeps the topology spread within its skew", c.Key)
	case ReasonPodAffinity:
		return fmt.Sprintf("no %q domain satisfies the pod affinity", c.Key)
	case ReasonPodAntiAffinity:
		return fmt.Sprintf("no %q domain is free of the pod anti-affinity", c.Key)
	case ReasonHostPort:
		return fmt.Sprintf("host port %d/%s taken", c.Port, c.Protocol)
	case ReasonVolumeTopology:
		if c.Key == "" {
			return "no topology the pod's volumes allow fits"
		}
		return fmt.Sprintf("the pod's volumes allow no %q it offers", c.Key)
	case ReasonVolumeAttachLimit:
		return fmt.Sprintf("attach limit of CSI driver %q reached", c.Key)
	case ReasonOfferingUnavailable:
		switch {
		case c.Detail != "":
			return c.Detail
		case c.InstanceTypes == 0:
			return "no launchable offering left for the NodeClaim"
		case c.Unavailable == c.InstanceTypes:
			return fmt.Sprintf("none of its %d instance types has an available offering its requirements allow", c.InstanceTypes)
		}
		return fmt.Sprintf("its requirements filtered out %d of %d instance types and the other %d have no available offering its requirements allow",
			c.InstanceTypes-c.Unavailable, c.InstanceTypes, c.Unavailable)
	case ReasonMinValues:
		of := "the instance types that fit"
		if c.InstanceTypes > 0 {
			of = fmt.Sprintf("the %d cheapest instance types that fit", c.InstanceTypes)
		}
		return fmt.Sprintf("minValues of %q is %s but %s offer only %s values", c.Key, quantityText("", c.Needed), of, quantityText("", c.Available))
	case ReasonConsolidateAfter:
		return "within consolidateAfter, takes no pods of the nodes being consolidated"
	case ReasonNodePoolNotReady:
		if c.Detail == "" {
			return "not ready"
		}
		return "not ready: " + c.Detail
	case ReasonNodeClassUnsupported:
		return fmt.Sprintf("its nodeClassRef names %s, a NodeClass the cloud provider does not launch nodes with", c.Detail)
	case ReasonNoNodePool:
		return "no dynamic NodePools found (none given, or all static, deleting, not ready or of another cloud's NodeClass)"
	case ReasonLaunchRefused:
		return fmt.Sprintf("the cloud refused to launch the NodeClaim planned for the pod (no capacity in the offerings of its %d instance types)", c.InstanceTypes)
	}
	return c.Detail
}

func (c Cause) requirementText() string {
	if c.Requirement == "" {
		return ""
	}
	return " (pod requires " + c.Requirement + ")"
}

// amounts is "needs N, largest type offers A" (a NodePool's instance types), "needs N, A
// free" (a node) or "needs N, A left" (a limit).
func (c Cause) amounts() string {
	needed, available := quantityText(c.Resource, c.Needed), quantityText(c.Resource, c.Available)
	switch {
	case c.Code == ReasonNodePoolLimit:
		return fmt.Sprintf("smallest type that fits needs %s, %s left", needed, available)
	case c.Node == nodesGroup:
		return fmt.Sprintf("needs %s, at most %s free", needed, available)
	case c.Node != "":
		return fmt.Sprintf("needs %s, %s free", needed, available)
	case c.NodePool != "":
		return fmt.Sprintf("needs %s, largest type offers %s", needed, available)
	}
	return fmt.Sprintf("needs %s, at most %s available", needed, available)
}

// nodesGroup stands, in a Summary, for the objects of a group that has one kind.
const nodesGroup = "\x00group"

// quantityText renders an amount for people: cpu in cores (3.92), everything else as its
// Quantity.
func quantityText(name string, q *resource.Quantity) string {
	if q == nil {
		return "?"
	}
	if name == string(corev1.ResourceCPU) {
		return strconv.FormatFloat(float64(q.MilliValue())/1000, 'f', -1, 64)
	}
	return q.String()
}

// podFailure is a pod's error while Solve runs: its code and causes.
type podFailure struct {
	code   ReasonCode
	causes []Cause
}

func singleFailure(c Cause) podFailure { return podFailure{code: c.Code, causes: []Cause{c}} }

// deferred reports whether a NodePool refused the pod for reservations other NodeClaims of
// the round hold (Karpenter mode: the pod waits for the next round).
func (f podFailure) deferred() bool {
	for _, c := range f.causes {
		if c.Detail == reservedDetail {
			return true
		}
	}
	return false
}

// nodePoolsFailure is the failure of a pod every NodePool rejected (causes in weight order).
func nodePoolsFailure(causes []Cause) podFailure {
	return podFailure{code: causes[0].Code, causes: causes}
}

// noNodePoolFailure is the failure of every pod when no NodePool can launch nodes.
func noNodePoolFailure(templateErrors []Cause) podFailure {
	if len(templateErrors) == 0 {
		return singleFailure(Cause{Code: ReasonNoNodePool})
	}
	return podFailure{code: ReasonNoNodePool, causes: templateErrors}
}

// newPodError is the one place a PodError's English is built.
func newPodError(pod *corev1.Pod, f podFailure, nodeCauses []Cause) PodError {
	return PodError{Pod: pod, Code: f.code, Causes: f.causes, NodeCauses: nodeCauses}
}

// detailCause is a cause that passes on an input error's text.
func detailCause(code ReasonCode, detail string) *Cause { return &Cause{Code: code, Detail: detail} }

// minValuesCause is the MinValues cause of key: want values asked, have offered.
func minValuesCause(key string, want, have int) Cause {
	return Cause{Code: ReasonMinValues, Key: key, Needed: resource.NewQuantity(int64(want), resource.DecimalSI), Available: resource.NewQuantity(int64(have), resource.DecimalSI)}
}

// topologyCode is the code of a topology group that leaves no domain.
func topologyCode(g *topologyGroup) ReasonCode { return g.rule.code() }

// topologyCodeOn is the code of the first group of p (form f) on key.
func topologyCodeOn(p *podData, f *podForm, key string) ReasonCode {
	for _, gs := range [][]*topologyGroup{f.owned, p.blockedBy} {
		for _, g := range gs {
			if g.key == key {
				return topologyCode(g)
			}
		}
	}
	return ReasonTopologySpread
}

// volumeCause is the VolumeTopology cause of a node (or NodeClaim) with requirements have
// that a volume topology alternative cannot use.
func volumeCause(have, alt requirements.Requirements, allowUndefined requirements.KeySet) Cause {
	key, _ := have.Conflict(alt, allowUndefined)
	return Cause{Code: ReasonVolumeTopology, Key: key}
}

// topologyCause is the cause of group g leaving no domain.
func topologyCause(g *topologyGroup) Cause { return Cause{Code: topologyCode(g), Key: g.key} }

// untolerated is the first taint the tolerations do not tolerate, or nil.
func untolerated(tolerations []corev1.Toleration, taints []corev1.Taint) *corev1.Taint {
	for i := range taints {
		if !tolerates(tolerations, taints[i:i+1]) {
			t := taints[i]
			return &t
		}
	}
	return nil
}

// conflictCause is the RequirementsUnsatisfiable cause of the first key on which have
// cannot satisfy want (keys in allowUndefined may be missing from have).
func conflictCause(have, want requirements.Requirements, allowUndefined requirements.KeySet) Cause {
	key, _ := have.Conflict(want, allowUndefined)
	c := Cause{Code: ReasonRequirementsUnsatisfiable, Key: key}
	if r, ok := want[key]; ok {
		c.Requirement = r.String()
	}
	return c
}

// portCause is the HostPort cause of the first of want that have takes.
func portCause(have, want []hostPort) Cause {
	for _, w := range want {
		for _, h := range have {
			if w.conflicts(h) {
				return Cause{Code: ReasonHostPort, Port: w.port, Protocol: w.protocol}
			}
		}
	}
	return Cause{Code: ReasonHostPort}
}

// noTypesReason says why a NodePool has no instance type to launch: its requirements, or
// offerings that are all unavailable (not to be mistaken for requirements).
func noTypesReason(pool string, types, unavailable int) Cause {
	code := ReasonOfferingUnavailable
	if unavailable == 0 {
		code = ReasonRequirementsUnsatisfiable
	}
	return Cause{Code: code, NodePool: pool, InstanceTypes: types, Unavailable: unavailable}
}
