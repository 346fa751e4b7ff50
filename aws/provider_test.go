package aws_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/aws/awstest"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

const secretUserData = "#!/bin/bash\nexport DB_PASSWORD=hunter2-SECRET-TOKEN\n"

var fixtureTypes = []string{"m5.large", "m5.xlarge", "c5.large", "c5.xlarge", "m6g.large", "m5.metal", "g4dn.xlarge", "r5.large"}

// fixture is a small region in the in-memory EC2: eight real types in three zones, two
// subnets in us-east-1a (the second with more free IPs) and one in us-east-1b, spot prices.
type fixture struct {
	ec2       *awstest.EC2
	nodeClass *awsv1.EC2NodeClass
	clock     *clock
}

// dataFile is the embedded instance-type data, read once for all fixtures.
var dataFile = sync.OnceValues(awstest.DataTypes)

func newFixture(t *testing.T) *fixture {
	t.Helper()
	data, err := dataFile()
	require.NoError(t, err)
	clk := newClock()
	e := awstest.NewEC2()
	e.Now = clk.Now
	e.OnDemandPrices = map[string]float64{}
	want := map[string]bool{}
	for _, n := range fixtureTypes {
		want[n] = true
	}
	for _, d := range data {
		if !want[d.Name] {
			continue
		}
		info, _ := d.InstanceTypeInfo()
		e.InstanceTypes = append(e.InstanceTypes, info)
		e.OnDemandPrices[d.Name] = d.OnDemandPricePerHour["us-east-1"]
		for i, z := range testZones {
			e.Offerings = append(e.Offerings, awstest.Offering(d.Name, z))
			e.SpotPriceHistory = append(e.SpotPriceHistory, awstest.SpotPrice(d.Name, z, d.OnDemandPricePerHour["us-east-1"]*(0.3+0.1*float64(i)), clk.Now()))
		}
	}
	e.Subnets = []ec2types.Subnet{awstest.Subnet("subnet-a1", "us-east-1a", 100), awstest.Subnet("subnet-a2", "us-east-1a", 200), awstest.Subnet("subnet-b1", "us-east-1b", 50)}
	nc := &awsv1.EC2NodeClass{}
	nc.Name = "default"
	nc.Annotations = map[string]string{aws.AnnotationNodeClassHash: "111", aws.AnnotationNodeClassHashVersion: "v6"}
	nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: "al2023@latest"}}
	nc.Spec.Role = "KarpenterNodeRole"
	nc.Spec.Tags = map[string]string{"team": "platform"}
	nc.Spec.UserData = sdkaws.String(secretUserData)
	nc.Status.Subnets = []awsv1.Subnet{{ID: "subnet-a1", Zone: "us-east-1a", ZoneID: "use1-az1"}, {ID: "subnet-a2", Zone: "us-east-1a", ZoneID: "use1-az1"}, {ID: "subnet-b1", Zone: "us-east-1b", ZoneID: "use1-az2"}}
	nc.Status.SecurityGroups = []awsv1.SecurityGroup{{ID: "sg-1"}}
	nc.Status.InstanceProfile = "KarpenterNodeProfile"
	nc.Status.AMIs = []awsv1.AMI{
		{ID: "ami-amd64", Requirements: []corev1.NodeSelectorRequirement{{Key: v1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}}},
		{ID: "ami-arm64", Requirements: []corev1.NodeSelectorRequirement{{Key: v1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}}}},
	}
	return &fixture{ec2: e, nodeClass: nc, clock: clk}
}

// testingT is what the helpers need of a *testing.T or a *rapid.T.
type testingT interface {
	require.TestingT
	Helper()
}

func (f *fixture) provider(t testingT, api aws.EC2API, opts ...func(*aws.Config)) *aws.Provider {
	t.Helper()
	cfg := aws.Config{
		ClusterName: "prod", EC2: api, Now: f.clock.Now,
		NodeClass: func(_ context.Context, name string) (*awsv1.EC2NodeClass, error) {
			if name != f.nodeClass.Name {
				return nil, nil
			}
			return f.nodeClass.DeepCopy(), nil
		},
		Cluster: aws.ClusterInfo{Endpoint: "https://example.eks.amazonaws.com", CABundle: "Q0E=", ServiceCIDR: "10.100.0.0/16"},
	}
	for _, o := range opts {
		o(&cfg)
	}
	p, err := aws.New(cfg)
	require.NoError(t, err)
	require.NoError(t, p.Refresh(context.Background(), "us-east-1"))
	return p
}

