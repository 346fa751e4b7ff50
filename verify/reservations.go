package verify

import v1 "github.com/nodeplan/nodeplan/apis/v1"

// checkReservations: the new NodeClaims that launch on a capacity reservation's offering are
// no more than the instances it has left (the smallest capacity any offering of it gives; a
// real cloud refuses the rest).
func (w *world) checkReservations() []Violation {
	capacity := map[string]int{}
	for _, its := range w.snap.InstanceTypes() {
		for _, it := range its {
			if it != nil {
				it.AddReservationCapacities(capacity)
			}
		}
	}
	launched := map[string]int{}
	for _, l := range w.locs {
		if l.claim < 0 || !l.launched || len(l.placed) == 0 {
			continue
		}
		if o := l.nc.Offering; o.CapacityType() == v1.CapacityTypeReserved {
			launched[o.ReservationID()]++
		}
	}
	var out []Violation
	for _, id := range sortedKeysOf(launched) {
		if c, ok := capacity[id]; ok && launched[id] > c {
			v := newViolation(ReservationExceeded)
			v.Key, v.Got, v.Limit = id, int64(launched[id]), int64(c)
			out = append(out, v)
		}
	}
	return out
}
