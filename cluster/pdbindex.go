package cluster

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// pdbIndex finds the PodDisruptionBudgets that select a pod without trying every selector:
// per namespace, a selector with an equality or In requirement is filed under that
// requirement's key and values (a pod lacking them cannot match), the others are tried on
// every pod of the namespace. Without it, a cluster of 10,000 pods and 100 PDBs tried a
// million selectors per reading and per Plan.
type pdbIndex map[string]*nsPDBs

type nsPDBs struct {
	// byLabel: label key -> label value -> the items whose filed requirement wants it.
	byLabel map[string]map[string][]int
	// scan are the items with no equality or In requirement (an empty selector, Exists...).
	scan []int
}

// add files item i (in namespace ns, with selector sel). A selector that matches nothing
// (a PDB without one) is not filed.
func (x pdbIndex) add(ns string, sel labels.Selector, i int) {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return
	}
	n := x[ns]
	if n == nil {
		n = &nsPDBs{byLabel: map[string]map[string][]int{}}
		x[ns] = n
	}
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			vals := n.byLabel[r.Key()]
			if vals == nil {
				vals = map[string][]int{}
				n.byLabel[r.Key()] = vals
			}
			for v := range r.Values() {
				vals[v] = append(vals[v], i)
			}
			return
		}
	}
	n.scan = append(n.scan, i)
}

// matching appends to buf the indices of the items that select p, ascending (the PDBs'
// input order), and returns it.
func (l *PDBLimits) matching(p *corev1.Pod, buf []int) []int {
	n := (*l.index)[p.Namespace]
	if n == nil {
		return buf
	}
	start := len(buf)
	set := labels.Set(p.Labels)
	for _, i := range n.scan {
		if l.items[i].sel.Matches(set) {
			buf = append(buf, i)
		}
	}
	for k, v := range p.Labels {
		for _, i := range n.byLabel[k][v] {
			if l.items[i].sel.Matches(set) {
				buf = append(buf, i)
			}
		}
	}
	slices.Sort(buf[start:])
	return buf
}
