package cluster

import (
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// The edits a host makes to the objects beside pods and nodes: NodePools, DaemonSets and
// PodDisruptionBudgets added, replaced (by name) or removed, NodeClaims removed, and Objects
// to build a snapshot again from what one holds. Each is a fork: the parent stays as it was.

// Objects are the objects the snapshot holds, as New takes them: its Nodes and NodeClaims
// (paired ones in node order, then the in-flight claims), its pods (pending, then each node's
// bound pods, then those not planned), and every other object and observation as the
// snapshot has them. New(s.Objects()) is the snapshot again — the same pairings, pending,
// bound and not-planned pods and PDB reading — except for what forks mark only for
// simulations (Deleting, ClosedToMoves, the pods WithMoving added, the claims WithInFlight
// added without pairing, node order), which are no objects. The slices are new; the objects
// are shared (edit copies). Cost: O(nodes + pods).
func (s *Snapshot) Objects() Objects {
	o := s.objs
	o.Nodes, o.NodeClaims, o.Pods = nil, nil, nil
	var inFlight []*v1.NodeClaim
	pods := len(s.pending) + len(s.notPlanned)
	for _, n := range s.nodes {
		pods += len(n.Pods)
		switch {
		case n.Node != nil:
			o.Nodes = append(o.Nodes, n.Node)
			if n.NodeClaim != nil {
				o.NodeClaims = append(o.NodeClaims, n.NodeClaim)
			}
		case n.NodeClaim != nil:
			inFlight = append(inFlight, n.NodeClaim)
		}
	}
	o.NodeClaims = append(o.NodeClaims, inFlight...)
	o.Pods = make([]*corev1.Pod, 0, pods)
	o.Pods = append(o.Pods, s.pending...)
	for _, n := range s.nodes {
		o.Pods = append(o.Pods, n.Pods...)
	}
	for _, n := range s.notPlanned {
		o.Pods = append(o.Pods, n.Pod)
	}
	return o
}

// WithNodePools is the snapshot with these NodePools: one named like a NodePool of the
// snapshot replaces it (in its place), the others come after. A NodePool's instance types
// stay the snapshot's for its name (WithInstanceTypes changes them). A nil NodePool or two
// of one name are an *InvalidInputError.
func (s *Snapshot) WithNodePools(pools ...*v1.NodePool) (*Snapshot, error) {
	const op = "cluster.WithNodePools"
	if i := firstNil(pools); i >= 0 {
		return nil, nilObject(op, "NodePool", fmt.Sprintf("pools[%d]", i))
	}
	if err := refuseDuplicatePools(op, pools); err != nil {
		return nil, err
	}
	c := *s
	c.objs.NodePools = upsert(s.objs.NodePools, pools, func(np *v1.NodePool) string { return np.Name })
	return &c, nil
}

// WithoutNodePools is the snapshot without the named NodePools and their instance types.
// Unknown names are ignored; the nodes of a removed NodePool stay (as in a cluster whose
// NodePool was deleted before its nodes).
func (s *Snapshot) WithoutNodePools(names ...string) *Snapshot {
	c := *s
	c.objs.NodePools = remove(s.objs.NodePools, names, func(np *v1.NodePool) string { return np.Name })
	if len(c.objs.NodePools) != len(s.objs.NodePools) {
		c.objs.InstanceTypes = maps.Clone(s.objs.InstanceTypes)
		for _, name := range names {
			delete(c.objs.InstanceTypes, name)
		}
	}
	return &c
}

// WithDaemonSets is the snapshot with these DaemonSets, by namespace/name as WithNodePools
// takes NodePools. A nil DaemonSet or two of one namespace/name are an *InvalidInputError.
func (s *Snapshot) WithDaemonSets(daemonSets ...*appsv1.DaemonSet) (*Snapshot, error) {
	const op = "cluster.WithDaemonSets"
	if i := firstNil(daemonSets); i >= 0 {
		return nil, nilObject(op, "DaemonSet", fmt.Sprintf("daemonSets[%d]", i))
	}
	if k, dup := firstRepeated(daemonSets, dsKey); dup {
		return nil, invalid(op, InputDuplicate, "DaemonSet", k, "", "given twice")
	}
	c := *s
	c.objs.DaemonSets = upsert(s.objs.DaemonSets, daemonSets, dsKey)
	return &c, nil
}

// WithoutDaemonSets is the snapshot without the DaemonSets of these namespace/names (unknown
// ones are ignored).
func (s *Snapshot) WithoutDaemonSets(names ...string) *Snapshot {
	c := *s
	c.objs.DaemonSets = remove(s.objs.DaemonSets, names, dsKey)
	return &c
}

// WithPodDisruptionBudgets is the snapshot with these PDBs, by namespace/name as
// WithNodePools takes NodePools, read again against every pending and bound pod (O(pods):
// a new PDB counts the pods it selects). A nil PDB or two of one namespace/name are an
// *InvalidInputError.
func (s *Snapshot) WithPodDisruptionBudgets(pdbs ...*policyv1.PodDisruptionBudget) (*Snapshot, error) {
	const op = "cluster.WithPodDisruptionBudgets"
	if i := firstNil(pdbs); i >= 0 {
		return nil, nilObject(op, "PodDisruptionBudget", fmt.Sprintf("pdbs[%d]", i))
	}
	if k, dup := firstRepeated(pdbs, pdbKey); dup {
		return nil, invalid(op, InputDuplicate, "PodDisruptionBudget", k, "", "given twice")
	}
	c := *s
	c.objs.PodDisruptionBudgets = upsert(s.objs.PodDisruptionBudgets, pdbs, pdbKey)
	c.pdbs = nil // read anew: another PDB set
	c.readPDBs()
	return &c, nil
}

// WithoutPodDisruptionBudgets is the snapshot without the PDBs of these namespace/names
// (unknown ones are ignored), read again as WithPodDisruptionBudgets reads them.
func (s *Snapshot) WithoutPodDisruptionBudgets(names ...string) *Snapshot {
	c := *s
	c.objs.PodDisruptionBudgets = remove(s.objs.PodDisruptionBudgets, names, pdbKey)
	if len(c.objs.PodDisruptionBudgets) != len(s.objs.PodDisruptionBudgets) {
		c.pdbs = nil
		c.readPDBs()
	}
	return &c
}

// WithoutClaims is the snapshot without the NodeClaims of these names (unknown names are
// ignored): a Node paired with one stays, without a NodeClaim, with its pods; an in-flight
// one goes, and the pods bound to it are pending again, after the pending ones in
// namespace/name order (spec.nodeName cleared on a shallow copy), as pods nominated to a NodeClaim that is
// deleted before it launched.
func (s *Snapshot) WithoutClaims(names ...string) *Snapshot {
	gone := map[string]bool{}
	for _, name := range names {
		gone[name] = true
	}
	var pending []*corev1.Pod
	nodes := make([]*Node, 0, len(s.nodes))
	moved := false
	for _, n := range s.nodes {
		switch {
		case n.NodeClaim == nil || !gone[n.NodeClaim.Name]:
			nodes = append(nodes, n)
		case n.Node != nil:
			e := *n
			e.NodeClaim = nil
			nodes = append(nodes, &e)
		default:
			moved = true
			for _, p := range n.Pods {
				pending = append(pending, boundTo(p, ""))
			}
		}
	}
	c := *s
	c.nodes = nodes
	if moved {
		c.idx = &nameIndex{} // positions changed
	}
	if len(pending) == 0 {
		return &c
	}
	// The pods move from their claim to pending: the same names, the PDBs count them again
	// as pending (not healthy).
	c.pending = append(s.pending[:len(s.pending):len(s.pending)], pending...)
	var was []*corev1.Pod
	for _, n := range s.nodes {
		if n.Node == nil && n.NodeClaim != nil && gone[n.NodeClaim.Name] {
			was = append(was, n.Pods...)
		}
	}
	c.pdbs = s.pdbs.adjust(was, pending)
	return &c
}

func dsKey(ds *appsv1.DaemonSet) string               { return ds.Namespace + "/" + ds.Name }
func pdbKey(pdb *policyv1.PodDisruptionBudget) string { return pdb.Namespace + "/" + pdb.Name }

// upsert is list with each of items replacing the element of its key, in place, or
// appended after the others (a new slice; list is not modified).
func upsert[T any](list, items []*T, key func(*T) string) []*T {
	out := slices.Clone(list)
	at := make(map[string]int, len(out))
	for i, x := range out {
		if x != nil {
			at[key(x)] = i
		}
	}
	for _, x := range items {
		if i, ok := at[key(x)]; ok {
			out[i] = x
		} else {
			at[key(x)] = len(out)
			out = append(out, x)
		}
	}
	return out
}

// remove is list without the elements whose key is one of keys (list itself when none is).
func remove[T any](list []*T, keys []string, key func(*T) string) []*T {
	if !slices.ContainsFunc(list, func(x *T) bool { return x != nil && slices.Contains(keys, key(x)) }) {
		return list
	}
	return slices.DeleteFunc(slices.Clone(list), func(x *T) bool { return x != nil && slices.Contains(keys, key(x)) })
}

// firstRepeated is the first key of items an earlier item has, and whether there is one.
func firstRepeated[T any](items []*T, key func(*T) string) (string, bool) {
	seen := make(map[string]bool, len(items))
	for _, x := range items {
		k := key(x)
		if seen[k] {
			return k, true
		}
		seen[k] = true
	}
	return "", false
}
