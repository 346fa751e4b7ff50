package cluster

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/scheduling"
)

// fork is a shallow copy of s whose node list and index the caller may change. Every node,
// pod and object is shared with s; change a node only through edit.
func (s *Snapshot) fork() *Snapshot {
	c := *s
	c.nodes = append([]*scheduling.Node(nil), s.nodes...)
	c.byName = make(map[string]int, len(s.byName))
	for k, v := range s.byName {
		c.byName[k] = v
	}
	c.pending = append([]*corev1.Pod(nil), s.pending...)
	c.notPlanned = append([]NotPlanned(nil), s.notPlanned...)
	return &c
}

// edit replaces node i by a shallow copy of it (its own Pods slice) and returns the copy.
func (s *Snapshot) edit(i int) *scheduling.Node {
	n := *s.nodes[i]
	n.Pods = append([]*corev1.Pod(nil), n.Pods...)
	s.nodes[i] = &n
	return &n
}

// reindex rebuilds byName after nodes were removed.
func (s *Snapshot) reindex() {
	s.byName = make(map[string]int, len(s.nodes))
	for i, n := range s.nodes {
		s.byName[key(n)] = i
	}
}

// key is the name pods bind to: the Node's, else the in-flight claim's own.
func key(n *scheduling.Node) string {
	if n.Node != nil {
		return n.Node.Name
	}
	return n.NodeClaim.Name
}

// Without is the snapshot as if the named nodes (or in-flight NodeClaims), and every pod
// bound to them, were gone. Unknown names are ignored.
func (s *Snapshot) Without(names ...string) *Snapshot {
	gone := map[string]bool{}
	for _, n := range names {
		gone[n] = true
	}
	c := s.fork()
	kept := c.nodes[:0]
	for _, n := range c.nodes {
		if !gone[key(n)] && !gone[n.Name()] {
			kept = append(kept, n)
		}
	}
	c.nodes = kept
	c.reindex()
	return c
}

// WithoutPods is the snapshot as if these pods (matched by namespace/name: pending, bound or
// not planned) were gone.
func (s *Snapshot) WithoutPods(pods ...*corev1.Pod) *Snapshot {
	gone := map[string]bool{}
	for _, p := range pods {
		gone[PodKey(p)] = true
	}
	c := s.fork()
	c.pending = dropPods(c.pending, gone)
	np := c.notPlanned[:0]
	for _, n := range c.notPlanned {
		if !gone[PodKey(n.Pod)] {
			np = append(np, n)
		}
	}
	c.notPlanned = np
	for i, n := range c.nodes {
		for _, p := range n.Pods {
			if gone[PodKey(p)] {
				e := c.edit(i)
				e.Pods = dropPods(e.Pods, gone)
				break
			}
		}
	}
	return c
}

func dropPods(pods []*corev1.Pod, gone map[string]bool) []*corev1.Pod {
	out := pods[:0]
	for _, p := range pods {
		if !gone[PodKey(p)] {
			out = append(out, p)
		}
	}
	return out
}

// WithPods is the snapshot with these pods added: bound to their spec.nodeName, pending, or
// not planned, as New sorts them. A pod whose namespace/name the snapshot already holds is
// an error.
func (s *Snapshot) WithPods(pods ...*corev1.Pod) (*Snapshot, error) {
	known := s.podKeys()
	c := s.fork()
	edited := map[int]bool{}
	for _, p := range pods {
		if p == nil {
			return nil, fmt.Errorf("cluster: a nil Pod")
		}
		k := PodKey(p)
		if known[k] {
			return nil, fmt.Errorf("cluster: Pod %q: the snapshot already holds a pod of this name", k)
		}
		known[k] = true
		switch r := c.notPlannedReason(p); {
		case r != "":
			c.notPlanned = append(c.notPlanned, NotPlanned{Pod: p, Reason: r})
		case p.Spec.NodeName != "":
			i := c.byName[p.Spec.NodeName]
			n := c.nodes[i]
			if !edited[i] {
				n, edited[i] = c.edit(i), true
			}
			n.Pods = append(n.Pods, p)
		default:
			c.pending = append(c.pending, p)
		}
	}
	sortNotPlanned(c.notPlanned)
	return c, nil
}

// podKeys are the namespace/names of every pod the snapshot holds.
func (s *Snapshot) podKeys() map[string]bool {
	out := map[string]bool{}
	for _, p := range s.pending {
		out[PodKey(p)] = true
	}
	for _, n := range s.notPlanned {
		out[PodKey(n.Pod)] = true
	}
	for _, n := range s.nodes {
		for _, p := range n.Pods {
			out[PodKey(p)] = true
		}
	}
	return out
}

// WithClaims is the snapshot with these NodeClaims added, each paired with its Node when
// the snapshot holds one (as New pairs them) and in flight otherwise. A NodeClaim whose name
// the snapshot already holds is an error.
func (s *Snapshot) WithClaims(claims ...*v1.NodeClaim) (*Snapshot, error) {
	c := s.fork()
	if err := c.addClaims(claims); err != nil {
		return nil, err
	}
	return c, nil
}

// addClaims pairs each claim with its Node (see pairedNode) or adds it in flight.
func (s *Snapshot) addClaims(claims []*v1.NodeClaim) error {
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
	for _, nc := range claims {
		if nc == nil {
			return fmt.Errorf("cluster: a nil NodeClaim")
		}
		if claimNames[nc.Name] {
			return fmt.Errorf("cluster: NodeClaim %q: two NodeClaims of this name", nc.Name)
		}
		claimNames[nc.Name] = true
		if i, ok := s.pairedNode(nc, byProviderID); ok {
			s.edit(i).NodeClaim = nc
			continue
		}
		if i, taken := s.byName[nc.Name]; taken {
			return fmt.Errorf("cluster: NodeClaim %q: no Node of its own, and its name is taken by Node %q", nc.Name, key(s.nodes[i]))
		}
		s.byName[nc.Name] = len(s.nodes)
		s.nodes = append(s.nodes, &scheduling.Node{NodeClaim: nc})
	}
	return nil
}

// WithNodes is the snapshot with these Nodes added (registered): each takes over the
// in-flight NodeClaim it pairs with (status.nodeName, providerID or name, as New pairs them)
// together with the pods bound to that claim, which are rebound to the Node's name (shallow
// copies of the pods whose spec.nodeName changes). A Node whose name the snapshot already holds as
// a Node is an error.
func (s *Snapshot) WithNodes(nodes ...*corev1.Node) (*Snapshot, error) {
	c := s.fork()
	for _, node := range nodes {
		if node == nil {
			return nil, fmt.Errorf("cluster: a nil Node")
		}
		if i, ok := c.byName[node.Name]; ok && c.nodes[i].Node != nil {
			return nil, fmt.Errorf("cluster: Node %q: the snapshot already holds a Node of this name", node.Name)
		}
		i, ok := c.inFlightClaimOf(node)
		if !ok {
			c.byName[node.Name] = len(c.nodes)
			c.nodes = append(c.nodes, &scheduling.Node{Node: node})
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
		delete(c.byName, old)
		c.byName[node.Name] = i
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
func (s *Snapshot) WithInstanceTypes(types map[string]cloudprovider.InstanceTypes) *Snapshot {
	c := *s
	c.objs.InstanceTypes = types
	return &c
}
