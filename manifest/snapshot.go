package manifest

import (
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
)

// Snapshot is cluster.New over the set's Objects with the instance types of each NodePool
// (keyed by NodePool name). The slices are the set's own; New never modifies them.
// RepairPolicies and ProviderDrift come from the cloud: set them on a copy of s.Objects and
// call cluster.New instead.
func (s *Set) Snapshot(instanceTypes map[string]cloudprovider.InstanceTypes) (*cluster.Snapshot, error) {
	objs := s.Objects
	objs.InstanceTypes = instanceTypes
	return cluster.New(objs)
}
