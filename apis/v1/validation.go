package v1

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Limits from the CRDs' schemas.
const (
	MaxRequirements = 100
	MaxBudgets      = 50
	MinMinValues    = 1
	MaxMinValues    = 50
	MinWeight       = 1
	MaxWeight       = 100
)

// ValidationError is what Validate returns: every problem found in one object.
type ValidationError struct {
	// Kind and Name identify the object.
	Kind, Name string
	// Errs are the problems, each with its field path.
	Errs field.ErrorList
}

// Error lists the problems one per line, each as `NodePool "name": field.path: message`.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Errs))
	for i, fe := range e.Errs {
		lines[i] = objectRef(e.Kind, e.Name) + ": " + fe.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the individual *field.Error values, for errors.As.
func (e *ValidationError) Unwrap() []error {
	out := make([]error, len(e.Errs))
	for i, fe := range e.Errs {
		out[i] = fe
	}
	return out
}

func newValidationError(kind, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return &ValidationError{Kind: kind, Name: name, Errs: errs}
}

// Validate checks the NodePool against the CRD's schema and CEL rules and returns a
// *ValidationError listing every problem, or nil. Unset fields that SetDefaults would
// fill are accepted. Rules that compare with a previous version (immutable fields, the
// static/dynamic switch) are not checked.
func (in *NodePool) Validate() error {
	var errs field.ErrorList
	errs = append(errs, validateObjectName(in.Name, field.NewPath("metadata", "name"), true)...)
	spec := field.NewPath("spec")
	tmpl := spec.Child("template")
	errs = append(errs, validateTemplateLabels(in.Spec.Template.ObjectMeta.Labels, tmpl.Child("metadata", "labels"))...)
	errs = append(errs, validateAnnotations(in.Spec.Template.ObjectMeta.Annotations, tmpl.Child("metadata", "annotations"))...)
	ts := in.Spec.Template.Spec
	tsPath := tmpl.Child("spec")
	errs = append(errs, validateClaimFields(claimFields{
		taints:                 ts.Taints,
		startupTaints:          ts.StartupTaints,
		requirements:           ts.Requirements,
		nodeClassRef:           ts.NodeClassRef,
		terminationGracePeriod: ts.TerminationGracePeriod,
		expireAfter:            ts.ExpireAfter,
	}, tsPath, true)...)
	errs = append(errs, validateDisruption(&in.Spec.Disruption, spec.Child("disruption"))...)
	if w := in.Spec.Weight; w != nil && (*w < MinWeight || *w > MaxWeight) {
		errs = append(errs, field.Invalid(spec.Child("weight"), *w, fmt.Sprintf("must be between %d and %d", MinWeight, MaxWeight)))
	}
	if r := in.Spec.Replicas; r != nil {
		if *r < 0 {
			errs = append(errs, field.Invalid(spec.Child("replicas"), *r, "must be greater than or equal to 0"))
		}
		for _, name := range sortedResourceNames(corev1.ResourceList(in.Spec.Limits)) {
			if name != "nodes" {
				errs = append(errs, field.Forbidden(spec.Child("limits").Key(string(name)), "only 'limits.nodes' is supported on static NodePools (spec.replicas is set)"))
			}
		}
		if in.Spec.Weight != nil {
			errs = append(errs, field.Forbidden(spec.Child("weight"), "'weight' is not supported on static NodePools (spec.replicas is set)"))
		}
	}
	return newValidationError(KindNodePool, in.Name, errs)
}

// Validate checks the NodeClaim's spec against the CRD's schema and CEL rules and returns
// a *ValidationError listing every problem, or nil. The status is not checked. Unlike a
// NodePool, a NodeClaim may require karpenter.sh/nodepool (Karpenter writes it), and may be
// unnamed (it is created with generateName).
func (in *NodeClaim) Validate() error {
	var errs field.ErrorList
	errs = append(errs, validateObjectName(in.Name, field.NewPath("metadata", "name"), false)...)
	s := in.Spec
	errs = append(errs, validateClaimFields(claimFields{
		taints:                 s.Taints,
		startupTaints:          s.StartupTaints,
		requirements:           s.Requirements,
		nodeClassRef:           s.NodeClassRef,
		terminationGracePeriod: s.TerminationGracePeriod,
		expireAfter:            s.ExpireAfter,
	}, field.NewPath("spec"), false)...)
	return newValidationError(KindNodeClaim, in.Name, errs)
}

// claimFields are the fields a NodeClaimSpec and a NodeClaimTemplateSpec share.
type claimFields struct {
	taints, startupTaints  []corev1.Taint
	requirements           []NodeSelectorRequirementWithMinValues
	nodeClassRef           *NodeClassReference
	terminationGracePeriod *metav1.Duration
	expireAfter            NillableDuration
}

func validateClaimFields(c claimFields, path *field.Path, nodePool bool) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateTaints(c.taints, path.Child("taints"))...)
	errs = append(errs, validateTaints(c.startupTaints, path.Child("startupTaints"))...)
	errs = append(errs, validateRequirements(c.requirements, path.Child("requirements"), nodePool)...)
	errs = append(errs, validateNodeClassRef(c.nodeClassRef, path.Child("nodeClassRef"))...)
	if d := c.terminationGracePeriod; d != nil && (d.Duration < 0 || d.Duration%time.Second != 0) {
		errs = append(errs, field.Invalid(path.Child("terminationGracePeriod"), d.Duration.String(),
			"must be a non-negative whole number of seconds, minutes and hours (pattern ^([0-9]+(s|m|h))+$)"))
	}
	errs = append(errs, validateNillableDuration(c.expireAfter, path.Child("expireAfter"))...)
	return errs
}

