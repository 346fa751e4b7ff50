package cluster

import (
	"time"

	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// SchedulingInput is the snapshot as scheduling.Solve's input, with opts. The input shares
// the snapshot's slices: neither Solve nor the caller may modify them.
func (s *Snapshot) SchedulingInput(opts scheduling.Options) *scheduling.Input {
	o := &s.objs
	return &scheduling.Input{
		Pods:                   s.pending,
		NodePools:              o.NodePools,
		InstanceTypes:          o.InstanceTypes,
		WellKnownLabels:        o.WellKnownLabels,
		Nodes:                  s.nodes,
		DaemonSets:             o.DaemonSets,
		PersistentVolumeClaims: o.PersistentVolumeClaims,
		PersistentVolumes:      o.PersistentVolumes,
		StorageClasses:         o.StorageClasses,
		CSINodes:               o.CSINodes,
		Namespaces:             o.Namespaces,
		PodDisruptionBudgets:   o.PodDisruptionBudgets,
		Options:                opts,
	}
}

// DisruptionInput is the snapshot as disruption.Plan's input at now, with opts (sharing the
// snapshot's slices, as SchedulingInput).
func (s *Snapshot) DisruptionInput(now time.Time, opts disruption.Options) *disruption.Input {
	o := &s.objs
	return &disruption.Input{
		Now:                    now,
		NodePools:              o.NodePools,
		InstanceTypes:          o.InstanceTypes,
		WellKnownLabels:        o.WellKnownLabels,
		Nodes:                  s.nodes,
		Pods:                   s.pending,
		DaemonSets:             o.DaemonSets,
		PodDisruptionBudgets:   o.PodDisruptionBudgets,
		PersistentVolumeClaims: o.PersistentVolumeClaims,
		PersistentVolumes:      o.PersistentVolumes,
		StorageClasses:         o.StorageClasses,
		CSINodes:               o.CSINodes,
		Namespaces:             o.Namespaces,
		Options:                opts,
	}
}

// ObjectsOf are a manifest set's objects, with the instance types of each NodePool. The
// slices are the set's own (New never modifies them).
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
	}
}

// FromSet is New over a manifest set's objects (see ObjectsOf).
func FromSet(set *manifest.Set, instanceTypes map[string]cloudprovider.InstanceTypes) (*Snapshot, error) {
	return New(ObjectsOf(set, instanceTypes))
}
