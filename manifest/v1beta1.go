package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

// karpenter.sh/v1beta1 NodePools and NodeClaims, as Karpenter 0.33 to 0.37 wrote them and
// Karpenter 1.0 still served them through its conversion webhook. nodeplan reads them by
// converting them as that webhook did, with a warning saying what to change.

// v1beta1APIVersion is the apiVersion Karpenter 1.0 converted from.
const v1beta1APIVersion = v1.Group + "/v1beta1"

// The NodeClass a v1beta1 nodeClassRef without apiVersion or kind means: the AWS provider's.
const (
	defaultNodeClassGroup = "karpenter.k8s.aws"
	defaultNodeClassKind  = kindEC2NodeClass
)

// v1beta1Readers read the kinds of karpenter.sh/v1beta1.
var v1beta1Readers = map[string]reader{
	kindNodePool:  {v1beta1APIVersion, false, readNodePoolV1beta1},
	kindNodeClaim: {v1beta1APIVersion, false, readNodeClaimV1beta1},
}

func init() {
	gv := schema.GroupVersion{Group: v1.Group, Version: "v1beta1"}
	scheme.AddKnownTypeWithName(gv.WithKind(kindNodePool), &nodePoolV1beta1{})
	scheme.AddKnownTypeWithName(gv.WithKind(kindNodeClaim), &nodeClaimV1beta1{})
}

type nodePoolV1beta1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              nodePoolSpecV1beta1   `json:"spec"`
	Status            nodePoolStatusV1beta1 `json:"status,omitzero"`
}

type nodePoolSpecV1beta1 struct {
	Template   nodeClaimTemplateV1beta1 `json:"template"`
	Disruption disruptionV1beta1        `json:"disruption,omitzero"`
	Limits     v1.Limits                `json:"limits,omitempty"`
	Weight     *int32                   `json:"weight,omitempty"`
}

type disruptionV1beta1 struct {
	ConsolidateAfter    *v1.NillableDuration `json:"consolidateAfter,omitempty"`
	ConsolidationPolicy string               `json:"consolidationPolicy,omitempty"`
	ExpireAfter         v1.NillableDuration  `json:"expireAfter,omitzero"`
	Budgets             []budgetV1beta1      `json:"budgets,omitempty"`
}

type budgetV1beta1 struct {
	Nodes    string           `json:"nodes"`
	Schedule *string          `json:"schedule,omitempty"`
	Duration *metav1.Duration `json:"duration,omitempty"`
}

type nodeClaimTemplateV1beta1 struct {
	ObjectMeta v1.ObjectMeta `json:"metadata,omitempty"`
	// Spec is a NodeClaim's spec, as in v1beta1's schema; its resources meant nothing on a
	// NodePool, and the conversion drops them.
	Spec nodeClaimSpecV1beta1 `json:"spec"`
}

type nodeClassRefV1beta1 struct {
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

type nodePoolStatusV1beta1 struct {
	Resources  corev1.ResourceList `json:"resources,omitempty"`
	Conditions []conditionV1beta1  `json:"conditions,omitempty"`
}

// conditionV1beta1 reads both condition forms v1beta1 objects carry (knative's, with
// severity, and metav1's).
type conditionV1beta1 struct {
	Type               string      `json:"type"`
	Status             string      `json:"status"`
	Severity           string      `json:"severity,omitempty"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitzero"`
	Reason             string      `json:"reason,omitempty"`
	Message            string      `json:"message,omitempty"`
	ObservedGeneration int64       `json:"observedGeneration,omitempty"`
}

type nodeClaimV1beta1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              nodeClaimSpecV1beta1   `json:"spec"`
	Status            nodeClaimStatusV1beta1 `json:"status,omitzero"`
}