func validateObjectName(name string, path *field.Path, required bool) field.ErrorList {
	if name == "" {
		if required {
			return field.ErrorList{field.Required(path, "")}
		}
		return nil
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

// validateRequirements applies the CRD's rules to each requirement (see ValidateRequirement).
func validateRequirements(reqs []NodeSelectorRequirementWithMinValues, path *field.Path, nodePool bool) field.ErrorList {
	var errs field.ErrorList
	if len(reqs) > MaxRequirements {
		errs = append(errs, field.TooMany(path, len(reqs), MaxRequirements))
	}
	for i, r := range reqs {
		errs = append(errs, validateRequirement(r, path.Index(i), nodePool)...)
	}
	return errs
}

// ValidateRequirement checks one requirement as the CRDs do: a qualified, unrestricted key
// (karpenter.sh/nodepool too when forNodePool), a supported operator, values that are
// label values, In with at least one value, Exists/DoesNotExist without values,
// Gt/Lt/Gte/Lte with exactly one non-negative integer, minValues 1..50 and, for In, at
// most the number of values, and capacity-type In naming at least one known capacity type.
func ValidateRequirement(r NodeSelectorRequirementWithMinValues, path *field.Path, forNodePool bool) field.ErrorList {
	return validateRequirement(r, path, forNodePool)
}

func validateRequirement(r NodeSelectorRequirementWithMinValues, path *field.Path, nodePool bool) field.ErrorList {
	var errs field.ErrorList
	keyPath, opPath, valuesPath := path.Child("key"), path.Child("operator"), path.Child("values")
	errs = append(errs, validateLabelKey(r.Key, keyPath, nodePool)...)
	for j, v := range r.Values {
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(valuesPath.Index(j), v, msg))
		}
	}
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Required(valuesPath, "requirements with operator 'In' must have a value defined"))
		}
	case corev1.NodeSelectorOpNotIn:
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			errs = append(errs, field.Forbidden(valuesPath, fmt.Sprintf("requirements with operator '%s' must not have values", r.Operator)))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, NodeSelectorOpGte, NodeSelectorOpLte:
		if len(r.Values) != 1 {
			errs = append(errs, field.Invalid(valuesPath, r.Values, fmt.Sprintf("requirements with operator '%s' must have a single non-negative integer value", r.Operator)))
		} else if n, err := strconv.ParseInt(r.Values[0], 10, 64); err != nil || n < 0 {
			errs = append(errs, field.Invalid(valuesPath.Index(0), r.Values[0], fmt.Sprintf("requirements with operator '%s' must have a single non-negative integer value", r.Operator)))
		}
	default:
		errs = append(errs, field.NotSupported(opPath, r.Operator, SupportedNodeSelectorOps))
	}
	if m := r.MinValues; m != nil {
		if *m < MinMinValues || *m > MaxMinValues {
			errs = append(errs, field.Invalid(path.Child("minValues"), *m, fmt.Sprintf("must be between %d and %d", MinMinValues, MaxMinValues)))
		} else if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) < *m {
			errs = append(errs, field.Invalid(path.Child("minValues"), *m,
				fmt.Sprintf("requirements with 'minValues' must have at least that many values specified in the 'values' field (has %d)", len(r.Values))))
		}
	}
	if NormalizeLabelKey(r.Key) == CapacityTypeLabelKey && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) > 0 {
		known := WellKnownValuesForRequirements[CapacityTypeLabelKey]
		if !slices.ContainsFunc(r.Values, func(v string) bool { return slices.Contains(known, v) }) {
			errs = append(errs, field.Invalid(valuesPath, r.Values, fmt.Sprintf("must include at least one of %s", strings.Join(known, ", "))))
		}
	}
	return errs
}

