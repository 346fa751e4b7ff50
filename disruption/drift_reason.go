package disruption

import "github.com/nodeplan/nodeplan/cloudprovider"

// Karpenter's own drift reasons; a CloudProvider's IsDrifted answers with its own
// (cloudprovider.DriftReason is an open set).
const (
	// NodePoolDrifted: the NodePool template changed, in a field its hash covers, since the
	// NodeClaim was launched.
	NodePoolDrifted cloudprovider.DriftReason = "NodePoolDrifted"
	// RequirementsDrifted: the node's labels no longer meet the NodePool's requirements.
	RequirementsDrifted cloudprovider.DriftReason = "RequirementsDrifted"
	// InstanceTypeNotFound: the NodePool no longer offers the node's instance type in its zone
	// and capacity type.
	InstanceTypeNotFound cloudprovider.DriftReason = "InstanceTypeNotFound"
	// Drifted: the NodeClaim's Drifted condition is True without a reason.
	Drifted cloudprovider.DriftReason = "Drifted"
)

// Drift is why a node drifted, as data: its reason (Karpenter's or the CloudProvider's, or
// the reason of the NodeClaim's Drifted condition), and for NodePoolDrifted the template
// field that differs (Field, "" when Karpenter's hash annotations say so), for
// RequirementsDrifted the requirement the labels break (Detail). The zero Drift is no drift.
type Drift struct {
	Reason cloudprovider.DriftReason
	Field  string
	Detail string
}

// String is the drift in English: the reason, with the field or the requirement.
func (d Drift) String() string {
	switch {
	case d.Field != "":
		return string(d.Reason) + ": " + d.Field + " differs from the NodeClaim's"
	case d.Detail != "":
		return string(d.Reason) + ": " + d.Detail
	}
	return string(d.Reason)
}
