package cluster

import (
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/manifest"
)

// ObjectsOf are a manifest set's objects (its interruption messages included), with the
// instance types of each NodePool. The slices are the set's own (New never modifies them).
// RepairPolicies and ProviderDrift come from the cloud: set them on the result.
func ObjectsOf(set *manifest.Set, instanceTypes map[string]cloudprovider.InstanceTypes) Objects {
	return Objects{
		NodePools:              set.NodePools,
		InstanceTypes:          instanceTypes,
		Nodes:                  set.Nodes,
		NodeClaims:             set.NodeClaims,
		Pods:                   set.Pods,
		DaemonSets:             set.DaemonSets,
		PodDisruptionBudgets:   set.PodDisruptionBudgets,
		PersistentVolumeClaims: set.PersistentVolumeClaims,
		PersistentVolumes:      set.PersistentVolumes,
		StorageClasses:         set.StorageClasses,
		CSINodes:               set.CSINodes,
		Leases:                 set.Leases,
		Namespaces:             set.Namespaces,
		Interruptions:          set.Interruptions,
	}
}

// FromSet is New over a manifest set's objects (see ObjectsOf).
func FromSet(set *manifest.Set, instanceTypes map[string]cloudprovider.InstanceTypes) (*Snapshot, error) {
	return New(ObjectsOf(set, instanceTypes))
}
