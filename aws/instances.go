package aws

import (
	"context"
	"errors"
	"fmt"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// liveStates are the instance states that still count as a machine (Karpenter's filter).
var liveStates = []string{"pending", "running", "stopping", "stopped", "shutting-down"}

func stateFilter() ec2types.Filter {
	return ec2types.Filter{Name: sdkaws.String("instance-state-name"), Values: liveStates}
}

// isAPIError reports whether err carries one of the EC2 error codes.
func isAPIError(err error, codes ...string) bool {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return false
	}
	for _, c := range codes {
		if api.ErrorCode() == c {
			return true
		}
	}
	return false
}

// describeInstance returns the live instance with id; a missing or terminated instance is a
// NodeClaimNotFoundError.
func (p *Provider) describeInstance(ctx context.Context, id string) (ec2types.Instance, error) {
	out, err := p.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{id}, Filters: []ec2types.Filter{stateFilter()}})
	if isAPIError(err, "InvalidInstanceID.NotFound") {
		return ec2types.Instance{}, cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("instance %s not found", id))
	}
	if err != nil {
		return ec2types.Instance{}, fmt.Errorf("describing instance %s: %w", id, err)
	}
	for _, r := range out.Reservations {
		for _, inst := range r.Instances {
			if sdkaws.ToString(inst.InstanceId) == id {
				return inst, nil
			}
		}
	}
	return ec2types.Instance{}, cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("instance %s not found", id))
}

// Get returns the NodeClaim of the instance behind providerID. An instance that is gone, or
// that is not tagged for this cluster, is a NodeClaimNotFoundError.
func (p *Provider) Get(ctx context.Context, providerID string) (*v1.NodeClaim, error) {
	_, id, err := ParseProviderID(providerID)
	if err != nil {
		return nil, err
	}
	inst, err := p.describeInstance(ctx, id)
	if err != nil {
		return nil, err
	}
	if !owned(inst, p.cluster) {
		return nil, cloudprovider.NewNodeClaimNotFoundError(&NotOwnedError{InstanceID: id, Cluster: p.cluster})
	}
	return p.nodeClaimOf(ctx, inst, typeCache{}), nil
}

// List returns a NodeClaim for every live instance tagged for this cluster, in launch order
// (then instance ID). The tag filters go to EC2, and every instance is checked again here.
func (p *Provider) List(ctx context.Context) ([]*v1.NodeClaim, error) {
	insts, err := p.listOwned(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*v1.NodeClaim, 0, len(insts))
	types := typeCache{}
	for _, inst := range insts {
		out = append(out, p.nodeClaimOf(ctx, inst, types))
	}
	return out, nil
}

func (p *Provider) listOwned(ctx context.Context) ([]ec2types.Instance, error) {
	in := &ec2.DescribeInstancesInput{
		MaxResults: sdkaws.Int32(1000),
		Filters: []ec2types.Filter{
			{Name: sdkaws.String("tag-key"), Values: []string{v1.NodePoolLabelKey}},
			{Name: sdkaws.String("tag:" + TagClusterName), Values: []string{p.cluster}},
			{Name: sdkaws.String("tag:" + clusterTag(p.cluster)), Values: []string{"owned"}},
			stateFilter(),
		},
	}
	out, err := p.describeOwned(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("listing instances of cluster %s: %w", p.cluster, err)
	}
	sortInstances(out)
	return out, nil
}

// describeOwned returns the instances in, paged through, matches that this package launched
// for the provider's cluster (see owned), in the order EC2 listed them.
func (p *Provider) describeOwned(ctx context.Context, in *ec2.DescribeInstancesInput) ([]ec2types.Instance, error) {
	var out []ec2types.Instance
	for pg := ec2.NewDescribeInstancesPaginator(p.ec2, in); pg.HasMorePages(); {
		page, err := pg.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, r := range page.Reservations {
			for _, inst := range r.Instances {
				if owned(inst, p.cluster) {
					out = append(out, inst)
				}
			}
		}
	}
	return out, nil
}

// Delete terminates the instance behind the NodeClaim's provider ID. It returns nil while the
// instance is shutting down and a NodeClaimNotFoundError once it is gone, so calling it
// again, also concurrently, is safe: a reserved instance gives its reservation slot back once.
// It refuses (NotOwnedError) an instance not tagged for this cluster.
func (p *Provider) Delete(ctx context.Context, nodeClaim *v1.NodeClaim) error {
	if nodeClaim == nil {
		return errors.New("deleting a nil NodeClaim")
	}
	_, id, err := ParseProviderID(nodeClaim.Status.ProviderID)
	if err != nil {
		return fmt.Errorf("deleting nodeclaim %s: %w", nodeClaim.Name, err)
	}
	inst, err := p.describeInstance(ctx, id)
	if cloudprovider.IsNodeClaimNotFoundError(err) {
		// Gone: a termination whose answer was lost may not have given the slot back yet.
		p.reservations.giveBack(id, nodeClaim.Labels[cloudprovider.ReservationIDLabel], nodeClaim.CreationTimestamp.Time)
	}
	if err != nil {
		return err
	}
	if !owned(inst, p.cluster) {
		return &NotOwnedError{InstanceID: id, Cluster: p.cluster}
	}
	return p.terminate(ctx, inst)
}

