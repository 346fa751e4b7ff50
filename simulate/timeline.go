package simulate

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/manifest"
)

// APIVersion and Kind of a Timeline document.
const (
	APIVersion   = "nodeplan.io/v1alpha1"
	TimelineKind = "Timeline"
)

// Timeline is what happens to the cluster over the simulated time: a duration and the
// events within it. ParseTimeline reads it from YAML:
//
//	apiVersion: nodeplan.io/v1alpha1
//	kind: Timeline
//	duration: 24h
//	events:
//	- at: 8h
//	  scale: {namespace: shop, name: web, replicas: 40}
//	- at: 12h
//	  interrupt: {instanceType: m5.large, fraction: 0.5}
//	- at: 20h
//	  deletePods: {namespace: shop, selector: {matchLabels: {app: batch}}}
type Timeline struct {
	// Duration is how long the simulation runs from its start.
	Duration time.Duration
	// Events in the order given; Run carries them out by At, those at the same offset in
	// this order.
	Events []TimelineEvent
}

// TimelineEvent is one thing that happens at At (an offset from the start): exactly one of Scale,
// DeletePods, AddPods, Interrupt and Apply is set.
type TimelineEvent struct {
	At         time.Duration
	Scale      *Scale
	DeletePods *PodSelection
	AddPods    *PodSelection
	Interrupt  *Interrupt
	Apply      *Apply
	// Source says where the event was read ("day.yaml: events[3]"), for messages.
	Source string
}

// Action is the event's kind, as its YAML key: scale, deletePods, addPods, interrupt or
// apply.
func (e TimelineEvent) Action() string {
	switch {
	case e.Scale != nil:
		return "scale"
	case e.DeletePods != nil:
		return "deletePods"
	case e.AddPods != nil:
		return "addPods"
	case e.Interrupt != nil:
		return "interrupt"
	case e.Apply != nil:
		return "apply"
	}
	return ""
}

// Scale sets the replicas of a Deployment, ReplicaSet or StatefulSet of the input (Kind
// empty: whichever of them has the name): its controller adds pods (a Deployment's named
// <name>-<index> from the first free index, a StatefulSet's at the next ordinals) or deletes
// them (a StatefulSet's highest ordinals first; otherwise Kubernetes' ReplicaSet order:
// unbound, then not running, then lower pod-deletion-cost, then the node running more of the
// workload's pods, then the newest).
type Scale struct {
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Replicas  int32  `json:"replicas"`
}

// PodSelection chooses pods by Owner (a workload of the input, or any controller kind and
// name) or by Selector, in Namespace ("default" when empty). DeletePods deletes Count of the
// selected pods (all when Count is nil) for good, as deleting their workload does, in the
// order Scale deletes; AddPods adds Count pending pods: made from the owner workload's
// template, or copies of the first selected pod by name (named <pod>-<n>).
type PodSelection struct {
	Namespace string                `json:"namespace,omitempty"`
	Owner     *Owner                `json:"owner,omitempty"`
	Selector  *metav1.LabelSelector `json:"selector,omitempty"`
	Count     *int32                `json:"count,omitempty"`
}

// Owner names a pod's controller: a workload of the input (Deployment, ReplicaSet,
// StatefulSet, Job) or any controller owner reference.
type Owner struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

// Interrupt sends spot interruption warnings for the spot nodes that match InstanceType,
// Zone and NodePool (each when set): Fraction of them (rounded up; default all) or Count
// of them, chosen by a hash of their names (the same nodes for the same cluster). Karpenter
// deletes each at once and the instance is gone Settings.InterruptionWarning later; the
// interrupted offerings are unavailable for Settings.UnavailableFor.
type Interrupt struct {
	InstanceType string   `json:"instanceType,omitempty"`
	Zone         string   `json:"zone,omitempty"`
	NodePool     string   `json:"nodePool,omitempty"`
	Fraction     *float64 `json:"fraction,omitempty"`
	Count        *int32   `json:"count,omitempty"`
}

// Apply replaces objects mid-run, a configuration change: each NodePool replaces the
// NodePool of its name (or is added), each PodDisruptionBudget the one of its namespace and
// name. Objects is what the YAML gave (inline objects, or a file named by `file`, relative
// to the timeline), read by package manifest.
type Apply struct {
	Objects *manifest.Set
}
