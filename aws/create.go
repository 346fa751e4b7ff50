package aws

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// MaxInstanceTypes is how many instance types one CreateFleet call may carry (Karpenter's 60).
const MaxInstanceTypes = 60

// Annotations Karpenter's AWS provider stamps on a launched NodeClaim from its NodeClass.
const (
	AnnotationNodeClassHash        = "karpenter.k8s.aws/ec2nodeclass-hash"
	AnnotationNodeClassHashVersion = "karpenter.k8s.aws/ec2nodeclass-hash-version"
)

// unfulfillable are the CreateFleet error codes that mean "no capacity in this pool now";
// they mark the offering unavailable and, if nothing launched, make the launch an
// InsufficientCapacityError.
var unfulfillable = map[string]bool{
	"InsufficientInstanceCapacity": true, "MaxSpotInstanceCountExceeded": true, "VcpuLimitExceeded": true,
	"UnfulfillableCapacity": true, "Unsupported": true, "InsufficientFreeAddressesInSubnet": true,
	"MaxFleetCountExceeded": true, "ReservationCapacityExceeded": true,
}

// spotRoleError means the account cannot create the spot service-linked role: no spot at all.
const spotRoleError = "AuthFailure.ServiceLinkedRoleCreationNotPermitted"

// Create launches one instance for the NodeClaim with an instant CreateFleet: the cheapest 60
// compatible instance types that fit its requests (metal and accelerated types only when
// nothing else fits), spot when the claim allows it and spot is available (price-capacity-
// optimized, spot offerings dearer than the cheapest on-demand one dropped), else on-demand
// (lowest-price); one override per type and zone, in the zone's subnet with the most free
// IPs, through launch templates created or reused per AMI and max pods. The instance is
// tagged for the cluster, the NodePool, the NodeClass and the NodeClaim.
//
// Errors of the fleet mark their offerings unavailable for three minutes. When nothing
// launched and every error was a capacity error the result is an InsufficientCapacityError.
// When EC2's answer is lost (a malformed reply, a timeout, the caller's context ending while
// CreateFleet is in flight), instances the call may have launched for this NodeClaim are
// found by tag and terminated before the error is returned, on a context of the clean-up's
// own (two minutes at most), so no instance leaks and no claim is reported launched that was
// not.
func (p *Provider) Create(ctx context.Context, claim *v1.NodeClaim) (*v1.NodeClaim, error) {
	if claim == nil || claim.Name == "" {
		return nil, errors.New("creating a nodeclaim: a named NodeClaim is required")
	}
	nc, err := p.readyNodeClass(ctx, claim)
	if err != nil {
		return nil, err
	}
	for k := range nc.Spec.Tags {
		if restrictedTag(k) {
			return nil, cloudprovider.NewCreateError(fmt.Errorf("EC2NodeClass %s: spec.tags: %s is set by the provider", nc.Name, k), "InvalidTags", "restricted tag "+k)
		}
	}
	reqs, err := requirements.FromNodeSelectorRequirements(claim.Spec.Requirements...)
	if err != nil {
		return nil, fmt.Errorf("nodeclaim %s: spec.requirements: %w", claim.Name, err)
	}
	np := p.nodePool(ctx, claim.Labels[v1.NodePoolLabelKey])
	all, err := p.instanceTypesFor(nc, np)
	if err != nil {
		return nil, err
	}
	its := launchable(all, reqs, claim.Spec.Resources.Requests)
	if len(its) == 0 {
		return nil, cloudprovider.NewInsufficientCapacityError(fmt.Errorf("all requested instance types were unavailable during launch (%d types considered)", len(all)))
	}
	its = withoutExotic(its, reqs)
	capacityType := chooseCapacityType(its, reqs)
	pinned := reqs.Copy()
	pinned.Add(requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, capacityType))
	its, err = its.Truncate(pinned, MaxInstanceTypes)
	if err != nil {
		return nil, cloudprovider.NewInsufficientCapacityError(err)
	}
	subnets, err := p.zonalSubnets(ctx, nc)
	if err != nil {
		return nil, err
	}
	spotCap := spotPriceCap(its, reqs, capacityType)
	since := p.now().Add(-time.Minute) // launches of this call are at least this recent
	for attempt := 0; ; attempt++ {
		configs, reservations, err := p.launchConfigs(ctx, nc, claim, np, its, pinned, capacityType, subnets, spotCap)
		if err != nil {
			return nil, err
		}
		if len(configs) == 0 {
			return nil, cloudprovider.NewInsufficientCapacityError(errors.New("no capacity offerings are currently available given the constraints"))
		}
		out, err := p.createFleet(ctx, nc, claim, capacityType, configs, since)
		var ce *cloudprovider.CreateError
		if attempt == 0 && errors.As(err, &ce) && ce.ConditionReason == "LaunchTemplateNotFound" {
			continue // a template vanished (deleted outside): recreate it and launch once more
		}
		if err != nil {
			return nil, err
		}
		return p.launched(ctx, nc, claim, its, capacityType, reservations, out)
	}
}