// validateLabelKey checks a requirement or label key: a qualified name that Karpenter does
// not reserve. forNodePool also forbids karpenter.sh/nodepool.
func validateLabelKey(key string, path *field.Path, forNodePool bool) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(key) {
		errs = append(errs, field.Invalid(path, key, msg))
	}
	normalized := NormalizeLabelKey(key)
	switch {
	case forNodePool && normalized == NodePoolLabelKey:
		errs = append(errs, field.Invalid(path, key, fmt.Sprintf("label %q is restricted: Karpenter sets it to the NodePool's name", NodePoolLabelKey)))
	case IsRestrictedLabel(normalized):
		if d := labelDomain(normalized); d != "" && !RestrictedLabels[normalized] {
			errs = append(errs, field.Invalid(path, key, fmt.Sprintf("label domain %q is restricted", d)))
		} else {
			errs = append(errs, field.Invalid(path, key, fmt.Sprintf("label %q is restricted", normalized)))
		}
	}
	return errs
}

func validateTemplateLabels(labels map[string]string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		errs = append(errs, validateLabelKey(k, path.Key(k), true)...)
		for _, msg := range validation.IsValidLabelValue(labels[k]) {
			errs = append(errs, field.Invalid(path.Key(k), labels[k], msg))
		}
	}
	return errs
}

func validateAnnotations(annotations map[string]string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		for _, msg := range validation.IsQualifiedName(strings.ToLower(k)) {
			errs = append(errs, field.Invalid(path.Key(k), k, msg))
		}
	}
	return errs
}

// supportedTaintEffects are the effects a taint may have.
var supportedTaintEffects = []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}

func validateTaints(taints []corev1.Taint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range taints {
		p := path.Index(i)
		if t.Key == "" {
			errs = append(errs, field.Required(p.Child("key"), ""))
		} else {
			for _, msg := range validation.IsQualifiedName(t.Key) {
				errs = append(errs, field.Invalid(p.Child("key"), t.Key, msg))
			}
		}
		for _, msg := range validation.IsValidLabelValue(t.Value) {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, msg))
		}
		switch {
		case t.Effect == "":
			errs = append(errs, field.Required(p.Child("effect"), ""))
		case !slices.Contains(supportedTaintEffects, t.Effect):
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, supportedTaintEffects))
		}
	}
	return errs
}

func validateNodeClassRef(ref *NodeClassReference, path *field.Path) field.ErrorList {
	if ref == nil {
		return field.ErrorList{field.Required(path, "a NodeClass reference with group, kind and name is required")}
	}
	var errs field.ErrorList
	for _, f := range []struct{ name, value string }{{"group", ref.Group}, {"kind", ref.Kind}, {"name", ref.Name}} {
		if f.value == "" {
			errs = append(errs, field.Required(path.Child(f.name), ""))
		}
	}
	if strings.Contains(ref.Group, "/") {
		errs = append(errs, field.Invalid(path.Child("group"), ref.Group, "must be an API group without a version, e.g. karpenter.k8s.aws"))
	}
	return errs
}

