package awstest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// EC2 is an in-memory EC2 region: instance types, offerings, spot prices, capacity
// reservations and subnets that a test sets, and instances and launch templates that
// CreateFleet / CreateLaunchTemplate create and TerminateInstances ends. Describe calls
// paginate (MaxResults, NextToken) and honour the filters package aws uses; an unknown filter
// is an InvalidParameterValue error, as in EC2. It is safe for concurrent use.
type EC2 struct {
	mu sync.Mutex

	// Facts a test sets before calls start.
	InstanceTypes        []ec2types.InstanceTypeInfo
	Offerings            []ec2types.InstanceTypeOffering
	SpotPriceHistory     []ec2types.SpotPrice
	CapacityReservations []ec2types.CapacityReservation
	Subnets              []ec2types.Subnet
	SecurityGroups       []ec2types.SecurityGroup
	Images               []ec2types.Image
	// OnDemandPrices rank on-demand overrides for the lowest-price strategy.
	OnDemandPrices map[string]float64
	// FleetCapacity, when > 0, is how many instances CreateFleet may still launch in total;
	// requests beyond it are partially fulfilled (an UnfulfillableCapacity error per missing
	// instance).
	FleetCapacity int
	// Now is the clock for launch times (time.Now when nil).
	Now func() time.Time

	// Faults of the region, set with SetInsufficientCapacity, SetFleetError and FailNext
	// (also while calls run).
	insufficient map[string]bool   // pools without capacity
	fleetErrors  map[string]string // pool -> error code CreateFleet reports for it
	nextErrors   map[string]error  // action -> error its next call returns

	seq             int
	instances       map[string]*ec2types.Instance
	order           []string
	launchTemplates map[string]*launchTemplate
	fleets          map[string]*ec2.CreateFleetOutput // by client token
	calls           map[string]int
	fleetInputs     []*ec2.CreateFleetInput
	fleetLaunched   int
}

type launchTemplate struct {
	template ec2types.LaunchTemplate
	data     ec2types.RequestLaunchTemplateData
}

// Pool names a capacity pool for SetInsufficientCapacity and SetFleetError.
func Pool(capacityType, instanceType, zone string) string {
	return capacityType + ":" + instanceType + ":" + zone
}

// NewEC2 returns an empty region (the zero EC2 is one too).
func NewEC2() *EC2 { return &EC2{} }

// SetInsufficientCapacity marks the pool, Pool(capacityType, type, zone), out of capacity
// (CreateFleet reports InsufficientInstanceCapacity for its overrides) or, with false, back
// in capacity.
func (e *EC2) SetInsufficientCapacity(pool string, insufficient bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.insufficient == nil {
		e.insufficient = map[string]bool{}
	}
	e.insufficient[pool] = insufficient
}

// SetFleetError makes CreateFleet report the error code for the pool's overrides (e.g.
// AuthFailure.ServiceLinkedRoleCreationNotPermitted for a spot pool); "" clears it.
func (e *EC2) SetFleetError(pool, code string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fleetErrors == nil {
		e.fleetErrors = map[string]string{}
	}
	if code == "" {
		delete(e.fleetErrors, pool)
	} else {
		e.fleetErrors[pool] = code
	}
}

// FailNext makes the next call of action return err before it runs.
func (e *EC2) FailNext(action string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.nextErrors == nil {
		e.nextErrors = map[string]error{}
	}
	e.nextErrors[action] = err
}

func (e *EC2) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// begin counts the call and returns the injected error for action, if any. Callers hold mu.
func (e *EC2) begin(action string) error {
	if e.calls == nil {
		e.calls = map[string]int{}
	}
	e.calls[action]++
	if err, ok := e.nextErrors[action]; ok {
		delete(e.nextErrors, action)
		return err
	}
	return nil
}

// Calls is how many times action was called.
func (e *EC2) Calls(action string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls[action]
}

// FleetInputs are the CreateFleet requests received, in order.
func (e *EC2) FleetInputs() []*ec2.CreateFleetInput {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*ec2.CreateFleetInput(nil), e.fleetInputs...)
}

