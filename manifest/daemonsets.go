package manifest

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// Labels the DaemonSet controller puts on the pods of one revision; not part of the template.
var daemonPodRevisionLabels = []string{"controller-revision-hash", "pod-template-generation"}

// daemonSetGroups are the API groups of the DaemonSets Kubernetes itself runs ("" when the
// owner reference leaves the apiVersion out).
var daemonSetGroups = map[string]bool{"apps": true, "extensions": true, "": true}

// daemonSetsFromPods derives the DaemonSets a dump holds only the pods of (kubectl get pods -A
// holds DaemonSet pods, rarely the DaemonSets): one per DaemonSet named in a pod's controller
// owner reference that given does not hold, with the template of its newest pod (by
// creationTimestamp, then name), as Karpenter takes the newest live pod as the DaemonSet's
// representative. What the DaemonSet controller wrote into the pod for its node is dropped:
// spec.nodeName and the required node-affinity matchFields term on metadata.name. The
// template's own required node affinity is not in the pods (the controller replaced it), so
// a derived DaemonSet is assumed to run wherever its nodeSelector and tolerations allow: its
// overhead is counted on at least every node it really runs on.
// It returns each DaemonSet with the pod its template came from.
func daemonSetsFromPods(given []*appsv1.DaemonSet, pods []*corev1.Pod) ([]*appsv1.DaemonSet, []*corev1.Pod) {
	known := map[key]bool{}
	for _, ds := range given {
		known[key{"DaemonSet", ds.Namespace, ds.Name}] = true
	}
	newest := map[key]*corev1.Pod{}
	var order []key
	for _, p := range pods {
		ref := controllerOf(p)
		if ref == nil || ref.Kind != "DaemonSet" || ref.Name == "" || !daemonSetGroups[apiGroup(ref.APIVersion)] {
			continue
		}
		k := key{"DaemonSet", p.Namespace, ref.Name}
		if known[k] {
			continue
		}
		prev, seen := newest[k]
		if !seen {
			order = append(order, k)
		}
		if !seen || newerPod(p, prev) {
			newest[k] = p
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].namespace != order[j].namespace {
			return order[i].namespace < order[j].namespace
		}
		return order[i].name < order[j].name
	})
	out := make([]*appsv1.DaemonSet, 0, len(order))
	from := make([]*corev1.Pod, 0, len(order))
	for _, k := range order {
		out = append(out, daemonSetOfPod(newest[k]))
		from = append(from, newest[k])
	}
	return out, from
}

// newerPod reports whether a was created after b (at the same time: whether its name sorts
// first), so the choice does not depend on input order.
func newerPod(a, b *corev1.Pod) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return b.CreationTimestamp.Before(&a.CreationTimestamp)
	}
	return a.Name < b.Name
}

// daemonSetOfPod is the DaemonSet that controls pod, with pod's spec as its template.
func daemonSetOfPod(pod *corev1.Pod) *appsv1.DaemonSet {
	ref := controllerOf(pod)
	uid := ref.UID
	if uid == "" {
		uid = derivedUID(pod.Namespace, "daemonset-"+ref.Name)
	}
	labels := maps.Clone(pod.Labels)
	for _, l := range daemonPodRevisionLabels {
		delete(labels, l)
	}
	spec := *pod.Spec.DeepCopy()
	spec.NodeName = ""
	spec.Affinity = withoutNodeNameAffinity(spec.Affinity)
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: pod.Namespace, UID: types.UID(uid)},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(labels)},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: maps.Clone(pod.Annotations)},
				Spec:       spec,
			},
		},
	}
}

// withoutNodeNameAffinity drops the required node-affinity expressions on the metadata.name
// field, which pin a DaemonSet pod to its node; terms left empty are dropped.
func withoutNodeNameAffinity(a *corev1.Affinity) *corev1.Affinity {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return a
	}
	var terms []corev1.NodeSelectorTerm
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		var fields []corev1.NodeSelectorRequirement
		for _, f := range t.MatchFields {
			if f.Key != metav1.ObjectNameField {
				fields = append(fields, f)
			}
		}
		t.MatchFields = fields
		if len(t.MatchExpressions) > 0 || len(t.MatchFields) > 0 {
			terms = append(terms, t)
		}
	}
	if len(terms) == 0 {
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = nil
	} else {
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = terms
	}
	if a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil && a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution == nil {
		a.NodeAffinity = nil
	}
	if a.NodeAffinity == nil && a.PodAffinity == nil && a.PodAntiAffinity == nil {
		return nil
	}
	return a
}

// nodesWithoutDaemon are the Nodes a DaemonSet derived from its pods has no pod for (bound, or
// pending with the node-name affinity its controller gives a pod), although its pods'
// nodeSelector and tolerations admit them: there the DaemonSet's template probably has node
// affinity its pods do not show, and its overhead is counted where it may not run.
func nodesWithoutDaemon(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods []*corev1.Pod) []string {
	has := map[string]bool{}
	for _, p := range pods {
		if ref := controllerOf(p); ref == nil || ref.Kind != "DaemonSet" || ref.Name != ds.Name || p.Namespace != ds.Namespace {
			continue
		}
		has[p.Spec.NodeName] = true
		for _, n := range nodeNameAffinity(p.Spec.Affinity) {
			has[n] = true
		}
	}
	var missing []string
	for _, n := range nodes {
		if !has[n.Name] && admits(n, &ds.Spec.Template.Spec) {
			missing = append(missing, n.Name)
		}
	}
	sort.Strings(missing)
	return missing
}

// nodeNameAffinity are the node names a pod's required node affinity pins it to.
func nodeNameAffinity(a *corev1.Affinity) []string {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	var names []string
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == metav1.ObjectNameField && f.Operator == corev1.NodeSelectorOpIn {
				names = append(names, f.Values...)
			}
		}
	}
	return names
}

// admits reports whether a pod of spec could run on the node by its nodeSelector and
// tolerations (of the NoSchedule and NoExecute taints).
func admits(n *corev1.Node, spec *corev1.PodSpec) bool {
	for k, v := range spec.NodeSelector {
		if n.Labels[k] != v {
			return false
		}
	}
	for i := range n.Spec.Taints {
		taint := &n.Spec.Taints[i]
		if taint.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		tolerated := false
		for j := range spec.Tolerations {
			tolerated = tolerated || spec.Tolerations[j].ToleratesTaint(klog.Logger{}, taint, false)
		}
		if !tolerated {
			return false
		}
	}
	return true
}

// missingDaemonMessage says what a derived DaemonSet's absence from some nodes means.
func missingDaemonMessage(nodes []string) string {
	shown, more := nodes, ""
	if len(nodes) > 3 {
		shown, more = nodes[:3], fmt.Sprintf(" and %d more", len(nodes)-3)
	}
	return fmt.Sprintf("known only from its pods, it has none on Node %s%s, which its pods' nodeSelector and tolerations admit: "+
		"its template probably has node affinity the pods do not show, so nodeplan counts its overhead on nodes it may not run on; "+
		"add the DaemonSet to the input (kubectl get daemonsets -A -o yaml) to count it exactly",
		strings.Join(shown, ", "), more)
}