// launchable are the types with an available offering compatible with reqs whose
// allocatable fits the requests, in input order.
func launchable(its cloudprovider.InstanceTypes, reqs requirements.Requirements, requests corev1.ResourceList) cloudprovider.InstanceTypes {
	var out cloudprovider.InstanceTypes
	for _, it := range its.Compatible(reqs) {
		if fits(requests, it.Allocatable()) {
			out = append(out, it)
		}
	}
	return out
}

func fits(requests, allocatable corev1.ResourceList) bool {
	for name, q := range requests {
		if q.Sign() <= 0 {
			continue
		}
		if a, ok := allocatable[name]; !ok || q.Cmp(a) > 0 {
			return false
		}
	}
	return true
}

// accelerated are the resources that make a type exotic.
var accelerated = []corev1.ResourceName{ResourceNVIDIAGPU, ResourceAMDGPU, ResourceNeuron, ResourceNeuronCore, ResourceHabanaGaudi}

// withoutExotic drops metal sizes and accelerated types unless that leaves nothing or the
// requirements use minValues (Karpenter's exotic-instance filter).
func withoutExotic(its cloudprovider.InstanceTypes, reqs requirements.Requirements) cloudprovider.InstanceTypes {
	if cloudprovider.HasMinValues(reqs) {
		return its
	}
	var out cloudprovider.InstanceTypes
	for _, it := range its {
		exotic := strings.Contains(it.Name, "metal")
		for _, r := range accelerated {
			if q, ok := it.Capacity[r]; ok && q.Sign() > 0 {
				exotic = true
			}
		}
		if !exotic {
			out = append(out, it)
		}
	}
	if len(out) == 0 {
		return its
	}
	return out
}

// allows reports whether reqs admit the capacity type.
func allows(reqs requirements.Requirements, capacityType string) bool {
	return !reqs.Has(v1.CapacityTypeLabelKey) || reqs.Get(v1.CapacityTypeLabelKey).Has(capacityType)
}

// chooseCapacityType is the first of reserved and spot that the claim allows and some type
// has an available compatible offering of, else on-demand (Karpenter's order).
func chooseCapacityType(its cloudprovider.InstanceTypes, reqs requirements.Requirements) string {
	for _, ct := range []string{v1.CapacityTypeReserved, v1.CapacityTypeSpot} {
		if !allows(reqs, ct) {
			continue
		}
		pinned := reqs.Copy()
		pinned.Add(requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, ct))
		for _, it := range its {
			if it.Offerings.Available().HasCompatible(pinned) {
				return ct
			}
		}
	}
	return v1.CapacityTypeOnDemand
}

// spotPriceCap is, for a spot launch whose claim also allows on-demand, the price of the
// cheapest available compatible on-demand offering: spot offerings above it are dropped.
// Otherwise +Inf (0 means no cap).
func spotPriceCap(its cloudprovider.InstanceTypes, reqs requirements.Requirements, capacityType string) float64 {
	if capacityType != v1.CapacityTypeSpot || !allows(reqs, v1.CapacityTypeOnDemand) || cloudprovider.HasMinValues(reqs) {
		return 0
	}
	od := reqs.Copy()
	od.Add(requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeOnDemand))
	cap := 0.0
	for _, it := range its {
		if o := it.Offerings.Available().Compatible(od).Cheapest(); o != nil && (cap == 0 || o.Price < cap) {
			cap = o.Price
		}
	}
	return cap
}

