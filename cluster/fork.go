package cluster

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// fork is a copy of s whose node list, index and pod lists the caller may change. Every
// node, pod and object is shared with s; change a node only through edit.
func (s *Snapshot) fork() *Snapshot {
	c := *s
	c.nodes = append([]*Node(nil), s.nodes...)
	c.idx = builtIndex(maps.Clone(s.byName()))
	if c.idx.m == nil {
		c.idx.m = map[string]int{}
	}
	c.pending = append([]*corev1.Pod(nil), s.pending...)
	c.moving = append([]*corev1.Pod(nil), s.moving...)
	c.notPlanned = append([]NotPlanned(nil), s.notPlanned...)
	return &c
}

// edit replaces node i by a shallow copy of it (its own Pods slice) and returns the copy.
func (s *Snapshot) edit(i int) *Node {
	n := *s.nodes[i]
	n.Pods = append([]*corev1.Pod(nil), n.Pods...)
	s.nodes[i] = &n
	return &n
}

// key is the name pods bind to: the Node's, else the in-flight claim's own (every node of a
// snapshot has one or the other).
func key(n *Node) string {
	if n.Node != nil {
		return n.Node.Name
	}
	return n.NodeClaim.Name
}

// named are the positions, in order, of the nodes named in names (by the name pods bind to
// or by Name). Simulations name a few nodes among many: the names are looked up in the
// snapshot's index of names (built once and shared by the forks that keep every node's
// place, as Deleting and ClosedToMoves do), so that a fork costs the names, not a hash or
// a comparison of every node's; a few names on a snapshot without that index yet are
// compared node by node instead.
func (s *Snapshot) named(names []string) []int {
	var out []int
	if s.idx != nil && (len(names) > fewNames || s.idx.posBuilt.Load()) {
		if pos, ok := s.idx.positions(s.nodes); ok {
			for _, name := range names {
				if i, ok := pos[name]; ok {
					out = append(out, i)
				}
			}
			slices.Sort(out)
			return slices.Compact(out) // a name given twice, or a node's two names both given
		}
	}
	set := newNameSet(names)
	for i, n := range s.nodes {
		if set.has(n) {
			out = append(out, i)
		}
	}
	return out
}

// nameSet is a set of node names; has reports whether node n is named in it (by the name
// pods bind to or by Name). A short set is scanned rather than hashed.
type nameSet struct {
	few  []string
	many map[string]bool
}

const fewNames = 8

func newNameSet(names []string) nameSet {
	if len(names) <= fewNames {
		return nameSet{few: names}
	}
	set := nameSet{many: make(map[string]bool, len(names))}
	for _, n := range names {
		set.many[n] = true
	}
	return set
}

func (set nameSet) has(n *Node) bool {
	k, name := key(n), n.Name()
	if set.many != nil {
		return set.many[k] || (name != k && set.many[name])
	}
	for _, x := range set.few {
		if x == k || x == name {
			return true
		}
	}
	return false
}

// Without is the snapshot as if the named nodes (or in-flight NodeClaims, by the name pods
// bind to or by Name), and every pod bound to them, were gone; the other nodes keep their
// order. Unknown names are ignored. It keeps the parent's PDB reading (a simulation asks
// where the pods of these nodes would go, not whether they were ever there): a host whose
// node is gone calls WithoutPods(its pods) first, so that the PDBs count them out.
func (s *Snapshot) Without(names ...string) *Snapshot {
	c := *s
	c.nodes = make([]*Node, 0, len(s.nodes))
	var podsGone []podName
	from := 0
	at := s.named(names)
	for _, i := range at {
		c.nodes = append(c.nodes, s.nodes[from:i]...)
		podsGone = appendNames(podsGone, s.nodes[i].Pods)
		from = i + 1
	}
	c.nodes = append(c.nodes, s.nodes[from:]...)
	c.idx = &nameIndex{}
	c.names = s.names.with(&c, podsGone, nil)
	c.dropped = &dropped{parent: s.nodes, nodes: c.nodes, at: at}
	return &c
}

