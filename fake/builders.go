package fake

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// PodBuilder builds a pod fluently; finish with Obj. Quantities are parsed with
// resource.MustParse, so invalid literals panic (these are test builders).
type PodBuilder struct {
	pod corev1.Pod
}

// Pod starts a pending, unschedulable pod named name in namespace "default" with one
// container "main" (image "pause") and no requests.
func Pod(name string) *PodBuilder {
	return &PodBuilder{pod: corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "main", Image: "pause"}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{{
				Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			}},
		},
	}}
}

// Namespace sets the namespace.
func (b *PodBuilder) Namespace(ns string) *PodBuilder { b.pod.Namespace = ns; return b }

// Label adds a label.
func (b *PodBuilder) Label(key, value string) *PodBuilder {
	if b.pod.Labels == nil {
		b.pod.Labels = map[string]string{}
	}
	b.pod.Labels[key] = value
	return b
}

// Labels adds labels.
func (b *PodBuilder) Labels(labels map[string]string) *PodBuilder {
	for k, v := range labels {
		b.Label(k, v)
	}
	return b
}

// Annotation adds an annotation.
func (b *PodBuilder) Annotation(key, value string) *PodBuilder {
	if b.pod.Annotations == nil {
		b.pod.Annotations = map[string]string{}
	}
	b.pod.Annotations[key] = value
	return b
}

// Request sets the main container's request for a resource.
func (b *PodBuilder) Request(name corev1.ResourceName, quantity string) *PodBuilder {
	c := &b.pod.Spec.Containers[0]
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	c.Resources.Requests[name] = resource.MustParse(quantity)
	return b
}

// CPU sets the main container's cpu request.
func (b *PodBuilder) CPU(quantity string) *PodBuilder { return b.Request(corev1.ResourceCPU, quantity) }

// Memory sets the main container's memory request.
func (b *PodBuilder) Memory(quantity string) *PodBuilder {
	return b.Request(corev1.ResourceMemory, quantity)
}

// Requests sets cpu and memory requests (an empty string leaves one unset).
func (b *PodBuilder) Requests(cpu, memory string) *PodBuilder {
	if cpu != "" {
		b.CPU(cpu)
	}
	if memory != "" {
		b.Memory(memory)
	}
	return b
}

// NodeSelector adds a nodeSelector entry.
func (b *PodBuilder) NodeSelector(key, value string) *PodBuilder {
	if b.pod.Spec.NodeSelector == nil {
		b.pod.Spec.NodeSelector = map[string]string{}
	}
	b.pod.Spec.NodeSelector[key] = value
	return b
}

// Toleration adds a toleration.
func (b *PodBuilder) Toleration(t corev1.Toleration) *PodBuilder {
	b.pod.Spec.Tolerations = append(b.pod.Spec.Tolerations, t)
	return b
}

// Tolerate adds a toleration for key=value:effect (operator Equal; Exists when value is "").
func (b *PodBuilder) Tolerate(key, value string, effect corev1.TaintEffect) *PodBuilder {
	op := corev1.TolerationOpEqual
	if value == "" {
		op = corev1.TolerationOpExists
	}
	return b.Toleration(corev1.Toleration{Key: key, Operator: op, Value: value, Effect: effect})
}

func (b *PodBuilder) nodeAffinity() *corev1.NodeAffinity {
	if b.pod.Spec.Affinity == nil {
		b.pod.Spec.Affinity = &corev1.Affinity{}
	}
	if b.pod.Spec.Affinity.NodeAffinity == nil {
		b.pod.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	return b.pod.Spec.Affinity.NodeAffinity
}

// NodeRequirement adds a match expression to the first required node-affinity term.
func (b *PodBuilder) NodeRequirement(key string, op corev1.NodeSelectorOperator, values ...string) *PodBuilder {
	na := b.nodeAffinity()
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	sel := na.RequiredDuringSchedulingIgnoredDuringExecution
	if len(sel.NodeSelectorTerms) == 0 {
		sel.NodeSelectorTerms = []corev1.NodeSelectorTerm{{}}
	}
	sel.NodeSelectorTerms[0].MatchExpressions = append(sel.NodeSelectorTerms[0].MatchExpressions,
		corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values})
	return b
}

// NodeRequirementTerm adds a further required node-affinity term (ORed with the others).
func (b *PodBuilder) NodeRequirementTerm(exprs ...corev1.NodeSelectorRequirement) *PodBuilder {
	na := b.nodeAffinity()
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	sel := na.RequiredDuringSchedulingIgnoredDuringExecution
	sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: exprs})
	return b
}

// PreferredNodeRequirement adds a preferred node-affinity term with one expression.
func (b *PodBuilder) PreferredNodeRequirement(weight int32, key string, op corev1.NodeSelectorOperator, values ...string) *PodBuilder {
	na := b.nodeAffinity()
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
		corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}},
		}})
	return b
}

// TopologySpread adds a DoNotSchedule spread constraint over topologyKey for pods matching
// selector.
func (b *PodBuilder) TopologySpread(topologyKey string, maxSkew int32, selector map[string]string) *PodBuilder {
	return b.TopologySpreadConstraint(corev1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: topologyKey, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: copyMap(selector)},
	})
}

// TopologySpreadConstraint adds a spread constraint as given.
func (b *PodBuilder) TopologySpreadConstraint(c corev1.TopologySpreadConstraint) *PodBuilder {
	b.pod.Spec.TopologySpreadConstraints = append(b.pod.Spec.TopologySpreadConstraints, *c.DeepCopy())
	return b
}

