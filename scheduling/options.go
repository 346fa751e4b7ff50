package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// MinValuesPolicy says what to do when a NodeClaim cannot satisfy a requirement's minValues.
type MinValuesPolicy string

// MinValues policies.
const (
	// MinValuesStrict leaves the pod unscheduled (Karpenter's default).
	MinValuesStrict MinValuesPolicy = "Strict"
	// MinValuesBestEffort lowers minValues to what the remaining types achieve.
	MinValuesBestEffort MinValuesPolicy = "BestEffort"
)

// PreferencePolicy says whether preferences (preferred affinities, ScheduleAnyway spread)
// are honoured until relaxed, or ignored.
type PreferencePolicy string

// Preference policies.
const (
	PreferencesRespect PreferencePolicy = "Respect"
	PreferencesIgnore  PreferencePolicy = "Ignore"
)

// Options tune Solve. The zero value is Karpenter's default behaviour except for Packing,
// whose zero value is PackingCostAware (see Packing).
type Options struct {
	// MinValuesPolicy says what happens when no NodeClaim can meet a minValues (zero:
	// MinValuesStrict, Karpenter's default).
	MinValuesPolicy MinValuesPolicy
	// PreferencePolicy says whether preferences are honoured until relaxed (zero:
	// PreferencesRespect) or ignored.
	PreferencePolicy PreferencePolicy
	// MaxInstanceTypes caps the instance-type options of a NodeClaim (0: 600, Karpenter's).
	MaxInstanceTypes int
	// Packing chooses among open NodeClaims that can take a pod; the zero value is
	// PackingCostAware.
	Packing Packing
	// SkipRepack keeps the default packing's first pass as it is: Solve then skips the
	// repair that packs the pods no constraint ties to their NodeClaim again, into cheaper
	// NodeClaims, often more of them (packing_repack.go). Disruption's simulations set it:
	// consolidation counts the replacement NodeClaims as Karpenter does. Karpenter mode
	// never repairs.
	SkipRepack bool
	// SingleRound stops after one provisioning round: pods NodePool limits refused stay
	// refused, as in one Karpenter Solve (its disruption simulations are one Solve). By
	// default Solve gives them Karpenter's later rounds, which count each NodeClaim at the
	// type it launches.
	SingleRound bool
	// DefaultTopologySpreadConstraints are applied to pods that declare none of their own,
	// with the selector of the pod's own labels (kube-scheduler's cluster defaults).
	DefaultTopologySpreadConstraints []corev1.TopologySpreadConstraint
	// NodeClasses are the NodeClass kinds the cloud launches nodes with (Karpenter's
	// CloudProvider.GetSupportedNodeClasses: EC2NodeClass of karpenter.k8s.aws for AWS). A
	// NodePool whose nodeClassRef names another kind or group launches nothing
	// (ReasonNodeClassUnsupported), as Karpenter does not manage it. Nil: every kind.
	NodeClasses []schema.GroupKind
	// withoutIndexes makes Solve visit every NodeClaim and test every instance type, without
	// the indexes that skip what those tests refuse (claim_runs.go, template_fit.go,
	// topology.domainsRefuse): tests hold the indexed answers to these.
	withoutIndexes bool
	// firstOrderOnly keeps the default's plan in its first queue order, without the second
	// try that places the pods it left out first (starved.go): tests compare the two.
	firstOrderOnly bool
	// unguarded keeps the default's plan even when it costs more than Karpenter's: no guard
	// on preferences (preferences.go), no plan guided by Karpenter's (karpenter_guide.go);
	// tests hold the repair alone.
	unguarded bool
	// softTaintsTolerated starts every pod of the default's plan tolerating PreferNoSchedule
	// taints, the step Karpenter's relaxation ends with (when a NodePool has such a taint):
	// the plan the guard on the price of preferences falls back to last (preferences.go).
	softTaintsTolerated bool
	// repairOnly keeps the default's first plan, its first pass and repair: no second try
	// replaces it (unpinned.go, starved.go, paid_joins.go, strictReserved; a Solve with
	// SkipRepack makes none of them either), nor the plan without preferences that keeps the
	// reservations: tests hold the repair alone to SkipRepack's plan.
	repairOnly bool
}

// launches reports whether the cloud launches nodes with np's NodeClass (see NodeClasses).
func (o Options) launches(np *v1.NodePool) bool {
	if o.NodeClasses == nil {
		return true
	}
	ref := np.Spec.Template.Spec.NodeClassRef
	return ref != nil && slices.Contains(o.NodeClasses, schema.GroupKind{Group: ref.Group, Kind: ref.Kind})
}

