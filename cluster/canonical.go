package cluster

import (
	"cmp"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// Canonical is the snapshot with the lists whose order an engine may read in a fixed order:
// the NodePools, DaemonSets and each NodePool's instance types by name, the Nodes then the
// in-flight NodeClaims by name, the pending and moving pods by namespace and name. Two
// snapshots of the same objects listed in any order have equal Canonical forms, whose
// answers from an engine that breaks ties by input order (scheduling's Karpenter mode, as
// Karpenter's map order does) are then equal too. It is a plain snapshot (not a fork:
// DroppedFrom reports nothing); s is not modified.
func (s *Snapshot) Canonical() *Snapshot {
	c := *s
	c.dropped = nil
	c.objs.NodePools = slices.SortedStableFunc(slices.Values(s.objs.NodePools), func(a, b *v1.NodePool) int { return cmp.Compare(a.Name, b.Name) })
	c.objs.DaemonSets = slices.SortedStableFunc(slices.Values(s.objs.DaemonSets), func(a, b *appsv1.DaemonSet) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	c.objs.InstanceTypes = make(map[string]cloudprovider.InstanceTypes, len(s.objs.InstanceTypes))
	for _, pool := range slices.Sorted(maps.Keys(s.objs.InstanceTypes)) {
		c.objs.InstanceTypes[pool] = slices.SortedStableFunc(slices.Values(s.objs.InstanceTypes[pool]), func(a, b *cloudprovider.InstanceType) int {
			return cmp.Compare(typeName(a), typeName(b)) // a nil entry first: the engines skip it
		})
	}
	c.nodes = slices.SortedStableFunc(slices.Values(s.nodes), func(a, b *Node) int {
		return cmp.Or(cmp.Compare(boolInt(a.Node == nil), boolInt(b.Node == nil)), cmp.Compare(key(a), key(b)))
	})
	m := make(map[string]int, len(c.nodes))
	for i, n := range c.nodes {
		m[key(n)] = i
	}
	c.idx = builtIndex(m)
	c.pending = slices.SortedStableFunc(slices.Values(s.pending), ComparePods)
	c.moving = slices.SortedStableFunc(slices.Values(s.moving), ComparePods)
	return &c
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func typeName(it *cloudprovider.InstanceType) string {
	if it == nil {
		return ""
	}
	return it.Name
}