// AddInstance stores an instance as it is (tests use it for instances launched elsewhere).
func (e *EC2) AddInstance(inst ec2types.Instance) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.store(&inst)
}

func (e *EC2) store(inst *ec2types.Instance) {
	if e.instances == nil {
		e.instances = map[string]*ec2types.Instance{}
	}
	id := sdkaws.ToString(inst.InstanceId)
	if _, ok := e.instances[id]; !ok {
		e.order = append(e.order, id)
	}
	e.instances[id] = inst
}

// Instance returns a copy of the instance with id.
func (e *EC2) Instance(id string) (ec2types.Instance, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	inst, ok := e.instances[id]
	if !ok {
		return ec2types.Instance{}, false
	}
	return *inst, true
}

// Live returns the IDs of instances that are not terminated or shutting down, in launch order.
func (e *EC2) Live() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, id := range e.order {
		switch e.instances[id].State.Name {
		case ec2types.InstanceStateNameTerminated, ec2types.InstanceStateNameShuttingDown:
		default:
			out = append(out, id)
		}
	}
	return out
}

// Reservation returns a copy of the capacity reservation with id, as EC2 has it now.
func (e *EC2) Reservation(id string) (ec2types.CapacityReservation, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if cr := e.reservationByID(id); cr != nil {
		return *cr, true
	}
	return ec2types.CapacityReservation{}, false
}

// LaunchTemplateNames lists the stored launch templates, sorted.
func (e *EC2) LaunchTemplateNames() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Sorted(maps.Keys(e.launchTemplates))
}

// LaunchTemplateData returns the data a launch template was created with.
func (e *EC2) LaunchTemplateData(name string) (ec2types.RequestLaunchTemplateData, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	lt, ok := e.launchTemplates[name]
	if !ok {
		return ec2types.RequestLaunchTemplateData{}, false
	}
	return lt.data, true
}

// page cuts items[start:] to max (default def) and returns the next token.
func page(n int, token *string, max *int32, def int) (from, to int, next *string, err error) {
	if t := sdkaws.ToString(token); t != "" {
		from, err = strconv.Atoi(t)
		if err != nil || from < 0 || from > n {
			return 0, 0, nil, apiError("InvalidNextToken", "The token '%s' is invalid.", t)
		}
	}
	size := def
	if max != nil && *max > 0 {
		size = int(*max)
	}
	to = min(from+size, n)
	if to < n {
		next = sdkaws.String(strconv.Itoa(to))
	}
	return from, to, next, nil
}

// filterSet is the filters of a request: name -> accepted values.
type filterSet map[string][]string

func filters(fs []ec2types.Filter, known ...string) (filterSet, error) {
	out := filterSet{}
	for _, f := range fs {
		name := sdkaws.ToString(f.Name)
		ok := strings.HasPrefix(name, "tag:")
		for _, k := range known {
			ok = ok || k == name
		}
		if !ok {
			return nil, apiError("InvalidParameterValue", "The filter '%s' is invalid", name)
		}
		out[name] = append(out[name], f.Values...)
	}
	return out, nil
}

// match reports whether value matches one of the filter's values ('*' is a wildcard).
func match(patterns []string, value string) bool {
	for _, p := range patterns {
		if p == value || p == "*" || (strings.HasSuffix(p, "*") && strings.HasPrefix(value, strings.TrimSuffix(p, "*"))) {
			return true
		}
	}
	return false
}

// matchTags applies tag:K and tag-key filters.
func (fs filterSet) matchTags(tags []ec2types.Tag) bool {
	for name, vals := range fs {
		if k, ok := strings.CutPrefix(name, "tag:"); ok {
			found := false
			for _, t := range tags {
				if sdkaws.ToString(t.Key) == k && match(vals, sdkaws.ToString(t.Value)) {
					found = true
				}
			}
			if !found {
				return false
			}
		}
		if name == "tag-key" {
			for _, want := range vals {
				found := false
				for _, t := range tags {
					found = found || sdkaws.ToString(t.Key) == want
				}
				if !found {
					return false
				}
			}
		}
	}
	return true
}

