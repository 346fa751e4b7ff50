package fake

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// Describe is a compact one-line account of a drawn object, for test logs: rapid prints a
// generated value with %#v, which for Kubernetes objects is mostly pointers, so every
// generator here also logs Describe of what it drew (shown with a failing case). It knows
// pods, NodePools, instance types, Nodes and DaemonSets (and slices of them, one per line);
// anything else is printed with %v.
//
//	pod default/p-3 app=web cpu=1500m mem=2Gi nodeSelector{zone=test-zone-1} spread{zone maxSkew=1} anti{hostname app=web} port=8001
//	nodepool nodepool-0 zone∈[test-zone-1] ct∈[spot] taint{team=team-a:NoSchedule} weight=10 limit{cpu=400}
//	type gen-it-0 amd64 cpu=4 mem=16Gi pods=32 offers[test-zone-1/spot 0.042 test-zone-2/on-demand 0.1 (unavailable)]
func Describe(v any) string {
	switch x := v.(type) {
	case *corev1.Pod:
		return describePod(x)
	case []*corev1.Pod:
		return describeAll(x, describePod)
	case *v1.NodePool:
		return describePool(x)
	case []*v1.NodePool:
		return describeAll(x, describePool)
	case *cloudprovider.InstanceType:
		return describeType(x)
	case cloudprovider.InstanceTypes:
		return describeAll(x, describeType)
	case *corev1.Node:
		return describeNode(x)
	case *appsv1.DaemonSet:
		if x == nil {
			return "<nil DaemonSet>"
		}
		return fmt.Sprintf("daemonset %s/%s with %s", x.Namespace, x.Name, describeSpec(&x.Spec.Template.Spec))
	}
	return fmt.Sprintf("%v", v)
}

func describeAll[T any](xs []T, one func(T) string) string {
	lines := make([]string, len(xs))
	for i, x := range xs {
		lines[i] = one(x)
	}
	return strings.Join(lines, "\n")
}

func describePod(p *corev1.Pod) string {
	if p == nil {
		return "<nil pod>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pod %s/%s", p.Namespace, p.Name)
	for _, k := range slices.Sorted(maps.Keys(p.Labels)) {
		fmt.Fprintf(&b, " %s=%s", k, p.Labels[k])
	}
	if p.Spec.NodeName != "" {
		fmt.Fprintf(&b, " on=%s", p.Spec.NodeName)
	}
	if spec := describeSpec(&p.Spec); spec != "" {
		b.WriteString(" " + spec)
	}
	return b.String()
}

// describeSpec is a pod spec's requests and scheduling constraints.
func describeSpec(s *corev1.PodSpec) string {
	var parts []string
	for _, c := range s.Containers {
		for _, name := range slices.Sorted(maps.Keys(c.Resources.Requests)) {
			q := c.Resources.Requests[name]
			parts = append(parts, fmt.Sprintf("%s=%s", shortKey(string(name)), q.String()))
		}
	}
	if len(s.NodeSelector) > 0 {
		parts = append(parts, "nodeSelector"+braces(s.NodeSelector))
	}
	for _, t := range s.Tolerations {
		parts = append(parts, fmt.Sprintf("tolerates{%s=%s:%s}", t.Key, t.Value, t.Effect))
	}
	if a := s.Affinity; a != nil {
		if na := a.NodeAffinity; na != nil && na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
			for _, term := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				for _, e := range term.MatchExpressions {
					parts = append(parts, fmt.Sprintf("requires{%s %s %v}", shortKey(e.Key), e.Operator, e.Values))
				}
			}
		}
		if pa := a.PodAffinity; pa != nil {
			for _, t := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
				parts = append(parts, fmt.Sprintf("affinity{%s %s}", shortKey(t.TopologyKey), selectorText(t.LabelSelector.MatchLabels)))
			}
		}
		if pa := a.PodAntiAffinity; pa != nil {
			for _, t := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
				parts = append(parts, fmt.Sprintf("anti{%s %s}", shortKey(t.TopologyKey), selectorText(t.LabelSelector.MatchLabels)))
			}
		}
	}
	for _, c := range s.TopologySpreadConstraints {
		extra := ""
		if c.MinDomains != nil {
			extra += fmt.Sprintf(" minDomains=%d", *c.MinDomains)
		}
		if c.NodeTaintsPolicy != nil {
			extra += " taints=" + string(*c.NodeTaintsPolicy)
		}
		if c.NodeAffinityPolicy != nil {
			extra += " affinity=" + string(*c.NodeAffinityPolicy)
		}
		parts = append(parts, fmt.Sprintf("spread{%s maxSkew=%d %s%s}", shortKey(c.TopologyKey), c.MaxSkew, c.WhenUnsatisfiable, extra))
	}
	for _, c := range s.Containers {
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				parts = append(parts, fmt.Sprintf("port=%d", p.HostPort))
			}
		}
	}
	return strings.Join(parts, " ")
}

