package cluster

import (
	"fmt"
	"slices"
)

// refuseNils is the error for the first nil object in o's slices, naming the slice and
// index: a nil is never dropped silently, so no object of the input goes unread.
func refuseNils(o *Objects) error {
	for _, c := range []struct {
		field string
		at    int
	}{
		{"NodePools", firstNil(o.NodePools)},
		{"Nodes", firstNil(o.Nodes)},
		{"NodeClaims", firstNil(o.NodeClaims)},
		{"Pods", firstNil(o.Pods)},
		{"DaemonSets", firstNil(o.DaemonSets)},
		{"PodDisruptionBudgets", firstNil(o.PodDisruptionBudgets)},
		{"PersistentVolumeClaims", firstNil(o.PersistentVolumeClaims)},
		{"PersistentVolumes", firstNil(o.PersistentVolumes)},
		{"StorageClasses", firstNil(o.StorageClasses)},
		{"CSINodes", firstNil(o.CSINodes)},
		{"Namespaces", firstNil(o.Namespaces)},
		{"Leases", firstNil(o.Leases)},
	} {
		if c.at >= 0 {
			return fmt.Errorf("cluster: Objects.%s[%d] is nil", c.field, c.at)
		}
	}
	return nil
}

// firstNil is the index of the first nil in xs, or -1.
func firstNil[T any](xs []*T) int {
	return slices.IndexFunc(xs, func(x *T) bool { return x == nil })
}