// overHTTP serves the fixture over the EC2 query protocol to the real SDK client.
func (f *fixture) overHTTP(t *testing.T) (*awstest.EC2Server, *aws.Provider) {
	srv := awstest.NewEC2Server(f.ec2)
	t.Cleanup(srv.Close)
	return srv, f.provider(t, awstest.EC2Client(awstest.Config(), srv.URL))
}

// generalTypes are the instance types the provider offers the fixture's NodePool "general".
func generalTypes(t testingT, p *aws.Provider) cloudprovider.InstanceTypes {
	t.Helper()
	np := &v1.NodePool{}
	np.Name = "general"
	np.Spec.Template.Spec.NodeClassRef = &v1.NodeClassReference{Name: "default"}
	its, err := p.GetInstanceTypes(context.Background(), np)
	require.NoError(t, err)
	return its
}

func claim(name string, capacityTypes ...string) *v1.NodeClaim {
	c := &v1.NodeClaim{}
	c.Name = name
	c.Labels = map[string]string{v1.NodePoolLabelKey: "general"}
	c.Spec.NodeClassRef = &v1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	c.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{
		{Key: v1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: capacityTypes},
		{Key: v1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
	}
	c.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}
	return c
}

func TestCreateOnDemandOverEC2Protocol(t *testing.T) {
	f := newFixture(t)
	_, p := f.overHTTP(t)
	out, err := p.Create(context.Background(), claim("general-abc12", "on-demand"))
	require.NoError(t, err)

	in := f.ec2.FleetInputs()
	require.Len(t, in, 1)
	fleet := in[0]
	assert.Equal(t, ec2types.FleetTypeInstant, fleet.Type)
	assert.Equal(t, int32(1), *fleet.TargetCapacitySpecification.TotalTargetCapacity)
	assert.Equal(t, ec2types.DefaultTargetCapacityType("on-demand"), fleet.TargetCapacitySpecification.DefaultTargetCapacityType)
	assert.Equal(t, ec2types.FleetOnDemandAllocationStrategyLowestPrice, fleet.OnDemandOptions.AllocationStrategy)
	assert.Nil(t, fleet.SpotOptions)
	seen := map[string]bool{}
	for _, c := range fleet.LaunchTemplateConfigs {
		for _, o := range c.Overrides {
			key := string(o.InstanceType) + "/" + *o.AvailabilityZone
			assert.False(t, seen[key], "one override per type and zone: %s", key)
			seen[key] = true
			assert.NotContains(t, string(o.InstanceType), "metal", "exotic types are dropped when others fit")
			assert.NotEqual(t, "g4dn.xlarge", string(o.InstanceType))
			assert.NotEqual(t, "m6g.large", string(o.InstanceType), "the claim asks for amd64")
			switch *o.AvailabilityZone {
			case "us-east-1a":
				assert.Equal(t, "subnet-a2", *o.SubnetId, "the subnet with the most free IPs")
			case "us-east-1b":
				assert.Equal(t, "subnet-b1", *o.SubnetId)
			default:
				t.Errorf("override in %s, which has no subnet", *o.AvailabilityZone)
			}
			assert.Equal(t, "ami-amd64", *o.ImageId)
		}
	}
	assert.Len(t, seen, 10, "m5.large, m5.xlarge, c5.large, c5.xlarge, r5.large in two zones")
	tags := map[string]string{}
	for _, ts := range fleet.TagSpecifications {
		if ts.ResourceType == ec2types.ResourceTypeInstance {
			for _, tg := range ts.Tags {
				tags[*tg.Key] = *tg.Value
			}
		}
	}
	assert.Equal(t, map[string]string{
		"kubernetes.io/cluster/prod": "owned", "eks:eks-cluster-name": "prod", "karpenter.sh/nodepool": "general",
		"karpenter.k8s.aws/ec2nodeclass": "default", "karpenter.sh/nodeclaim": "general-abc12", "team": "platform",
	}, tags)

	// The hydrated claim names what launched.
	_, id, err := aws.ParseProviderID(out.Status.ProviderID)
	require.NoError(t, err)
	assert.Equal(t, []string{id}, f.ec2.Live())
	inst, _ := f.ec2.Instance(id)
	assert.Equal(t, "c5.large", string(inst.InstanceType), "the cheapest on-demand type that fits")
	assert.Equal(t, "c5.large", out.Labels[v1.LabelInstanceType])
	assert.Equal(t, "on-demand", out.Labels[v1.CapacityTypeLabelKey])
	assert.Equal(t, *inst.Placement.AvailabilityZone, out.Labels[v1.LabelTopologyZone])
	assert.Equal(t, "ami-amd64", out.Status.ImageID)
	assert.Equal(t, "111", out.Annotations[aws.AnnotationNodeClassHash])
	assert.Equal(t, "1930m", out.Status.Allocatable.Cpu().String())

	// The launch templates are reused by the next launch.
	templates := f.ec2.LaunchTemplateNames()
	require.NotEmpty(t, templates)
	data, _ := f.ec2.LaunchTemplateData(templates[0])
	assert.Equal(t, "KarpenterNodeProfile", *data.IamInstanceProfile.Name)
	assert.Equal(t, []string{"sg-1"}, data.NetworkInterfaces[0].Groups)
	_, err = p.Create(context.Background(), claim("general-def34", "on-demand"))
	require.NoError(t, err)
	assert.Equal(t, templates, f.ec2.LaunchTemplateNames())
	assert.Equal(t, len(templates), f.ec2.Calls("CreateLaunchTemplate"))
}

