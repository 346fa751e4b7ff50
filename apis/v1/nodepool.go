package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodePool is karpenter.sh/v1 NodePool: the constraints on the nodes Karpenter may launch
// and on how it may disrupt them.
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              NodePoolSpec   `json:"spec"`
	Status            NodePoolStatus `json:"status,omitzero"`
}

// NodePoolList is a list of NodePools (kind NodePoolList).
type NodePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodePool `json:"items"`
}

// NodePoolSpec is the desired state of a NodePool.
type NodePoolSpec struct {
	// Template is the NodeClaim template every launched node follows.
	Template NodeClaimTemplate `json:"template"`
	// Disruption says when and how fast Karpenter may disrupt the NodePool's nodes.
	Disruption Disruption `json:"disruption,omitzero"`
	// Limits caps the total resources (and `nodes`) of the NodePool.
	Limits Limits `json:"limits,omitempty"`
	// Weight orders NodePools (higher first, 1..100); absent means 0.
	Weight *int32 `json:"weight,omitempty"`
	// Replicas makes the NodePool static: exactly this many nodes, no scheduling into it.
	Replicas *int64 `json:"replicas,omitempty"`
}

// Limits is a resource list; `nodes` limits the node count.
type Limits corev1.ResourceList

// ConsolidationPolicy says which nodes consolidation may remove or replace.
type ConsolidationPolicy string

// Consolidation policies.
const (
	ConsolidationPolicyWhenEmpty                ConsolidationPolicy = "WhenEmpty"
	ConsolidationPolicyWhenEmptyOrUnderutilized ConsolidationPolicy = "WhenEmptyOrUnderutilized"
	ConsolidationPolicyBalanced                 ConsolidationPolicy = "Balanced"
)

// DisruptionReason is a reason a budget can be limited to.
type DisruptionReason string

// Disruption reasons.
const (
	DisruptionReasonUnderutilized DisruptionReason = "Underutilized"
	DisruptionReasonEmpty         DisruptionReason = "Empty"
	DisruptionReasonDrifted       DisruptionReason = "Drifted"
)

// Disruption configures consolidation and its budgets.
type Disruption struct {
	// ConsolidateAfter is how long a node must have seen no pod change before it may be
	// consolidated ("Never" disables it). Default 0s.
	ConsolidateAfter NillableDuration `json:"consolidateAfter,omitzero"`
	// ConsolidationPolicy defaults to WhenEmptyOrUnderutilized.
	ConsolidationPolicy ConsolidationPolicy `json:"consolidationPolicy,omitempty"`
	// Budgets limit how many nodes may be disrupted at once. Default [{nodes: 10%}].
	Budgets []Budget `json:"budgets,omitempty"`
}

// Budget limits disruptions, optionally only for some reasons and during a schedule.
type Budget struct {
	// Reasons this budget applies to; empty means all.
	Reasons []DisruptionReason `json:"reasons,omitempty"`
	// Nodes is a count or a percentage ("10%") of the NodePool's nodes.
	Nodes string `json:"nodes"`
	// Schedule is a cron expression (UTC) at which the budget becomes active for Duration.
	Schedule *string `json:"schedule,omitempty"`
	// Duration is how long the budget stays active after each Schedule hit.
	Duration *metav1.Duration `json:"duration,omitempty"`
}

// NodeClaimTemplate is the template of the NodeClaims a NodePool creates.
type NodeClaimTemplate struct {
	ObjectMeta ObjectMeta            `json:"metadata,omitempty"`
	Spec       NodeClaimTemplateSpec `json:"spec"`
}

// ObjectMeta is the part of object metadata a template may set.
type ObjectMeta struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// NodeClaimTemplateSpec is a NodeClaimSpec as written in a NodePool.
type NodeClaimTemplateSpec struct {
	// The fields mean what they mean in NodeClaimSpec; ExpireAfter defaults to 720h.
	Taints                 []corev1.Taint                         `json:"taints,omitempty"`
	StartupTaints          []corev1.Taint                         `json:"startupTaints,omitempty"`
	Requirements           []NodeSelectorRequirementWithMinValues `json:"requirements"`
	NodeClassRef           *NodeClassReference                    `json:"nodeClassRef"`
	TerminationGracePeriod *metav1.Duration                       `json:"terminationGracePeriod,omitempty"`
	ExpireAfter            NillableDuration                       `json:"expireAfter,omitzero"`
}

// NodeClassReference names the provider-specific NodeClass of a NodePool.
type NodeClassReference struct {
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	Group string `json:"group"`
}

// NodePoolStatus is the observed state of a NodePool.
type NodePoolStatus struct {
	// NodeClassObservedGeneration is the generation of the NodeClass last seen.
	NodeClassObservedGeneration int64 `json:"nodeClassObservedGeneration,omitempty"`
	// Resources is the total capacity of the NodePool's nodes.
	Resources corev1.ResourceList `json:"resources,omitempty"`
	// Nodes is the number of the NodePool's nodes.
	Nodes *int64 `json:"nodes,omitempty"`
	// Conditions are ValidationSucceeded, NodeClassReady, NodeRegistrationHealthy and Ready.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// NodePool condition types.
const (
	ConditionTypeValidationSucceeded     = "ValidationSucceeded"
	ConditionTypeNodeClassReady          = "NodeClassReady"
	ConditionTypeNodeRegistrationHealthy = "NodeRegistrationHealthy"
	// ConditionTypeReady is true on a NodePool when ValidationSucceeded and NodeClassReady
	// are, and on a NodeClaim when Launched, Registered and Initialized are.
	ConditionTypeReady = "Ready"
)
