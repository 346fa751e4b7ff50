package fake

import (
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// OfferingKey names an offering of an instance type for OfferingCapacity:
// "type/zone/capacity-type", with "/reservation-id" for a reserved offering.
func OfferingKey(it *cloudprovider.InstanceType, o *cloudprovider.Offering) string {
	k := it.Name + "/" + o.Zone() + "/" + o.CapacityType()
	if id := o.ReservationID(); id != "" {
		k += "/" + id
	}
	return k
}

// takeCapacity is the first candidate with capacity left, counting its launch; every
// candidate before it that OfferingCapacity says is out of capacity becomes unavailable (as a
// CreateFleet's insufficient-capacity errors feed Karpenter's unavailable-offerings cache).
// exhausted counts those.
func (c *CloudProvider) takeCapacity(cands []candidate) (best *candidate, exhausted int) {
	for i := range cands {
		k := OfferingKey(cands[i].it, cands[i].o)
		left, limited := c.OfferingCapacity[k]
		if !limited {
			return &cands[i], exhausted
		}
		if left > 0 {
			c.OfferingCapacity[k] = left - 1
			return &cands[i], exhausted
		}
		if c.unavailable == nil {
			c.unavailable = map[string]bool{}
		}
		c.unavailable[k] = true
		exhausted++
	}
	return nil, exhausted
}

// withUnavailable is its with the offerings found out of capacity unavailable: the types
// concerned are copies (their Offerings copied too); the others are shared.
func (c *CloudProvider) withUnavailable(its cloudprovider.InstanceTypes) cloudprovider.InstanceTypes {
	out := append(cloudprovider.InstanceTypes(nil), its...)
	if len(c.unavailable) == 0 {
		return out
	}
	for i, it := range out {
		if it == nil {
			continue
		}
		var copied *cloudprovider.InstanceType
		for j, o := range it.Offerings {
			if o == nil || !o.Available || !c.unavailable[OfferingKey(it, o)] {
				continue
			}
			if copied == nil {
				copied = &cloudprovider.InstanceType{Name: it.Name, Requirements: it.Requirements, Capacity: it.Capacity,
					Overhead: it.Overhead, Offerings: append(cloudprovider.Offerings(nil), it.Offerings...)}
			}
			oc := *o
			oc.Available = false
			copied.Offerings[j] = &oc
		}
		if copied != nil {
			out[i] = copied
		}
	}
	return out
}

// Unavailable are the offerings (OfferingKey) a launch found out of capacity.
func (c *CloudProvider) Unavailable() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]bool, len(c.unavailable))
	for k := range c.unavailable {
		out[k] = true
	}
	return out
}

// Restock makes every offering found out of capacity available again with n more launches
// each (Karpenter forgets an unavailable offering after 3 minutes).
func (c *CloudProvider) Restock(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.unavailable {
		c.OfferingCapacity[k] = n
	}
	c.unavailable = nil
}

// MarkUnavailable makes the offerings (OfferingKey) unavailable for Create and
// GetInstanceTypes, as a spot interruption or an insufficient-capacity error puts them in
// Karpenter's unavailable-offerings cache, until MakeAvailable or Restock.
func (c *CloudProvider) MarkUnavailable(keys ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.unavailable == nil {
		c.unavailable = map[string]bool{}
	}
	for _, k := range keys {
		c.unavailable[k] = true
	}
}

// MakeAvailable makes the offerings (OfferingKey) available again, as Karpenter's cache
// forgets an entry after 3 minutes; OfferingCapacity stays as it is (an offering out of
// capacity turns unavailable again on the next launch that finds it so).
func (c *CloudProvider) MakeAvailable(keys ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		delete(c.unavailable, k)
	}
}