func TestCreateSpot(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	out, err := p.Create(context.Background(), claim("spotty", "spot", "on-demand"))
	require.NoError(t, err)
	fleet := f.ec2.FleetInputs()[0]
	assert.Equal(t, ec2types.SpotAllocationStrategyPriceCapacityOptimized, fleet.SpotOptions.AllocationStrategy)
	assert.Nil(t, fleet.OnDemandOptions)
	assert.Equal(t, "spot", out.Labels[v1.CapacityTypeLabelKey])
	_, id, _ := aws.ParseProviderID(out.Status.ProviderID)
	inst, _ := f.ec2.Instance(id)
	assert.Equal(t, ec2types.InstanceLifecycleTypeSpot, inst.InstanceLifecycle)
	list, err := p.List(context.Background())
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "spot", list[0].Labels[v1.CapacityTypeLabelKey])
	assert.Equal(t, "spotty", list[0].Name)
}

// Insufficient capacity: pools EC2 rejects are marked unavailable for three minutes; a launch
// that finds no pool is an InsufficientCapacityError; GetInstanceTypes shows the marks.
func TestCreateInsufficientCapacity(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	f.ec2.SetInsufficientCapacity(awstest.Pool("on-demand", "c5.large", "us-east-1a"), true)
	f.ec2.SetInsufficientCapacity(awstest.Pool("on-demand", "c5.large", "us-east-1b"), true)
	out, err := p.Create(context.Background(), claim("a", "on-demand"))
	require.NoError(t, err)
	assert.NotEqual(t, "c5.large", out.Labels[v1.LabelInstanceType])
	assert.Equal(t, []aws.UnavailableOffering{
		{CapacityType: "on-demand", InstanceType: "c5.large", Zone: "us-east-1a"},
		{CapacityType: "on-demand", InstanceType: "c5.large", Zone: "us-east-1b"},
	}, p.Unavailable().List())

	for _, n := range fixtureTypes {
		for _, z := range testZones {
			f.ec2.SetInsufficientCapacity(awstest.Pool("on-demand", n, z), true)
		}
	}
	_, err = p.Create(context.Background(), claim("b", "on-demand"))
	require.Error(t, err)
	assert.True(t, cloudprovider.IsInsufficientCapacityError(err), "%v", err)
	assert.Len(t, f.ec2.Live(), 1, "only the first launch")

	for _, it := range generalTypes(t, p) {
		for _, o := range it.Offerings {
			if o.CapacityType() == "on-demand" && o.Zone() != "us-east-1c" && it.Name != "m5.metal" && it.Name != "g4dn.xlarge" && it.Name != "m6g.large" {
				assert.False(t, o.Available, "%s %s was ICE'd", it.Name, o.Zone())
			}
		}
	}
	f.clock.Step(aws.UnavailableOfferingsTTL)
	assert.Empty(t, p.Unavailable().List())
}

