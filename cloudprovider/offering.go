package cloudprovider

import (
	"math"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// AllowUndefinedWellKnownLabels returns the keys an offering may constrain without the
// scheduling requirements defining them: v1.WellKnownLabels plus ReservationIDLabel. It
// returns a fresh set on every call.
func AllowUndefinedWellKnownLabels() requirements.KeySet {
	ks := make(requirements.KeySet, len(v1.WellKnownLabels)+1)
	for k, ok := range v1.WellKnownLabels {
		if ok {
			ks[k] = true
		}
	}
	ks[ReservationIDLabel] = true
	return ks
}

// allowUndefined is AllowUndefinedWellKnownLabels computed once, for the matching hot paths.
var allowUndefined = AllowUndefinedWellKnownLabels()

// NewOffering builds an offering in zone with capacityType at price (dollars per hour).
func NewOffering(zone, capacityType string, price float64, available bool) *Offering {
	return &Offering{
		Requirements: requirements.NewRequirements(
			requirements.MustNew(v1.LabelTopologyZone, requirements.In, zone),
			requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, capacityType),
		),
		Price:     price,
		Available: available,
	}
}

// NewReservedOffering builds a reserved offering for reservationID in zone, which can launch
// capacity more instances; it is available while capacity > 0.
func NewReservedOffering(zone, reservationID string, price float64, capacity int) *Offering {
	return &Offering{
		Requirements: requirements.NewRequirements(
			requirements.MustNew(v1.LabelTopologyZone, requirements.In, zone),
			requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeReserved),
			requirements.MustNew(ReservationIDLabel, requirements.In, reservationID),
		),
		Price:               price,
		Available:           capacity > 0,
		ReservationCapacity: capacity,
	}
}

// sortablePrice maps NaN to +Inf so that comparisons are a total order.
func sortablePrice(p float64) float64 {
	if math.IsNaN(p) {
		return math.Inf(1)
	}
	return p
}

// CapacityTypeRank orders capacity types the way a launch prefers them at the same price:
// reserved (0), spot (1), on-demand (2), anything else (3). Karpenter's AWS provider launches
// reserved capacity if it may, else spot if the claim allows it and a spot offering is left
// after dropping those dearer than the cheapest on-demand one, else on-demand.
func CapacityTypeRank(capacityType string) int {
	switch capacityType {
	case v1.CapacityTypeReserved:
		return 0
	case v1.CapacityTypeSpot:
		return 1
	case v1.CapacityTypeOnDemand:
		return 2
	}
	return 3
}

// offeringLess orders offerings by price (NaN as +Inf), then capacity type (CapacityTypeRank),
// zone and reservation ID, so that every choice between equal prices is deterministic and,
// like a launch, prefers spot to on-demand at the same price.
func offeringLess(a, b *Offering) bool {
	pa, pb := sortablePrice(a.Price), sortablePrice(b.Price)
	if pa != pb {
		return pa < pb
	}
	if ca, cb := CapacityTypeRank(a.CapacityType()), CapacityTypeRank(b.CapacityType()); ca != cb {
		return ca < cb
	}
	if za, zb := a.Zone(), b.Zone(); za != zb {
		return za < zb
	}
	return a.ReservationID() < b.ReservationID()
}

// Available returns the offerings whose Available flag is set, in order.
func (ofs Offerings) Available() Offerings {
	var out Offerings
	for _, o := range ofs {
		if o != nil && o.Available {
			out = append(out, o)
		}
	}
	return out
}

// isCompatible reports whether offering o can satisfy reqs. Well-known keys (zone, capacity
// type, reservation ID, ...) that reqs leaves undefined do not rule an offering out. An
// offering without a reservation ID has no value for ReservationIDLabel, so it only
// satisfies a requirement on that key that admits no value (NotIn, DoesNotExist).
func (o *Offering) isCompatible(reqs requirements.Requirements) bool {
	if !reqs.IsCompatible(o.Requirements, allowUndefined) {
		return false
	}
	if reqs.Has(ReservationIDLabel) && !o.Requirements.Has(ReservationIDLabel) {
		switch reqs.Get(ReservationIDLabel).Operator() {
		case requirements.NotIn, requirements.DoesNotExist:
		default:
			return false
		}
	}
	return true
}

// Compatible returns the offerings (available or not) whose requirements are compatible with
// reqs, allowing reqs to leave well-known labels undefined (and requiring a reservation ID
// when reqs ask for one In a set). The order is kept.
func (ofs Offerings) Compatible(reqs requirements.Requirements) Offerings {
	var out Offerings
	for _, o := range ofs {
		if o != nil && o.isCompatible(reqs) {
			out = append(out, o)
		}
	}
	return out
}

// HasCompatible reports whether some offering is compatible with reqs (see Compatible).
func (ofs Offerings) HasCompatible(reqs requirements.Requirements) bool {
	for _, o := range ofs {
		if o != nil && o.isCompatible(reqs) {
			return true
		}
	}
	return false
}

// Cheapest returns the lowest-priced offering, ties broken by capacity type (reserved, spot,
// on-demand), then zone, then reservation ID (NaN prices sort as +Inf). It returns nil for an empty list. Availability
// is not considered: call Available first.
func (ofs Offerings) Cheapest() *Offering {
	var best *Offering
	for _, o := range ofs {
		if o != nil && (best == nil || offeringLess(o, best)) {
			best = o
		}
	}
	return best
}

// MostExpensive returns the highest-priced offering (NaN as +Inf), ties broken like
// Cheapest (first by capacity type, then zone). It returns nil for an empty list.
func (ofs Offerings) MostExpensive() *Offering {
	var worst *Offering
	for _, o := range ofs {
		if o == nil {
			continue
		}
		if worst == nil {
			worst = o
			continue
		}
		po, pw := sortablePrice(o.Price), sortablePrice(worst.Price)
		if po > pw || (po == pw && offeringLess(o, worst)) {
			worst = o
		}
	}
	return worst
}

// WorstLaunchPrice is the price a launch for reqs could cost at most: among the offerings
// compatible with reqs, the most expensive reserved one if there is any, else the most
// expensive spot one, else the most expensive on-demand one (a launch uses reserved capacity
// first, then spot, then on-demand). It returns +Inf when there is none. Availability is not
// considered: call Available first.
func (ofs Offerings) WorstLaunchPrice(reqs requirements.Requirements) float64 {
	compatible := ofs.Compatible(reqs)
	for _, ct := range []string{v1.CapacityTypeReserved, v1.CapacityTypeSpot, v1.CapacityTypeOnDemand} {
		var class Offerings
		for _, o := range compatible {
			if o.CapacityType() == ct {
				class = append(class, o)
			}
		}
		if worst := class.MostExpensive(); worst != nil {
			return worst.Price
		}
	}
	return math.Inf(1)
}

// AddReservationCapacities records in capacity, for each capacity reservation an offering of
// it names, the instances the reservation has left: the smallest ReservationCapacity any of
// its offerings gives, over every call on the same map. Nil offerings are skipped.
func (it *InstanceType) AddReservationCapacities(capacity map[string]int) {
	for _, o := range it.Offerings {
		if o == nil || o.CapacityType() != v1.CapacityTypeReserved {
			continue
		}
		id := o.ReservationID()
		if have, ok := capacity[id]; !ok || o.ReservationCapacity < have {
			capacity[id] = o.ReservationCapacity
		}
	}
}