type nodeClaimSpecV1beta1 struct {
	Taints        []corev1.Taint                            `json:"taints,omitempty"`
	StartupTaints []corev1.Taint                            `json:"startupTaints,omitempty"`
	Requirements  []v1.NodeSelectorRequirementWithMinValues `json:"requirements,omitempty"`
	Resources     v1.ResourceRequirements                   `json:"resources,omitzero"`
	// Kubelet is v1's EC2NodeClass kubelet block: v1beta1's had the same fields in the same
	// order, so its JSON in the conversion annotation reads as Karpenter 1.0 wrote it.
	Kubelet      *awsv1.KubeletConfiguration `json:"kubelet,omitempty"`
	NodeClassRef *nodeClassRefV1beta1        `json:"nodeClassRef,omitempty"`
}

type nodeClaimStatusV1beta1 struct {
	NodeName    string              `json:"nodeName,omitempty"`
	ProviderID  string              `json:"providerID,omitempty"`
	ImageID     string              `json:"imageID,omitempty"`
	Capacity    corev1.ResourceList `json:"capacity,omitempty"`
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
	Conditions  []conditionV1beta1  `json:"conditions,omitempty"`
}

func (in *nodePoolV1beta1) DeepCopyObject() runtime.Object  { return jsonCopy(in) }
func (in *nodeClaimV1beta1) DeepCopyObject() runtime.Object { return jsonCopy(in) }

// jsonCopy copies a value through its JSON form (the v1beta1 types are only decoded once).
func jsonCopy[T any](in *T) *T {
	out := new(T)
	if b, err := json.Marshal(in); err == nil {
		_ = json.Unmarshal(b, out)
	}
	return out
}

// conversionError is a v1beta1 field Karpenter 1.0's webhook could not have converted.
type conversionError struct {
	field string
	err   error
}

func readNodePoolV1beta1(p *parser, o *object) bool {
	old := &nodePoolV1beta1{}
	if !p.decodeNamed(o, old) {
		return false
	}
	if !p.validateKubelet(o, old.Spec.Template.Spec.Kubelet, "spec", "template", "spec", "kubelet") {
		return false
	}
	np, changes, cerr := convertNodePool(old)
	if cerr != nil {
		p.fail(o.src, o.ref, cerr.field, cerr.err)
		return false
	}
	o.meta = np
	np.SetDefaults()
	if !p.validate(o, np.Validate()) {
		return false
	}
	p.warnV1beta1(o, changes)
	return true
}

