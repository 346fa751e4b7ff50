package scheduling

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// reschedulablePods are the pods of nodes marked for deletion that must find a new home (a
// pod with karpenter.sh/do-not-disrupt, or one whose eviction PodDisruptionBudgets forbid,
// keeps its node's deletion waiting instead).
func reschedulablePods(nodes []*Node, pdbs *PDBLimits) []*corev1.Pod {
	var out []*corev1.Pod
	for _, n := range nodes {
		if !(n.MarkedForDeletion || (n.Node != nil && n.Node.DeletionTimestamp != nil)) {
			continue
		}
		for _, p := range n.Pods {
			if p != nil && isReschedulable(p) && p.Annotations[v1.DoNotDisruptAnnotationKey] != "true" && pdbs.Blocking(p) == "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// pdbLimits is the Input's reading of the PodDisruptionBudgets, or one computed from the
// pods this Solve sees (pending and bound) when the caller gave none.
func (s *solver) pdbLimits() *PDBLimits {
	if s.in.PDBLimits != nil || len(s.in.PodDisruptionBudgets) == 0 {
		return s.in.PDBLimits
	}
	pods := append([]*corev1.Pod(nil), s.in.Pods...)
	for _, n := range s.nodes {
		pods = append(pods, n.Pods...)
	}
	return NewPDBLimits(s.in.PodDisruptionBudgets, pods)
}

// isReschedulable: not a DaemonSet or static pod, not finished, and not already terminating
// (except StatefulSet pods, whose replacement needs the same identity elsewhere).
func isReschedulable(p *corev1.Pod) bool {
	if isTerminal(p) {
		return false
	}
	owner := controllerKind(p)
	if owner == "DaemonSet" || owner == "Node" {
		return false
	}
	return p.DeletionTimestamp == nil || owner == "StatefulSet"
}

// PDBLimits is the one reading of PodDisruptionBudgets that scheduling (which pods of a node
// marked for deletion are planned again) and disruption (which nodes may be disrupted) share:
// a PDB allows the disruptions its status says when the snapshot carries a status, and
// otherwise what Kubernetes' disruption controller would compute from the pods the snapshot
// holds, pending ones included (expected but not healthy).
type PDBLimits struct {
	items []pdbItem
}

type pdbItem struct {
	pdb     *policyv1.PodDisruptionBudget
	sel     labels.Selector
	allowed int32
}

// NewPDBLimits reads pdbs against pods (every pod of the cluster: bound and pending). A PDB
// without a selector selects nothing; one whose selector does not parse is ignored, as the
// disruption controller cannot compute it either.
func NewPDBLimits(pdbs []*policyv1.PodDisruptionBudget, pods []*corev1.Pod) *PDBLimits {
	l := &PDBLimits{}
	for _, pdb := range pdbs {
		if pdb == nil {
			continue
		}
		sel := labels.Nothing()
		if pdb.Spec.Selector != nil {
			x, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err != nil {
				continue
			}
			sel = x
		}
		it := pdbItem{pdb: pdb, sel: sel}
		if hasPDBStatus(pdb) {
			it.allowed = pdb.Status.DisruptionsAllowed
		} else {
			it.allowed = computeAllowed(pdb, sel, pods)
		}
		l.items = append(l.items, it)
	}
	return l
}

func hasPDBStatus(pdb *policyv1.PodDisruptionBudget) bool {
	st := pdb.Status
	return st.ObservedGeneration > 0 || st.ExpectedPods > 0 || st.CurrentHealthy > 0 || st.DesiredHealthy > 0 ||
		st.DisruptionsAllowed > 0 || len(st.Conditions) > 0
}

// computeAllowed is the disruption controller's arithmetic: expected = the matching pods that
// are neither finished nor terminating (pending ones too), healthy = the Ready ones among
// them, allowed = healthy - desired.
func computeAllowed(pdb *policyv1.PodDisruptionBudget, sel labels.Selector, pods []*corev1.Pod) int32 {
	expected, healthy := 0, 0
	for _, p := range pods {
		if p == nil || p.Namespace != pdb.Namespace || isTerminal(p) || p.DeletionTimestamp != nil || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		expected++
		if p.Spec.NodeName != "" && PodReady(p) {
			healthy++
		}
	}
	desired := 0
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		mu, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, expected, true)
		if err != nil {
			return 0
		}
		desired = max(expected-mu, 0)
	case pdb.Spec.MinAvailable != nil:
		ma, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, expected, true)
		if err != nil {
			return 0
		}
		desired = ma
	}
	return int32(max(healthy-desired, 0))
}

