package cluster

import (
	"fmt"
	"maps"
	"slices"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// What a snapshot refuses beyond nil objects (nils.go): the contracts both engines rely on
// without checking again.

// refuseDuplicatePools is the error for the first NodePool whose name an earlier one has:
// both engines key NodePools by name, and one of them would be silently dropped.
func refuseDuplicatePools(op string, pools []*v1.NodePool) error {
	if name, dup := firstRepeated(pools, func(np *v1.NodePool) string { return np.Name }); dup {
		return invalid(op, InputDuplicate, "NodePool", name, "", "two NodePools of this name")
	}
	return nil
}

// checkInstanceTypes is the error for the first instance type (NodePools in name order) that
// has no name (it would launch nameless), a nil offering, or an offering with a negative
// price (every saving and every cheapest choice would be wrong). A nil entry is no type, as
// everywhere in cloudprovider; NaN and +Inf prices are prices no offering launches at.
func checkInstanceTypes(op string, types map[string]cloudprovider.InstanceTypes) error {
	if len(types) == 0 {
		return nil
	}
	seen := map[*cloudprovider.InstanceType]bool{} // NodePools share their types
	for _, pool := range slices.Sorted(maps.Keys(types)) {
		for i, it := range types[pool] {
			if it == nil || seen[it] {
				continue
			}
			if it.Name == "" {
				return invalid(op, InputInvalid, "InstanceType", "", fmt.Sprintf("InstanceTypes[%q][%d].name", pool, i), "an instance type without a name")
			}
			for j, o := range it.Offerings {
				switch {
				case o == nil:
					return invalid(op, InputNil, "InstanceType", it.Name, fmt.Sprintf("offerings[%d]", j), "is nil")
				case o.Price < 0:
					return invalid(op, InputInvalid, "InstanceType", it.Name, fmt.Sprintf("offerings[%d].price", j), "%v: a price must not be negative", o.Price)
				}
			}
			seen[it] = true
		}
	}
	return nil
}
