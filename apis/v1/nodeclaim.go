package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeClaim is karpenter.sh/v1 NodeClaim: a request for one node.
type NodeClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              NodeClaimSpec   `json:"spec"`
	Status            NodeClaimStatus `json:"status,omitzero"`
}

// NodeClaimList is a list of NodeClaims (kind NodeClaimList).
type NodeClaimList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodeClaim `json:"items"`
}

// NodeClaimSpec describes the node wanted.
type NodeClaimSpec struct {
	// Taints are put on the node; StartupTaints too, but are expected to be removed by a
	// daemon once the node is ready (the scheduler ignores them). Requirements constrain the
	// instance type, zone, capacity type and labels; Resources are what the pods need;
	// NodeClassRef names the provider NodeClass; TerminationGracePeriod bounds draining;
	// ExpireAfter is the node's maximum lifetime (default 720h, or "Never").
	Taints                 []corev1.Taint                         `json:"taints,omitempty"`
	StartupTaints          []corev1.Taint                         `json:"startupTaints,omitempty"`
	Requirements           []NodeSelectorRequirementWithMinValues `json:"requirements"`
	Resources              ResourceRequirements                   `json:"resources,omitzero"`
	NodeClassRef           *NodeClassReference                    `json:"nodeClassRef"`
	TerminationGracePeriod *metav1.Duration                       `json:"terminationGracePeriod,omitempty"`
	ExpireAfter            NillableDuration                       `json:"expireAfter,omitzero"`
}

// ResourceRequirements are the resources the NodeClaim's pods (and daemons) request.
type ResourceRequirements struct {
	Requests corev1.ResourceList `json:"requests,omitempty"`
}

// NodeClaimStatus is the observed state of a NodeClaim.
type NodeClaimStatus struct {
	// NodeName, ProviderID and ImageID identify the launched node; Capacity and Allocatable
	// are its resources; LastPodEventTime is when a pod last scheduled to or left it.
	NodeName         string              `json:"nodeName,omitempty"`
	ProviderID       string              `json:"providerID,omitempty"`
	ImageID          string              `json:"imageID,omitempty"`
	Capacity         corev1.ResourceList `json:"capacity,omitempty"`
	Allocatable      corev1.ResourceList `json:"allocatable,omitempty"`
	Conditions       []metav1.Condition  `json:"conditions,omitempty"`
	LastPodEventTime metav1.Time         `json:"lastPodEventTime,omitzero"`
}

// NodeClaim condition types.
const (
	ConditionTypeLaunched       = "Launched"
	ConditionTypeRegistered     = "Registered"
	ConditionTypeInitialized    = "Initialized"
	ConditionTypeConsolidatable = "Consolidatable"
	ConditionTypeDrifted        = "Drifted"
	ConditionTypeDrained        = "Drained"

	ConditionTypeConsistentStateFound = "ConsistentStateFound"
	ConditionTypeVolumesDetached      = "VolumesDetached"
	ConditionTypeInstanceTerminating  = "InstanceTerminating"
	ConditionTypeDisruptionReason     = "DisruptionReason"
)
