package cluster

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// NodeClaimFor is the karpenter.sh/v1 NodeClaim named name that launches the planned claim c
// of NodePool pool (nil: a NodePool the caller does not know; the claim then has no
// nodeClassRef, expireAfter, terminationGracePeriod, annotations or owner): what
// CloudProvider.Create takes. Labels, taints and startup taints are the plan's, the
// requirements its narrowed requirements (incl. the instance-type options), the requests its
// pods' plus DaemonSet overhead. The claim shares maps and slices with c and pool.
func NodeClaimFor(c *scheduling.NodeClaim, name string, pool *v1.NodePool) *v1.NodeClaim {
	nc := &v1.NodeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.APIVersion, Kind: v1.KindNodeClaim},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: c.Labels},
		Spec: v1.NodeClaimSpec{
			Taints:        c.Taints,
			StartupTaints: c.StartupTaints,
			Requirements:  c.Requirements.NodeSelectorRequirements(),
			Resources:     v1.ResourceRequirements{Requests: c.Requests},
		},
	}
	if pool != nil {
		t := &pool.Spec.Template
		nc.Spec.NodeClassRef = t.Spec.NodeClassRef
		nc.Spec.ExpireAfter = t.Spec.ExpireAfter
		nc.Spec.TerminationGracePeriod = t.Spec.TerminationGracePeriod
		if len(t.ObjectMeta.Annotations) > 0 {
			nc.Annotations = t.ObjectMeta.Annotations
		}
		nc.OwnerReferences = []metav1.OwnerReference{{APIVersion: v1.APIVersion, Kind: v1.KindNodePool, Name: pool.Name, UID: pool.UID}}
	}
	return nc
}

// NodeFor is the Node a launched NodeClaim registers as at now: named by status.nodeName
// (else the claim's name), labelled with the claim's single-valued requirements, its labels,
// kubernetes.io/hostname and karpenter.sh/registered (and karpenter.sh/initialized when
// initialized), tainted with its taints (and, until initialized, its startup taints), with
// its status' providerID, capacity and allocatable, created at now and Ready.
func NodeFor(nc *v1.NodeClaim, now time.Time, initialized bool) *corev1.Node {
	name := nc.Status.NodeName
	if name == "" {
		name = nc.Name
	}
	labels := map[string]string{}
	if reqs, err := requirements.FromNodeSelectorRequirements(nc.Spec.Requirements...); err == nil {
		for k, v := range reqs.Labels() {
			labels[k] = v
		}
	}
	for k, v := range nc.Labels {
		labels[k] = v
	}
	labels[v1.LabelHostname] = name
	labels[v1.NodeRegisteredLabelKey] = "true"
	taints := append([]corev1.Taint(nil), nc.Spec.Taints...)
	if initialized {
		labels[v1.NodeInitializedLabelKey] = "true"
	} else {
		taints = append(taints, nc.Spec.StartupTaints...)
	}
	return &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(now)},
		Spec:       corev1.NodeSpec{ProviderID: nc.Status.ProviderID, Taints: taints},
		Status: corev1.NodeStatus{
			Capacity:    nc.Status.Capacity.DeepCopy(),
			Allocatable: nc.Status.Allocatable.DeepCopy(),
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now)}},
		},
	}
}

// ApplySolve is the snapshot after res was carried out: launched[i] is what
// CloudProvider.Create returned for res.NewNodeClaims[i] (nil: not launched, its pods stay
// where they were), added in flight with that claim's pods bound to it; the pods placed on
// existing nodes and in-flight claims are bound there. A bound pod is a shallow copy with
// spec.nodeName set to the node's (or in-flight claim's) name. Register the launched claims'
// Nodes with WithNodes (see NodeFor).
func (s *Snapshot) ApplySolve(res *scheduling.Result, launched []*v1.NodeClaim) (*Snapshot, error) {
	if len(launched) != len(res.NewNodeClaims) {
		return nil, fmt.Errorf("cluster: ApplySolve: %d launched NodeClaims for %d planned", len(launched), len(res.NewNodeClaims))
	}
	var moves []move
	for _, p := range res.ExistingNodes {
		n := s.named(p.Name)
		if n == nil {
			return nil, fmt.Errorf("cluster: ApplySolve: pods placed on node %q, which the snapshot does not hold", p.Name)
		}
		for _, pod := range p.Pods {
			moves = append(moves, move{pod, key(n)})
		}
	}
	return s.applyClaims(res.NewNodeClaims, launched, moves, nil)
}

