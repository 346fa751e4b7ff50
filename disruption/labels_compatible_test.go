package disruption

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// TestPropLabelsCompatibleIsFromLabelsCompatible: the drift check's labelsCompatible answers
// what requirements.FromLabels(labels).Compatible(reqs, nil) answers, error text included,
// over labels and requirements on a few keys, deprecated aliases among them.
func TestPropLabelsCompatibleIsFromLabelsCompatible(t *testing.T) {
	keys := []string{v1.LabelArch, "beta.kubernetes.io/arch", v1.LabelTopologyZone, v1.LabelFailureDomainZone,
		v1.CapacityTypeLabelKey, "team", "tier"}
	values := []string{"a", "b", "amd64", "on-demand"}
	ops := []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist}
	rapid.Check(t, func(t *rapid.T) {
		labels := rapid.MapOf(rapid.SampledFrom(keys), rapid.SampledFrom(values)).Draw(t, "labels")
		var nsrs []v1.NodeSelectorRequirementWithMinValues
		for range rapid.IntRange(0, 3).Draw(t, "requirements") {
			r := v1.NodeSelectorRequirementWithMinValues{Key: rapid.SampledFrom(keys).Draw(t, "key"), Operator: rapid.SampledFrom(ops).Draw(t, "operator")}
			if r.Operator == corev1.NodeSelectorOpIn || r.Operator == corev1.NodeSelectorOpNotIn {
				r.Values = rapid.SliceOfNDistinct(rapid.SampledFrom(values), 1, 2, rapid.ID[string]).Draw(t, "values")
			}
			nsrs = append(nsrs, r)
		}
		reqs, err := requirements.FromNodeSelectorRequirements(nsrs...)
		if err != nil {
			t.Skip(err)
		}
		want := requirements.FromLabels(labels).Compatible(reqs, nil)
		got := labelsCompatible(labels, reqs)
		if (want == nil) != (got == nil) || want != nil && want.Error() != got.Error() {
			t.Fatalf("labels %v, requirements %v: labelsCompatible %v, FromLabels(...).Compatible %v", labels, nsrs, got, want)
		}
	})
}
