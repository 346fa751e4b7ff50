package verify

import (
	"net"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// key is a pod's namespace/name.
func key(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func isTerminating(p *corev1.Pod) bool { return p.DeletionTimestamp != nil }

// hasOwner reports whether any owner reference of p, controller or not, has this kind.
func hasOwner(p *corev1.Pod, kind string) bool {
	for i := range p.OwnerReferences {
		if p.OwnerReferences[i].Kind == kind {
			return true
		}
	}
	return false
}

func isMirror(p *corev1.Pod) bool {
	if _, ok := p.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return true
	}
	return hasOwner(p, "Node")
}

// mustMove: the pod needs a new node when its node goes (Karpenter's IsReschedulable): no
// DaemonSet or mirror pod; a running one, or a StatefulSet's that is terminating (whatever
// its phase: the StatefulSet makes its replacement once it is gone).
func mustMove(p *corev1.Pod) bool {
	switch {
	case hasOwner(p, "DaemonSet") || isMirror(p):
		return false
	case isTerminating(p):
		return hasOwner(p, "StatefulSet")
	}
	return !isTerminal(p)
}

// requests is what the pod asks of a node, the way the API server and kubelet see it:
// container limits default missing requests, init containers and sidecars by KEP-753, pod
// overhead, pod-level resources, resized allocations; plus one "pods".
func requests(p *corev1.Pod) corev1.ResourceList {
	q := p
	if limitsOnly(p) {
		q = p.DeepCopy()
		for _, cs := range [][]corev1.Container{q.Spec.Containers, q.Spec.InitContainers} {
			for i := range cs {
				defaultRequests(&cs[i])
			}
		}
	}
	out := resourcehelper.PodRequests(q, resourcehelper.PodResourcesOptions{UseStatusResources: true})
	pods := out[corev1.ResourcePods]
	pods.Add(*resource.NewQuantity(1, resource.DecimalSI))
	out[corev1.ResourcePods] = pods
	return out
}

func limitsOnly(p *corev1.Pod) bool {
	for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for _, c := range cs {
			for name := range c.Resources.Limits {
				if _, ok := c.Resources.Requests[name]; !ok {
					return true
				}
			}
		}
	}
	return false
}

func defaultRequests(c *corev1.Container) {
	for name, q := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[name]; ok {
			continue
		}
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		c.Resources.Requests[name] = q.DeepCopy()
	}
}

// addTo adds rl into total.
func addTo(total, rl corev1.ResourceList) {
	for name, q := range rl {
		sum := total[name]
		sum.Add(q)
		total[name] = sum
	}
}

// tolerates is Kubernetes' toleration match.
func tolerates(ts []corev1.Toleration, taint corev1.Taint) bool {
	for _, t := range ts {
		if t.Effect != "" && t.Effect != taint.Effect {
			continue
		}
		switch {
		case t.Key == "" && t.Operator == corev1.TolerationOpExists:
			return true
		case t.Key != taint.Key:
			continue
		case t.Operator == corev1.TolerationOpExists:
			return true
		case (t.Operator == "" || t.Operator == corev1.TolerationOpEqual) && t.Value == taint.Value:
			return true
		}
	}
	return false
}

// hardTaint is a taint that keeps pods away (PreferNoSchedule only scores).
func hardTaint(t corev1.Taint) bool {
	return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
}

// untolerated is the first hard taint the tolerations do not tolerate.
func untolerated(ts []corev1.Toleration, taints []corev1.Taint) (corev1.Taint, bool) {
	for _, t := range taints {
		if hardTaint(t) && !tolerates(ts, t) {
			return t, true
		}
	}
	return corev1.Taint{}, false
}

// matchesNode reports whether node satisfies the pod's nodeSelector and required node
// affinity (Kubernetes' semantics: required terms are ORed). An invalid selector matches
// nothing.
func matchesNode(p *corev1.Pod, node *corev1.Node) bool {
	ok, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(node)
	return ok && err == nil
}

// hostPort is one (ip, port, protocol) a pod binds on its node.
type hostPort struct {
	ip       string
	port     int32
	protocol corev1.Protocol
}

func hostPortsOf(p *corev1.Pod) []hostPort {
	var out []hostPort
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.HostPort == 0 {
				continue
			}
			proto := cp.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			out = append(out, hostPort{ip: cp.HostIP, port: cp.HostPort, protocol: proto})
		}
	}
	return out
}

func (a hostPort) conflicts(b hostPort) bool {
	if a.port != b.port || a.protocol != b.protocol {
		return false
	}
	return a.ip == b.ip || unspecified(a.ip) || unspecified(b.ip)
}

func unspecified(ip string) bool {
	if ip == "" {
		return true
	}
	parsed := net.ParseIP(ip)
	return parsed != nil && parsed.IsUnspecified()
}

// selector converts a label selector; nil or invalid selects nothing.
func selector(ls *metav1.LabelSelector) labels.Selector {
	if ls == nil {
		return labels.Nothing()
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return labels.Nothing()
	}
	return s
}

// ebsZoneLabel is the zone label the EBS CSI driver puts on every node (Karpenter
// normalises it to the zone), which EBS volumes' node affinity uses.
const ebsZoneLabel = "topology.ebs.csi.aws.com/zone"

// withAliases adds the deprecated aliases of normalised label keys and the EBS CSI zone (so
// a pod or volume selecting them matches a node that has the current key, as Karpenter
// treats them).
func withAliases(lbls map[string]string) map[string]string {
	out := make(map[string]string, len(lbls)+2)
	for k, v := range lbls {
		out[k] = v
	}
	aliases := map[string]string{ebsZoneLabel: v1.LabelTopologyZone}
	for alias, canonical := range v1.NormalizedLabels {
		aliases[alias] = canonical
	}
	for alias, canonical := range aliases {
		if v, ok := lbls[canonical]; ok {
			if _, has := out[alias]; !has {
				out[alias] = v
			}
		}
	}
	return out
}