// Faults on CreateFleet: the SDK's retries absorb throttling and 5xx (the client token keeps
// a retried fleet from launching twice); a lost reply terminates what launched. Under every
// fault no instance leaks and no claim is reported launched that was not.
func TestCreateUnderFaults(t *testing.T) {
	for _, tc := range []struct {
		fault awstest.Fault
		n     int
		ok    bool
	}{
		{awstest.Throttle, 2, true},
		{awstest.ServerError, 2, true},
		{awstest.ServerErrorAfter, 1, true},
		{awstest.Timeout, 1, true},
		{awstest.MalformedBody, 1, false},
		{awstest.Throttle, 3, false},
		{awstest.ServerErrorAfter, 3, false},
	} {
		t.Run(tc.fault.String()+"x"+string(rune('0'+tc.n)), func(t *testing.T) {
			f := newFixture(t)
			srv, p := f.overHTTP(t)
			srv.Faults.Inject("CreateFleet", tc.fault, tc.n)
			out, err := p.Create(context.Background(), claim("faulty", "on-demand"))
			live := f.ec2.Live()
			if tc.ok {
				require.NoError(t, err)
				_, id, _ := aws.ParseProviderID(out.Status.ProviderID)
				assert.Equal(t, []string{id}, live, "exactly the returned instance runs")
			} else {
				require.Error(t, err)
				assert.Nil(t, out)
				assert.Empty(t, live, "nothing launched for a failed Create keeps running")
				assert.NotContains(t, err.Error(), "SECRET-TOKEN")
				assert.NotContains(t, err.Error(), "local-test-secret")
			}
		})
	}
}

func TestCreatePartialFleetAndGarbageCollect(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	f.ec2.FleetCapacity = 1
	_, err := p.Create(context.Background(), claim("first", "on-demand"))
	require.NoError(t, err)
	_, err = p.Create(context.Background(), claim("second", "on-demand"))
	require.Error(t, err)
	assert.True(t, cloudprovider.IsInsufficientCapacityError(err), "UnfulfillableCapacity is a capacity error: %v", err)
	assert.Len(t, f.ec2.Live(), 1)
}

func TestCreateRefusesWithoutNodeClass(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	c := claim("x", "on-demand")
	c.Spec.NodeClassRef.Name = "missing"
	_, err := p.Create(context.Background(), c)
	assert.True(t, cloudprovider.IsInsufficientCapacityError(err))

	f.nodeClass.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "SubnetsNotFound"}}
	_, err = p.Create(context.Background(), claim("y", "on-demand"))
	assert.True(t, cloudprovider.IsNodeClassNotReadyError(err))
	assert.Empty(t, f.ec2.FleetInputs())
}

// untagged returns an instance running in the fixture's region with the given tags.
func untagged(id string, tags map[string]string) ec2types.Instance {
	inst := ec2types.Instance{
		InstanceId: sdkaws.String(id), InstanceType: "m5.large", Placement: &ec2types.Placement{AvailabilityZone: sdkaws.String("us-east-1a")},
		State: &ec2types.InstanceState{Name: ec2types.InstanceStateNameRunning}, LaunchTime: sdkaws.Time(newClock().Now().Add(-time.Hour)),
		SubnetId: sdkaws.String("subnet-a1"),
	}
	for k, v := range tags {
		inst.Tags = append(inst.Tags, ec2types.Tag{Key: sdkaws.String(k), Value: sdkaws.String(v)})
	}
	return inst
}

func nodeClaimFor(id string) *v1.NodeClaim {
	c := &v1.NodeClaim{}
	c.Name = "nc-" + id
	c.Status.ProviderID = aws.ProviderID("us-east-1a", id)
	return c
}