func describePool(np *v1.NodePool) string {
	if np == nil {
		return "<nil NodePool>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "nodepool %s", np.Name)
	for _, r := range np.Spec.Template.Spec.Requirements {
		fmt.Fprintf(&b, " %s %s %v", shortKey(r.Key), r.Operator, r.Values)
	}
	for _, t := range np.Spec.Template.Spec.Taints {
		fmt.Fprintf(&b, " taint{%s=%s:%s}", t.Key, t.Value, t.Effect)
	}
	if np.Spec.Weight != nil {
		fmt.Fprintf(&b, " weight=%d", *np.Spec.Weight)
	}
	for _, name := range slices.Sorted(maps.Keys(np.Spec.Limits)) {
		q := np.Spec.Limits[name]
		fmt.Fprintf(&b, " limit{%s=%s}", name, q.String())
	}
	return b.String()
}

func describeType(it *cloudprovider.InstanceType) string {
	if it == nil {
		return "<nil instance type>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "type %s", it.Name)
	if r := it.Requirements.Get(v1.LabelArch); r != nil && r.Len() > 0 {
		fmt.Fprintf(&b, " %s", strings.Join(r.Values(), "|"))
	}
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
		if q, ok := it.Capacity[name]; ok {
			fmt.Fprintf(&b, " %s=%s", shortKey(string(name)), q.String())
		}
	}
	var offs []string
	for _, o := range it.Offerings {
		if o == nil {
			offs = append(offs, "<nil>")
			continue
		}
		s := fmt.Sprintf("%s/%s %g", o.Zone(), o.CapacityType(), o.Price)
		if !o.Available {
			s += " (unavailable)"
		}
		offs = append(offs, s)
	}
	fmt.Fprintf(&b, " offers[%s]", strings.Join(offs, ", "))
	return b.String()
}

func describeNode(n *corev1.Node) string {
	if n == nil {
		return "<nil Node>"
	}
	l := n.Labels
	return fmt.Sprintf("node %s pool=%s type=%s zone=%s ct=%s taints=%d", n.Name, l[v1.NodePoolLabelKey], l[v1.LabelInstanceType],
		l[v1.LabelTopologyZone], l[v1.CapacityTypeLabelKey], len(n.Spec.Taints))
}

// shortKey drops the well-known prefixes of label and resource keys.
func shortKey(k string) string {
	for _, prefix := range []string{"topology.kubernetes.io/", "kubernetes.io/", "karpenter.sh/", "node.kubernetes.io/"} {
		k = strings.TrimPrefix(k, prefix)
	}
	if k == "memory" {
		return "mem"
	}
	return k
}

func braces(m map[string]string) string { return "{" + selectorText(m) + "}" }

func selectorText(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, shortKey(k)+"="+m[k])
	}
	return strings.Join(parts, ",")
}
