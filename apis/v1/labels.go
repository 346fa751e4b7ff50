package v1

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Group is the API group of NodePool and NodeClaim.
const Group = "karpenter.sh"

// Well-known label keys. Their values are decided by Karpenter (nodepool) or by the cloud
// (instance type, zone, capacity type, ...), so NodePools may leave them undefined.
const (
	NodePoolLabelKey        = Group + "/nodepool"
	CapacityTypeLabelKey    = Group + "/capacity-type"
	NodeInitializedLabelKey = Group + "/initialized"
	NodeRegisteredLabelKey  = Group + "/registered"
	DoNotSyncTaintsLabelKey = Group + "/do-not-sync-taints"

	LabelTopologyZone      = "topology.kubernetes.io/zone"
	LabelTopologyRegion    = "topology.kubernetes.io/region"
	LabelInstanceType      = "node.kubernetes.io/instance-type"
	LabelArch              = "kubernetes.io/arch"
	LabelOS                = "kubernetes.io/os"
	LabelHostname          = "kubernetes.io/hostname"
	LabelWindowsBuild      = "node.kubernetes.io/windows-build"
	LabelFailureDomainZone = "failure-domain.beta.kubernetes.io/zone"
)

// Annotation keys Karpenter reads or writes.
const (
	DoNotDisruptAnnotationKey                  = Group + "/do-not-disrupt"
	NodePoolHashAnnotationKey                  = Group + "/nodepool-hash"
	NodePoolHashVersionAnnotationKey           = Group + "/nodepool-hash-version"
	NodeClaimMinValuesRelaxedAnnotationKey     = Group + "/nodeclaim-min-values-relaxed"
	NodeClaimTerminationTimestampAnnotationKey = Group + "/nodeclaim-termination-timestamp"
	NodePoolHashVersion                        = "v3"

	// KubeletCompatibilityAnnotationKey holds, as JSON, the spec.template.spec.kubelet block of
	// a karpenter.sh/v1beta1 NodePool (or spec.kubelet of a v1beta1 NodeClaim) that Karpenter
	// 1.0's conversion webhook moved out of the spec; while it is set it takes precedence over
	// the EC2NodeClass's kubelet settings for that NodePool's nodes.
	KubeletCompatibilityAnnotationKey = CompatibilityGroup + "/v1beta1-kubelet-conversion"
	// NodeClassReferenceAnnotationKey holds, as JSON, a v1beta1 NodePool's or NodeClaim's
	// nodeClassRef as written (apiVersion/kind/name), which v1's group/kind/name cannot
	// round-trip.
	NodeClassReferenceAnnotationKey = CompatibilityGroup + "/v1beta1-nodeclass-reference"
)

// CompatibilityGroup is the prefix of the annotations Karpenter's API conversions write.
const CompatibilityGroup = "compatibility." + Group

// Taint keys Karpenter owns.
const (
	DisruptedTaintKey    = Group + "/disrupted"
	UnregisteredTaintKey = Group + "/unregistered"
)

// Capacity types and architectures.
const (
	CapacityTypeSpot     = "spot"
	CapacityTypeOnDemand = "on-demand"
	CapacityTypeReserved = "reserved"
	ArchitectureAmd64    = "amd64"
	ArchitectureArm64    = "arm64"
)

// WellKnownLabels are the label keys whose values come from the cloud or from Karpenter, so a
// NodePool need not define them for a pod to require them. A catalog may add its own keys (see
// the requirements package); this set is the core one.
var WellKnownLabels = map[string]bool{
	NodePoolLabelKey:     true,
	LabelTopologyZone:    true,
	LabelTopologyRegion:  true,
	LabelInstanceType:    true,
	LabelArch:            true,
	LabelOS:              true,
	CapacityTypeLabelKey: true,
	LabelWindowsBuild:    true,
}

// WellKnownValuesForRequirements lists the only values some well-known keys can take.
var WellKnownValuesForRequirements = map[string][]string{
	CapacityTypeLabelKey: {CapacityTypeOnDemand, CapacityTypeReserved, CapacityTypeSpot},
}

// RestrictedLabels may not be used in NodePool requirements or labels: Karpenter or the
// kubelet sets them.
var RestrictedLabels = map[string]bool{
	LabelHostname: true,
}

// RestrictedLabelDomains are label domains (and their subdomains) reserved for Karpenter,
// except for the well-known keys inside them.
var RestrictedLabelDomains = []string{Group}

// NormalizedLabels maps deprecated beta label keys to their stable names.
var NormalizedLabels = map[string]string{
	LabelFailureDomainZone:                     LabelTopologyZone,
	"failure-domain.beta.kubernetes.io/region": LabelTopologyRegion,
	"beta.kubernetes.io/arch":                  LabelArch,
	"beta.kubernetes.io/os":                    LabelOS,
	"beta.kubernetes.io/instance-type":         LabelInstanceType,
}

// NormalizeLabelKey returns the stable name of a deprecated label key, or the key itself.
func NormalizeLabelKey(key string) string {
	if n, ok := NormalizedLabels[key]; ok {
		return n
	}
	return key
}

// IsRestrictedLabel reports why key may not be set by a NodePool: it is kubernetes.io/hostname,
// or it lies in the karpenter.sh domain without being one of the well-known keys there.
func IsRestrictedLabel(key string) bool {
	if WellKnownLabels[key] {
		return false
	}
	if RestrictedLabels[key] {
		return true
	}
	domain := labelDomain(key)
	for _, d := range RestrictedLabelDomains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// labelDomain is the prefix of a label key before the slash, or "".
func labelDomain(key string) string {
	if i := strings.IndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return ""
}

// TerminationFinalizer is the finalizer Karpenter puts on NodeClaims and Nodes it manages.
const TerminationFinalizer = Group + "/termination"

// Karpenter's inclusive integer bound operators, in addition to Kubernetes'
// NodeSelectorOperator values.
const (
	NodeSelectorOpGte corev1.NodeSelectorOperator = "Gte"
	NodeSelectorOpLte corev1.NodeSelectorOperator = "Lte"
)

// SupportedNodeSelectorOps are the operators a requirement may use, in the order error
// messages list them.
var SupportedNodeSelectorOps = []corev1.NodeSelectorOperator{
	corev1.NodeSelectorOpIn,
	corev1.NodeSelectorOpNotIn,
	corev1.NodeSelectorOpExists,
	corev1.NodeSelectorOpDoesNotExist,
	corev1.NodeSelectorOpGt,
	corev1.NodeSelectorOpLt,
	NodeSelectorOpGte,
	NodeSelectorOpLte,
}
