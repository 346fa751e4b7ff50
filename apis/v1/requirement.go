package v1

import corev1 "k8s.io/api/core/v1"

// NodeSelectorRequirementWithMinValues is a node selector requirement with an optional
// minimum number of distinct values the launched instance types must cover.
type NodeSelectorRequirementWithMinValues struct {
	Key      string                      `json:"key"`
	Operator corev1.NodeSelectorOperator `json:"operator"`
	Values   []string                    `json:"values,omitempty"`
	// MinValues is the minimum number of distinct values of Key that the instance types
	// offered for a NodeClaim must span (1..50).
	MinValues *int `json:"minValues,omitempty"`
}
