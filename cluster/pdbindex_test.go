package cluster

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

// TestPDBIndexFindsWhatEverySelectorFinds: the index's matches are exactly the PDBs whose
// namespace and selector take the pod, in input order, and the allowances are the disruption
// controller's counts over every pod (the reading without an index, spelled out here).
func TestPDBIndexFindsWhatEverySelectorFinds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pdbs := rapid.SliceOfN(pdbGen(), 0, 8).Draw(t, "pdbs")
		pods := rapid.SliceOfN(podGen(), 0, 20).Draw(t, "pods")
		for i, pdb := range pdbs {
			pdb.Name = fmt.Sprintf("pdb-%d", i)
		}
		l := NewPDBLimits(pdbs, pods)
		for _, p := range pods {
			var want []int
			for i, it := range l.items {
				if it.pdb.Namespace == p.Namespace && it.sel.Matches(labels.Set(p.Labels)) {
					want = append(want, i)
				}
			}
			if got := l.matching(p, nil); !assert.Equal(t, want, got, "pod %s %v", PodKey(p), p.Labels) {
				t.FailNow()
			}
		}
		for _, it := range l.items {
			if it.status {
				continue
			}
			expected, healthy := 0, 0
			for _, p := range pods {
				if p.Namespace == it.pdb.Namespace && !IsTerminal(p) && p.DeletionTimestamp == nil && it.sel.Matches(labels.Set(p.Labels)) {
					expected++
					if p.Spec.NodeName != "" && podReady(p) {
						healthy++
					}
				}
			}
			require.Equal(t, allowedOf(it.pdb, expected, healthy), it.allowed, it.pdb.Name)
		}
		// A fork's recount over fewer pods equals a fresh reading of them.
		some := pods[:len(pods)/2]
		require.Equal(t, allowances(NewPDBLimits(pdbs, some)), allowances(l.recount(some)))
	})
}

func allowances(l *PDBLimits) []int32 {
	var out []int32
	for _, it := range l.items {
		out = append(out, it.allowed)
	}
	return out
}

var (
	pdbNamespaces = []string{"a", "b"}
	pdbKeys       = []string{"app", "tier", "x"}
	pdbValues     = []string{"1", "2", "3"}
)

func pdbGen() *rapid.Generator[*policyv1.PodDisruptionBudget] {
	return rapid.Custom(func(t *rapid.T) *policyv1.PodDisruptionBudget {
		pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Namespace: rapid.SampledFrom(pdbNamespaces).Draw(t, "ns")}}
		if rapid.IntRange(0, 5).Draw(t, "selector") > 0 {
			sel := &metav1.LabelSelector{}
			for _, k := range pdbKeys {
				if rapid.IntRange(0, 3).Draw(t, "label-"+k) == 0 {
					if sel.MatchLabels == nil {
						sel.MatchLabels = map[string]string{}
					}
					sel.MatchLabels[k] = rapid.SampledFrom(pdbValues).Draw(t, "value-"+k)
				}
			}
			for range rapid.IntRange(0, 2).Draw(t, "expressions") {
				op := rapid.SampledFrom([]metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn,
					metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}).Draw(t, "op")
				r := metav1.LabelSelectorRequirement{Key: rapid.SampledFrom(pdbKeys).Draw(t, "key"), Operator: op}
				if op == metav1.LabelSelectorOpIn || op == metav1.LabelSelectorOpNotIn {
					r.Values = rapid.SliceOfNDistinct(rapid.SampledFrom(pdbValues), 1, 3, rapid.ID[string]).Draw(t, "values")
				}
				sel.MatchExpressions = append(sel.MatchExpressions, r)
			}
			pdb.Spec.Selector = sel
		}
		if rapid.Bool().Draw(t, "maxUnavailable") {
			mu := intstr.FromInt32(rapid.Int32Range(0, 2).Draw(t, "mu"))
			pdb.Spec.MaxUnavailable = &mu
		} else {
			ma := intstr.FromString(rapid.SampledFrom([]string{"0%", "50%", "100%"}).Draw(t, "ma"))
			pdb.Spec.MinAvailable = &ma
		}
		if rapid.IntRange(0, 3).Draw(t, "status") == 0 {
			pdb.Status.ObservedGeneration = 1
			pdb.Status.DisruptionsAllowed = rapid.Int32Range(0, 2).Draw(t, "allowed")
		}
		return pdb
	})
}

func podGen() *rapid.Generator[*corev1.Pod] {
	return rapid.Custom(func(t *rapid.T) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: rapid.SampledFrom(pdbNamespaces).Draw(t, "ns"),
			Name: fmt.Sprint(rapid.IntRange(0, 1000).Draw(t, "name"))}}
		for _, k := range pdbKeys {
			if rapid.Bool().Draw(t, "has-"+k) {
				if p.Labels == nil {
					p.Labels = map[string]string{}
				}
				p.Labels[k] = rapid.SampledFrom(pdbValues).Draw(t, "value-"+k)
			}
		}
		if rapid.Bool().Draw(t, "bound") {
			p.Spec.NodeName = "n"
		}
		p.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{corev1.PodRunning, corev1.PodPending, corev1.PodSucceeded}).Draw(t, "phase")
		if rapid.IntRange(0, 5).Draw(t, "terminating") == 0 {
			now := metav1.Now()
			p.DeletionTimestamp = &now
		}
		return p
	})
}

// TestPropPDBMatchesChangeNothing: BlockingWith a PDBMatches kept over readings of the same
// PDBs (other pods: other allowances) and of other PDBs answers what it answers without.
func TestPropPDBMatchesChangeNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pdbs := rapid.SliceOfN(pdbGen(), 0, 8).Draw(t, "pdbs")
		others := rapid.SliceOfN(pdbGen(), 0, 8).Draw(t, "other pdbs")
		pods := rapid.SliceOfN(podGen(), 0, 20).Draw(t, "pods")
		for i, pdb := range append(append([]*policyv1.PodDisruptionBudget(nil), pdbs...), others...) {
			pdb.Name = fmt.Sprintf("pdb-%d", i)
		}
		l := NewPDBLimits(pdbs, pods)
		readings := []*PDBLimits{l, l.recount(pods[:len(pods)/2]), l.adjust(pods[len(pods)/2:], nil), NewPDBLimits(others, pods), l}
		m := NewPDBMatches()
		for ri, r := range readings {
			for _, p := range pods {
				now, forGood := r.BlockingWith(m, p)
				wantNow, wantForGood := r.BlockingWith(nil, p)
				if now != wantNow || forGood != wantForGood {
					t.Fatalf("reading %d, pod %s %v: BlockingWith m %v %v, nil %v %v", ri, PodKey(p), p.Labels, now, forGood, wantNow, wantForGood)
				}
			}
		}
	})
}
