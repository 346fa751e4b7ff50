package scheduling

import (
	"errors"
	"fmt"
	"sort"
)

// validateInput rejects inputs Solve's contract calls invalid before anything reads them:
// a nil Input, and instance types that are nil, nameless or hold a nil offering (the last
// two would otherwise be launched nameless or crash the offering index).
func validateInput(in *Input) error {
	if in == nil {
		return errors.New("scheduling: nil input")
	}
	pools := make([]string, 0, len(in.InstanceTypes))
	for name := range in.InstanceTypes {
		pools = append(pools, name)
	}
	sort.Strings(pools)
	for _, pool := range pools {
		for i, it := range in.InstanceTypes[pool] {
			if it == nil {
				continue // a nil entry is no type, as everywhere in cloudprovider
			}
			if it.Name == "" {
				return fmt.Errorf("instanceTypes[%q][%d]: instance type without a name", pool, i)
			}
			for j, o := range it.Offerings {
				if o == nil {
					return fmt.Errorf("instance type %q: offerings[%d] is nil", it.Name, j)
				}
			}
		}
	}
	return nil
}
