package cluster

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// The pod rules scheduling and disruption share: one implementation each. Where the two
// engines read a rule differently, both readings are here, named apart, and each says why.

// PodKey is a pod's namespace/name.
func PodKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// IsTerminal reports whether p has finished (Succeeded or Failed).
func IsTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// IsDaemonSetPod reports whether a DaemonSet owns p (any owner reference).
func IsDaemonSetPod(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}

// ControllerKind is the kind of p's controller: the last owner reference marked as
// controller, else the first owner reference ("" without owners).
func ControllerKind(p *corev1.Pod) string {
	owner := ""
	for _, o := range p.OwnerReferences {
		if (o.Controller != nil && *o.Controller) || owner == "" {
			owner = o.Kind
		}
	}
	return owner
}

// IsMirrorPod reports whether p is a static pod's mirror: it carries the
// kubernetes.io/config.mirror annotation or a Node controls it. Only the kubelet places it.
func IsMirrorPod(p *corev1.Pod) bool {
	_, ok := p.Annotations[corev1.MirrorPodAnnotationKey]
	return ok || ControllerKind(p) == "Node"
}

// IsReschedulable reports whether p needs a new node when its node is disrupted: it is not
// finished, not a DaemonSet's (any owner) or mirror pod, and not terminating (except a
// StatefulSet pod, whose replacement needs the same identity elsewhere). disruption.Plan's
// rule for a candidate's pods.
func IsReschedulable(p *corev1.Pod) bool {
	if IsTerminal(p) || IsDaemonSetPod(p) || IsMirrorPod(p) {
		return false
	}
	return p.DeletionTimestamp == nil || ControllerKind(p) == "StatefulSet"
}

// IsReschedulableByController is scheduling.Solve's reading of IsReschedulable for the pods
// of Draining nodes: DaemonSet and Node ownership come from ControllerKind only and the
// mirror annotation is not read. The two readings differ only for a mirror-annotated pod no
// Node controls and a DaemonSet owner that is not the controller; both are kept, as they
// were before issue #8, so that no result changes.
func IsReschedulableByController(p *corev1.Pod) bool {
	if IsTerminal(p) {
		return false
	}
	owner := ControllerKind(p)
	if owner == "DaemonSet" || owner == "Node" {
		return false
	}
	return p.DeletionTimestamp == nil || owner == "StatefulSet"
}

// PodReady reports p's Ready condition (without one: whether it is Running).
func PodReady(p *corev1.Pod) bool {
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
// time it is active), and the annotation as the reasons quote it. Other values are ignored.
// scheduling.Solve has no clock and reads only "true" (see its reschedulable pods).
func DoNotDisrupt(p *corev1.Pod, now time.Time) (bool, string) {
	v, ok := p.Annotations[v1.DoNotDisruptAnnotationKey]
	if !ok {
		return false, ""
	}
	if v == "true" {
		return true, "true"
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return false, ""
	}
	if p.Status.StartTime == nil {
		return true, v + " (pod has no start time)"
	}
	until := p.Status.StartTime.Add(d)
	if now.Before(until) {
		return true, fmt.Sprintf("%s, until %s", v, until.UTC().Format(time.RFC3339))
	}
	return false, ""
}

// NeedsNewNode reports whether disruption.Apply takes p off a candidate node that goes: it
// is not finished, not a DaemonSet's, and carries no mirror annotation. Looser than
// IsReschedulable (a terminating pod counts: it becomes not planned rather than lost).
func NeedsNewNode(p *corev1.Pod) bool {
	if IsTerminal(p) || IsDaemonSetPod(p) {
		return false
	}
	_, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]
	return !mirror
}