// zonalSubnets picks, per zone of the NodeClass's subnets, the subnet with the most free IPs
// (ties: the order of status.subnets).
func (p *Provider) zonalSubnets(ctx context.Context, nc *awsv1.EC2NodeClass) (map[string]string, error) {
	var ids []string
	for _, s := range nc.Status.Subnets {
		ids = append(ids, s.ID)
	}
	out, err := p.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: ids})
	if err != nil {
		return nil, fmt.Errorf("describing the subnets of EC2NodeClass %s: %w", nc.Name, err)
	}
	free := map[string]int32{}
	for _, s := range out.Subnets {
		free[sdkaws.ToString(s.SubnetId)] = sdkaws.ToInt32(s.AvailableIpAddressCount)
	}
	best := map[string]string{}
	for _, s := range nc.Status.Subnets {
		n, ok := free[s.ID]
		if !ok {
			continue
		}
		if cur, seen := best[s.Zone]; !seen || n > free[cur] {
			best[s.Zone] = s.ID
		}
	}
	return best, nil
}

// amiFor is the first status AMI whose requirements the instance type meets.
func amiFor(nc *awsv1.EC2NodeClass, it *cloudprovider.InstanceType) string {
	for _, ami := range nc.Status.AMIs {
		var nsrs []v1.NodeSelectorRequirementWithMinValues
		for _, r := range ami.Requirements {
			nsrs = append(nsrs, v1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
		reqs, err := requirements.FromNodeSelectorRequirements(nsrs...)
		if err == nil && it.Requirements.HasIntersection(reqs) {
			return ami.ID
		}
	}
	return ""
}

// launchConfigs lists one override per type and zone (for a reserved launch: the zone's
// reservation with the most room), groups them by (AMI, max pods, reservation), and ensures
// one launch template per group.
func (p *Provider) launchConfigs(ctx context.Context, nc *awsv1.EC2NodeClass, claim *v1.NodeClaim, np *v1.NodePool, its cloudprovider.InstanceTypes,
	pinned requirements.Requirements, capacityType string, subnets map[string]string, spotCap float64) ([]ec2types.FleetLaunchTemplateConfigRequest, map[string]string, error) {
	type group struct {
		ami, reservation string
		maxPods          int64
		overrides        []ec2types.FleetLaunchTemplateOverridesRequest
	}
	var groups []*group
	index := map[string]*group{}
	for _, it := range its {
		ami := amiFor(nc, it)
		if ami == "" {
			continue
		}
		pods := it.Capacity[corev1.ResourcePods]
		for _, o := range perZone(it.Offerings.Available().Compatible(pinned)) {
			subnet, ok := subnets[o.Zone()]
			if !ok || (spotCap > 0 && o.Price > spotCap) {
				continue
			}
			key := fmt.Sprintf("%s/%d/%s", ami, pods.Value(), o.ReservationID())
			g, ok := index[key]
			if !ok {
				g = &group{ami: ami, maxPods: pods.Value(), reservation: o.ReservationID()}
				index[key] = g
				groups = append(groups, g)
			}
			g.overrides = append(g.overrides, ec2types.FleetLaunchTemplateOverridesRequest{
				InstanceType: ec2types.InstanceType(it.Name), SubnetId: sdkaws.String(subnet), ImageId: sdkaws.String(ami),
				AvailabilityZone: sdkaws.String(o.Zone()), Priority: sdkaws.Float64(o.Price),
			})
		}
	}
	kubelet := nc.Spec.Kubelet
	if np != nil {
		if k, err := awsv1.KubeletFor(np, nc); err == nil {
			kubelet = k
		}
	}
	labels := map[string]string{v1.CapacityTypeLabelKey: capacityType, v1.DoNotSyncTaintsLabelKey: "true"}
	for k, v := range claim.Labels {
		labels[k] = v
	}
	taints := append(append([]corev1.Taint{}, claim.Spec.Taints...), claim.Spec.StartupTaints...)
	taints = append(taints, corev1.Taint{Key: v1.UnregisteredTaintKey, Effect: corev1.TaintEffectNoExecute})
	var configs []ec2types.FleetLaunchTemplateConfigRequest
	reservations := map[string]string{} // template name -> reservation ID
	for _, g := range groups {
		ud, err := nodeadmUserData(nodeadmInput{cluster: p.cluster, info: p.cfg.Cluster, maxPods: g.maxPods, kubelet: kubelet, labels: labels, taints: taints, userData: sdkaws.ToString(nc.Spec.UserData)})
		if err != nil {
			return nil, nil, cloudprovider.NewCreateError(fmt.Errorf("EC2NodeClass %s: %w", nc.Name, err), "InvalidUserData", err.Error())
		}
		name, err := p.ensureTemplate(ctx, nc, p.templateData(nc, g.ami, ud, g.reservation))
		if err != nil {
			return nil, nil, err
		}
		if g.reservation != "" {
			reservations[name] = g.reservation
		}
		configs = append(configs, ec2types.FleetLaunchTemplateConfigRequest{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: sdkaws.String(name), Version: sdkaws.String("$Latest")},
			Overrides:                   g.overrides,
		})
	}
	return configs, reservations, nil
}

// perZone keeps one offering per zone, in zone order: the first listed, or for reserved
// offerings the reservation with the most instances left (ties: reservation ID).
func perZone(ofs cloudprovider.Offerings) cloudprovider.Offerings {
	best := map[string]*cloudprovider.Offering{}
	var zones []string
	for _, o := range ofs {
		cur, ok := best[o.Zone()]
		if !ok {
			zones = append(zones, o.Zone())
			best[o.Zone()] = o
			continue
		}
		if o.ReservationCapacity > cur.ReservationCapacity || (o.ReservationCapacity == cur.ReservationCapacity && o.ReservationID() < cur.ReservationID()) {
			best[o.Zone()] = o
		}
	}
	sort.Strings(zones)
	out := make(cloudprovider.Offerings, 0, len(zones))
	for _, z := range zones {
		out = append(out, best[z])
	}
	return out
}

// createFleet sends the instant fleet request and sorts its failures: a missing launch
// template is recreated once, an API error is a CreateError, and a lost answer terminates
// whatever the call may have launched for the claim.
func (p *Provider) createFleet(ctx context.Context, nc *awsv1.EC2NodeClass, claim *v1.NodeClaim, capacityType string, configs []ec2types.FleetLaunchTemplateConfigRequest, since time.Time) (*ec2.CreateFleetOutput, error) {
	tags := launchTags(p.cluster, claim.Labels[v1.NodePoolLabelKey], nc.Name, claim.Name, nc.Spec.Tags)
	in := &ec2.CreateFleetInput{
		Type:                  ec2types.FleetTypeInstant,
		Context:               nc.Spec.Context,
		LaunchTemplateConfigs: configs,
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
			TotalTargetCapacity: sdkaws.Int32(1), DefaultTargetCapacityType: fleetCapacityType(capacityType),
		},
		TagSpecifications: []ec2types.TagSpecification{
			{ResourceType: ec2types.ResourceTypeInstance, Tags: tags},
			{ResourceType: ec2types.ResourceTypeVolume, Tags: tags},
			{ResourceType: ec2types.ResourceTypeFleet, Tags: tags},
		},
	}
	if capacityType == v1.CapacityTypeSpot {
		in.SpotOptions = &ec2types.SpotOptionsRequest{AllocationStrategy: ec2types.SpotAllocationStrategyPriceCapacityOptimized}
	} else {
		in.OnDemandOptions = &ec2types.OnDemandOptionsRequest{AllocationStrategy: ec2types.FleetOnDemandAllocationStrategyLowestPrice}
	}
	out, err := p.ec2.CreateFleet(ctx, in)
	if err == nil {
		return out, nil
	}
	// Whatever the final error says, an earlier attempt of the SDK's retries may have run (a
	// 5xx after the launch, then a throttle), and a lost answer tells nothing: terminate what
	// this call launched for the claim.
	launchErr := fmt.Errorf("launching nodeclaim %s: %w", claim.Name, err)
	cleanup, cancel := cleanupContext(ctx)
	defer cancel()
	if rerr := p.reap(cleanup, claim.Name, since); rerr != nil {
		launchErr = &CleanupError{Launch: launchErr, Cleanup: rerr}
	}
	var api smithy.APIError
	if !errors.As(err, &api) || outcomeUnknown(err, api) {
		return nil, launchErr
	}
	if api.ErrorCode() == "InvalidLaunchTemplateName.NotFoundException" {
		for _, c := range configs {
			p.templates.forget(sdkaws.ToString(c.LaunchTemplateSpecification.LaunchTemplateName))
		}
	}
	return nil, cloudprovider.NewCreateError(launchErr, reasonFor(api.ErrorCode()), api.ErrorCode()+": "+api.ErrorMessage())
}