// move is a pod and the node name it is bound to next.
type move struct {
	pod  *corev1.Pod
	dest string
}

// applyClaims adds the launched claims in flight, binds each planned claim's pods to its
// launched claim and the moves' pods to their nodes, and makes the displaced pods pending.
func (s *Snapshot) applyClaims(planned []*scheduling.NodeClaim, launched []*v1.NodeClaim, moves []move, displaced []*corev1.Pod) (*Snapshot, error) {
	var claims []*v1.NodeClaim
	for i, nc := range launched {
		if nc == nil {
			continue
		}
		claims = append(claims, nc)
		for _, pod := range planned[i].Pods {
			moves = append(moves, move{pod, nc.Name})
		}
	}
	gone := append([]*corev1.Pod(nil), displaced...)
	for _, m := range moves {
		gone = append(gone, m.pod)
	}
	c, err := s.WithoutPods(gone...).WithClaims(claims...)
	if err != nil {
		return nil, err
	}
	next := make([]*corev1.Pod, 0, len(gone))
	seen := map[string]bool{}
	for _, m := range moves {
		if k := PodKey(m.pod); !seen[k] {
			seen[k] = true
			next = append(next, boundTo(m.pod, c.bindName(m.dest)))
		}
	}
	for _, p := range displaced {
		if k := PodKey(p); !seen[k] {
			seen[k] = true
			next = append(next, boundTo(p, ""))
		}
	}
	return c.WithPods(next...)
}

// bindName is the name pods bound to the node called name carry (an in-flight claim that
// got paired with its Node on being added is bound by the Node's name).
func (s *Snapshot) bindName(name string) string {
	if n := s.named(name); n != nil {
		return key(n)
	}
	return name
}

// named is the node pods bind to by name, or whose Name() (Node name, or an in-flight
// claim's status.nodeName or name) is name, or whose NodeClaim is called name.
func (s *Snapshot) named(name string) *scheduling.Node {
	if n := s.Node(name); n != nil {
		return n
	}
	for _, n := range s.nodes {
		if n.Name() == name || (n.NodeClaim != nil && n.NodeClaim.Name == name) {
			return n
		}
	}
	return nil
}

// boundTo is a shallow copy of p with spec.nodeName set to node ("" for pending).
func boundTo(p *corev1.Pod, node string) *corev1.Pod {
	c := *p
	c.Spec.NodeName = node
	return &c
}

