package verify

import (
	"fmt"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// daemonPod is the pod a DaemonSet runs on every node it selects.
func daemonPod(d *appsv1.DaemonSet) *corev1.Pod {
	p := &corev1.Pod{Spec: d.Spec.Template.Spec}
	p.Namespace, p.Name = d.Namespace, d.Name
	p.Labels = d.Spec.Template.Labels
	return p
}

// daemonsOn are the DaemonSet pods that will run on l and are not bound there yet: those
// whose node affinity matches its labels and who tolerate its hard taints.
func daemonsOn(daemons []*appsv1.DaemonSet, l *location) []*corev1.Pod {
	boundDS := map[string]bool{}
	for _, p := range l.bound {
		for _, o := range p.OwnerReferences {
			if o.Kind == "DaemonSet" {
				boundDS[p.Namespace+"/"+o.Name] = true
			}
		}
	}
	var out []*corev1.Pod
	for _, d := range daemons {
		if d == nil || boundDS[d.Namespace+"/"+d.Name] {
			continue
		}
		p := daemonPod(d)
		if hasResourceClaims(p) {
			continue // Karpenter leaves DRA out of its overhead (IgnoreDRARequests)
		}
		if _, bad := untolerated(p.Spec.Tolerations, l.taints); bad {
			continue
		}
		if matchesNode(p, l.k8s) {
			out = append(out, p)
		}
	}
	return out
}

// checkFit checks the placed pods of l against its resources, labels, taints, host ports
// and volumes.
func (w *world) checkFit(l *location) []Violation {
	var out []Violation
	daemons := daemonsOn(w.snap.DaemonSets(), l)
	if l.launched {
		out = append(out, resourcesFit(l, daemons)...)
	}
	for _, p := range l.placed {
		if !matchesNode(p, l.k8s) {
			v := l.violation(NodeSelectorMismatch)
			v.Pod = key(p)
			out = append(out, v)
		}
		if t, bad := untolerated(p.Spec.Tolerations, l.taints); bad {
			v := l.violation(TaintNotTolerated)
			v.Pod, v.Key = key(p), t.ToString()
			out = append(out, v)
		}
		out = append(out, w.volumeTopology(l, p)...)
	}
	out = append(out, hostPortConflicts(l, daemons)...)
	return out
}

// resourcesFit: bound pods, placed pods and DaemonSet pods still to come fit allocatable.
func resourcesFit(l *location, daemons []*corev1.Pod) []Violation {
	total := corev1.ResourceList{}
	for _, p := range l.pods() {
		addTo(total, requests(p))
	}
	for _, d := range daemons {
		addTo(total, requests(d))
	}
	names := make([]string, 0, len(total))
	for name := range total {
		names = append(names, string(name))
	}
	sort.Strings(names)
	var out []Violation
	for _, n := range names {
		name := corev1.ResourceName(n)
		want := total[name]
		if want.Sign() <= 0 {
			continue
		}
		have := l.alloc[name]
		if want.Cmp(have) > 0 {
			v := l.violation(ResourcesExceeded)
			v.Key, v.Got, v.Limit = n, amount(name, want), amount(name, have)
			out = append(out, v)
		}
	}
	return out
}

// hostPortConflicts lists pairs of pods on l (at least one of them placed, or a DaemonSet
// pod to come) that bind the same host port.
func hostPortConflicts(l *location, daemons []*corev1.Pod) []Violation {
	type user struct {
		pod    *corev1.Pod
		port   hostPort
		placed bool
	}
	var users []user
	add := func(p *corev1.Pod, placed bool) {
		for _, hp := range hostPortsOf(p) {
			users = append(users, user{p, hp, placed})
		}
	}
	for _, p := range l.bound {
		add(p, false)
	}
	for _, d := range daemons {
		add(d, l.claim >= 0) // on a new node the DaemonSet arrives with the plan
	}
	for _, p := range l.placed {
		add(p, true)
	}
	var out []Violation
	reported := map[[2]string]bool{}
	for i := range users {
		for j := i + 1; j < len(users); j++ {
			a, b := users[i], users[j]
			if a.pod == b.pod || !(a.placed || b.placed) || !a.port.conflicts(b.port) {
				continue
			}
			pair := [2]string{key(a.pod), key(b.pod)}
			if reported[pair] {
				continue
			}
			reported[pair] = true
			v := l.violation(HostPortConflict)
			v.Pod, v.OtherPod = key(b.pod), key(a.pod)
			v.Key = fmt.Sprintf("%s/%d", b.port.protocol, b.port.port)
			out = append(out, v)
		}
	}
	return out
}

// amount is a quantity as a Violation's number: millicores for cpu, units otherwise.
func amount(name corev1.ResourceName, q resource.Quantity) int64 {
	if name == corev1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}

// hasResourceClaims: the pod asks for devices through Dynamic Resource Allocation.
func hasResourceClaims(p *corev1.Pod) bool {
	if len(p.Spec.ResourceClaims) > 0 {
		return true
	}
	for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for _, c := range cs {
			if len(c.Resources.Claims) > 0 {
				return true
			}
		}
	}
	return false
}