// convertNodePool converts as Karpenter 1.0's webhook did; changes are what the author has to
// change to write the NodePool as karpenter.sh/v1.
func convertNodePool(old *nodePoolV1beta1) (*v1.NodePool, []string, *conversionError) {
	np := &v1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.APIVersion, Kind: kindNodePool},
		ObjectMeta: old.ObjectMeta,
	}
	np.Spec.Weight, np.Spec.Limits = old.Spec.Weight, old.Spec.Limits
	np.Status.Resources = old.Status.Resources
	var changes []string
	t, d := old.Spec.Template, old.Spec.Disruption
	np.Spec.Template.ObjectMeta = t.ObjectMeta
	np.Spec.Template.Spec.Taints, np.Spec.Template.Spec.StartupTaints = t.Spec.Taints, t.Spec.StartupTaints
	np.Spec.Template.Spec.Requirements = t.Spec.Requirements

	ref, refChanges, err := convertNodeClassRef(t.Spec.NodeClassRef, "spec.template.spec.nodeClassRef")
	if err != nil {
		return nil, nil, err
	}
	np.Spec.Template.Spec.NodeClassRef = ref
	changes = append(changes, refChanges...)
	written, _ := json.Marshal(t.Spec.NodeClassRef)
	np.Annotations = withAnnotation(np.Annotations, v1.NodeClassReferenceAnnotationKey, string(written))

	if len(t.Spec.Resources.Requests) > 0 {
		changes = append(changes, "drop spec.template.spec.resources (ignored: a NodeClaim's resources are its pods')")
	}
	// v1beta1's CRD defaulted expireAfter to 720h, as v1 does; an explicit value moves.
	np.Spec.Template.Spec.ExpireAfter = d.ExpireAfter
	if !d.ExpireAfter.IsZero() {
		changes = append(changes, "move spec.disruption.expireAfter to spec.template.spec.expireAfter")
	}
	switch d.ConsolidationPolicy {
	case "", "WhenUnderutilized":
		if d.ConsolidateAfter != nil {
			return nil, nil, &conversionError{"spec.disruption.consolidateAfter",
				errors.New("cannot be combined with consolidationPolicy WhenUnderutilized in karpenter.sh/v1beta1 (v1 allows it with WhenEmptyOrUnderutilized)")}
		}
		np.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmptyOrUnderutilized
		np.Spec.Disruption.ConsolidateAfter = v1.NewNillableDuration(0)
		if d.ConsolidationPolicy != "" {
			changes = append(changes, "change spec.disruption.consolidationPolicy WhenUnderutilized to WhenEmptyOrUnderutilized")
		}
	case "WhenEmpty":
		if d.ConsolidateAfter == nil {
			return nil, nil, &conversionError{"spec.disruption.consolidateAfter", errors.New("required with consolidationPolicy WhenEmpty")}
		}
		np.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmpty
		np.Spec.Disruption.ConsolidateAfter = *d.ConsolidateAfter
	default:
		return nil, nil, &conversionError{"spec.disruption.consolidationPolicy",
			fmt.Errorf("%q is not a karpenter.sh/v1beta1 policy (WhenEmpty or WhenUnderutilized)", d.ConsolidationPolicy)}
	}
	if d.Budgets != nil {
		np.Spec.Disruption.Budgets = make([]v1.Budget, 0, len(d.Budgets))
		for _, b := range d.Budgets {
			np.Spec.Disruption.Budgets = append(np.Spec.Disruption.Budgets, v1.Budget{Nodes: b.Nodes, Schedule: b.Schedule, Duration: b.Duration})
		}
	}
	np.Annotations = withKubelet(np.Annotations, t.Spec.Kubelet)
	if t.Spec.Kubelet != nil {
		changes = append(changes, fmt.Sprintf("move spec.template.spec.kubelet to spec.kubelet of %s %q (until then it is kept in annotation %s, which Karpenter 1.0 honours over the %s's kubelet)",
			ref.Kind, ref.Name, v1.KubeletCompatibilityAnnotationKey, ref.Kind))
	}
	return np, changes, nil
}

// convertNodeClassRef turns apiVersion/kind/name into group/kind/name, filling what is left
// out with the EC2NodeClass, as the webhook filled it with the provider's NodeClass.
func convertNodeClassRef(old *nodeClassRefV1beta1, field string) (*v1.NodeClassReference, []string, *conversionError) {
	if old == nil || old.Name == "" {
		return nil, nil, &conversionError{joinField(field, "name"), errors.New("required")}
	}
	ref := &v1.NodeClassReference{Name: old.Name, Kind: old.Kind, Group: apiGroup(old.APIVersion)}
	var changes []string
	switch {
	case old.APIVersion == "":
		ref.Group = defaultNodeClassGroup
		changes = append(changes, fmt.Sprintf("add %s.group %s", field, ref.Group))
	case !strings.Contains(old.APIVersion, "/"):
		return nil, nil, &conversionError{joinField(field, "apiVersion"), fmt.Errorf("%q is not a group/version", old.APIVersion)}
	default:
		changes = append(changes, fmt.Sprintf("replace %s.apiVersion %s with group %s", field, old.APIVersion, ref.Group))
	}
	if ref.Kind == "" {
		ref.Kind = defaultNodeClassKind
		changes = append(changes, fmt.Sprintf("add %s.kind %s", field, ref.Kind))
	}
	return ref, changes, nil
}