// Delete, Get, List and garbage collection never touch an instance that is not tagged for
// this cluster.
func TestOnlyClusterInstancesAreTouched(t *testing.T) {
	f := newFixture(t)
	_, p := f.overHTTP(t)
	f.ec2.AddInstance(untagged("i-0000000000000untag", nil))
	f.ec2.AddInstance(untagged("i-00000000000foreign", map[string]string{
		"kubernetes.io/cluster/staging": "owned", "eks:eks-cluster-name": "staging", "karpenter.sh/nodepool": "general",
	}))
	f.ec2.AddInstance(untagged("i-0000000000spoofing", map[string]string{
		"eks:eks-cluster-name": "prod", "karpenter.sh/nodepool": "general", // no kubernetes.io/cluster/prod=owned
	}))
	ours, err := p.Create(context.Background(), claim("ours", "on-demand"))
	require.NoError(t, err)
	_, oursID, _ := aws.ParseProviderID(ours.Status.ProviderID)
	ctx := context.Background()

	for _, id := range []string{"i-0000000000000untag", "i-00000000000foreign", "i-0000000000spoofing"} {
		err := p.Delete(ctx, nodeClaimFor(id))
		var notOwned *aws.NotOwnedError
		assert.True(t, errors.As(err, &notOwned), "%s: %v", id, err)
		_, err = p.Get(ctx, aws.ProviderID("us-east-1a", id))
		assert.True(t, cloudprovider.IsNodeClaimNotFoundError(err), "%s: %v", id, err)
	}
	list, err := p.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, ours.Status.ProviderID, list[0].Status.ProviderID)

	f.clock.Step(time.Minute)
	collected, err := p.GarbageCollect(ctx, nil, 30*time.Second)
	require.NoError(t, err)
	assert.Equal(t, []string{oursID}, collected, "only our orphan is collected")
	assert.ElementsMatch(t, []string{"i-0000000000000untag", "i-00000000000foreign", "i-0000000000spoofing"}, f.ec2.Live())
	assert.Zero(t, f.ec2.Calls("TerminateInstances")-1, "one TerminateInstances call, for our instance")
}

func TestDeleteIsIdempotent(t *testing.T) {
	f := newFixture(t)
	_, p := f.overHTTP(t)
	ctx := context.Background()
	out, err := p.Create(ctx, claim("doomed", "on-demand"))
	require.NoError(t, err)
	got, err := p.Get(ctx, out.Status.ProviderID)
	require.NoError(t, err)
	assert.Equal(t, "doomed", got.Name)
	assert.Equal(t, out.Labels[v1.LabelInstanceType], got.Labels[v1.LabelInstanceType])
	require.NoError(t, p.Delete(ctx, out))
	assert.Empty(t, f.ec2.Live())
	err = p.Delete(ctx, out)
	assert.True(t, cloudprovider.IsNodeClaimNotFoundError(err), "%v", err)
	_, err = p.Get(ctx, out.Status.ProviderID)
	assert.True(t, cloudprovider.IsNodeClaimNotFoundError(err))
	assert.Error(t, p.Delete(ctx, nodeClaimFor("not-an-id")))
}

func TestIsDrifted(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	ctx := context.Background()
	out, err := p.Create(ctx, claim("d", "on-demand"))
	require.NoError(t, err)
	reason, err := p.IsDrifted(ctx, out)
	require.NoError(t, err)
	assert.Equal(t, cloudprovider.DriftReason(""), reason)

	check := func(want cloudprovider.DriftReason, change func(nc *awsv1.EC2NodeClass), undo func(nc *awsv1.EC2NodeClass)) {
		t.Helper()
		change(f.nodeClass)
		reason, err := p.IsDrifted(ctx, out)
		require.NoError(t, err)
		assert.Equal(t, want, reason)
		undo(f.nodeClass)
	}
	check(aws.NodeClassDrift, func(nc *awsv1.EC2NodeClass) { nc.Annotations[aws.AnnotationNodeClassHash] = "222" },
		func(nc *awsv1.EC2NodeClass) { nc.Annotations[aws.AnnotationNodeClassHash] = "111" })
	check("", func(nc *awsv1.EC2NodeClass) {
		nc.Annotations[aws.AnnotationNodeClassHash], nc.Annotations[aws.AnnotationNodeClassHashVersion] = "222", "v7"
	}, func(nc *awsv1.EC2NodeClass) {
		nc.Annotations[aws.AnnotationNodeClassHash], nc.Annotations[aws.AnnotationNodeClassHashVersion] = "111", "v6"
	})
	check(aws.AMIDrift, func(nc *awsv1.EC2NodeClass) { nc.Status.AMIs[0].ID = "ami-newer" }, func(nc *awsv1.EC2NodeClass) { nc.Status.AMIs[0].ID = "ami-amd64" })
	old := f.nodeClass.Status.Subnets
	check(aws.SubnetDrift, func(nc *awsv1.EC2NodeClass) {
		nc.Status.Subnets = []awsv1.Subnet{{ID: "subnet-zz", Zone: "us-east-1a"}}
	},
		func(nc *awsv1.EC2NodeClass) { nc.Status.Subnets = old })
	check(aws.SecurityGroupDrift, func(nc *awsv1.EC2NodeClass) {
		nc.Status.SecurityGroups = []awsv1.SecurityGroup{{ID: "sg-1"}, {ID: "sg-2"}}
	},
		func(nc *awsv1.EC2NodeClass) { nc.Status.SecurityGroups = []awsv1.SecurityGroup{{ID: "sg-1"}} })
}

