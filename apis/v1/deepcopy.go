package v1

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The deep copies below are written by hand. Every pointer, slice and map is copied; the
// test in deepcopy_test.go fills every field and checks that no memory is shared.

// DeepCopyInto copies in into out.
func (in *NodePool) DeepCopyInto(out *NodePool) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *NodePool) DeepCopy() *NodePool {
	if in == nil {
		return nil
	}
	out := new(NodePool)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *NodePool) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out.
func (in *NodePoolList) DeepCopyInto(out *NodePoolList) {
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]NodePool, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *NodePoolList) DeepCopy() *NodePoolList {
	if in == nil {
		return nil
	}
	out := new(NodePoolList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *NodePoolList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out.
func (in *NodePoolSpec) DeepCopyInto(out *NodePoolSpec) {
	*out = *in
	in.Template.DeepCopyInto(&out.Template)
	in.Disruption.DeepCopyInto(&out.Disruption)
	out.Limits = in.Limits.DeepCopy()
	out.Weight = copyPtr(in.Weight)
	out.Replicas = copyPtr(in.Replicas)
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in Limits) DeepCopy() Limits {
	if in == nil {
		return nil
	}
	return Limits(corev1.ResourceList(in).DeepCopy())
}

// DeepCopyInto copies in into out.
func (in *Disruption) DeepCopyInto(out *Disruption) {
	*out = *in
	in.ConsolidateAfter.DeepCopyInto(&out.ConsolidateAfter)
	if in.Budgets != nil {
		out.Budgets = make([]Budget, len(in.Budgets))
		for i := range in.Budgets {
			in.Budgets[i].DeepCopyInto(&out.Budgets[i])
		}
	}
}

// DeepCopyInto copies in into out.
func (in *Budget) DeepCopyInto(out *Budget) {
	*out = *in
	out.Reasons = copySlice(in.Reasons)
	out.Schedule = copyPtr(in.Schedule)
	out.Duration = copyPtr(in.Duration)
}

// DeepCopyInto copies in into out.
func (in *NodeClaimTemplate) DeepCopyInto(out *NodeClaimTemplate) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopyInto copies in into out.
func (in *ObjectMeta) DeepCopyInto(out *ObjectMeta) {
	*out = *in
	out.Labels = copyStringMap(in.Labels)
	out.Annotations = copyStringMap(in.Annotations)
}

// DeepCopyInto copies in into out.
func (in *NodeClaimTemplateSpec) DeepCopyInto(out *NodeClaimTemplateSpec) {
	*out = *in
	out.Taints = copyTaints(in.Taints)
	out.StartupTaints = copyTaints(in.StartupTaints)
	out.Requirements = copyRequirements(in.Requirements)
	out.NodeClassRef = copyPtr(in.NodeClassRef)
	out.TerminationGracePeriod = copyPtr(in.TerminationGracePeriod)
	in.ExpireAfter.DeepCopyInto(&out.ExpireAfter)
}

// DeepCopyInto copies in into out.
func (in *NodeSelectorRequirementWithMinValues) DeepCopyInto(out *NodeSelectorRequirementWithMinValues) {
	*out = *in
	out.Values = copySlice(in.Values)
	out.MinValues = copyPtr(in.MinValues)
}

// DeepCopyInto copies in into out.
func (in *NillableDuration) DeepCopyInto(out *NillableDuration) {
	*out = *in
	out.Duration = copyPtr(in.Duration)
	out.Raw = copySlice(in.Raw)
}

// DeepCopyInto copies in into out.
func (in *NodePoolStatus) DeepCopyInto(out *NodePoolStatus) {
	*out = *in
	out.Resources = in.Resources.DeepCopy()
	out.Nodes = copyPtr(in.Nodes)
	out.Conditions = copyConditions(in.Conditions)
}

// DeepCopyInto copies in into out.
func (in *NodeClaim) DeepCopyInto(out *NodeClaim) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *NodeClaim) DeepCopy() *NodeClaim {
	if in == nil {
		return nil
	}
	out := new(NodeClaim)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *NodeClaim) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out.
func (in *NodeClaimList) DeepCopyInto(out *NodeClaimList) {
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]NodeClaim, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *NodeClaimList) DeepCopy() *NodeClaimList {
	if in == nil {
		return nil
	}
	out := new(NodeClaimList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *NodeClaimList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out.
func (in *NodeClaimSpec) DeepCopyInto(out *NodeClaimSpec) {
	*out = *in
	out.Taints = copyTaints(in.Taints)
	out.StartupTaints = copyTaints(in.StartupTaints)
	out.Requirements = copyRequirements(in.Requirements)
	in.Resources.DeepCopyInto(&out.Resources)
	out.NodeClassRef = copyPtr(in.NodeClassRef)
	out.TerminationGracePeriod = copyPtr(in.TerminationGracePeriod)
	in.ExpireAfter.DeepCopyInto(&out.ExpireAfter)
}

// DeepCopyInto copies in into out.
func (in *ResourceRequirements) DeepCopyInto(out *ResourceRequirements) {
	*out = *in
	out.Requests = in.Requests.DeepCopy()
}

// DeepCopyInto copies in into out.
func (in *NodeClaimStatus) DeepCopyInto(out *NodeClaimStatus) {
	*out = *in
	out.Capacity = in.Capacity.DeepCopy()
	out.Allocatable = in.Allocatable.DeepCopy()
	out.Conditions = copyConditions(in.Conditions)
	in.LastPodEventTime.DeepCopyInto(&out.LastPodEventTime)
}

// copyPtr returns a pointer to a copy of *p, or nil. T must hold no pointers of its own.
func copyPtr[T int | int32 | int64 | string | time.Duration | metav1.Duration | NodeClassReference](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// copySlice copies a slice of values that hold no pointers, keeping nil nil.
func copySlice[S ~[]E, E ~string | ~byte](in S) S {
	if in == nil {
		return nil
	}
	out := make(S, len(in))
	copy(out, in)
	return out
}

func copyStringMap(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func copyTaints(in []corev1.Taint) []corev1.Taint {
	if in == nil {
		return nil
	}
	out := make([]corev1.Taint, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}

func copyRequirements(in []NodeSelectorRequirementWithMinValues) []NodeSelectorRequirementWithMinValues {
	if in == nil {
		return nil
	}
	out := make([]NodeSelectorRequirementWithMinValues, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}

func copyConditions(in []metav1.Condition) []metav1.Condition {
	if in == nil {
		return nil
	}
	out := make([]metav1.Condition, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}
