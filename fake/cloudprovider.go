package fake

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

var _ cloudprovider.CloudProvider = (*CloudProvider)(nil)

// CloudProvider is an in-memory cloudprovider.CloudProvider. Create really picks an instance
// type and offering and records the machine; Get, List and Delete work on those records.
//
// All methods are safe for concurrent use. The exported fields are read and written by the
// methods under the provider's mutex: set them before calls start (or between calls), and
// read the call logs after calls finish, or use the accessor methods (CreateCallsSnapshot, ...)
// which take the lock.
type CloudProvider struct {
	mu sync.Mutex

	// InstanceTypes are the types every NodePool may use.
	InstanceTypes cloudprovider.InstanceTypes
	// InstanceTypesForNodePool overrides InstanceTypes per NodePool name (a NodeClaim's
	// NodePool is its karpenter.sh/nodepool label).
	InstanceTypesForNodePool map[string]cloudprovider.InstanceTypes
	// ErrorsForNodePool makes GetInstanceTypes (and Create) fail for a NodePool name.
	ErrorsForNodePool map[string]error

	// NextCreateErr, NextDeleteErr and NextGetErr are returned (once, then cleared) by the
	// next call of the method.
	NextCreateErr error
	NextDeleteErr error
	NextGetErr    error
	// AllowedCreateCalls, when > 0, makes every Create call beyond that many fail.
	AllowedCreateCalls int

	// CreateCalls and DeleteCalls log copies of the NodeClaims passed in; GetCalls the
	// provider IDs asked for.
	CreateCalls []*v1.NodeClaim
	DeleteCalls []*v1.NodeClaim
	GetCalls    []string

	// Drifted is what IsDrifted returns for every NodeClaim.
	Drifted cloudprovider.DriftReason
	// RepairPolicy is what RepairPolicies returns; nil means the default
	// (BadNode=False for 30 minutes).
	RepairPolicy []cloudprovider.RepairPolicy

	// OfferingCapacity, when it has an entry for an offering (see OfferingKey), is how many
	// more machines that offering can launch (see Create, GetInstanceTypes and Restock).
	OfferingCapacity map[string]int

	counter     int
	unavailable map[string]bool // OfferingKey -> a launch ran out of capacity there
	launched    map[string]*launched
	reserved    map[string]int // reservationKey -> instances launched into it
}

type launched struct {
	seq           int
	nodeClaim     *v1.NodeClaim
	reservationID string // reservationKey, or ""
}

// reservationKey identifies a reservation of an instance type.
func reservationKey(it *cloudprovider.InstanceType, id string) string { return it.Name + "/" + id }

// NewCloudProvider returns a provider that launches from types.
func NewCloudProvider(types cloudprovider.InstanceTypes) *CloudProvider {
	return &CloudProvider{InstanceTypes: types}
}

// Reset forgets every launched machine, call log, injected error and the counter (the
// instance types stay).
func (c *CloudProvider) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.InstanceTypesForNodePool, c.ErrorsForNodePool = nil, nil
	c.NextCreateErr, c.NextDeleteErr, c.NextGetErr = nil, nil, nil
	c.AllowedCreateCalls = 0
	c.CreateCalls, c.DeleteCalls, c.GetCalls = nil, nil, nil
	c.Drifted, c.RepairPolicy = "", nil
	c.counter, c.launched, c.reserved = 0, nil, nil
	c.OfferingCapacity, c.unavailable = nil, nil
}

// CreateCallsSnapshot returns a copy of the Create call log.
func (c *CloudProvider) CreateCallsSnapshot() []*v1.NodeClaim {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*v1.NodeClaim(nil), c.CreateCalls...)
}

// DeleteCallsSnapshot returns a copy of the Delete call log.
func (c *CloudProvider) DeleteCallsSnapshot() []*v1.NodeClaim {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*v1.NodeClaim(nil), c.DeleteCalls...)
}

// SetNextCreateErr sets NextCreateErr under the lock.
func (c *CloudProvider) SetNextCreateErr(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.NextCreateErr = err
}

// Name returns "fake".
func (c *CloudProvider) Name() string { return "fake" }

// RepairPolicies returns RepairPolicy, or BadNode=False tolerated for 30 minutes.
func (c *CloudProvider) RepairPolicies() []cloudprovider.RepairPolicy {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.RepairPolicy != nil {
		return append([]cloudprovider.RepairPolicy(nil), c.RepairPolicy...)
	}
	return []cloudprovider.RepairPolicy{{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, TolerationDuration: 30 * 60}}
}

// IsDrifted returns Drifted.
func (c *CloudProvider) IsDrifted(_ context.Context, _ *v1.NodeClaim) (cloudprovider.DriftReason, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Drifted, nil
}