// No credential, token or user-data secret appears in an error.
func TestErrorsCarryNoSecrets(t *testing.T) {
	f := newFixture(t)
	srv, p := f.overHTTP(t)
	for _, action := range []string{"CreateLaunchTemplate", "CreateFleet", "DescribeSubnets"} {
		srv.Faults.Inject(action, awstest.ServerError, 3)
		_, err := p.Create(context.Background(), claim("s-"+strings.ToLower(action), "on-demand"))
		require.Error(t, err, action)
		for _, secret := range []string{"hunter2", "SECRET-TOKEN", "local-test-secret", "AKIDLOCALTEST", "Q0E="} {
			assert.NotContains(t, err.Error(), secret, action)
		}
	}
	assert.Empty(t, f.ec2.Live())
}

func TestRepairPolicies(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	assert.Equal(t, "aws", p.Name())
	rp := p.RepairPolicies()
	require.Len(t, rp, 7)
	assert.Equal(t, cloudprovider.RepairPolicy{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: 1800}, rp[0])
	assert.Equal(t, int64(600), rp[2].TolerationDuration)
}

func TestInterruptedMarksSpotAndSkipsForeignInstances(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	ctx := context.Background()
	out, err := p.Create(ctx, claim("spot-1", "spot"))
	require.NoError(t, err)
	_, id, _ := aws.ParseProviderID(out.Status.ProviderID)
	f.ec2.AddInstance(untagged("i-00000000000foreign", map[string]string{"kubernetes.io/cluster/staging": "owned"}))
	claims, err := p.Interrupted(ctx, interruption.Event{Kind: interruption.SpotInterrupted, InstanceIDs: []string{id, "i-00000000000foreign", "i-0000000000missing"}})
	require.NoError(t, err)
	require.Len(t, claims, 1)
	assert.Equal(t, "spot-1", claims[0].Name)
	assert.Equal(t, []aws.UnavailableOffering{{CapacityType: "spot", InstanceType: out.Labels[v1.LabelInstanceType], Zone: out.Labels[v1.LabelTopologyZone]}}, p.Unavailable().List())

	claims, err = p.Interrupted(ctx, interruption.Event{Kind: interruption.RebalanceRecommendation, InstanceIDs: []string{id}})
	require.NoError(t, err)
	assert.Len(t, claims, 1)
	assert.Len(t, p.Unavailable().List(), 1, "a rebalance recommendation marks nothing")
}

// A launch template deleted behind the provider's back is recreated and the launch retried
// once; a changed NodeClass (user data) gets a new template.
func TestLaunchTemplatesRecreatedAndVersionedByContent(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	ctx := context.Background()
	_, err := p.Create(ctx, claim("one", "on-demand"))
	require.NoError(t, err)
	names := f.ec2.LaunchTemplateNames()
	for _, n := range names {
		f.ec2.DeleteLaunchTemplate(n)
	}
	_, err = p.Create(ctx, claim("two", "on-demand"))
	require.NoError(t, err)
	assert.Equal(t, names, f.ec2.LaunchTemplateNames(), "recreated under the same names")
	assert.Len(t, f.ec2.FleetInputs(), 3, "one launch, one failed attempt, one retry")

	f.nodeClass.Spec.UserData = sdkaws.String("#!/bin/bash\necho changed\n")
	_, err = p.Create(ctx, claim("three", "on-demand"))
	require.NoError(t, err)
	assert.Greater(t, len(f.ec2.LaunchTemplateNames()), len(names), "new user data, new template")
	for _, n := range f.ec2.LaunchTemplateNames() {
		assert.True(t, strings.HasPrefix(n, "karpenter.k8s.aws/"), n)
	}
}

// List pages through DescribeInstances and builds the NodeClaims of 1,005 instances.
func TestListPaginates(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	owned := map[string]string{"kubernetes.io/cluster/prod": "owned", "eks:eks-cluster-name": "prod", "karpenter.sh/nodepool": "general", "karpenter.k8s.aws/ec2nodeclass": "default"}
	for i := range 1005 {
		f.ec2.AddInstance(untagged(fmt.Sprintf("i-%017d", i), owned))
	}
	start := time.Now()
	list, err := p.List(context.Background())
	require.NoError(t, err)
	assert.Len(t, list, 1005)
	assert.Equal(t, 2, f.ec2.Calls("DescribeInstances"), "two pages of 1000")
	assert.Equal(t, "6903Mi", list[1004].Status.Allocatable.Memory().String())
	assert.Less(t, time.Since(start), 5*time.Second)
}