func (b *PodBuilder) affinity() *corev1.Affinity {
	if b.pod.Spec.Affinity == nil {
		b.pod.Spec.Affinity = &corev1.Affinity{}
	}
	return b.pod.Spec.Affinity
}

// PodAffinity adds a required pod-affinity term to pods matching selector within topologyKey.
func (b *PodBuilder) PodAffinity(topologyKey string, selector map[string]string) *PodBuilder {
	a := b.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &corev1.PodAffinity{}
	}
	a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{TopologyKey: topologyKey, LabelSelector: &metav1.LabelSelector{MatchLabels: copyMap(selector)}})
	return b
}

// PodAntiAffinity adds a required pod-anti-affinity term against pods matching selector
// within topologyKey.
func (b *PodBuilder) PodAntiAffinity(topologyKey string, selector map[string]string) *PodBuilder {
	a := b.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &corev1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution,
		corev1.PodAffinityTerm{TopologyKey: topologyKey, LabelSelector: &metav1.LabelSelector{MatchLabels: copyMap(selector)}})
	return b
}

// HostPort adds a TCP host port to the main container.
func (b *PodBuilder) HostPort(port int32) *PodBuilder {
	c := &b.pod.Spec.Containers[0]
	c.Ports = append(c.Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: corev1.ProtocolTCP})
	return b
}

// NodeName binds the pod to a node (it is then Running, not pending).
func (b *PodBuilder) NodeName(node string) *PodBuilder {
	b.pod.Spec.NodeName = node
	b.pod.Status.Phase = corev1.PodRunning
	b.pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
	return b
}

// Obj returns the pod (a fresh deep copy on every call; its UID is "<namespace>/<name>"
// unless set).
func (b *PodBuilder) Obj() *corev1.Pod {
	p := b.pod.DeepCopy()
	if p.UID == "" {
		p.UID = types.UID(p.Namespace + "/" + p.Name)
	}
	return p
}

// NodePoolBuilder builds a NodePool fluently; finish with Obj.
type NodePoolBuilder struct {
	np v1.NodePool
}

// NodePool starts a NodePool named name with nodeClassRef {karpenter.test.sh, TestNodeClass,
// default} and no requirements.
func NodePool(name string) *NodePoolBuilder {
	return &NodePoolBuilder{np: v1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.Group + "/v1", Kind: "NodePool"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.NodePoolSpec{Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
			Requirements: []v1.NodeSelectorRequirementWithMinValues{},
			NodeClassRef: &v1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"},
		}}},
	}}
}

// Requirement adds a template requirement.
func (b *NodePoolBuilder) Requirement(key string, op corev1.NodeSelectorOperator, values ...string) *NodePoolBuilder {
	b.np.Spec.Template.Spec.Requirements = append(b.np.Spec.Template.Spec.Requirements,
		v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: append([]string(nil), values...)})
	return b
}

// RequirementWithMinValues adds a template requirement with minValues.
func (b *NodePoolBuilder) RequirementWithMinValues(key string, op corev1.NodeSelectorOperator, minValues int, values ...string) *NodePoolBuilder {
	b.Requirement(key, op, values...)
	rs := b.np.Spec.Template.Spec.Requirements
	rs[len(rs)-1].MinValues = &minValues
	return b
}

// Taint adds a template taint.
func (b *NodePoolBuilder) Taint(key, value string, effect corev1.TaintEffect) *NodePoolBuilder {
	b.np.Spec.Template.Spec.Taints = append(b.np.Spec.Template.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// StartupTaint adds a template startup taint.
func (b *NodePoolBuilder) StartupTaint(key, value string, effect corev1.TaintEffect) *NodePoolBuilder {
	b.np.Spec.Template.Spec.StartupTaints = append(b.np.Spec.Template.Spec.StartupTaints, corev1.Taint{Key: key, Value: value, Effect: effect})
	return b
}

// Label adds a template label.
func (b *NodePoolBuilder) Label(key, value string) *NodePoolBuilder {
	if b.np.Spec.Template.ObjectMeta.Labels == nil {
		b.np.Spec.Template.ObjectMeta.Labels = map[string]string{}
	}
	b.np.Spec.Template.ObjectMeta.Labels[key] = value
	return b
}

// Labels adds template labels.
func (b *NodePoolBuilder) Labels(labels map[string]string) *NodePoolBuilder {
	for k, v := range labels {
		b.Label(k, v)
	}
	return b
}

// Weight sets the weight.
func (b *NodePoolBuilder) Weight(w int32) *NodePoolBuilder { b.np.Spec.Weight = &w; return b }

// Limit sets a limit (a resource name, or "nodes").
func (b *NodePoolBuilder) Limit(name corev1.ResourceName, quantity string) *NodePoolBuilder {
	if b.np.Spec.Limits == nil {
		b.np.Spec.Limits = v1.Limits{}
	}
	b.np.Spec.Limits[name] = resource.MustParse(quantity)
	return b
}

// Disruption sets the disruption block.
func (b *NodePoolBuilder) Disruption(d v1.Disruption) *NodePoolBuilder {
	d.DeepCopyInto(&b.np.Spec.Disruption)
	return b
}

// Obj returns the NodePool (a fresh deep copy on every call).
func (b *NodePoolBuilder) Obj() *v1.NodePool { return b.np.DeepCopy() }

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
