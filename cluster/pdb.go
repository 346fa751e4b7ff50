package cluster

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// PDBLimits is the one reading of PodDisruptionBudgets that scheduling (which pods of a
// Deleting node are planned again) and disruption (which nodes may be disrupted, how a drain
// proceeds) share: a PDB allows the disruptions its status says when the snapshot carries a
// status, and otherwise what Kubernetes' disruption controller would compute from the pods
// the snapshot holds, pending ones included (expected but not healthy). A Snapshot reads its
// PDBs once (see Snapshot.PDBLimits). Read-only once built; a nil PDBLimits blocks nothing.
type PDBLimits struct {
	items []pdbItem
	index *pdbIndex // shared by the readings of the same PDBs (recount, adjust)
}

type pdbItem struct {
	pdb     *policyv1.PodDisruptionBudget
	sel     labels.Selector
	status  bool
	allowed int32
	// expected and healthy are the disruption controller's counts of the pods the PDB
	// selects (without a status, allowed is computed from them): kept so that a fork that
	// adds or removes a few pods adjusts them rather than counting every pod again.
	expected, healthy int
}

// NewPDBLimits reads pdbs against pods (every pod of the cluster: bound and pending). A PDB
// without a selector selects nothing; one whose selector does not parse is ignored, as the
// disruption controller cannot compute it either.
func NewPDBLimits(pdbs []*policyv1.PodDisruptionBudget, pods []*corev1.Pod) *PDBLimits {
	l := &PDBLimits{index: &pdbIndex{}}
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
		it := pdbItem{pdb: pdb, sel: sel, status: hasPDBStatus(pdb)}
		if it.status {
			it.allowed = pdb.Status.DisruptionsAllowed
		}
		l.index.add(pdb.Namespace, sel, len(l.items))
		l.items = append(l.items, it)
	}
	return l.recount(pods)
}

// recount is l read against pods: the same PDBs and selectors, the allowances of the PDBs
// without a status computed again (what a fork that changes many pods needs).
func (l *PDBLimits) recount(pods []*corev1.Pod) *PDBLimits {
	out := &PDBLimits{items: slices.Clone(l.items), index: l.index}
	for i := range out.items {
		out.items[i].expected, out.items[i].healthy = 0, 0
	}
	out.count(pods, 1)
	out.allow()
	return out
}

// adjust is l after the pods removed left and the pods added came (each counted as the
// reading counts it): l itself when no PDB without a status selects any of them, else a
// copy with their counts and allowances changed. A fork that adds or removes a few pods
// pays for those, not for every pod of the snapshot. A nil l stays nil.
func (l *PDBLimits) adjust(removed, added []*corev1.Pod) *PDBLimits {
	if l == nil || len(removed)+len(added) == 0 {
		return l
	}
	out := &PDBLimits{items: slices.Clone(l.items), index: l.index}
	if gone, came := out.count(removed, -1), out.count(added, 1); !gone && !came {
		return l
	}
	out.allow()
	return out
}

// count adds delta to the counts of every PDB without a status for each of pods (l must
// be a reading no snapshot holds yet) and reports whether any changed. The disruption
// controller's counts: expected = the matching pods that are neither finished nor
// terminating (pending ones too), healthy = the Ready bound ones among them.
func (l *PDBLimits) count(pods []*corev1.Pod, delta int) bool {
	changed := false
	var buf [8]int
	for _, p := range pods {
		if p == nil || IsTerminal(p) || p.DeletionTimestamp != nil {
			continue
		}
		ready := p.Spec.NodeName != "" && podReady(p)
		for _, i := range l.matching(p, buf[:0]) {
			if it := &l.items[i]; !it.status {
				changed = true
				it.expected += delta
				if ready {
					it.healthy += delta
				}
			}
		}
	}
	return changed
}

// allow computes the allowance of every PDB without a status from its counts.
func (l *PDBLimits) allow() {
	for i := range l.items {
		if it := &l.items[i]; !it.status {
			it.allowed = allowedOf(it.pdb, it.expected, it.healthy)
		}
	}
}

func hasPDBStatus(pdb *policyv1.PodDisruptionBudget) bool {
	st := pdb.Status
	return st.ObservedGeneration > 0 || st.ExpectedPods > 0 || st.CurrentHealthy > 0 || st.DesiredHealthy > 0 ||
		st.DisruptionsAllowed > 0 || len(st.Conditions) > 0
}