// CleanupError is a failed launch whose clean-up failed too: an instance the launch started
// may still run, untracked by any NodeClaim, until GarbageCollect ends it. It unwraps to the
// launch's error only, so errors.Is and As answer for the launch as they would without the
// clean-up; the clean-up's error is kept for the message and for callers that ask for it.
type CleanupError struct {
	Launch  error // why the launch failed
	Cleanup error // why terminating what it may have started failed
}

func (e *CleanupError) Error() string {
	return fmt.Sprintf("%v; and cleaning up after it: %v (garbage collection will retry)", e.Launch, e.Cleanup)
}

// Unwrap returns the launch's error.
func (e *CleanupError) Unwrap() error { return e.Launch }

// fleetCapacityType is the fleet's target capacity type: a reserved launch is an on-demand
// launch whose template targets the reservation.
func fleetCapacityType(capacityType string) ec2types.DefaultTargetCapacityType {
	if capacityType == v1.CapacityTypeReserved {
		return ec2types.DefaultTargetCapacityTypeOnDemand
	}
	return ec2types.DefaultTargetCapacityType(capacityType)
}

// outcomeUnknown reports whether an API error leaves open whether the call ran: a server
// fault (5xx) other than throttling.
func outcomeUnknown(err error, api smithy.APIError) bool {
	if api.ErrorCode() == "RequestLimitExceeded" {
		return false
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() >= 500 {
		return true
	}
	return api.ErrorFault() == smithy.FaultServer
}

// reasonFor maps an EC2 error code to a Launched condition reason.
func reasonFor(code string) string {
	switch {
	case code == "UnauthorizedOperation" || strings.HasPrefix(code, "AuthFailure"):
		return "Unauthorized"
	case code == "InvalidLaunchTemplateName.NotFoundException":
		return "LaunchTemplateNotFound"
	case code == "RequestLimitExceeded":
		return "RequestLimitExceeded"
	case code == "InsufficientFreeAddressesInSubnet":
		return "InsufficientFreeAddressesInSubnet"
	case strings.HasPrefix(code, "InvalidAMIID"):
		return "AMINotFound"
	}
	return "LaunchFailed"
}

// cleanupTimeout bounds the clean-up after a launch: finding and terminating what it may
// have launched, retries included.
const cleanupTimeout = 2 * time.Minute

// cleanupContext is the context of a launch's clean-up. It keeps the caller's values but not
// its cancellation: a caller that gave up while CreateFleet was in flight (a controller
// shutting down, a per-reconcile timeout) must not leave the instance running, and a dead
// context would fail every clean-up call (Karpenter cleans up on a context of its own too).
func cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// reap terminates the live, owned instances tagged for the NodeClaim that launched since.
func (p *Provider) reap(ctx context.Context, claimName string, since time.Time) error {
	in := &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{
		{Name: sdkaws.String("tag:" + TagNodeClaim), Values: []string{claimName}},
		{Name: sdkaws.String("tag:" + TagClusterName), Values: []string{p.cluster}},
		stateFilter(),
	}}
	insts, err := p.describeOwned(ctx, in)
	if err != nil {
		return err
	}
	var ids []string
	for _, inst := range insts {
		if tagMap(inst.Tags)[TagNodeClaim] == claimName && !sdkaws.ToTime(inst.LaunchTime).Before(since) {
			ids = append(ids, sdkaws.ToString(inst.InstanceId))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sort.Strings(ids)
	_, err = p.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: ids})
	return err
}

