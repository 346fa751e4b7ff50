package main

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/scheduling"
)

// optionSets lists each distinct instance-type option list of an answer once (the JSON
// contract's instanceTypeOptionSets); every claim refers to its list by index. At 20k pods
// the lists, printed per claim twice (the options and the instance-type In requirement),
// were 97 % of a 47 MB answer, and 4,000 claims held 13 distinct lists.
type optionSets struct {
	lists [][]string
	index map[string]int // the names joined by "\n"
}

// of is the index of names, listed when first seen.
func (s *optionSets) of(names []string) int {
	key := strings.Join(names, "\n")
	if i, ok := s.index[key]; ok {
		return i
	}
	if s.index == nil {
		s.index = map[string]int{}
	}
	s.lists = append(s.lists, names)
	s.index[key] = len(s.lists) - 1
	return len(s.lists) - 1
}

// all is every list, [] when there is none.
func (s *optionSets) all() [][]string {
	if s.lists == nil {
		return [][]string{}
	}
	return s.lists
}

// requirementOutput is a NodeClaim requirement as Kubernetes writes it, except that the
// instance-type In requirement whose values are the claim's options (in any order) names
// their set instead of listing them again.
type requirementOutput struct {
	v1.NodeSelectorRequirementWithMinValues
	InstanceTypeOptionSet *int `json:"instanceTypeOptionSet,omitempty"`
}

// requirementsOutput renders c's requirements, referring to set for the instance-type
// values that are exactly options.
func requirementsOutput(c *scheduling.NodeClaim, options []string, set int) []requirementOutput {
	reqs := c.Requirements.NodeSelectorRequirements()
	out := make([]requirementOutput, len(reqs))
	for i, r := range reqs {
		out[i] = requirementOutput{NodeSelectorRequirementWithMinValues: r}
		if r.Key == corev1.LabelInstanceTypeStable && r.Operator == corev1.NodeSelectorOpIn && sameNames(r.Values, options) {
			out[i].Values, out[i].InstanceTypeOptionSet = nil, &set
		}
	}
	return out
}

// sameNames reports whether a and b hold the same names, in any order.
func sameNames(a, b []string) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	if slices.Equal(a, b) {
		return true
	}
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}
