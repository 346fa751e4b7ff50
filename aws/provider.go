package aws

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/aws/ec2capacity"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// Config wires a Provider to a cluster and to EC2.
type Config struct {
	// ClusterName is the EKS cluster; every instance is tagged for it and only instances so
	// tagged are ever listed or terminated. Required.
	ClusterName string
	// EC2 is the EC2 client (ec2.NewFromConfig(cfg) or a fake). Required.
	EC2 EC2API
	// Pricing, when set, refreshes on-demand prices through the Pricing API on every Refresh
	// (a pricing client whose region is PricingEndpointRegion of the cluster's region). Nil
	// keeps the embedded prices, as Karpenter does in an isolated VPC.
	Pricing PricingAPI
	// IAM, when set, lets ResolveNodeClass create the instance profile of a NodeClass that
	// names spec.role, as Karpenter does. Nil means such a NodeClass cannot be resolved.
	IAM IAMAPI
	// SSM, when set, resolves AMI aliases (al2023, al2, bottlerocket, windows2019/2022/2025)
	// and ssmParameter terms through SSM GetParameter, as Karpenter does. Without it only
	// al2023 aliases resolve, by the EKS AMI name with DescribeImages.
	SSM SSMAPI
	// Region is the cluster's region (cfg.Region). It names the instance profiles IAM creates;
	// when empty, the region of the last Refresh is used.
	Region string
	// NodeClass returns the EC2NodeClass with the given name, or (nil, nil) when there is
	// none. Its status (subnets, security groups, AMIs, instance profile) must be resolved,
	// as Karpenter's NodeClass controller does. Required.
	NodeClass func(ctx context.Context, name string) (*awsv1.EC2NodeClass, error)
	// NodePool returns a NodePool by name, for its kubelet compatibility annotation; nil
	// means NodePools carry none.
	NodePool func(ctx context.Context, name string) (*v1.NodePool, error)
	// Cluster is what the AL2023 bootstrap (nodeadm) needs to join the node.
	Cluster ClusterInfo
	// KubernetesVersion ("1.33") picks the EKS AMIs of an al2023 alias in ResolveNodeClass.
	KubernetesVersion string
	// Capacity are the controller-wide capacity options; zero means Karpenter's defaults.
	Capacity ec2capacity.Options
	// Now is the clock (time.Now when nil); it drives the unavailable-offerings cache.
	Now func() time.Time
}

// ClusterInfo is the cluster's API endpoint, CA bundle (base64 PEM) and service CIDR.
type ClusterInfo struct {
	Endpoint    string
	CABundle    string
	ServiceCIDR string
}

// Provider is the CloudProvider over EC2.
type Provider struct {
	cfg         Config
	cluster     string
	ec2         EC2API
	now         func() time.Time
	unavailable *UnavailableOfferings
	templates   *launchTemplates

	// reservations counts the slots launches took and terminations gave back since Refresh.
	reservations reservationLedger

	mu         sync.Mutex
	region     *Region
	regionName string
}

var _ cloudprovider.CloudProvider = (*Provider)(nil)

