package cluster

import (
	"cmp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// The pod rules scheduling and disruption share: one implementation each.

// PodKey is a pod's namespace/name.
func PodKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// ComparePods orders pods by namespace, then name: the order the API server lists them in,
// which lists of pods use so that the input's order never shows in a result.
func ComparePods(a, b *corev1.Pod) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// sortPods sorts a node's bound pods with ComparePods: what iterates over them (a drain's
// evictions, the first pod a PDB blocks, sums of eviction costs) then never sees the input's
// order.
func sortPods(pods []*corev1.Pod) { slices.SortStableFunc(pods, ComparePods) }

// IsTerminal reports whether p has finished (Succeeded or Failed).
func IsTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// IsDaemonSetPod reports whether a DaemonSet owns p (any owner reference, see OwnedBy).
func IsDaemonSetPod(p *corev1.Pod) bool { return OwnedBy(p, "DaemonSet") }

// OwnedBy reports whether one of p's owner references, controller or not, is of kind, as
// Karpenter's IsOwnedBy reads ownership. The kind alone decides, whatever the apiVersion
// (Karpenter also wants apps/v1, or v1 for a Node): a DaemonSet-like controller of another
// group still runs one pod per node (see README.md, "deliberately does better").
func OwnedBy(p *corev1.Pod, kind string) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == kind {
			return true
		}
	}
	return false
}

// IsMirrorPod reports whether p is a static pod's mirror: a Node owns it or it carries the
// kubernetes.io/config.mirror annotation (Karpenter reads only the owner; the kubelet sets
// both, and the annotation alone still marks a pod only the kubelet places).
func IsMirrorPod(p *corev1.Pod) bool {
	_, ok := p.Annotations[corev1.MirrorPodAnnotationKey]
	return ok || OwnedBy(p, "Node")
}

// IsReschedulable reports whether p needs a new node when its node goes, Karpenter's one
// rule for the provisioner (pods of deleting nodes) and the disruption controller (a
// candidate's pods): not a DaemonSet's or mirror pod, and active (neither finished nor
// terminating), except that a terminating StatefulSet pod counts (finished or not: its
// replacement needs the same identity elsewhere once it is gone).
func IsReschedulable(p *corev1.Pod) bool {
	if IsDaemonSetPod(p) || IsMirrorPod(p) {
		return false
	}
	if p.DeletionTimestamp != nil {
		return OwnedBy(p, "StatefulSet")
	}
	return !IsTerminal(p)
}

// podReady reports p's Ready condition (without one: whether it is Running).
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return p.Status.Phase == corev1.PodRunning
}

// ToleratesDisruptedTaint reports whether p tolerates karpenter.sh/disrupted:NoSchedule, so
// that a drain leaves it where it is.
func ToleratesDisruptedTaint(p *corev1.Pod) bool {
	for _, t := range p.Spec.Tolerations {
		keyOK := t.Key == v1.DisruptedTaintKey || (t.Key == "" && t.Operator == corev1.TolerationOpExists)
		effOK := t.Effect == "" || t.Effect == corev1.TaintEffectNoSchedule
		if keyOK && effOK && (t.Operator == corev1.TolerationOpExists || t.Value == "") {
			return true
		}
	}
	return false
}

// DoNotDisrupt reports whether p's karpenter.sh/do-not-disrupt annotation is active at now
// ("true", or a positive duration not yet elapsed since the pod started; without a start
// time it is active), and for a duration with a start time, when it ends. Other values are
// ignored.
// scheduling.Solve has no clock and reads only "true" (see its reschedulable pods).
func DoNotDisrupt(p *corev1.Pod, now time.Time) (active bool, until *time.Time) {
	v, ok := p.Annotations[v1.DoNotDisruptAnnotationKey]
	if !ok {
		return false, nil
	}
	if v == "true" {
		return true, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return false, nil
	}
	if p.Status.StartTime == nil {
		return true, nil
	}
	end := p.Status.StartTime.Add(d).UTC()
	if now.Before(end) {
		return true, &end
	}
	return false, nil
}

// NeedsNewNode reports whether disruption.Apply takes p off a candidate node that goes: it
// is not finished, not a DaemonSet's and not a mirror pod. Looser than IsReschedulable (a
// terminating pod counts: it becomes not planned rather than lost).
func NeedsNewNode(p *corev1.Pod) bool {
	return !IsTerminal(p) && !IsDaemonSetPod(p) && !IsMirrorPod(p)
}