// launched reads the fleet's answer: it marks failed pools unavailable, keeps the first
// instance (terminating any extra, on the clean-up's own context) and describes it as the
// hydrated NodeClaim.
func (p *Provider) launched(ctx context.Context, nc *awsv1.EC2NodeClass, claim *v1.NodeClaim, its cloudprovider.InstanceTypes, capacityType string,
	reservations map[string]string, out *ec2.CreateFleetOutput) (*v1.NodeClaim, error) {
	var msgs []string
	allCapacity := true
	for _, e := range out.Errors {
		code := sdkaws.ToString(e.ErrorCode)
		msgs = append(msgs, code+": "+sdkaws.ToString(e.ErrorMessage))
		switch {
		case unfulfillable[code]:
			if o := e.LaunchTemplateAndOverrides; o != nil && o.Overrides != nil {
				p.unavailable.MarkUnavailable(capacityType, string(o.Overrides.InstanceType), sdkaws.ToString(o.Overrides.AvailabilityZone))
			}
		case code == spotRoleError:
			p.unavailable.MarkCapacityTypeUnavailable(v1.CapacityTypeSpot)
		default:
			allCapacity = false
		}
	}
	type launch struct {
		id, instanceType, zone, reservation string
	}
	var ls []launch
	for _, inst := range out.Instances {
		zone, reservation := "", ""
		if o := inst.LaunchTemplateAndOverrides; o != nil && o.Overrides != nil {
			zone = sdkaws.ToString(o.Overrides.AvailabilityZone)
			if o.LaunchTemplateSpecification != nil {
				reservation = reservations[sdkaws.ToString(o.LaunchTemplateSpecification.LaunchTemplateName)]
			}
		}
		for _, id := range inst.InstanceIds {
			ls = append(ls, launch{id: id, instanceType: string(inst.InstanceType), zone: zone, reservation: reservation})
		}
	}
	if len(ls) == 0 {
		err := fmt.Errorf("launching nodeclaim %s: no instance launched: %s", claim.Name, strings.Join(sortedUnique(msgs), "; "))
		if allCapacity {
			return nil, cloudprovider.NewInsufficientCapacityError(err)
		}
		return nil, cloudprovider.NewCreateError(err, "LaunchFailed", strings.Join(sortedUnique(msgs), "; "))
	}
	cleanup, cancel := cleanupContext(ctx)
	defer cancel()
	if len(ls) > 1 {
		var extra []string
		for _, l := range ls[1:] {
			extra = append(extra, l.id)
		}
		// Should this fail, the claim still gets the first instance: failing the launch would
		// leave that one running unclaimed too, and GarbageCollect ends the extra ones (no
		// NodeClaim names them).
		_, _ = p.ec2.TerminateInstances(cleanup, &ec2.TerminateInstancesInput{InstanceIds: extra})
	}
	l := ls[0]
	var it *cloudprovider.InstanceType
	for _, t := range its {
		if t.Name == l.instanceType {
			it = t
		}
	}
	if it == nil || l.zone == "" {
		_, _ = p.ec2.TerminateInstances(cleanup, &ec2.TerminateInstancesInput{InstanceIds: []string{l.id}})
		return nil, fmt.Errorf("launching nodeclaim %s: fleet launched %s (%s in %q), which was not requested; terminated it", claim.Name, l.id, l.instanceType, l.zone)
	}
	hydrated := claim.DeepCopy()
	labels := map[string]string{}
	for k, v := range it.Requirements.Labels() {
		labels[k] = v
	}
	labels[v1.LabelTopologyZone] = l.zone
	labels[v1.CapacityTypeLabelKey] = capacityType
	labels[LabelInstanceTenancy] = "default"
	if l.reservation != "" {
		labels[cloudprovider.ReservationIDLabel] = l.reservation
		p.reservations.take(l.id, l.reservation)
	}
	for _, s := range nc.Status.Subnets {
		if s.Zone == l.zone && s.ZoneID != "" {
			labels[LabelZoneID] = s.ZoneID
		}
	}
	for k, v := range claim.Labels {
		labels[k] = v
	}
	hydrated.Labels = labels
	if hydrated.Annotations == nil {
		hydrated.Annotations = map[string]string{}
	}
	for _, k := range []string{AnnotationNodeClassHash, AnnotationNodeClassHashVersion} {
		if v, ok := nc.Annotations[k]; ok {
			hydrated.Annotations[k] = v
		}
	}
	hydrated.Status.ProviderID = ProviderID(l.zone, l.id)
	hydrated.Status.ImageID = amiFor(nc, it)
	hydrated.Status.Capacity = copyResources(it.Capacity)
	hydrated.Status.Allocatable = copyResources(it.Allocatable())
	hydrated.Status.Conditions = append(hydrated.Status.Conditions, metav1.Condition{Type: v1.ConditionTypeLaunched, Status: metav1.ConditionTrue, Reason: "Launched"})
	return hydrated, nil
}

// sortedUnique returns the distinct strings of ss, sorted; ss is left as it is.
func sortedUnique(ss []string) []string {
	return slices.Compact(slices.Sorted(slices.Values(ss)))
}