// Region loading and Delete recover from throttling and 5xx through the SDK's retries.
func TestRetriesOnDescribeAndDelete(t *testing.T) {
	f := newFixture(t)
	srv, p := f.overHTTP(t)
	ctx := context.Background()
	srv.Faults.Inject("DescribeInstanceTypes", awstest.Throttle, 2)
	srv.Faults.Inject("DescribeSpotPriceHistory", awstest.ServerError, 2)
	require.NoError(t, p.Refresh(ctx, "us-east-1"))
	assert.NotNil(t, p.Region().SpotPrices)
	out, err := p.Create(ctx, claim("r", "on-demand"))
	require.NoError(t, err)
	srv.Faults.Inject("DescribeInstances", awstest.Throttle, 1)
	srv.Faults.Inject("TerminateInstances", awstest.ServerError, 2)
	require.NoError(t, p.Delete(ctx, out))
	assert.Empty(t, f.ec2.Live())
	assert.Zero(t, srv.Faults.Pending())

	srv.Faults.Inject("DescribeInstanceTypeOfferings", awstest.MalformedBody, 1)
	err = p.Refresh(ctx, "us-east-1")
	require.Error(t, err, "a malformed reply is not retried")
	assert.NotNil(t, p.Region(), "the previous region stays")
}

// A claim that allows reserved capacity launches into the NodeClass's reservation first,
// through a template that targets it; a full reservation falls back next time.
func TestCreateReserved(t *testing.T) {
	f := newFixture(t)
	f.ec2.CapacityReservations = []ec2types.CapacityReservation{{
		CapacityReservationId: sdkaws.String("cr-0aaa"), InstanceType: sdkaws.String("m5.xlarge"), AvailabilityZone: sdkaws.String("us-east-1b"),
		AvailableInstanceCount: sdkaws.Int32(1), State: ec2types.CapacityReservationStateActive,
	}}
	f.nodeClass.Status.CapacityReservations = []awsv1.CapacityReservation{{ID: "cr-0aaa", InstanceType: "m5.xlarge", AvailabilityZone: "us-east-1b", State: "active"}}
	p := f.provider(t, f.ec2)
	ctx := context.Background()
	out, err := p.Create(ctx, claim("res", "reserved", "on-demand"))
	require.NoError(t, err)
	fleet := f.ec2.FleetInputs()[0]
	assert.Equal(t, ec2types.DefaultTargetCapacityTypeOnDemand, fleet.TargetCapacitySpecification.DefaultTargetCapacityType)
	require.Len(t, fleet.LaunchTemplateConfigs, 1)
	require.Len(t, fleet.LaunchTemplateConfigs[0].Overrides, 1)
	o := fleet.LaunchTemplateConfigs[0].Overrides[0]
	assert.Equal(t, "m5.xlarge/us-east-1b", string(o.InstanceType)+"/"+*o.AvailabilityZone)
	data, _ := f.ec2.LaunchTemplateData(*fleet.LaunchTemplateConfigs[0].LaunchTemplateSpecification.LaunchTemplateName)
	assert.Equal(t, "cr-0aaa", *data.CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId)
	assert.Equal(t, "reserved", out.Labels[v1.CapacityTypeLabelKey])
	assert.Equal(t, "cr-0aaa", out.Labels[cloudprovider.ReservationIDLabel])
	got, err := p.Get(ctx, out.Status.ProviderID)
	require.NoError(t, err)
	assert.Equal(t, "reserved", got.Labels[v1.CapacityTypeLabelKey])
	assert.Equal(t, "cr-0aaa", got.Labels[cloudprovider.ReservationIDLabel])

	// The reservation is full now: the provider counted its launch, so the next claim goes
	// on-demand through a template that opts out of open reservations.
	out2, err := p.Create(ctx, claim("res-2", "reserved", "on-demand"))
	require.NoError(t, err)
	assert.Equal(t, "on-demand", out2.Labels[v1.CapacityTypeLabelKey])
	last := f.ec2.FleetInputs()[1]
	data, _ = f.ec2.LaunchTemplateData(*last.LaunchTemplateConfigs[0].LaunchTemplateSpecification.LaunchTemplateName)
	assert.Equal(t, ec2types.CapacityReservationPreferenceNone, data.CapacityReservationSpecification.CapacityReservationPreference)

	// Deleting the reserved instance frees its slot for the next reserved claim.
	require.NoError(t, p.Delete(ctx, out))
	assert.Equal(t, int32(1), *f.ec2.CapacityReservations[0].AvailableInstanceCount, "EC2 frees it too")
	out3, err := p.Create(ctx, claim("res-3", "reserved", "on-demand"))
	require.NoError(t, err)
	assert.Equal(t, "reserved", out3.Labels[v1.CapacityTypeLabelKey])

	// A stale count (another launcher used the slot): EC2 refuses, the offering is marked
	// unavailable and the launch is an insufficient-capacity error, retried on-demand next.
	require.NoError(t, p.Delete(ctx, out3))
	f.ec2.CapacityReservations[0].AvailableInstanceCount = sdkaws.Int32(0) // another launcher took it
	_, err = p.Create(ctx, claim("res-4", "reserved"))
	require.Error(t, err)
	assert.True(t, cloudprovider.IsInsufficientCapacityError(err), "%v", err)
	assert.Contains(t, p.Unavailable().List(), aws.UnavailableOffering{CapacityType: "reserved", InstanceType: "m5.xlarge", Zone: "us-east-1b"})
}