// durationPattern is the CRDs' pattern for consolidateAfter and expireAfter.
var durationPattern = regexp.MustCompile(`^(([0-9]+(s|m|h))+|Never)$`)

// validateNillableDuration checks a consolidateAfter/expireAfter value: "Never" or whole
// seconds, minutes and hours. The text is checked when it was decoded, else the value.
func validateNillableDuration(d NillableDuration, path *field.Path) field.ErrorList {
	if d.IsZero() || d.IsNever() {
		return nil
	}
	const msg = "must be 'Never' or a non-negative duration in whole seconds, minutes and hours, e.g. 30s, 90m, 720h (pattern ^(([0-9]+(s|m|h))+|Never)$)"
	if s, ok := d.rawText(); ok {
		if !durationPattern.MatchString(s) {
			return field.ErrorList{field.Invalid(path, s, msg)}
		}
		return nil
	}
	if *d.Duration < 0 || *d.Duration%time.Second != 0 {
		return field.ErrorList{field.Invalid(path, d.Duration.String(), msg)}
	}
	return nil
}

// supportedConsolidationPolicies are the values of spec.disruption.consolidationPolicy.
var supportedConsolidationPolicies = []ConsolidationPolicy{ConsolidationPolicyWhenEmpty, ConsolidationPolicyWhenEmptyOrUnderutilized, ConsolidationPolicyBalanced}

// supportedDisruptionReasons are the values of a budget's reasons.
var supportedDisruptionReasons = []DisruptionReason{DisruptionReasonDrifted, DisruptionReasonUnderutilized, DisruptionReasonEmpty}

func validateDisruption(d *Disruption, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateNillableDuration(d.ConsolidateAfter, path.Child("consolidateAfter"))...)
	if d.ConsolidationPolicy != "" && !slices.Contains(supportedConsolidationPolicies, d.ConsolidationPolicy) {
		errs = append(errs, field.NotSupported(path.Child("consolidationPolicy"), d.ConsolidationPolicy, supportedConsolidationPolicies))
	}
	budgets := path.Child("budgets")
	if len(d.Budgets) > MaxBudgets {
		errs = append(errs, field.TooMany(budgets, len(d.Budgets), MaxBudgets))
	}
	for i, b := range d.Budgets {
		errs = append(errs, validateBudget(b, budgets.Index(i))...)
	}
	return errs
}

func validateBudget(b Budget, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	// An empty nodes is what SetDefaults fills with 10%.
	if b.Nodes != "" && !budgetNodesPattern.MatchString(b.Nodes) {
		errs = append(errs, field.Invalid(path.Child("nodes"), b.Nodes,
			"must be a non-negative count or a percentage from 0% to 100% (pattern ^((100|[0-9]{1,2})%|[0-9]+)$)"))
	}
	for j, r := range b.Reasons {
		if !slices.Contains(supportedDisruptionReasons, r) {
			errs = append(errs, field.NotSupported(path.Child("reasons").Index(j), r, supportedDisruptionReasons))
		}
	}
	if (b.Schedule == nil) != (b.Duration == nil) {
		errs = append(errs, field.Invalid(path, budgetSummary(b), "'schedule' must be set with 'duration'"))
	}
	if b.Schedule != nil {
		if _, err := ParseSchedule(*b.Schedule); err != nil {
			errs = append(errs, field.Invalid(path.Child("schedule"), *b.Schedule, err.Error()))
		}
	}
	if d := b.Duration; d != nil && (d.Duration < 0 || d.Duration%time.Minute != 0) {
		errs = append(errs, field.Invalid(path.Child("duration"), d.Duration.String(),
			"must be a non-negative duration in whole minutes and hours, e.g. 10m, 1h30m (no seconds)"))
	}
	return errs
}

// budgetSummary describes which of schedule and duration a budget sets, for messages.
func budgetSummary(b Budget) string {
	if b.Schedule != nil {
		return "schedule " + strconv.Quote(*b.Schedule) + " without duration"
	}
	return "duration " + b.Duration.Duration.String() + " without schedule"
}

func sortedResourceNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for k := range l {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