// GetInstanceTypes returns the NodePool's types (InstanceTypesForNodePool, else
// InstanceTypes) as a new slice sharing the *InstanceType values, or ErrorsForNodePool's error.
// A type with an offering a launch found out of capacity is a copy, that offering
// unavailable (see OfferingCapacity).
func (c *CloudProvider) GetInstanceTypes(_ context.Context, nodePool *v1.NodePool) ([]*cloudprovider.InstanceType, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := ""
	if nodePool != nil {
		name = nodePool.Name
	}
	its, err := c.typesFor(name)
	if err != nil {
		return nil, err
	}
	return c.withUnavailable(its), nil
}

func (c *CloudProvider) typesFor(nodePool string) (cloudprovider.InstanceTypes, error) {
	if err, ok := c.ErrorsForNodePool[nodePool]; ok && err != nil {
		return nil, err
	}
	if its, ok := c.InstanceTypesForNodePool[nodePool]; ok {
		return its, nil
	}
	return c.InstanceTypes, nil
}

// fits reports whether every request is within allocatable.
func fits(requests, allocatable corev1.ResourceList) bool {
	for name, q := range requests {
		if q.Sign() <= 0 {
			continue
		}
		a, ok := allocatable[name]
		if !ok || q.Cmp(a) > 0 {
			return false
		}
	}
	return true
}

// offeringAvailable reports whether o can launch now, counting the fake's own use of
// reservations.
func (c *CloudProvider) offeringAvailable(it *cloudprovider.InstanceType, o *cloudprovider.Offering) bool {
	if !o.Available {
		return false
	}
	if id := o.ReservationID(); id != "" {
		return o.ReservationCapacity-c.reserved[reservationKey(it, id)] > 0
	}
	return true
}

type candidate struct {
	it *cloudprovider.InstanceType
	o  *cloudprovider.Offering
}

// better orders candidates: reserved before others, then price, then type name, then the
// offering's capacity type (cloudprovider.CapacityTypeRank: spot before on-demand), zone and
// reservation. It breaks ties as scheduling.Solve picks a NodeClaim's launch (cheapest type,
// ties by name; its cheapest offering, ties by capacity type, then zone), so that the fake
// launches the offering the plan chose.
func better(a, b candidate) bool {
	ra, rb := a.o.CapacityType() == v1.CapacityTypeReserved, b.o.CapacityType() == v1.CapacityTypeReserved
	if ra != rb {
		return ra
	}
	if pa, pb := priceKey(a.o.Price), priceKey(b.o.Price); pa != pb {
		return pa < pb
	}
	if a.it.Name != b.it.Name {
		return a.it.Name < b.it.Name
	}
	if ca, cb := cloudprovider.CapacityTypeRank(a.o.CapacityType()), cloudprovider.CapacityTypeRank(b.o.CapacityType()); ca != cb {
		return ca < cb
	}
	if a.o.Zone() != b.o.Zone() {
		return a.o.Zone() < b.o.Zone()
	}
	return a.o.ReservationID() < b.o.ReservationID()
}