// New returns a Provider; call Refresh (or let the first GetInstanceTypes do it) to load the
// region's instance types.
func New(cfg Config) (*Provider, error) {
	if cfg.ClusterName == "" || cfg.EC2 == nil || cfg.NodeClass == nil {
		return nil, errors.New("aws provider: ClusterName, EC2 and NodeClass are required")
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	if cfg.Capacity == (ec2capacity.Options{}) {
		cfg.Capacity = ec2capacity.DefaultOptions
	}
	p := &Provider{
		cfg: cfg, cluster: cfg.ClusterName, ec2: cfg.EC2, now: now,
		unavailable: NewUnavailableOfferings(now), templates: newLaunchTemplates(),
	}
	p.reservations.reset(time.Time{})
	return p, nil
}

// Name returns "aws".
func (p *Provider) Name() string { return "aws" }

// Unavailable is the provider's unavailable-offerings cache (fed by launch errors; a host
// also marks spot interruptions in it).
func (p *Provider) Unavailable() *UnavailableOfferings { return p.unavailable }

// Refresh loads the region's instance types, offerings, spot prices and reservations again,
// and with a Pricing client its on-demand prices. A failed price refresh does not fail
// Refresh: the prices known before (the last refresh's for the same region, else the
// embedded table) stay, and the region's OnDemandPriceError says why.
func (p *Provider) Refresh(ctx context.Context, regionName string) error {
	described := p.now()
	r, err := LoadRegion(ctx, p.ec2, regionName)
	if err != nil {
		return err
	}
	if p.cfg.Pricing != nil {
		var known map[string]float64
		p.mu.Lock()
		if p.region != nil && p.regionName == regionName {
			known = p.region.OnDemandPrices
		}
		p.mu.Unlock()
		list, err := LoadOnDemandPrices(ctx, p.cfg.Pricing, regionName)
		r.OnDemandPrices, r.OnDemandPriceError = MergeOnDemandPrices(known, list), err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.region, p.regionName = r, regionName
	p.reservations.reset(described)
	return nil
}

// Region is the last loaded region, or nil.
func (p *Provider) Region() *Region {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.region
}

// RepairPolicies are Karpenter's AWS node conditions (catalog.RepairPolicies: Ready False or
// Unknown for 30 minutes, and the EKS node monitoring agent's conditions).
func (p *Provider) RepairPolicies() []cloudprovider.RepairPolicy { return catalog.RepairPolicies() }

// nodePool looks a NodePool up, tolerating a host that does not provide them.
func (p *Provider) nodePool(ctx context.Context, name string) *v1.NodePool {
	if p.cfg.NodePool == nil || name == "" {
		return nil
	}
	np, err := p.cfg.NodePool(ctx, name)
	if err != nil {
		return nil
	}
	return np
}

// settings are the instance-type settings of a NodeClass for a NodePool (which may be nil).
func (p *Provider) settings(nc *awsv1.EC2NodeClass, np *v1.NodePool) (InstanceTypeSettings, error) {
	kubelet := nc.Spec.Kubelet
	if np != nil {
		k, err := awsv1.KubeletFor(np, nc)
		if err != nil {
			return InstanceTypeSettings{}, err
		}
		kubelet = k
	}
	zones := map[string]string{}
	for _, s := range nc.Status.Subnets {
		zones[s.Zone] = s.ZoneID
	}
	reservations := map[string]bool{}
	for _, r := range nc.Status.CapacityReservations {
		if r.State == "" || r.State == awsv1.DefaultReservationState {
			reservations[r.ID] = true
		}
	}
	return InstanceTypeSettings{NodeClass: ec2capacity.FromEC2NodeClass(nc, kubelet), Capacity: p.cfg.Capacity, Zones: zones, Reservations: reservations, ReservationsUsed: p.reservations.usedSlots()}, nil
}

// loadedRegion returns the region, loading it (region name from the first subnet zone's
// prefix is not guessed: Refresh must have named it) on first use.
func (p *Provider) loadedRegion() (*Region, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.region == nil {
		return nil, errors.New("aws provider: region not loaded; call Refresh first")
	}
	return p.region, nil
}

// GetInstanceTypes returns the instance types of the NodePool's EC2NodeClass, with the
// unavailable-offerings cache applied to their offerings. A NodePool whose NodeClass does not
// exist gets no types and no error (as in Karpenter).
func (p *Provider) GetInstanceTypes(ctx context.Context, nodePool *v1.NodePool) ([]*cloudprovider.InstanceType, error) {
	if nodePool == nil || nodePool.Spec.Template.Spec.NodeClassRef == nil {
		return nil, nil
	}
	nc, err := p.cfg.NodeClass(ctx, nodePool.Spec.Template.Spec.NodeClassRef.Name)
	if err != nil {
		return nil, fmt.Errorf("NodePool %s: resolving its EC2NodeClass: %w", nodePool.Name, err)
	}
	if nc == nil || nc.DeletionTimestamp != nil {
		return nil, nil
	}
	return p.instanceTypesFor(nc, nodePool)
}

func (p *Provider) instanceTypesFor(nc *awsv1.EC2NodeClass, np *v1.NodePool) (cloudprovider.InstanceTypes, error) {
	r, err := p.loadedRegion()
	if err != nil {
		return nil, err
	}
	s, err := p.settings(nc, np)
	if err != nil {
		return nil, err
	}
	its, _ := r.InstanceTypes(s, p.unavailable)
	return its, nil
}

// typeCache holds, for one List or Get, the instance types built per NodeClass and NodePool,
// so many instances of one NodeClass cost one build.
type typeCache map[[2]string]map[string]*cloudprovider.InstanceType

// instanceType finds one type for an instance's NodeClass (nil when anything is missing).
func (p *Provider) instanceType(ctx context.Context, cache typeCache, nodeClass, nodePool, name string) *cloudprovider.InstanceType {
	if nodeClass == "" {
		return nil
	}
	key := [2]string{nodeClass, nodePool}
	byName, ok := cache[key]
	if !ok {
		byName = map[string]*cloudprovider.InstanceType{}
		cache[key] = byName
		nc, err := p.cfg.NodeClass(ctx, nodeClass)
		if err != nil || nc == nil {
			return nil
		}
		its, err := p.instanceTypesFor(nc, p.nodePool(ctx, nodePool))
		if err != nil {
			return nil
		}
		for _, it := range its {
			byName[it.Name] = it
		}
	}
	return byName[name]
}

// readyNodeClass resolves the NodeClaim's NodeClass for a launch: missing (or deleting) is
// insufficient capacity, Ready=False or a stale Ready is not ready, and an unresolved status
// (no subnets, security groups or AMIs) is not ready either.
func (p *Provider) readyNodeClass(ctx context.Context, claim *v1.NodeClaim) (*awsv1.EC2NodeClass, error) {
	if claim.Spec.NodeClassRef == nil {
		return nil, cloudprovider.NewInsufficientCapacityError(fmt.Errorf("nodeclaim %s has no nodeClassRef", claim.Name))
	}
	name := claim.Spec.NodeClassRef.Name
	nc, err := p.cfg.NodeClass(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("resolving EC2NodeClass %s: %w", name, err)
	}
	if nc == nil || nc.DeletionTimestamp != nil {
		return nil, cloudprovider.NewInsufficientCapacityError(fmt.Errorf("EC2NodeClass %s not found", name))
	}
	if c := meta.FindStatusCondition(nc.Status.Conditions, awsv1.ConditionTypeReady); c != nil {
		if c.Status == metav1.ConditionFalse || c.ObservedGeneration != nc.Generation {
			return nil, cloudprovider.NewNodeClassNotReadyError(fmt.Errorf("EC2NodeClass %s: Ready=%s (%s)", name, c.Status, c.Reason))
		}
	}
	if len(nc.Status.Subnets) == 0 || len(nc.Status.SecurityGroups) == 0 || len(nc.Status.AMIs) == 0 {
		return nil, cloudprovider.NewNodeClassNotReadyError(fmt.Errorf("EC2NodeClass %s: status has %d subnets, %d security groups, %d AMIs; all are needed",
			name, len(nc.Status.Subnets), len(nc.Status.SecurityGroups), len(nc.Status.AMIs)))
	}
	return nc, nil
}
