package scheduling

import (
	"slices"
	"sort"

	"github.com/nodeplan/nodeplan/cluster"
)

// Solve's last stage: the placements and failures as a Result.

// result assembles the output in a deterministic order.
func (s *solver) result(pods []*podData, errs map[*podData]podFailure) *Result {
	r := &Result{}
	for _, c := range s.claims {
		r.NewNodeClaims = append(r.NewNodeClaims, s.finalize(c, errs))
	}
	// a claim whose pods all failed finalisation is dropped
	kept := r.NewNodeClaims[:0]
	for _, c := range r.NewNodeClaims {
		if c != nil {
			kept = append(kept, c)
		}
	}
	r.NewNodeClaims = kept
	// The nodes with pods placed, in existing's order (not every node's list is read).
	on := slices.Clone(s.placedOn)
	slices.Sort(on)
	placed := 0
	for _, i := range on {
		placed += len(s.existing[i].placed)
	}
	if placed > 0 {
		r.Bindings = make([]cluster.Move, 0, placed)
	}
	for _, i := range on {
		n := s.existing[i]
		for _, p := range n.placed {
			r.Bindings = append(r.Bindings, cluster.Move{Pod: p.pod, From: p.pod.Spec.NodeName, To: n.name, Claim: -1})
		}
	}
	sort.SliceStable(r.Bindings, func(i, j int) bool { return r.Bindings[i].To < r.Bindings[j].To })
	for _, p := range pods {
		if failure, ok := errs[p]; ok {
			r.PodErrors = append(r.PodErrors, newPodError(p.pod, failure, s.nodeCauses(p)))
		}
	}
	// By namespace and name, not input order: the same pods in another order give the
	// same result.
	slices.SortStableFunc(r.PodErrors, func(a, b PodError) int { return cluster.ComparePods(a.Pod, b.Pod) })
	return r
}
