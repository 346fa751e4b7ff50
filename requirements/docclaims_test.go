package requirements_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// TestDocumentedErrors: every "returns an error for ..." of the package's godoc does.
func TestDocumentedErrors(t *testing.T) {
	for name, c := range map[string]struct {
		op     string
		values []string
	}{
		"unknown operator":        {"Like", []string{"a"}},
		"In without values":       {"In", nil},
		"Exists with values":      {"Exists", []string{"a"}},
		"DoesNotExist with value": {"DoesNotExist", []string{"a"}},
		"Gt without a value":      {"Gt", nil},
		"Gt with two values":      {"Gt", []string{"1", "2"}},
		"Lt not an integer":       {"Lt", []string{"x"}},
		"Gte negative":            {"Gte", []string{"-1"}},
	} {
		_, err := requirements.New("example.com/key", c.op, c.values...)
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), "example.com/key", "%s: the error names the key", name)
		}
	}

	neg := -1
	_, err := requirements.FromNodeSelectorRequirements(
		v1.NodeSelectorRequirementWithMinValues{Key: "a", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}},
		v1.NodeSelectorRequirementWithMinValues{Key: "b", Operator: "Bogus", Values: []string{"x"}})
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "[1]", "names the index")
		assert.Contains(t, err.Error(), "b", "names the key")
		assert.Contains(t, err.Error(), "Bogus", "names the operator")
	}
	_, err = requirements.FromNodeSelectorRequirements(v1.NodeSelectorRequirementWithMinValues{Key: "a", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}, MinValues: &neg})
	assert.Error(t, err, "a negative minValues")

	pod := &corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n"}}}}}}}}}}
	_, err = requirements.ForPodStrict(pod)
	assert.Error(t, err, "matchFields is rejected")
	pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0] = corev1.NodeSelectorTerm{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "a", Operator: corev1.NodeSelectorOpIn, Values: []string{"x"}}, {Key: "b", Operator: "Bogus"}}}
	_, err = requirements.ForPodStrict(pod)
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), "matchExpressions[1]", "names the pod's field")
	}

	a := requirements.NewRequirements(requirements.MustNew("z", requirements.In, "1"), requirements.MustNew("y", requirements.In, "1"))
	b := requirements.NewRequirements(requirements.MustNew("z", requirements.In, "2"), requirements.MustNew("y", requirements.In, "2"))
	if err := a.Intersects(b); assert.Error(t, err) {
		assert.Contains(t, err.Error(), `"y"`, "names the first key in sorted order")
	}
	if err := a.Compatible(b, nil); assert.Error(t, err) {
		assert.Contains(t, err.Error(), `"y"`, "names the first key in sorted order")
	}
}