// Leaving is Without for nodes a simulation takes away while their pods still run there:
// Karpenter's disruption simulation schedules to none of its candidates, yet its topology
// counts every bound pod it does not plan again where that pod runs, so a candidate's pod a
// PodDisruptionBudget keeps in place holds its zone for a moving pod with affinity to it
// (difftest disrupt:1005359). scheduling.Solve counts the pods of Left that are neither
// terminal nor terminating and not among the snapshot's pending or moving pods.
func (s *Snapshot) Leaving(names ...string) *Snapshot {
	c := s.Without(names...)
	if c.dropped == nil || len(c.dropped.at) == 0 {
		return c
	}
	c.left = slices.Clip(slices.Clone(s.left))
	for _, i := range c.dropped.at {
		c.left = append(c.left, s.nodes[i])
	}
	return c
}

// Left are the nodes Leaving dropped, in the order of the snapshots they were dropped from.
func (s *Snapshot) Left() []*Node { return s.left }

// Deleting is the snapshot as if the named nodes were marked for deletion (Karpenter's
// MarkedForDeletion; see Node.MarkedDeleting): they take no new pods, and scheduling.Solve
// plans their reschedulable pods again with the pending ones, except pods with
// karpenter.sh/do-not-disrupt=true and pods PodDisruptionBudgets keep in place. Unknown
// names are ignored; every node keeps its place.
func (s *Snapshot) Deleting(names ...string) *Snapshot {
	return s.mark(names, func(n *Node) { n.markedDeleting = true })
}

// ClosedToMoves is the snapshot with the named nodes closed to moved pods (see
// Node.ClosedToMoves): Karpenter's consolidation simulations close the nodes whose
// NodePool's consolidateAfter has not elapsed since their last pod event. Unknown names are
// ignored; every node keeps its place.
func (s *Snapshot) ClosedToMoves(names ...string) *Snapshot {
	return s.mark(names, func(n *Node) { n.closedToMoves = true })
}

// WithoutDisruptedTaint is the snapshot with karpenter.sh/disrupted:NoSchedule taken off the
// named nodes' Nodes (copies; the parent keeps its objects): Karpenter's disruption controller
// removes it from every managed node no command holds, the leftover of a command that did not
// finish. Unknown names are ignored; every node keeps its place.
func (s *Snapshot) WithoutDisruptedTaint(names ...string) *Snapshot {
	return s.mark(names, func(n *Node) {
		if n.Node == nil {
			return
		}
		c := n.Node.DeepCopy()
		c.Spec.Taints = slices.DeleteFunc(c.Spec.Taints, IsDisruptedTaint)
		n.Node = c
	})
}

// IsDisruptedTaint reports whether t is karpenter.sh/disrupted:NoSchedule (any value), the
// taint a disruption command puts on its candidates.
func IsDisruptedTaint(t corev1.Taint) bool {
	return t.Key == v1.DisruptedTaintKey && t.Effect == corev1.TaintEffectNoSchedule
}

// mark is the snapshot with set applied to copies of the named nodes.
func (s *Snapshot) mark(names []string, set func(*Node)) *Snapshot {
	if len(names) == 0 {
		return s
	}
	c := *s
	c.nodes = append([]*Node(nil), s.nodes...)
	for _, i := range s.named(names) {
		cp := *c.nodes[i]
		set(&cp)
		c.nodes[i] = &cp
	}
	return &c
}

// DoNotDisruptAt is the snapshot with scheduling.Solve judging the pods of deleting nodes'
// karpenter.sh/do-not-disrupt at now (DoNotDisrupt): a pod whose duration has not elapsed
// stays in place, as Karpenter's CurrentlyReschedulablePods leaves it out, where without a
// time Solve, which has no clock, keeps only "true" in place. disruption.Plan sets its time.
func (s *Snapshot) DoNotDisruptAt(now time.Time) *Snapshot {
	c := *s
	c.doNotDisruptAt = now
	return &c
}

