package awstest

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// fleetCandidate is one override of a CreateFleet request.
type fleetCandidate struct {
	spec     ec2types.FleetLaunchTemplateSpecificationRequest
	override ec2types.FleetLaunchTemplateOverridesRequest
	zone     string
	lt       *launchTemplate
	price    float64
	order    int
}

// CreateFleet serves instant fleets: it skips the overrides whose pool is out of capacity
// (reporting InsufficientInstanceCapacity for each) or has a fleet error, launches
// TotalTargetCapacity instances (within FleetCapacity) from the cheapest remaining override
// (spot price for spot, OnDemandPrices for on-demand) and tags them as the request asks.
// A repeated client token returns the first reply, as EC2's idempotency does.
func (e *EC2) CreateFleet(_ context.Context, in *ec2.CreateFleetInput, _ ...func(*ec2.Options)) (*ec2.CreateFleetOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("CreateFleet"); err != nil {
		return nil, err
	}
	token := sdkaws.ToString(in.ClientToken)
	if out, ok := e.fleets[token]; ok && token != "" {
		return out, nil
	}
	e.fleetInputs = append(e.fleetInputs, in)
	if in.Type != ec2types.FleetTypeInstant {
		return nil, apiError("InvalidParameterValue", "only instant fleets are served")
	}
	if in.TargetCapacitySpecification == nil || sdkaws.ToInt32(in.TargetCapacitySpecification.TotalTargetCapacity) < 1 {
		return nil, apiError("MissingParameter", "TargetCapacitySpecification.TotalTargetCapacity is required")
	}
	if sdkaws.ToBool(in.DryRun) {
		return nil, apiError("DryRunOperation", "Request would have succeeded, but DryRun flag is set.")
	}
	capacityType := string(in.TargetCapacitySpecification.DefaultTargetCapacityType)
	lifecycle := ec2types.InstanceLifecycleOnDemand
	if capacityType == "spot" {
		lifecycle = ec2types.InstanceLifecycleSpot
	}
	var cands []fleetCandidate
	for _, cfg := range in.LaunchTemplateConfigs {
		if cfg.LaunchTemplateSpecification == nil {
			return nil, apiError("MissingParameter", "LaunchTemplateSpecification is required")
		}
		lt, ok := e.launchTemplates[sdkaws.ToString(cfg.LaunchTemplateSpecification.LaunchTemplateName)]
		if !ok {
			return nil, apiError("InvalidLaunchTemplateName.NotFoundException", "The specified launch template, with template name %s, does not exist.", sdkaws.ToString(cfg.LaunchTemplateSpecification.LaunchTemplateName))
		}
		for _, o := range cfg.Overrides {
			zone := sdkaws.ToString(o.AvailabilityZone)
			if zone == "" {
				zone = e.subnetZone(sdkaws.ToString(o.SubnetId))
			}
			cands = append(cands, fleetCandidate{spec: *cfg.LaunchTemplateSpecification, override: o, zone: zone, lt: lt, order: len(cands)})
		}
	}
	out := &ec2.CreateFleetOutput{FleetId: sdkaws.String(fmt.Sprintf("fleet-%08d", e.seq+1))}
	var ok []fleetCandidate
	for _, c := range cands {
		if cr := e.reservation(c.lt); cr != nil && sdkaws.ToInt32(cr.AvailableInstanceCount) < 1 {
			out.Errors = append(out.Errors, fleetError(c, lifecycle, "ReservationCapacityExceeded", "The requested reservation does not have sufficient compatible and available capacity for this request."))
			continue
		}
		if len(c.lt.data.SecurityGroupIds) > 0 && len(c.lt.data.NetworkInterfaces) > 0 {
			out.Errors = append(out.Errors, fleetError(c, lifecycle, "InvalidParameterCombination", "Network interfaces and an instance-level security groups may not be specified on the same request"))
			continue
		}
		if code, ok := e.fleetErrors[Pool(capacityType, string(c.override.InstanceType), c.zone)]; ok {
			out.Errors = append(out.Errors, fleetError(c, lifecycle, code, "The request failed: "+code))
			continue
		}
		if e.insufficient[Pool(capacityType, string(c.override.InstanceType), c.zone)] {
			out.Errors = append(out.Errors, fleetError(c, lifecycle, "InsufficientInstanceCapacity",
				fmt.Sprintf("We currently do not have sufficient %s capacity in the Availability Zone you requested (%s).", c.override.InstanceType, c.zone)))
			continue
		}
		c.price = e.price(capacityType, string(c.override.InstanceType), c.zone)
		ok = append(ok, c)
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].price < ok[j].price })
	want := int(sdkaws.ToInt32(in.TargetCapacitySpecification.TotalTargetCapacity))
	if len(ok) > 0 {
		best := ok[0]
		launched := ec2types.CreateFleetInstance{
			InstanceType: best.override.InstanceType, Lifecycle: lifecycle,
			LaunchTemplateAndOverrides: launchTemplateAndOverrides(best),
		}
		for n := 0; n < want; n++ {
			if e.FleetCapacity > 0 && e.fleetLaunched >= e.FleetCapacity {
				out.Errors = append(out.Errors, fleetError(best, lifecycle, "UnfulfillableCapacity", "Unable to fulfill capacity due to your request configuration."))
				continue
			}
			inst := e.launch(in, best, lifecycle)
			launched.InstanceIds = append(launched.InstanceIds, sdkaws.ToString(inst.InstanceId))
		}
		if len(launched.InstanceIds) > 0 {
			out.Instances = append(out.Instances, launched)
		}
	}
	if e.fleets == nil {
		e.fleets = map[string]*ec2.CreateFleetOutput{}
	}
	if token != "" {
		e.fleets[token] = out
	}
	return out, nil
}