// ApplyCommand is the snapshot after cmd was carried out: launched[i] is what
// CloudProvider.Create returned for cmd.Replacements[i] (nil: not launched), added in flight
// with the pods the replacement was planned for bound to it; the candidates are gone, and each
// of their pods that moves (not finished, not a DaemonSet or mirror pod) is bound where
// cmd.Moves sends it: to its existing node (or in-flight claim), or to the launched claim of
// its replacement. The others are pending, for the next Solve to place: those cmd.Moves gives
// no destination, sends to a Result.Provisioned claim (the provisioner's, not the command's)
// or to a replacement not launched, and those it does not list (a terminating pod). A move to
// a node the snapshot does not hold or that the command deletes, to a replacement out of
// range, or of a pod that does not move off a candidate is an error.
//
// Each command's Moves are its own simulation's, which planned the pods of the commands
// before it in the same Result again (as Karpenter's simulations do) and may have put them
// elsewhere than those commands' Moves: after applying a command that moves pods, Plan again
// before applying a later one, or a node may get both commands' pods. (The forceful commands
// at the start of a Result share one simulation, the provisioner's, and may be applied
// together.)
func (s *Snapshot) ApplyCommand(cmd disruption.Command, launched []*v1.NodeClaim) (*Snapshot, error) {
	if len(launched) != len(cmd.Replacements) {
		return nil, fmt.Errorf("cluster: ApplyCommand: %d launched NodeClaims for %d replacements", len(launched), len(cmd.Replacements))
	}
	candidate := map[string]bool{}
	var displaced []*corev1.Pod
	for _, name := range cmd.Candidates {
		n := s.named(name)
		if n == nil {
			return nil, fmt.Errorf("cluster: ApplyCommand: candidate %q is not in the snapshot", name)
		}
		candidate[key(n)] = true
		for _, p := range n.Pods {
			if moves(p) {
				displaced = append(displaced, p)
			}
		}
	}
	dest := map[string]string{} // pod key -> the node name it is bound to next
	for _, m := range cmd.Moves {
		k := PodKey(m.Pod)
		switch {
		case m.Node != "":
			n := s.named(m.Node)
			if n == nil || candidate[key(n)] {
				return nil, fmt.Errorf("cluster: ApplyCommand: pod %s moves to node %q, which the snapshot does not hold or the command deletes", k, m.Node)
			}
			dest[k] = key(n)
		case m.Replacement >= len(launched):
			return nil, fmt.Errorf("cluster: ApplyCommand: pod %s moves to replacement %d of %d", k, m.Replacement, len(launched))
		case m.Replacement >= 0 && launched[m.Replacement] != nil:
			dest[k] = launched[m.Replacement].Name
		default:
			dest[k] = ""
		}
	}
	var bound []move
	var pending []*corev1.Pod
	for _, p := range displaced {
		k := PodKey(p)
		if d := dest[k]; d != "" {
			bound = append(bound, move{p, d})
		} else {
			pending = append(pending, p)
		}
		delete(dest, k)
	}
	if len(dest) > 0 {
		return nil, fmt.Errorf("cluster: ApplyCommand: cmd.Moves lists pods %v, which do not move off a candidate", slices.Sorted(maps.Keys(dest)))
	}
	c := s.Without(cmd.Candidates...)
	return c.applyClaims(cmd.Replacements, launched, bound, pending)
}

// moves reports whether p needs a new node when its node goes: it is not finished and not
// placed by a DaemonSet or the kubelet (mirror pod).
func moves(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || IsDaemonSetPod(p) {
		return false
	}
	_, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]
	return !mirror
}

// NodePrice is the hourly price of the named node: of the cheapest offering of its instance
// type (node.kubernetes.io/instance-type, among its NodePool's types) in its zone and
// capacity type, as disruption prices candidates. False when the node, its NodePool, type
// or offering is unknown.
func (s *Snapshot) NodePrice(name string) (float64, bool) {
	n := s.named(name)
	if n == nil {
		return 0, false
	}
	labels := n.Labels()
	pool := labels[v1.NodePoolLabelKey]
	if pool == "" && n.NodeClaim != nil {
		pool = n.NodeClaim.Labels[v1.NodePoolLabelKey]
	}
	zone, ct, typ := labels[v1.LabelTopologyZone], labels[v1.CapacityTypeLabelKey], labels[v1.LabelInstanceType]
	best := math.Inf(1)
	for _, it := range s.objs.InstanceTypes[pool] {
		if it == nil || it.Name != typ {
			continue
		}
		for _, o := range it.Offerings {
			if o != nil && o.Zone() == zone && o.CapacityType() == ct && o.Price < best {
				best = o.Price
			}
		}
	}
	if math.IsInf(best, 1) || math.IsNaN(best) {
		return 0, false
	}
	return best, true
}