// DoNotDisruptTime is the time DoNotDisruptAt set (zero: none).
func (s *Snapshot) DoNotDisruptTime() time.Time { return s.doNotDisruptAt }

// WithMoving is the snapshot with these pods to place again (see Moving), after the ones
// it already moves: what a simulation does with the pods of the nodes it removed with
// Without. The pods are kept as they are (pointer, spec.nodeName); the PDB reading is the
// parent's.
func (s *Snapshot) WithMoving(pods ...*corev1.Pod) *Snapshot {
	c := *s
	c.moving = append(append(make([]*corev1.Pod, 0, len(s.moving)+len(pods)), s.moving...), pods...)
	return &c
}

// ByName is the snapshot with its nodes ordered by Name (stably), the order disruption.Plan
// judges and simulates them in.
func (s *Snapshot) ByName() *Snapshot {
	c := *s
	c.nodes = append([]*Node(nil), s.nodes...)
	sort.SliceStable(c.nodes, func(i, j int) bool { return c.nodes[i].Name() < c.nodes[j].Name() })
	c.idx = &nameIndex{}
	return &c
}

// WithClaims is the snapshot with these NodeClaims added, each paired with its Node when
// the snapshot holds one (as New pairs them) and in flight otherwise (after the other
// nodes, in the given order). A nil NodeClaim, one whose name the snapshot already holds, or
// an in-flight one named like a Node of the snapshot is an *InvalidInputError.
func (s *Snapshot) WithClaims(claims ...*v1.NodeClaim) (*Snapshot, error) {
	if len(claims) == 0 {
		return s, nil
	}
	c := s.fork()
	if err := c.addClaims("cluster.WithClaims", claims); err != nil {
		return nil, err
	}
	return c, nil
}

// WithInFlight is the snapshot with these NodeClaims in flight after the other nodes, in the
// given order, as claims just launched are: never paired with a Node (they have none yet)
// and never an error. Unlike WithClaims it does not check names: a claim named like a node
// the snapshot holds shadows it in Node and Find. disruption.Plan adds the claims it launches
// to its later simulations this way.
func (s *Snapshot) WithInFlight(claims ...*v1.NodeClaim) *Snapshot {
	c := *s
	c.nodes = make([]*Node, 0, len(s.nodes)+len(claims))
	c.nodes = append(c.nodes, s.nodes...)
	for _, nc := range claims {
		if nc != nil {
			c.nodes = append(c.nodes, &Node{NodeClaim: nc})
		}
	}
	c.idx = &nameIndex{}
	return &c
}

// addClaims pairs each claim with its Node (see pairedNode) or adds it in flight; op is the
// call its errors name. s must own its nodes and index (New, fork).
func (s *Snapshot) addClaims(op string, claims []*v1.NodeClaim) error {
	claimNames := map[string]bool{}
	byProviderID := map[string]int{}
	for i, n := range s.nodes {
		if n.NodeClaim != nil {
			claimNames[n.NodeClaim.Name] = true
		}
		if n.Node != nil && n.Node.Spec.ProviderID != "" {
			if _, seen := byProviderID[n.Node.Spec.ProviderID]; !seen {
				byProviderID[n.Node.Spec.ProviderID] = i
			}
		}
	}
	for i, nc := range claims {
		if nc == nil {
			return nilObject(op, "NodeClaim", fmt.Sprintf("NodeClaims[%d]", i))
		}
		if claimNames[nc.Name] {
			return invalid(op, InputDuplicate, "NodeClaim", nc.Name, "", "two NodeClaims of this name")
		}
		claimNames[nc.Name] = true
		if i, ok := s.pairedNode(nc, byProviderID); ok {
			s.edit(i).NodeClaim = nc
			continue
		}
		if i, taken := s.idx.m[nc.Name]; taken {
			return invalid(op, InputDuplicate, "NodeClaim", nc.Name, "", "no Node of its own, and its name is taken by Node %q", key(s.nodes[i]))
		}
		s.idx.m[nc.Name] = len(s.nodes)
		s.nodes = append(s.nodes, &Node{NodeClaim: nc})
	}
	return nil
}

