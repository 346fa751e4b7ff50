package cluster

import (
	"fmt"
	"slices"
)

// refuseNils is the error for the first nil object in o's slices, naming the slice and
// index: a nil is never dropped silently, so no object of the input goes unread.
func refuseNils(o *Objects) error {
	for _, c := range []struct {
		field, kind string
		at          int
	}{
		{"NodePools", "NodePool", firstNil(o.NodePools)},
		{"Nodes", "Node", firstNil(o.Nodes)},
		{"NodeClaims", "NodeClaim", firstNil(o.NodeClaims)},
		{"Pods", "Pod", firstNil(o.Pods)},
		{"DaemonSets", "DaemonSet", firstNil(o.DaemonSets)},
		{"PodDisruptionBudgets", "PodDisruptionBudget", firstNil(o.PodDisruptionBudgets)},
		{"PersistentVolumeClaims", "PersistentVolumeClaim", firstNil(o.PersistentVolumeClaims)},
		{"PersistentVolumes", "PersistentVolume", firstNil(o.PersistentVolumes)},
		{"StorageClasses", "StorageClass", firstNil(o.StorageClasses)},
		{"CSINodes", "CSINode", firstNil(o.CSINodes)},
		{"Namespaces", "Namespace", firstNil(o.Namespaces)},
		{"Leases", "Lease", firstNil(o.Leases)},
	} {
		if c.at >= 0 {
			return nilObject("cluster.New", c.kind, fmt.Sprintf("Objects.%s[%d]", c.field, c.at))
		}
	}
	return nil
}

// nilObject is the error for a nil object of kind at field.
func nilObject(op, kind, field string) *InvalidInputError {
	return invalid(op, InputNil, kind, "", field, "is nil")
}

// nilSnapshot is the error of op for a nil *Snapshot.
func nilSnapshot(op string) *InvalidInputError {
	return invalid(op, InputNil, "Snapshot", "", "", "nil snapshot")
}

// firstNil is the index of the first nil in xs, or -1.
func firstNil[T any](xs []*T) int {
	return slices.IndexFunc(xs, func(x *T) bool { return x == nil })
}