func readNodeClaimV1beta1(p *parser, o *object) bool {
	old := &nodeClaimV1beta1{}
	if !p.decodeNamed(o, old) {
		return false
	}
	if !p.validateKubelet(o, old.Spec.Kubelet, "spec", "kubelet") {
		return false
	}
	nc := &v1.NodeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.APIVersion, Kind: kindNodeClaim},
		ObjectMeta: old.ObjectMeta,
	}
	s := old.Spec
	nc.Spec.Taints, nc.Spec.StartupTaints, nc.Spec.Requirements, nc.Spec.Resources = s.Taints, s.StartupTaints, s.Requirements, s.Resources
	ref, changes, cerr := convertNodeClassRef(s.NodeClassRef, "spec.nodeClassRef")
	if cerr != nil {
		p.fail(o.src, o.ref, cerr.field, cerr.err)
		return false
	}
	nc.Spec.NodeClassRef = ref
	written, _ := json.Marshal(s.NodeClassRef)
	nc.Annotations = withAnnotation(nc.Annotations, v1.NodeClassReferenceAnnotationKey, string(written))
	nc.Annotations = withKubelet(nc.Annotations, s.Kubelet)
	st := old.Status
	nc.Status.NodeName, nc.Status.ProviderID, nc.Status.ImageID = st.NodeName, st.ProviderID, st.ImageID
	nc.Status.Capacity, nc.Status.Allocatable = st.Capacity, st.Allocatable
	for _, c := range st.Conditions {
		nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: c.Type, Status: metav1.ConditionStatus(c.Status),
			Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime, ObservedGeneration: c.ObservedGeneration})
	}
	o.meta = nc
	// Its expireAfter is its NodePool's, once the NodePools are read (see Set.rebuild).
	p.set.v1beta1Claims[nc] = true
	nc.SetDefaults()
	if !p.validate(o, nc.Validate()) {
		return false
	}
	p.warnV1beta1(o, append(changes, "NodeClaims are Karpenter's to write: it converts this one itself once it runs 1.0"))
	return true
}

// validateKubelet reports the problems of a v1beta1 kubelet block under the field its author
// wrote (the conversion moves it into an annotation, where a later error would name that).
func (p *parser) validateKubelet(o *object, k *awsv1.KubeletConfiguration, path ...string) bool {
	errs := awsv1.ValidateKubelet(k, field.NewPath(path[0], path[1:]...))
	if len(errs) == 0 {
		return true
	}
	return p.validate(o, &v1.ValidationError{Kind: o.ref.Kind, Name: o.ref.Name, Errs: errs})
}

// withAnnotation is annotations with key set to value (a new map when annotations is nil).
func withAnnotation(annotations map[string]string, key, value string) map[string]string {
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[key] = value
	return annotations
}

// withKubelet stores the kubelet block in the annotation Karpenter 1.0 kept it in (or removes
// the annotation when there is none, as the webhook did).
func withKubelet(annotations map[string]string, kubelet *awsv1.KubeletConfiguration) map[string]string {
	if kubelet == nil {
		delete(annotations, v1.KubeletCompatibilityAnnotationKey)
		return annotations
	}
	raw, _ := json.Marshal(kubelet) // maps, strings and numbers: cannot fail
	return withAnnotation(annotations, v1.KubeletCompatibilityAnnotationKey, string(raw))
}

// warnV1beta1 records that o was read as karpenter.sh/v1beta1, and what to change.
func (p *parser) warnV1beta1(o *object, changes []string) {
	msg := fmt.Sprintf("%s is no longer served (Karpenter 1.1 dropped it); read as Karpenter 1.0's conversion webhook converted it. To write it as %s: set apiVersion %s",
		v1beta1APIVersion, v1.APIVersion, v1.APIVersion)
	for _, c := range changes {
		msg += "; " + c
	}
	p.set.Warnings = append(p.set.Warnings, Warning{Source: o.src, Object: o.ref.String(), Message: msg})
}