// WithNodes is the snapshot with these Nodes added (registered): each takes over the
// in-flight NodeClaim it pairs with (status.nodeName, providerID or name, as New pairs them)
// together with the pods bound to that claim, which are rebound to the Node's name (shallow
// copies of the pods whose spec.nodeName changes). A nil Node, or one whose name the snapshot
// already holds as a Node, is an *InvalidInputError.
func (s *Snapshot) WithNodes(nodes ...*corev1.Node) (*Snapshot, error) {
	const op = "cluster.WithNodes"
	c := s.fork()
	for i, node := range nodes {
		if node == nil {
			return nil, nilObject(op, "Node", fmt.Sprintf("nodes[%d]", i))
		}
		if i, ok := c.idx.m[node.Name]; ok && c.nodes[i].Node != nil {
			return nil, invalid(op, InputDuplicate, "Node", node.Name, "", "the snapshot already holds a Node of this name")
		}
		i, ok := c.inFlightClaimOf(node)
		if !ok {
			c.idx.m[node.Name] = len(c.nodes)
			c.nodes = append(c.nodes, &Node{Node: node})
			continue
		}
		old := key(c.nodes[i])
		n := c.edit(i)
		n.Node = node
		for j, p := range n.Pods {
			if p.Spec.NodeName != node.Name {
				n.Pods[j] = boundTo(p, node.Name)
			}
		}
		delete(c.idx.m, old)
		c.idx.m[node.Name] = i
	}
	return c, nil
}

// inFlightClaimOf is the index of the in-flight NodeClaim node registers for.
func (s *Snapshot) inFlightClaimOf(node *corev1.Node) (int, bool) {
	for i, n := range s.nodes {
		if n.Node != nil || n.NodeClaim == nil {
			continue
		}
		nc := n.NodeClaim
		if nc.Status.NodeName == node.Name || (nc.Status.ProviderID != "" && nc.Status.ProviderID == node.Spec.ProviderID) {
			return i, true
		}
	}
	for i, n := range s.nodes {
		if n.Node == nil && n.NodeClaim != nil && n.NodeClaim.Name == node.Name {
			return i, true
		}
	}
	return 0, false
}

// WithInstanceTypes is the snapshot with the instance types of each NodePool replaced by
// types (as GetInstanceTypes answers them now: offerings found out of capacity unavailable).
// Types New would refuse (no name, a nil offering, a negative price) are an
// *InvalidInputError.
func (s *Snapshot) WithInstanceTypes(types map[string]cloudprovider.InstanceTypes) (*Snapshot, error) {
	if err := checkInstanceTypes("cluster.WithInstanceTypes", types); err != nil {
		return nil, err
	}
	c := *s
	c.objs.InstanceTypes = types
	if c.objs.InstanceTypes == nil {
		c.objs.InstanceTypes = map[string]cloudprovider.InstanceTypes{}
	}
	return &c, nil
}

// WithInterruptions is the snapshot with its interruption events replaced by events (those
// the host read from the cloud since).
func (s *Snapshot) WithInterruptions(events ...interruption.Event) *Snapshot {
	c := *s
	c.objs.Interruptions = events
	return &c
}

// WithRepairPolicies is the snapshot with the cloud's repair policies replaced.
func (s *Snapshot) WithRepairPolicies(policies ...cloudprovider.RepairPolicy) *Snapshot {
	c := *s
	c.objs.RepairPolicies = policies
	return &c
}

// WithProviderDrift is the snapshot with the cloud's IsDrifted answers replaced.
func (s *Snapshot) WithProviderDrift(drift map[string]cloudprovider.DriftReason) *Snapshot {
	c := *s
	c.objs.ProviderDrift = drift
	return &c
}