func fleetError(c fleetCandidate, lifecycle ec2types.InstanceLifecycle, code, msg string) ec2types.CreateFleetError {
	return ec2types.CreateFleetError{ErrorCode: sdkaws.String(code), ErrorMessage: sdkaws.String(msg), Lifecycle: lifecycle, LaunchTemplateAndOverrides: launchTemplateAndOverrides(c)}
}

func launchTemplateAndOverrides(c fleetCandidate) *ec2types.LaunchTemplateAndOverridesResponse {
	return &ec2types.LaunchTemplateAndOverridesResponse{
		LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecification{LaunchTemplateName: c.spec.LaunchTemplateName, Version: c.spec.Version},
		Overrides: &ec2types.FleetLaunchTemplateOverrides{
			InstanceType: c.override.InstanceType, AvailabilityZone: sdkaws.String(c.zone), SubnetId: c.override.SubnetId,
			ImageId: c.override.ImageId, Priority: c.override.Priority,
		},
	}
}

func (e *EC2) subnetZone(id string) string {
	for _, s := range e.Subnets {
		if sdkaws.ToString(s.SubnetId) == id {
			return sdkaws.ToString(s.AvailabilityZone)
		}
	}
	return ""
}

// price is the latest spot price of the pool for spot, else the on-demand price.
func (e *EC2) price(capacityType, instanceType, zone string) float64 {
	if capacityType == "spot" {
		best, when := -1.0, int64(0)
		for _, p := range e.SpotPriceHistory {
			if string(p.InstanceType) != instanceType || sdkaws.ToString(p.AvailabilityZone) != zone {
				continue
			}
			if f, err := strconv.ParseFloat(sdkaws.ToString(p.SpotPrice), 64); err == nil && (best < 0 || sdkaws.ToTime(p.Timestamp).Unix() >= when) {
				best, when = f, sdkaws.ToTime(p.Timestamp).Unix()
			}
		}
		if best >= 0 {
			return best
		}
	}
	if p, ok := e.OnDemandPrices[instanceType]; ok {
		return p
	}
	return 1e9
}

func (e *EC2) launch(in *ec2.CreateFleetInput, c fleetCandidate, lifecycle ec2types.InstanceLifecycle) *ec2types.Instance {
	e.seq++
	image := c.override.ImageId
	if image == nil {
		image = c.lt.data.ImageId
	}
	inst := &ec2types.Instance{
		InstanceId:   sdkaws.String(fmt.Sprintf("i-%017x", e.seq)),
		InstanceType: c.override.InstanceType,
		ImageId:      image,
		SubnetId:     c.override.SubnetId,
		Placement:    &ec2types.Placement{AvailabilityZone: sdkaws.String(c.zone), Tenancy: ec2types.TenancyDefault},
		State:        &ec2types.InstanceState{Name: ec2types.InstanceStateNameRunning, Code: sdkaws.Int32(16)},
		LaunchTime:   sdkaws.Time(e.now()),
		Architecture: ec2types.ArchitectureValuesX8664,
	}
	if cr := e.reservation(c.lt); cr != nil {
		inst.CapacityReservationId = cr.CapacityReservationId
		cr.AvailableInstanceCount = sdkaws.Int32(sdkaws.ToInt32(cr.AvailableInstanceCount) - 1)
	}
	if lifecycle == ec2types.InstanceLifecycleSpot {
		inst.InstanceLifecycle = ec2types.InstanceLifecycleTypeSpot
		inst.SpotInstanceRequestId = sdkaws.String(fmt.Sprintf("sir-%08d", e.seq))
	}
	groups := c.lt.data.SecurityGroupIds // EC2 takes them from the template, or from its first network interface
	if len(c.lt.data.NetworkInterfaces) > 0 {
		groups = c.lt.data.NetworkInterfaces[0].Groups
	}
	for _, g := range groups {
		inst.SecurityGroups = append(inst.SecurityGroups, ec2types.GroupIdentifier{GroupId: sdkaws.String(g)})
	}
	for _, ts := range in.TagSpecifications {
		if ts.ResourceType == ec2types.ResourceTypeInstance {
			inst.Tags = append(inst.Tags, ts.Tags...)
		}
	}
	e.fleetLaunched++
	e.store(inst)
	return inst
}

