package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

func TestWithoutContainedTerms(t *testing.T) {
	term := func(rs ...*requirements.Requirement) requirements.Requirements {
		return requirements.NewRequirements(rs...)
	}
	cpu := func(op corev1.NodeSelectorOperator, v string) *requirements.Requirement {
		return requirements.MustNew("example.com/cpu", string(op), v)
	}
	zone := func(vs ...string) *requirements.Requirement {
		return requirements.MustNew(corev1.LabelTopologyZone, string(corev1.NodeSelectorOpIn), vs...)
	}
	narrow := term(cpu(corev1.NodeSelectorOpGt, "8"), cpu(corev1.NodeSelectorOpLt, "17"))
	wide := term(cpu(corev1.NodeSelectorOpGt, "2"), cpu(corev1.NodeSelectorOpLt, "17"))
	for _, tc := range []struct {
		name  string
		terms []requirements.Requirements
		want  []requirements.Requirements
	}{
		{"one term stays", []requirements.Requirements{narrow}, []requirements.Requirements{narrow}},
		{"a narrower first term goes", []requirements.Requirements{narrow, wide}, []requirements.Requirements{wide}},
		{"a narrower later term goes", []requirements.Requirements{wide, narrow}, []requirements.Requirements{wide}},
		{"the first of equal terms stays", []requirements.Requirements{term(zone("a")), term(zone("a"))}, []requirements.Requirements{term(zone("a"))}},
		{"overlapping terms stay", []requirements.Requirements{term(zone("a", "b")), term(zone("b", "c"))}, []requirements.Requirements{term(zone("a", "b")), term(zone("b", "c"))}},
		{"a term with another key is narrower", []requirements.Requirements{term(zone("a"), cpu(corev1.NodeSelectorOpGt, "2")), term(zone("a"))}, []requirements.Requirements{term(zone("a"))}},
		{"a later term with another key is narrower", []requirements.Requirements{term(zone("a")), term(zone("a"), cpu(corev1.NodeSelectorOpGt, "2"))}, []requirements.Requirements{term(zone("a"))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := withoutContainedTerms(tc.terms)
			assert.Len(t, got, len(tc.want))
			for i := range tc.want {
				if i < len(got) {
					assert.True(t, termWithinTerm(got[i], tc.want[i]) && termWithinTerm(tc.want[i], got[i]), "term %d: got %v want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
