package cluster

import (
	"fmt"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

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

// WithNodesFor is the snapshot after the launched claims' Nodes registered at now
// (NodeFor each, then WithNodes: each Node takes over its in-flight claim and the pods bound
// to it), initialized or not; nil claims (launches the cloud refused) are skipped, so the
// launched slice of cloudprovider.Launch can be passed as it is. A host whose Nodes
// register by themselves reads them from its cluster instead; a simulated one (the fake
// cloud) calls this after applying a plan. Errors are WithNodes' (and a nil snapshot's).
func (s *Snapshot) WithNodesFor(launched []*v1.NodeClaim, now time.Time, initialized bool) (*Snapshot, error) {
	if s == nil {
		return nil, nilSnapshot("cluster.WithNodesFor")
	}
	nodes := make([]*corev1.Node, 0, len(launched))
	for _, nc := range launched {
		if nc != nil {
			nodes = append(nodes, NodeFor(nc, now, initialized))
		}
	}
	return s.WithNodes(nodes...)
}

// NodeClaimsOf is the NodeClaim of each named node (Find: a disruption command's
// Candidates), in order: what cloudprovider.Terminate deletes. A name the snapshot does not
// hold (InputNotFound), or a node without a NodeClaim (its machine is no claim's to delete;
// InputInvalid), is an *InvalidInputError.
func (s *Snapshot) NodeClaimsOf(names ...string) ([]*v1.NodeClaim, error) {
	const op = "cluster.NodeClaimsOf"
	if s == nil {
		return nil, nilSnapshot(op)
	}
	out := make([]*v1.NodeClaim, len(names))
	for i, name := range names {
		n := s.Find(name)
		switch {
		case n == nil:
			return nil, invalid(op, InputNotFound, "Node", name, "", "not in the snapshot")
		case n.NodeClaim == nil:
			return nil, invalid(op, InputInvalid, "Node", name, "", "has no NodeClaim")
		}
		out[i] = n.NodeClaim
	}
	return out, nil
}

// Move is where a plan sends one pod — the one shape of it both engines and the apply
// helpers share: scheduling.Result.Bindings are the pods Solve binds to nodes of the
// snapshot, a disruption command's Moves (disruption.PodMove, which adds why a pod has no
// destination) the pods it displaces, and Carry binds them. A move to a node of the snapshot
// sets To (which wins over Claim), one to a new NodeClaim sets Claim (0 is the first), one
// without destination neither (Claim -1).
type Move struct {
	// Pod is the pod as the plan has it.
	Pod *corev1.Pod
	// From is the node the pod leaves: its spec.nodeName, a disruption candidate's name ("" for
	// a pending pod).
	From string
	// To names the node of the snapshot the pod goes to, as Find reads names: an existing
	// node or in-flight NodeClaim ("" when it goes to a new NodeClaim or nowhere).
	To string
	// Claim is the index, among the plan's new NodeClaims (Solve's NewNodeClaims, a command's
	// Replacements), of the one the pod goes to when To is empty; -1 when none.
	Claim int
}

// Carry is the primitive scheduling.Apply and disruption.Apply carry plans out with:
// launched[i] is the NodeClaim launched for the plan's new claim i (nil: not launched); the
// snapshot with the launched claims added (WithClaims: paired with their Node when it is
// there, in flight otherwise), each move's pod bound to its node (To, read by Find once the
// claims were added, or the launched claim of Claim; a move without destination or to a
// claim not launched is left out, its pod stays where the snapshot holds it), and the
// displaced pods pending. A
// bound pod is a shallow copy with spec.nodeName set to its node's BindName, a pending one
// with spec.nodeName cleared; each pod is taken from wherever the snapshot held it (by
// namespace/name), once (the first move wins, then displaced). Errors are
// *InvalidInputError: a nil snapshot, a nil pod, a Claim out of launched's range
// (InputMismatch), and WithClaims' and WithPods'.
func (s *Snapshot) Carry(launched []*v1.NodeClaim, moves []Move, displaced []*corev1.Pod) (*Snapshot, error) {
	const op = "cluster.Carry"
	if s == nil {
		return nil, nilSnapshot(op)
	}
	for i, m := range moves {
		if m.Pod == nil {
			return nil, nilObject(op, "Pod", fmt.Sprintf("moves[%d].Pod", i))
		}
	}
	if i := firstNil(displaced); i >= 0 {
		return nil, nilObject(op, "Pod", fmt.Sprintf("displaced[%d]", i))
	}
	claims := make([]*v1.NodeClaim, 0, len(launched))
	for _, nc := range launched {
		if nc != nil {
			claims = append(claims, nc)
		}
	}
	to := make([]string, len(moves)) // the node each move binds to ("": dropped)
	gone := append([]*corev1.Pod(nil), displaced...)
	for i, m := range moves {
		switch {
		case m.To != "":
			to[i] = m.To
		case m.Claim < 0:
		case m.Claim >= len(launched):
			return nil, invalid(op, InputMismatch, "Pod", PodKey(m.Pod), "", "moves to new NodeClaim %d of %d launched", m.Claim, len(launched))
		case launched[m.Claim] != nil:
			to[i] = launched[m.Claim].Name
		}
		if to[i] != "" {
			gone = append(gone, m.Pod)
		}
	}
	c, err := s.WithoutPods(gone...).WithClaims(claims...)
	if err != nil {
		return nil, err
	}
	next := make([]*corev1.Pod, 0, len(gone))
	seen := map[string]bool{}
	for i, m := range moves {
		if k := PodKey(m.Pod); to[i] != "" && !seen[k] {
			seen[k] = true
			next = append(next, boundTo(m.Pod, c.bindName(to[i])))
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
	if n := s.Find(name); n != nil {
		return key(n)
	}
	return name
}

// BindName is the name pods bound to the node carry in spec.nodeName: its Node's name, else
// the in-flight NodeClaim's own name. n must have one of them, as every node of a snapshot has.
func (n *Node) BindName() string { return key(n) }

// Find is the node a plan's name refers to: the one pods bind to by name (Node), else the
// one whose Name is name (a Node's name, an in-flight claim's status.nodeName or name), else
// the one whose NodeClaim is called name; nil when there is none.
func (s *Snapshot) Find(name string) *Node {
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

// NodePrice is the hourly price of the named node: of the cheapest offering of its instance
// type (node.kubernetes.io/instance-type, among its NodePool's types) in its zone and
// capacity type, as disruption prices candidates. False when the node, its NodePool, type
// or offering is unknown.
func (s *Snapshot) NodePrice(name string) (float64, bool) {
	n := s.Find(name)
	if n == nil {
		return 0, false
	}
	return s.nodePrice(n)
}

// Price is the hourly price of the whole snapshot: the sum of NodePrice over every node,
// in-flight claims included, and the names of the nodes it could not price (unknown
// NodePool, instance type or offering), which the sum leaves out.
func (s *Snapshot) Price() (total float64, unpriced []string) {
	for _, n := range s.Nodes() {
		if p, ok := s.nodePrice(n); ok {
			total += p
		} else {
			unpriced = append(unpriced, n.Name())
		}
	}
	return total, unpriced
}

func (s *Snapshot) nodePrice(n *Node) (float64, bool) {
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