// allowedOf is the disruption controller's arithmetic: allowed = healthy - desired, desired
// from maxUnavailable or minAvailable over the expected pods.
func allowedOf(pdb *policyv1.PodDisruptionBudget, expected, healthy int) int32 {
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

// Blocks reports whether PodDisruptionBudgets forbid evicting p now: a matching PDB allows no
// disruption (unless it lets unhealthy pods go and p is not Ready), or more than one PDB
// selects p (the eviction API refuses that). Pods Karpenter never evicts (see evicted) are
// never blocked. Which PDBs they are is Allowance's and Selecting's answer.
func (l *PDBLimits) Blocks(p *corev1.Pod) bool {
	now, _ := l.BlockingWith(nil, p)
	return now
}

// FullyBlocks reports whether PodDisruptionBudgets forbid evicting p for good, whatever the
// pods' health (Karpenter's isFullyBlocked, which decides whether capacity is provisioned for a
// pod that must leave its node): more than one PDB selects p, or the one that does is written
// to allow no disruption at all (maxUnavailable 0 or "0%", minAvailable "100%") and does not
// let p go for being unhealthy. A PDB whose allowance is merely zero now (Blocks) does not:
// that pod is evicted later, so its new home is planned now.
func (l *PDBLimits) FullyBlocks(p *corev1.Pod) bool {
	_, forGood := l.BlockingWith(nil, p)
	return forGood
}

// BlockingWith is Blocks and FullyBlocks with one look-up of the PDBs that select p, for a
// caller that asks both of every pod, remembered in m (nil: not remembered).
func (l *PDBLimits) BlockingWith(m *PDBMatches, p *corev1.Pod) (now, forGood bool) {
	if l == nil || len(l.items) == 0 || !evicted(p) {
		return false, false
	}
	var buf [8]int
	matched := m.of(l, p, buf[:0])
	switch {
	case len(matched) > 1:
		return true, true
	case len(matched) == 1:
		it := &l.items[matched[0]]
		if letsUnhealthyGo(it.pdb, p) {
			return false, false
		}
		return it.allowed <= 0, blocksEveryDisruption(it.pdb)
	}
	return false, false
}

// blocksEveryDisruption reports whether pdb's spec allows no disruption whatever the pods:
// maxUnavailable 0 or "0%", or minAvailable "100%".
func blocksEveryDisruption(pdb *policyv1.PodDisruptionBudget) bool {
	mu, ma := pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable
	return mu != nil && (mu.Type == intstr.Int && mu.IntVal == 0 || mu.Type == intstr.String && mu.StrVal == "0%") ||
		ma != nil && ma.Type == intstr.String && ma.StrVal == "100%"
}

// Allowance is the one PodDisruptionBudget that limits evicting p and how many disruptions
// it allows in all, or nil when none does (no PDB, several — Blocks says so —, or one that
// lets p go because it is unhealthy and the PDB always allows that).
func (l *PDBLimits) Allowance(p *corev1.Pod) (*policyv1.PodDisruptionBudget, int32) {
	if l == nil || !evicted(p) {
		return nil, 0
	}
	var buf [8]int
	matched := l.matching(p, buf[:0])
	if len(matched) != 1 {
		return nil, 0
	}
	found := &l.items[matched[0]]
	if letsUnhealthyGo(found.pdb, p) {
		return nil, 0
	}
	return found.pdb, found.allowed
}

// letsUnhealthyGo reports whether pdb lets p go whatever its allowance: the PDB always
// allows evicting unhealthy pods and p is not Ready.
func letsUnhealthyGo(pdb *policyv1.PodDisruptionBudget, p *corev1.Pod) bool {
	pol := pdb.Spec.UnhealthyPodEvictionPolicy
	return pol != nil && *pol == policyv1.AlwaysAllow && !podReady(p)
}

// evicted reports whether draining a node would call the eviction API for p: it is not
// finished, not terminating, not a mirror pod and does not tolerate the disrupted taint.
func evicted(p *corev1.Pod) bool {
	return !IsTerminal(p) && p.DeletionTimestamp == nil && !IsMirrorPod(p) && !ToleratesDisruptedTaint(p)
}

// PDBMatches remembers which PodDisruptionBudgets select each pod, for a host that asks the
// PDBLimits of many snapshots holding the same PDBs (forks, the steps of a simulation) about
// the same pods again and again: a pod's selectors are read once, not once per question and
// per snapshot. Its answers are for the PDBs it last read; a PDBLimits of other PDBs starts it
// anew. Keyed by pod pointer: the pods must not change while it holds them. Not safe for
// concurrent use; NewPDBMatches makes one.
type PDBMatches struct {
	index *pdbIndex
	pods  map[*corev1.Pod][]int
}

// NewPDBMatches returns an empty PDBMatches.
func NewPDBMatches() *PDBMatches { return &PDBMatches{pods: map[*corev1.Pod][]int{}} }

// of is l.matching(p, buf), remembered in m (nil: not remembered).
func (m *PDBMatches) of(l *PDBLimits, p *corev1.Pod, buf []int) []int {
	if m == nil {
		return l.matching(p, buf)
	}
	if m.index != l.index {
		m.index, m.pods = l.index, map[*corev1.Pod][]int{}
	}
	matched, ok := m.pods[p]
	if !ok {
		matched = l.matching(p, nil)
		m.pods[p] = matched
	}
	return matched
}