// nodeClassOf names np's NodeClass kind as Kind.group (AKSNodeClass.karpenter.azure.com).
func nodeClassOf(np *v1.NodePool) string {
	ref := np.Spec.Template.Spec.NodeClassRef
	if ref == nil {
		return ""
	}
	return schema.GroupKind{Group: ref.Group, Kind: ref.Kind}.String()
}

// Packing is how a pod chooses among the NodeClaims opened earlier in the same Solve.
type Packing string

const (
	// PackingCostAware first looks for a NodeClaim whose cheapest remaining instance type
	// still has room for the pod (adding it costs nothing), in Karpenter's order, and only
	// then falls back to Karpenter's rule. It launches the same number of nodes or fewer and
	// cuts the price of Karpenter's own benchmark by about a quarter.
	PackingCostAware Packing = "CostAware"
	// PackingKarpenter is Karpenter mode: Solve answers "what would Karpenter launch?" as
	// Karpenter's provisioner would, over its rounds (karpenter.go): Karpenter's packing rule
	// (the first NodeClaim, fewest pods first, that can take the pod), its counting of pods on
	// NodeClaims still open in topology, its domain choices, its minValues and limits over
	// rounds. Its plan can break a required constraint once launched, as Karpenter's does;
	// verify.Solve says which.
	PackingKarpenter Packing = "Karpenter"
)

// DefaultMaxInstanceTypes is Karpenter's cap on a NodeClaim's instance-type options.
const DefaultMaxInstanceTypes = 600

// Result is what Solve decided.
type Result struct {
	// NewNodeClaims are the NodeClaims to create, in the order they were opened.
	NewNodeClaims []*NodeClaim
	// Bindings are the pods placed on existing nodes and in-flight NodeClaims, one
	// cluster.Move each (To the node's cluster.Node.Name, which cluster.Snapshot.Find
	// resolves; From the pod's spec.nodeName: a pod of a deleting node), sorted by node name,
	// each node's pods in the order they were placed. The pods of NewNodeClaims are their
	// Pods.
	Bindings []cluster.Move
	// PodErrors holds a reason for every pod that could not be placed, by namespace and name.
	PodErrors []PodError
	// LimitsBound reports whether a NodePool's limits took instance types out of a new
	// NodeClaim or refused one in this Solve (or in another plan it compared this one with):
	// only then can more room under the limits give another Result.
	LimitsBound bool
}

// NodeClaim is a node to launch.
type NodeClaim struct {
	// NodePool is the NodePool it comes from.
	NodePool string
	// Hostname is the placeholder hostname the pods' topology was computed with.
	Hostname string
	// Pods are the pods it will run, in the order they were placed.
	Pods []*corev1.Pod
	// Requirements are the NodePool's requirements narrowed by the pods and by topology,
	// including the instance-type options.
	Requirements requirements.Requirements
	// PriceRequirements, when not nil, are Requirements with the keys a topology settlement
	// pinned (launch.go) as open as Karpenter leaves them; its consolidation judges a
	// replacement's worst-case launch price by them.
	PriceRequirements requirements.Requirements
	// CapacityType, when not nil, is the capacity-type requirement of the NodePool and the
	// pods (open when they have none) before finalisation narrowed Requirements to the capacity types the options offer.
	// Karpenter's NodeClaim keeps it so, and its consolidation decides by it whether a
	// replacement must be spot (disruption's cheaper).
	CapacityType *requirements.Requirement
	// InstanceTypeOptions are the instance types that fit, cheapest first. NodeClaims of one
	// Result with the same options share the slice: copy it before changing it in place.
	InstanceTypeOptions cloudprovider.InstanceTypes
	// InstanceType and Offering are the cheapest launchable choice among the options.
	InstanceType *cloudprovider.InstanceType
	Offering     *cloudprovider.Offering
	// Labels are the NodePool template's labels plus resolved custom labels.
	Labels map[string]string
	// Taints are the NodePool template's taints (StartupTaints separately).
	Taints        []corev1.Taint
	StartupTaints []corev1.Taint
	// Requests are the pods' requests plus the DaemonSet overhead.
	Requests corev1.ResourceList
	// MinValuesRelaxed is true when BestEffort lowered a minValues.
	MinValuesRelaxed bool
	// Round is, in Karpenter mode, the provisioning round (from 1) that opened it; 0 in the
	// default mode, which decides every round in one pass.
	Round int
}