// reservation is the capacity reservation a launch template targets, or nil.
func (e *EC2) reservation(lt *launchTemplate) *ec2types.CapacityReservation {
	spec := lt.data.CapacityReservationSpecification
	if spec == nil || spec.CapacityReservationTarget == nil {
		return nil
	}
	return e.reservationByID(sdkaws.ToString(spec.CapacityReservationTarget.CapacityReservationId))
}

// reservationByID is the capacity reservation with id, or nil.
func (e *EC2) reservationByID(id string) *ec2types.CapacityReservation {
	for i := range e.CapacityReservations {
		if id != "" && sdkaws.ToString(e.CapacityReservations[i].CapacityReservationId) == id {
			return &e.CapacityReservations[i]
		}
	}
	return nil
}

// DescribeInstances returns the instances named (an unknown ID is InvalidInstanceID.NotFound,
// as in EC2) or all, filtered by instance-state-name, instance-id, tag:K and tag-key, one
// reservation per instance, paginated (default 1000).
func (e *EC2) DescribeInstances(_ context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("DescribeInstances"); err != nil {
		return nil, err
	}
	fs, err := filters(in.Filters, "instance-state-name", "instance-id", "tag-key")
	if err != nil {
		return nil, err
	}
	ids := e.order
	if len(in.InstanceIds) > 0 {
		for _, id := range in.InstanceIds {
			if _, ok := e.instances[id]; !ok {
				return nil, apiError("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
			}
		}
		ids = in.InstanceIds
	}
	var items []ec2types.Reservation
	for _, id := range ids {
		inst := e.instances[id]
		if v, ok := fs["instance-state-name"]; ok && !match(v, string(inst.State.Name)) {
			continue
		}
		if v, ok := fs["instance-id"]; ok && !match(v, id) {
			continue
		}
		if !fs.matchTags(inst.Tags) {
			continue
		}
		items = append(items, ec2types.Reservation{ReservationId: sdkaws.String("r-" + id[2:]), Instances: []ec2types.Instance{*inst}})
	}
	from, to, next, err := page(len(items), in.NextToken, in.MaxResults, 1000)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeInstancesOutput{Reservations: items[from:to], NextToken: next}, nil
}

// TerminateInstances terminates the named instances (an unknown ID fails the whole call with
// InvalidInstanceID.NotFound, as in EC2; terminating a terminated instance succeeds). An
// instance in a capacity reservation frees its slot.
func (e *EC2) TerminateInstances(_ context.Context, in *ec2.TerminateInstancesInput, _ ...func(*ec2.Options)) (*ec2.TerminateInstancesOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("TerminateInstances"); err != nil {
		return nil, err
	}
	for _, id := range in.InstanceIds {
		if _, ok := e.instances[id]; !ok {
			return nil, apiError("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
		}
	}
	out := &ec2.TerminateInstancesOutput{}
	for _, id := range in.InstanceIds {
		inst := e.instances[id]
		prev := *inst.State
		cur := ec2types.InstanceState{Name: ec2types.InstanceStateNameShuttingDown, Code: sdkaws.Int32(32)}
		if prev.Name == ec2types.InstanceStateNameTerminated {
			cur = prev
		} else if cr := e.reservationByID(sdkaws.ToString(inst.CapacityReservationId)); cr != nil {
			cr.AvailableInstanceCount = sdkaws.Int32(sdkaws.ToInt32(cr.AvailableInstanceCount) + 1)
		}
		inst.State = &ec2types.InstanceState{Name: ec2types.InstanceStateNameTerminated, Code: sdkaws.Int32(48)}
		out.TerminatingInstances = append(out.TerminatingInstances, ec2types.InstanceStateChange{InstanceId: sdkaws.String(id), PreviousState: &prev, CurrentState: &cur})
	}
	return out, nil
}
