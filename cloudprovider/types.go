package cloudprovider

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// CloudProvider launches and removes the machines behind NodeClaims. The scheduling and
// disruption packages never call it: they only read InstanceTypes. A host program calls it to
// carry a plan out.
type CloudProvider interface {
	// Create launches a machine for the NodeClaim's requirements and requests and returns
	// the NodeClaim hydrated with the chosen instance type, zone, capacity type (as labels),
	// providerID, capacity and allocatable. It returns an InsufficientCapacityError when no
	// compatible offering can be launched.
	Create(ctx context.Context, nodeClaim *v1.NodeClaim) (*v1.NodeClaim, error)
	// Delete terminates the machine behind nodeClaim.Status.ProviderID; once it is gone it
	// returns a NodeClaimNotFoundError.
	Delete(ctx context.Context, nodeClaim *v1.NodeClaim) error
	// Get looks a machine up by provider ID (NodeClaimNotFoundError when unknown).
	Get(ctx context.Context, providerID string) (*v1.NodeClaim, error)
	// List returns every machine this provider launched.
	List(ctx context.Context) ([]*v1.NodeClaim, error)
	// GetInstanceTypes returns every instance type the NodePool may use, including those
	// without an available offering.
	GetInstanceTypes(ctx context.Context, nodePool *v1.NodePool) ([]*InstanceType, error)
	// IsDrifted returns why the machine no longer matches its NodeClass, or "".
	IsDrifted(ctx context.Context, nodeClaim *v1.NodeClaim) (DriftReason, error)
	// RepairPolicies lists the node conditions that mark a node unhealthy.
	RepairPolicies() []RepairPolicy
	// Name names the provider (e.g. "aws", "fake").
	Name() string
}

// DriftReason says why a NodeClaim drifted from its NodePool or NodeClass.
type DriftReason string

// RepairPolicy is a node condition that, held for TolerationDuration, makes the node unhealthy.
type RepairPolicy struct {
	ConditionType      corev1.NodeConditionType
	ConditionStatus    corev1.ConditionStatus
	TolerationDuration int64 // seconds
}

// InstanceType is one machine shape a NodePool can launch.
type InstanceType struct {
	// Name equals the node.kubernetes.io/instance-type value.
	Name string
	// Requirements describe the type: its instance-type, arch, os and provider labels, and
	// the union of its offerings' zones and capacity types.
	Requirements requirements.Requirements
	// Offerings are the places and purchase options the type can be launched with.
	Offerings Offerings
	// Capacity is the full machine: cpu, memory, pods, ephemeral-storage, extended resources.
	Capacity corev1.ResourceList
	// Overhead is reserved for the system; Allocatable = Capacity - Overhead.
	Overhead *InstanceTypeOverhead

	allocatableOnce sync.Once
	allocatable     corev1.ResourceList
}

// InstanceTypeOverhead is what the kubelet and system reserve on a node.
type InstanceTypeOverhead struct {
	KubeReserved      corev1.ResourceList
	SystemReserved    corev1.ResourceList
	EvictionThreshold corev1.ResourceList
}

// Total is the sum of the three reservations.
func (o *InstanceTypeOverhead) Total() corev1.ResourceList {
	total := corev1.ResourceList{}
	if o == nil {
		return total
	}
	for _, rl := range []corev1.ResourceList{o.KubeReserved, o.SystemReserved, o.EvictionThreshold} {
		for name, q := range rl {
			sum := total[name]
			sum.Add(q)
			total[name] = sum
		}
	}
	return total
}

// LaunchLabels are the labels a node of this type launched in offering o carries: the first
// value of each In requirement of the type (instance type, arch, os, ...), then the
// offering's single values (zone, capacity type, reservation ID). A fresh map.
func (it *InstanceType) LaunchLabels(o *Offering) map[string]string {
	labels := map[string]string{}
	for k, r := range it.Requirements {
		if r != nil && r.Operator() == requirements.In && len(r.Values()) > 0 {
			labels[k] = r.Values()[0]
		}
	}
	if o != nil {
		for k, v := range o.Requirements.Labels() {
			labels[k] = v
		}
	}
	return labels
}

// Allocatable is Capacity minus the overhead (memory also minus any hugepages-* capacity),
// floored at zero. It is computed once; the returned list must not be modified.
func (it *InstanceType) Allocatable() corev1.ResourceList {
	it.allocatableOnce.Do(func() {
		alloc := corev1.ResourceList{}
		for name, q := range it.Capacity {
			alloc[name] = q.DeepCopy()
		}
		for name, q := range it.Overhead.Total() {
			if a, ok := alloc[name]; ok {
				a.Sub(q)
				alloc[name] = a
			}
		}
		if mem, ok := alloc[corev1.ResourceMemory]; ok {
			for name, q := range it.Capacity {
				if len(name) > len(corev1.ResourceHugePagesPrefix) && string(name[:len(corev1.ResourceHugePagesPrefix)]) == corev1.ResourceHugePagesPrefix {
					mem.Sub(q)
				}
			}
			alloc[corev1.ResourceMemory] = mem
		}
		for name, q := range alloc {
			if q.Sign() < 0 {
				alloc[name] = *resource.NewQuantity(0, q.Format)
			}
		}
		it.allocatable = alloc
	})
	return it.allocatable
}

// Offering is one way to launch an instance type: a zone and a capacity type (and, for
// reserved capacity, a reservation) at a price.
type Offering struct {
	// Requirements hold at least topology.kubernetes.io/zone and karpenter.sh/capacity-type
	// (In one value each), and the reservation ID for reserved offerings.
	Requirements requirements.Requirements
	// Price is in dollars per hour.
	Price float64
	// Available is false when the cloud currently has no capacity for the offering.
	Available bool
	// ReservationCapacity is how many more instances a reservation can launch.
	ReservationCapacity int
}

// ReservationIDLabel is the label key that names the capacity reservation of a reserved
// offering. Karpenter leaves it to the provider; nodeplan uses AWS's, which (unlike a
// karpenter.sh key) pods and NodePools may select.
const ReservationIDLabel = "karpenter.k8s.aws/capacity-reservation-id"

// Zone is the offering's zone.
func (o *Offering) Zone() string { return o.single(v1.LabelTopologyZone) }

// CapacityType is the offering's capacity type (spot, on-demand, reserved).
func (o *Offering) CapacityType() string { return o.single(v1.CapacityTypeLabelKey) }

// single is the offering's value for key, or "" when the offering does not define it.
func (o *Offering) single(key string) string {
	if !o.Requirements.Has(key) {
		return ""
	}
	return o.Requirements.Get(key).Any()
}

// ReservationID is the offering's reservation, or "".
func (o *Offering) ReservationID() string {
	if !o.Requirements.Has(ReservationIDLabel) {
		return ""
	}
	return o.Requirements.Get(ReservationIDLabel).Any()
}

// Offerings is a list of offerings.
type Offerings []*Offering

// InstanceTypes is a list of instance types.
type InstanceTypes []*InstanceType