// terminate ends an owned instance (a no-op while it is already shutting down) and gives its
// reservation slot back, once per instance however many callers end it.
func (p *Provider) terminate(ctx context.Context, inst ec2types.Instance) error {
	id := sdkaws.ToString(inst.InstanceId)
	if inst.State != nil && inst.State.Name == ec2types.InstanceStateNameShuttingDown {
		p.reservations.giveBack(id, sdkaws.ToString(inst.CapacityReservationId), sdkaws.ToTime(inst.LaunchTime))
		return nil
	}
	_, err := p.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: []string{id}})
	if isAPIError(err, "InvalidInstanceID.NotFound") {
		return cloudprovider.NewNodeClaimNotFoundError(fmt.Errorf("instance %s not found", id))
	}
	if err != nil {
		return fmt.Errorf("terminating instance %s: %w", id, err)
	}
	p.reservations.giveBack(id, sdkaws.ToString(inst.CapacityReservationId), sdkaws.ToTime(inst.LaunchTime))
	return nil
}

// GarbageCollect terminates the cluster's instances that no NodeClaim in claims names (by
// provider ID) and that launched at least minAge ago (Karpenter waits 30 s, so a launch in
// flight is not mistaken for a leak). It returns the IDs it terminated, in order. Only
// instances tagged for this cluster are ever considered.
func (p *Provider) GarbageCollect(ctx context.Context, claims []*v1.NodeClaim, minAge time.Duration) ([]string, error) {
	known := map[string]bool{}
	for _, c := range claims {
		if c == nil {
			continue
		}
		if _, id, err := ParseProviderID(c.Status.ProviderID); err == nil {
			known[id] = true
		}
	}
	insts, err := p.listOwned(ctx)
	if err != nil {
		return nil, err
	}
	var done []string
	var errs []error
	for _, inst := range insts {
		id := sdkaws.ToString(inst.InstanceId)
		if known[id] || p.now().Sub(sdkaws.ToTime(inst.LaunchTime)) < minAge {
			continue
		}
		if err := p.terminate(ctx, inst); err != nil && !cloudprovider.IsNodeClaimNotFoundError(err) {
			errs = append(errs, err)
			continue
		}
		done = append(done, id)
	}
	return done, errors.Join(errs...)
}

// nodeClaimOf describes an instance as a NodeClaim: name from its NodeClaim tag, labels of
// its instance type (when the type is known), zone, capacity type and NodePool, capacity and
// allocatable, provider ID, image and launch time (and a deletion timestamp once it shuts
// down).
func (p *Provider) nodeClaimOf(ctx context.Context, inst ec2types.Instance, types typeCache) *v1.NodeClaim {
	tags := tagMap(inst.Tags)
	zone := ""
	if inst.Placement != nil {
		zone = sdkaws.ToString(inst.Placement.AvailabilityZone)
	}
	capacityType := v1.CapacityTypeOnDemand
	switch {
	case inst.SpotInstanceRequestId != nil || inst.InstanceLifecycle == ec2types.InstanceLifecycleTypeSpot:
		capacityType = v1.CapacityTypeSpot
	case inst.CapacityReservationId != nil:
		capacityType = v1.CapacityTypeReserved
	}
	nc := &v1.NodeClaim{}
	nc.Name = tags[TagNodeClaim]
	labels := map[string]string{}
	if it := p.instanceType(ctx, types, tags[LabelNodeClass], tags[v1.NodePoolLabelKey], string(inst.InstanceType)); it != nil {
		for k, v := range it.Requirements.Labels() {
			labels[k] = v
		}
		nc.Status.Capacity = copyResources(it.Capacity)
		nc.Status.Allocatable = copyResources(it.Allocatable())
	}
	labels[v1.LabelInstanceType] = string(inst.InstanceType)
	labels[v1.LabelTopologyZone] = zone
	labels[v1.CapacityTypeLabelKey] = capacityType
	labels[v1.NodePoolLabelKey] = tags[v1.NodePoolLabelKey]
	if capacityType == v1.CapacityTypeReserved {
		labels[cloudprovider.ReservationIDLabel] = sdkaws.ToString(inst.CapacityReservationId)
	}
	if inst.Placement != nil && inst.Placement.Tenancy != "" {
		labels[LabelInstanceTenancy] = string(inst.Placement.Tenancy)
	}
	if p.regionName != "" {
		labels[v1.LabelTopologyRegion] = p.regionName
	}
	nc.Labels = labels
	nc.Status.ProviderID = ProviderID(zone, sdkaws.ToString(inst.InstanceId))
	nc.Status.ImageID = sdkaws.ToString(inst.ImageId)
	if inst.LaunchTime != nil {
		nc.CreationTimestamp = metav1.NewTime(*inst.LaunchTime)
	}
	if inst.State != nil && (inst.State.Name == ec2types.InstanceStateNameShuttingDown || inst.State.Name == ec2types.InstanceStateNameTerminated) {
		t := metav1.NewTime(p.now())
		nc.DeletionTimestamp = &t
	}
	return nc
}