// DescribeInstanceTypes pages through InstanceTypes (default 100 per page), optionally only
// the named ones.
func (e *EC2) DescribeInstanceTypes(_ context.Context, in *ec2.DescribeInstanceTypesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("DescribeInstanceTypes"); err != nil {
		return nil, err
	}
	fs, err := filters(in.Filters, "supported-virtualization-type", "processor-info.supported-architecture")
	if err != nil {
		return nil, err
	}
	var items []ec2types.InstanceTypeInfo
	for _, it := range e.InstanceTypes {
		if len(in.InstanceTypes) > 0 && !contains(in.InstanceTypes, it.InstanceType) {
			continue
		}
		if v, ok := fs["supported-virtualization-type"]; ok && !anyMatch(v, it.SupportedVirtualizationTypes) {
			continue
		}
		if v, ok := fs["processor-info.supported-architecture"]; ok && (it.ProcessorInfo == nil || !anyMatch(v, it.ProcessorInfo.SupportedArchitectures)) {
			continue
		}
		items = append(items, it)
	}
	from, to, next, err := page(len(items), in.NextToken, in.MaxResults, 100)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeInstanceTypesOutput{InstanceTypes: items[from:to], NextToken: next}, nil
}

func contains[T ~string](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func anyMatch[T ~string](patterns []string, values []T) bool {
	for _, v := range values {
		if match(patterns, string(v)) {
			return true
		}
	}
	return false
}

// DescribeInstanceTypeOfferings pages through Offerings (default 1000 per page).
func (e *EC2) DescribeInstanceTypeOfferings(_ context.Context, in *ec2.DescribeInstanceTypeOfferingsInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("DescribeInstanceTypeOfferings"); err != nil {
		return nil, err
	}
	if _, err := filters(in.Filters, "instance-type", "location"); err != nil {
		return nil, err
	}
	var items []ec2types.InstanceTypeOffering
	for _, o := range e.Offerings {
		if in.LocationType == "" || o.LocationType == in.LocationType {
			items = append(items, o)
		}
	}
	from, to, next, err := page(len(items), in.NextToken, in.MaxResults, 1000)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeInstanceTypeOfferingsOutput{InstanceTypeOfferings: items[from:to], NextToken: next}, nil
}

// DescribeSpotPriceHistory pages through SpotPriceHistory (default 1000 per page), only the
// requested product descriptions.
func (e *EC2) DescribeSpotPriceHistory(_ context.Context, in *ec2.DescribeSpotPriceHistoryInput, _ ...func(*ec2.Options)) (*ec2.DescribeSpotPriceHistoryOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("DescribeSpotPriceHistory"); err != nil {
		return nil, err
	}
	if _, err := filters(in.Filters); err != nil {
		return nil, err
	}
	var items []ec2types.SpotPrice
	for _, p := range e.SpotPriceHistory {
		if len(in.ProductDescriptions) > 0 && !contains(in.ProductDescriptions, string(p.ProductDescription)) {
			continue
		}
		items = append(items, p)
	}
	from, to, next, err := page(len(items), in.NextToken, in.MaxResults, 1000)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeSpotPriceHistoryOutput{SpotPriceHistory: items[from:to], NextToken: next}, nil
}

// DescribeCapacityReservations pages through CapacityReservations, filtered by state.
func (e *EC2) DescribeCapacityReservations(_ context.Context, in *ec2.DescribeCapacityReservationsInput, _ ...func(*ec2.Options)) (*ec2.DescribeCapacityReservationsOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("DescribeCapacityReservations"); err != nil {
		return nil, err
	}
	fs, err := filters(in.Filters, "state", "instance-type")
	if err != nil {
		return nil, err
	}
	var items []ec2types.CapacityReservation
	for _, cr := range e.CapacityReservations {
		if len(in.CapacityReservationIds) > 0 && !contains(in.CapacityReservationIds, sdkaws.ToString(cr.CapacityReservationId)) {
			continue
		}
		if v, ok := fs["state"]; ok && !match(v, string(cr.State)) {
			continue
		}
		if !fs.matchTags(cr.Tags) {
			continue
		}
		items = append(items, cr)
	}
	from, to, next, err := page(len(items), in.NextToken, in.MaxResults, 1000)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeCapacityReservationsOutput{CapacityReservations: items[from:to], NextToken: next}, nil
}

// DescribeSubnets returns the subnets matching ids and filters (subnet-id, tag:K, tag-key).
func (e *EC2) DescribeSubnets(_ context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("DescribeSubnets"); err != nil {
		return nil, err
	}
	fs, err := filters(in.Filters, "subnet-id", "tag-key")
	if err != nil {
		return nil, err
	}
	var items []ec2types.Subnet
	for _, s := range e.Subnets {
		id := sdkaws.ToString(s.SubnetId)
		if len(in.SubnetIds) > 0 && !contains(in.SubnetIds, id) {
			continue
		}
		if v, ok := fs["subnet-id"]; ok && !match(v, id) {
			continue
		}
		if fs.matchTags(s.Tags) {
			items = append(items, s)
		}
	}
	from, to, next, err := page(len(items), in.NextToken, in.MaxResults, 1000)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeSubnetsOutput{Subnets: items[from:to], NextToken: next}, nil
}

// DescribeSecurityGroups returns the groups matching ids, names and filters (group-id,
// group-name, tag:K, tag-key).
func (e *EC2) DescribeSecurityGroups(_ context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("DescribeSecurityGroups"); err != nil {
		return nil, err
	}
	fs, err := filters(in.Filters, "group-id", "group-name", "tag-key")
	if err != nil {
		return nil, err
	}
	var items []ec2types.SecurityGroup
	for _, g := range e.SecurityGroups {
		id, name := sdkaws.ToString(g.GroupId), sdkaws.ToString(g.GroupName)
		if (len(in.GroupIds) > 0 && !contains(in.GroupIds, id)) || (len(in.GroupNames) > 0 && !contains(in.GroupNames, name)) {
			continue
		}
		if v, ok := fs["group-id"]; ok && !match(v, id) {
			continue
		}
		if v, ok := fs["group-name"]; ok && !match(v, name) {
			continue
		}
		if fs.matchTags(g.Tags) {
			items = append(items, g)
		}
	}
	from, to, next, err := page(len(items), in.NextToken, in.MaxResults, 1000)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeSecurityGroupsOutput{SecurityGroups: items[from:to], NextToken: next}, nil
}

// DescribeImages returns the images matching ids, owners and filters (image-id, name with a
// trailing *, state, tag:K, tag-key); deprecated images only with IncludeDeprecated.
func (e *EC2) DescribeImages(_ context.Context, in *ec2.DescribeImagesInput, _ ...func(*ec2.Options)) (*ec2.DescribeImagesOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("DescribeImages"); err != nil {
		return nil, err
	}
	fs, err := filters(in.Filters, "image-id", "name", "state", "tag-key")
	if err != nil {
		return nil, err
	}
	var items []ec2types.Image
	for _, img := range e.Images {
		id := sdkaws.ToString(img.ImageId)
		if len(in.ImageIds) > 0 && !contains(in.ImageIds, id) {
			continue
		}
		if len(in.Owners) > 0 && !contains(in.Owners, sdkaws.ToString(img.OwnerId)) && !(contains(in.Owners, "amazon") && sdkaws.ToString(img.ImageOwnerAlias) == "amazon") {
			continue
		}
		if img.DeprecationTime != nil && !sdkaws.ToBool(in.IncludeDeprecated) {
			continue
		}
		if v, ok := fs["image-id"]; ok && !match(v, id) {
			continue
		}
		if v, ok := fs["name"]; ok && !match(v, sdkaws.ToString(img.Name)) {
			continue
		}
		if v, ok := fs["state"]; ok && !match(v, string(img.State)) {
			continue
		}
		if fs.matchTags(img.Tags) {
			items = append(items, img)
		}
	}
	from, to, next, err := page(len(items), in.NextToken, in.MaxResults, 1000)
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeImagesOutput{Images: items[from:to], NextToken: next}, nil
}

// DescribeLaunchTemplates returns the named templates (or those matching tag filters); a
// name that does not exist is InvalidLaunchTemplateName.NotFoundException, as in EC2.
func (e *EC2) DescribeLaunchTemplates(_ context.Context, in *ec2.DescribeLaunchTemplatesInput, _ ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplatesOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("DescribeLaunchTemplates"); err != nil {
		return nil, err
	}
	fs, err := filters(in.Filters, "tag-key")
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeLaunchTemplatesOutput{}
	for _, n := range in.LaunchTemplateNames {
		lt, ok := e.launchTemplates[n]
		if !ok {
			return nil, apiError("InvalidLaunchTemplateName.NotFoundException", "At least one of the launch templates specified in the request does not exist.")
		}
		out.LaunchTemplates = append(out.LaunchTemplates, lt.template)
	}
	if len(in.LaunchTemplateNames) == 0 {
		for _, n := range slices.Sorted(maps.Keys(e.launchTemplates)) {
			if lt := e.launchTemplates[n]; fs.matchTags(lt.template.Tags) {
				out.LaunchTemplates = append(out.LaunchTemplates, lt.template)
			}
		}
	}
	return out, nil
}

// CreateLaunchTemplate stores a template; an existing name is
// InvalidLaunchTemplateName.AlreadyExistsException.
func (e *EC2) CreateLaunchTemplate(_ context.Context, in *ec2.CreateLaunchTemplateInput, _ ...func(*ec2.Options)) (*ec2.CreateLaunchTemplateOutput, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.begin("CreateLaunchTemplate"); err != nil {
		return nil, err
	}
	name := sdkaws.ToString(in.LaunchTemplateName)
	if name == "" || in.LaunchTemplateData == nil {
		return nil, apiError("MissingParameter", "LaunchTemplateName and LaunchTemplateData are required")
	}
	if _, ok := e.launchTemplates[name]; ok {
		return nil, apiError("InvalidLaunchTemplateName.AlreadyExistsException", "Launch template name already in use.")
	}
	if sdkaws.ToBool(in.DryRun) {
		return nil, apiError("DryRunOperation", "Request would have succeeded, but DryRun flag is set.")
	}
	e.seq++
	lt := ec2types.LaunchTemplate{
		LaunchTemplateId: sdkaws.String(fmt.Sprintf("lt-%017x", e.seq)), LaunchTemplateName: sdkaws.String(name),
		DefaultVersionNumber: sdkaws.Int64(1), LatestVersionNumber: sdkaws.Int64(1), CreateTime: sdkaws.Time(e.now()),
	}
	for _, ts := range in.TagSpecifications {
		if ts.ResourceType == ec2types.ResourceTypeLaunchTemplate {
			lt.Tags = append(lt.Tags, ts.Tags...)
		}
	}
	if e.launchTemplates == nil {
		e.launchTemplates = map[string]*launchTemplate{}
	}
	e.launchTemplates[name] = &launchTemplate{template: lt, data: *in.LaunchTemplateData}
	return &ec2.CreateLaunchTemplateOutput{LaunchTemplate: &lt}, nil
}

// DeleteLaunchTemplate removes a template by name (test helper, not part of aws.EC2API).
func (e *EC2) DeleteLaunchTemplate(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.launchTemplates, name)
}

// Offering is a DescribeInstanceTypeOfferings entry: the type offered in the zone.
func Offering(instanceType, zone string) ec2types.InstanceTypeOffering {
	return ec2types.InstanceTypeOffering{InstanceType: ec2types.InstanceType(instanceType), Location: sdkaws.String(zone), LocationType: ec2types.LocationTypeAvailabilityZone}
}

// SpotPrice is a Linux/UNIX spot price history entry.
func SpotPrice(instanceType, zone string, price float64, at time.Time) ec2types.SpotPrice {
	return ec2types.SpotPrice{
		InstanceType: ec2types.InstanceType(instanceType), AvailabilityZone: sdkaws.String(zone), ProductDescription: "Linux/UNIX",
		SpotPrice: sdkaws.String(strconv.FormatFloat(price, 'f', 6, 64)), Timestamp: sdkaws.Time(at),
	}
}

// Subnet is a subnet in zone with free IPs.
func Subnet(id, zone string, free int32) ec2types.Subnet {
	return ec2types.Subnet{SubnetId: sdkaws.String(id), AvailabilityZone: sdkaws.String(zone), AvailableIpAddressCount: sdkaws.Int32(free)}
}
