package scheduling

import "fmt"

// noTypesReason says why a NodePool has no instance type to launch: its requirements, or
// offerings that are all unavailable (not to be mistaken for requirements).
func noTypesReason(pool string, types, unavailable int) string {
	switch {
	case unavailable == 0:
		return fmt.Sprintf("NodePool %q: its requirements filtered out all %d instance types", pool, types)
	case unavailable == types:
		return fmt.Sprintf("NodePool %q: none of its %d instance types has an available offering its requirements allow", pool, types)
	}
	return fmt.Sprintf("NodePool %q: its requirements filtered out %d of %d instance types and the other %d have no available offering its requirements allow",
		pool, types-unavailable, types, unavailable)
}