// An account that may not create the spot service-linked role has no spot at all: the whole
// capacity type is marked unavailable and the next launch goes on-demand. Another per-override
// error is a CreateError, not a capacity error.
func TestCreateFleetErrorKinds(t *testing.T) {
	f := newFixture(t)
	p := f.provider(t, f.ec2)
	for _, n := range fixtureTypes {
		for _, z := range testZones {
			f.ec2.SetFleetError(awstest.Pool("spot", n, z), "AuthFailure.ServiceLinkedRoleCreationNotPermitted")
			f.ec2.SetFleetError(awstest.Pool("on-demand", n, z), "InvalidParameterCombination")
		}
	}
	_, err := p.Create(context.Background(), claim("s", "spot", "on-demand"))
	require.Error(t, err)
	assert.True(t, cloudprovider.IsInsufficientCapacityError(err), "%v", err)
	assert.True(t, p.Unavailable().IsUnavailable("spot", "anything", "anywhere"))

	_, err = p.Create(context.Background(), claim("o", "spot", "on-demand"))
	require.Error(t, err)
	var ce *cloudprovider.CreateError
	require.True(t, errors.As(err, &ce), "%v", err)
	assert.Equal(t, "LaunchFailed", ce.ConditionReason)
	last := f.ec2.FleetInputs()[1]
	assert.Equal(t, ec2types.DefaultTargetCapacityTypeOnDemand, last.TargetCapacitySpecification.DefaultTargetCapacityType, "spot is out for three minutes")
	assert.Empty(t, f.ec2.Live())
}

// Security groups go where Karpenter (since v1.1.0) puts them: on the template's first network
// interface, never at the top level, and the instance EC2 launches from the template carries
// exactly the NodeClass's groups, so a fresh claim is not drifted, also over the wire.
func TestFreshClaimCarriesItsSecurityGroups(t *testing.T) {
	f := newFixture(t)
	f.nodeClass.Status.SecurityGroups = []awsv1.SecurityGroup{{ID: "sg-2"}, {ID: "sg-1"}}
	_, p := f.overHTTP(t)
	ctx := context.Background()
	out, err := p.Create(ctx, claim("fresh", "on-demand"))
	require.NoError(t, err)
	for _, name := range f.ec2.LaunchTemplateNames() {
		data, _ := f.ec2.LaunchTemplateData(name)
		assert.Empty(t, data.SecurityGroupIds, "EC2 refuses groups at the top level and on a network interface")
		require.Len(t, data.NetworkInterfaces, 1)
		assert.Equal(t, []string{"sg-1", "sg-2"}, data.NetworkInterfaces[0].Groups)
	}
	_, id, _ := aws.ParseProviderID(out.Status.ProviderID)
	inst, _ := f.ec2.Instance(id)
	var groups []string
	for _, g := range inst.SecurityGroups {
		groups = append(groups, *g.GroupId)
	}
	assert.Equal(t, []string{"sg-1", "sg-2"}, groups)
	reason, err := p.IsDrifted(ctx, out)
	require.NoError(t, err)
	assert.Equal(t, cloudprovider.DriftReason(""), reason)
}