// Blocking says why PodDisruptionBudgets forbid evicting p now ("" when they do not): a
// matching PDB allows no disruption (unless it lets unhealthy pods go and p is not Ready), or
// more than one PDB selects p (the eviction API refuses that). Pods Karpenter never evicts
// (finished, terminating, static, tolerating the disrupted taint) are never blocked. A nil
// PDBLimits blocks nothing.
func (l *PDBLimits) Blocking(p *corev1.Pod) string {
	if l == nil || len(l.items) == 0 || !evicted(p) {
		return ""
	}
	var matched []*pdbItem
	for i := range l.items {
		it := &l.items[i]
		if it.pdb.Namespace == p.Namespace && it.sel.Matches(labels.Set(p.Labels)) {
			matched = append(matched, it)
		}
	}
	switch {
	case len(matched) > 1:
		return fmt.Sprintf("pod %s/%s is selected by more than one PodDisruptionBudget (%s/%s, %s/%s)", p.Namespace, p.Name,
			matched[0].pdb.Namespace, matched[0].pdb.Name, matched[1].pdb.Namespace, matched[1].pdb.Name)
	case len(matched) == 1 && matched[0].allowed <= 0:
		pdb := matched[0].pdb
		if pdb.Spec.UnhealthyPodEvictionPolicy != nil && *pdb.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow && !PodReady(p) {
			return ""
		}
		return fmt.Sprintf("PodDisruptionBudget %s/%s allows no disruption of pod %s/%s", pdb.Namespace, pdb.Name, p.Namespace, p.Name)
	}
	return ""
}

// Allowance is the one PodDisruptionBudget that limits evicting p and how many disruptions
// it allows in all, or nil when none does (no PDB, several — Blocking says so —, or one that
// lets p go because it is unhealthy and the PDB always allows that).
func (l *PDBLimits) Allowance(p *corev1.Pod) (*policyv1.PodDisruptionBudget, int32) {
	if l == nil || !evicted(p) {
		return nil, 0
	}
	var found *pdbItem
	for i := range l.items {
		it := &l.items[i]
		if it.pdb.Namespace == p.Namespace && it.sel.Matches(labels.Set(p.Labels)) {
			if found != nil {
				return nil, 0
			}
			found = it
		}
	}
	if found == nil {
		return nil, 0
	}
	if pol := found.pdb.Spec.UnhealthyPodEvictionPolicy; pol != nil && *pol == policyv1.AlwaysAllow && !PodReady(p) {
		return nil, 0
	}
	return found.pdb, found.allowed
}

// evicted reports whether draining a node would call the eviction API for p.
func evicted(p *corev1.Pod) bool {
	if isTerminal(p) || p.DeletionTimestamp != nil || controllerKind(p) == "Node" {
		return false
	}
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return false
	}
	return !toleratesDisrupted(p)
}

// ToleratesDisruptedTaint reports whether p tolerates karpenter.sh/disrupted:NoSchedule, so
// that a drain leaves it where it is.
func ToleratesDisruptedTaint(p *corev1.Pod) bool { return toleratesDisrupted(p) }

// toleratesDisrupted: the pod tolerates karpenter.sh/disrupted:NoSchedule, so a drain leaves it.
func toleratesDisrupted(p *corev1.Pod) bool {
	for _, t := range p.Spec.Tolerations {
		keyOK := t.Key == v1.DisruptedTaintKey || (t.Key == "" && t.Operator == corev1.TolerationOpExists)
		effOK := t.Effect == "" || t.Effect == corev1.TaintEffectNoSchedule
		if keyOK && effOK && (t.Operator == corev1.TolerationOpExists || t.Value == "") {
			return true
		}
	}
	return false
}

// PodReady reports the pod's Ready condition (without one: whether it is Running).
func PodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return p.Status.Phase == corev1.PodRunning
}

// controllerKind is the kind of the pod's controller (or of its first owner).
func controllerKind(p *corev1.Pod) string {
	owner := ""
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller || owner == "" {
			owner = o.Kind
		}
	}
	return owner
}
