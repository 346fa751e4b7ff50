package main

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// optionSets lists each distinct instance-type option list of an answer once (--option-sets:
// the JSON's instanceTypeOptionSets); every claim refers to its list by index. At 20k pods
// the lists, printed per claim twice (the options and the instance-type In requirement),
// were 97 % of a 47 MB answer, and 4,000 claims held 13 distinct lists. A nil *optionSets
// prints the contract's default: every claim lists its instanceTypeOptions and its
// requirement's values.
type optionSets struct {
	lists  [][]string
	index  map[string]int // the names joined by "\n"
	sorted [][]string     // each list sorted, once it was asked for
}

// newOptionSets is where the answer lists its option lists: once each with --option-sets,
// per claim (nil) without it.
func (c *commonFlags) newOptionSets() *optionSets {
	if c.optionSets {
		return &optionSets{}
	}
	return nil
}

// sortedList is list i sorted.
func (s *optionSets) sortedList(i int) []string {
	for len(s.sorted) <= i {
		s.sorted = append(s.sorted, nil)
	}
	if s.sorted[i] == nil {
		s.sorted[i] = slices.Sorted(slices.Values(s.lists[i]))
	}
	return s.sorted[i]
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

// all is every list, [] when there is none, nil when the lists are printed per claim.
func (s *optionSets) all() [][]string {
	if s == nil {
		return nil
	}
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
// values that are exactly its options.
func requirementsOutput(c *scheduling.NodeClaim, sets *optionSets, set int) []requirementOutput {
	out := make([]requirementOutput, 0, len(c.Requirements))
	for _, k := range c.Requirements.Keys() {
		out = append(out, requirementOutputs(c.Requirements[k], sets, set)...)
	}
	return out
}

// requirementOutputs are one requirement's entries of requirementsOutput.
func requirementOutputs(req *requirements.Requirement, sets *optionSets, set int) []requirementOutput {
	reqs := req.NodeSelectorRequirements()
	out := make([]requirementOutput, len(reqs))
	for i, r := range reqs {
		out[i] = requirementOutput{NodeSelectorRequirementWithMinValues: r}
		if sets != nil && r.Key == corev1.LabelInstanceTypeStable && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) > 0 &&
			slices.Equal(sortedNames(r.Values), sets.sortedList(set)) {
			out[i].Values, out[i].InstanceTypeOptionSet = nil, &set
		}
	}
	return out
}

// sortedNames is names sorted (names itself when it is: requirements list their values so).
func sortedNames(names []string) []string {
	if slices.IsSorted(names) {
		return names
	}
	return slices.Sorted(slices.Values(names))
}
