package aws

import (
	"sort"
	"sync"
	"time"
)

// UnavailableOfferingsTTL is how long an offering stays unavailable after EC2 reported no
// capacity for it (Karpenter's 3 minutes).
const UnavailableOfferingsTTL = 3 * time.Minute

// UnavailableOfferings remembers the offerings EC2 recently had no capacity for (fed by
// CreateFleet errors such as InsufficientInstanceCapacity, and by spot interruption
// warnings), and whole capacity types (spot, when the account may not launch spot). Entries
// expire after UnavailableOfferingsTTL; marking again refreshes them. The clock is injected.
// It is safe for concurrent use.
type UnavailableOfferings struct {
	now func() time.Time

	mu            sync.Mutex
	offerings     map[UnavailableOffering]time.Time // -> expiry
	capacityTypes map[string]time.Time
}

// UnavailableOffering is an (instance type, zone, capacity type) EC2 has no capacity for.
type UnavailableOffering struct {
	CapacityType string
	InstanceType string
	Zone         string
}

// NewUnavailableOfferings returns an empty cache reading time from now (time.Now when nil).
func NewUnavailableOfferings(now func() time.Time) *UnavailableOfferings {
	if now == nil {
		now = time.Now
	}
	return &UnavailableOfferings{now: now, offerings: map[UnavailableOffering]time.Time{}, capacityTypes: map[string]time.Time{}}
}

// MarkUnavailable makes the offering unavailable for the TTL from now.
func (u *UnavailableOfferings) MarkUnavailable(capacityType, instanceType, zone string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.offerings[UnavailableOffering{CapacityType: capacityType, InstanceType: instanceType, Zone: zone}] = u.now().Add(UnavailableOfferingsTTL)
}

// MarkCapacityTypeUnavailable makes every offering of the capacity type unavailable.
func (u *UnavailableOfferings) MarkCapacityTypeUnavailable(capacityType string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.capacityTypes[capacityType] = u.now().Add(UnavailableOfferingsTTL)
}

// IsUnavailable reports whether the offering or its capacity type is marked and unexpired.
func (u *UnavailableOfferings) IsUnavailable(capacityType, instanceType, zone string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	now := u.now()
	if exp, ok := u.capacityTypes[capacityType]; ok && now.Before(exp) {
		return true
	}
	exp, ok := u.offerings[UnavailableOffering{CapacityType: capacityType, InstanceType: instanceType, Zone: zone}]
	return ok && now.Before(exp)
}

// List returns the unexpired offerings, sorted by instance type, zone and capacity type,
// and drops the expired ones. A host program passes them on to Solve by marking these
// offerings unavailable (GetInstanceTypes already does).
func (u *UnavailableOfferings) List() []UnavailableOffering {
	u.mu.Lock()
	defer u.mu.Unlock()
	now := u.now()
	var out []UnavailableOffering
	for k, exp := range u.offerings {
		if !now.Before(exp) {
			delete(u.offerings, k)
			continue
		}
		out = append(out, k)
	}
	for ct, exp := range u.capacityTypes {
		if !now.Before(exp) {
			delete(u.capacityTypes, ct)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.InstanceType != b.InstanceType {
			return a.InstanceType < b.InstanceType
		}
		if a.Zone != b.Zone {
			return a.Zone < b.Zone
		}
		return a.CapacityType < b.CapacityType
	})
	return out
}