// Create launches the cheapest fitting offering for nodeClaim: among the instance types of
// the NodeClaim's NodePool whose requirements intersect spec.requirements, whose allocatable
// fits spec.resources.requests and that have an available offering compatible with the
// requirements, it takes a reserved offering with capacity left if there is one, else the
// cheapest offering (ties: type name, then spot before on-demand, then zone — Solve's choice). It returns a hydrated copy of
// nodeClaim — labels (the type's single-valued requirements, the offering's zone, capacity
// type and reservation, then the NodeClaim's own labels), providerID fake:///<zone>/<n>,
// capacity, allocatable and a Launched=True condition — and records it. nodeClaim itself is
// never modified. Without a fitting offering it returns an InsufficientCapacityError. With
// OfferingCapacity, a fitting offering out of capacity becomes unavailable (for Create and
// GetInstanceTypes) and the next best is tried, as a CreateFleet over many offerings.
func (c *CloudProvider) Create(_ context.Context, nodeClaim *v1.NodeClaim) (*v1.NodeClaim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if nodeClaim == nil {
		return nil, errors.New("fake: nil NodeClaim")
	}
	c.CreateCalls = append(c.CreateCalls, nodeClaim.DeepCopy())
	if err := c.NextCreateErr; err != nil {
		c.NextCreateErr = nil
		return nil, err
	}
	if c.AllowedCreateCalls > 0 && len(c.CreateCalls) > c.AllowedCreateCalls {
		return nil, fmt.Errorf("fake: AllowedCreateCalls (%d) exceeded", c.AllowedCreateCalls)
	}
	reqs, err := requirements.FromNodeSelectorRequirements(nodeClaim.Spec.Requirements...)
	if err != nil {
		return nil, fmt.Errorf("fake: nodeclaim %s: spec.requirements: %w", nodeClaim.Name, err)
	}
	its, err := c.typesFor(nodeClaim.Labels[v1.NodePoolLabelKey])
	if err != nil {
		return nil, err
	}
	var cands []candidate
	for _, it := range its {
		if it == nil || !it.Requirements.HasIntersection(reqs) || !fits(nodeClaim.Spec.Resources.Requests, it.Allocatable()) {
			continue
		}
		for _, o := range it.Offerings.Compatible(reqs) {
			if c.offeringAvailable(it, o) && !c.unavailable[OfferingKey(it, o)] {
				cands = append(cands, candidate{it: it, o: o})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return better(cands[i], cands[j]) })
	best, exhausted := c.takeCapacity(cands)
	if best == nil {
		why := fmt.Errorf("no instance type with an available offering fits nodeclaim %q (%d types considered)", nodeClaim.Name, len(its))
		if exhausted > 0 {
			why = fmt.Errorf("nodeclaim %q: %d fitting offerings out of capacity, now unavailable", nodeClaim.Name, exhausted)
		}
		return nil, cloudprovider.NewInsufficientCapacityError(why)
	}

	c.counter++
	zone := best.o.Zone()
	out := nodeClaim.DeepCopy()
	labels := best.it.LaunchLabels(best.o)
	for k, v := range nodeClaim.Labels {
		labels[k] = v
	}
	out.Labels = labels
	out.Status.ProviderID = fmt.Sprintf("fake:///%s/%d", zone, c.counter)
	out.Status.Capacity = copyResources(best.it.Capacity)
	out.Status.Allocatable = copyResources(best.it.Allocatable())
	out.Status.Conditions = append(out.Status.Conditions, metav1.Condition{
		Type: v1.ConditionTypeLaunched, Status: metav1.ConditionTrue, Reason: "Launched",
	})
	id := ""
	if rid := best.o.ReservationID(); rid != "" {
		id = reservationKey(best.it, rid)
		if c.reserved == nil {
			c.reserved = map[string]int{}
		}
		c.reserved[id]++
	}
	if c.launched == nil {
		c.launched = map[string]*launched{}
	}
	c.launched[out.Status.ProviderID] = &launched{seq: c.counter, nodeClaim: out.DeepCopy(), reservationID: id}
	return out, nil
}

// priceKey maps NaN to +Inf so that prices are totally ordered.
func priceKey(p float64) float64 {
	if math.IsNaN(p) {
		return math.Inf(1)
	}
	return p
}

func copyResources(rl corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(rl))
	for n, q := range rl {
		out[n] = q.DeepCopy()
	}
	return out
}

// Get returns a copy of the launched NodeClaim with providerID, or a NodeClaimNotFoundError.
func (c *CloudProvider) Get(_ context.Context, providerID string) (*v1.NodeClaim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.GetCalls = append(c.GetCalls, providerID)
	if err := c.NextGetErr; err != nil {
		c.NextGetErr = nil
		return nil, err
	}
	l, ok := c.launched[providerID]
	if !ok {
		return nil, cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("no machine with provider ID %q", providerID))
	}
	return l.nodeClaim.DeepCopy(), nil
}

// List returns copies of every launched NodeClaim, in launch order.
func (c *CloudProvider) List(_ context.Context) ([]*v1.NodeClaim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ls := make([]*launched, 0, len(c.launched))
	for _, l := range c.launched {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].seq < ls[j].seq })
	out := make([]*v1.NodeClaim, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.nodeClaim.DeepCopy())
	}
	return out, nil
}

// Delete terminates the machine behind nodeClaim.Status.ProviderID (releasing its
// reservation slot). An unknown provider ID gives a NodeClaimNotFoundError.
func (c *CloudProvider) Delete(_ context.Context, nodeClaim *v1.NodeClaim) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if nodeClaim == nil {
		return errors.New("fake: nil NodeClaim")
	}
	c.DeleteCalls = append(c.DeleteCalls, nodeClaim.DeepCopy())
	if err := c.NextDeleteErr; err != nil {
		c.NextDeleteErr = nil
		return err
	}
	id := nodeClaim.Status.ProviderID
	l, ok := c.launched[id]
	if !ok {
		return cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("no machine with provider ID %q", id))
	}
	if l.reservationID != "" {
		c.reserved[l.reservationID]--
	}
	delete(c.launched, id)
	return nil
}
