package scheduling

import "github.com/nodeplan/nodeplan/requirements"

// withoutContainedTerms drops each required node-affinity term that another term contains
// (the first of equal terms stays): the terms are ORed, so such a term admits no node the
// other does not. Karpenter tries the terms in order and sizes a NodeClaim by the first, so
// "cpu 9-16 or cpu 3-16" launched a 16-vCPU type for a pod a 4-vCPU one holds (difftest
// default plan:910079: $0.6076/h against $0.0454/h). The default keeps the larger term.
func withoutContainedTerms(terms []requirements.Requirements) []requirements.Requirements {
	if len(terms) < 2 {
		return terms
	}
	var out []requirements.Requirements
	for i, a := range terms {
		contained := false
		for j, b := range terms {
			if i != j && termWithinTerm(a, b) && (j < i || !termWithinTerm(b, a)) {
				contained = true
				break
			}
		}
		if !contained {
			out = append(out, a)
		}
	}
	return out
}

// termWithinTerm reports whether every node term a admits term b admits too: each key b
// constrains, a constrains at least as narrowly.
func termWithinTerm(a, b requirements.Requirements) bool {
	for k, rb := range b {
		ra, ok := a[k]
		if !ok || !ra.Intersection(rb).Equal(ra) {
			return false
		}
	}
	return true
}
