package aws_test

import (
	"context"
	"fmt"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws"
	"github.com/nodeplan/nodeplan/aws/awstest"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

var _ aws.EC2API = (*awstest.EC2)(nil)

var testZones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// regionFromData fills an in-memory EC2 with every type of the data file that has network
// data, offered in the three test zones, and returns the data by name.
func regionFromData(t *testing.T) (*awstest.EC2, map[string]awstest.DataType) {
	t.Helper()
	data, err := dataFile()
	require.NoError(t, err)
	e := awstest.NewEC2()
	byName := map[string]awstest.DataType{}
	for _, d := range data {
		info, ok := d.InstanceTypeInfo()
		if !ok {
			continue
		}
		byName[d.Name] = d
		e.InstanceTypes = append(e.InstanceTypes, info)
		for _, z := range testZones {
			e.Offerings = append(e.Offerings, awstest.Offering(d.Name, z))
		}
	}
	return e, byName
}

// TestInstanceTypesMatchKarpenter rebuilds a DescribeInstanceTypes answer for every type of
// the data file with network data, serves it over the EC2 query protocol to the real SDK
// client, and checks that the computed allocatable cpu, memory and pods, the extended
// resources and the karpenter.k8s.aws labels equal Karpenter's published values.
func TestInstanceTypesMatchKarpenter(t *testing.T) {
	e, data := regionFromData(t)
	srv := awstest.NewEC2Server(e)
	defer srv.Close()
	region, err := aws.LoadRegion(context.Background(), awstest.EC2Client(awstest.Config(), srv.URL), "us-east-1")
	require.NoError(t, err)
	require.Len(t, region.Types, 1355)
	assert.Equal(t, testZones, region.AllZones)

	its, skipped := region.InstanceTypes(aws.InstanceTypeSettings{}, nil)
	assert.Empty(t, skipped)
	require.Len(t, its, 1355)
	matched := 0
	for _, it := range its {
		d := data[it.Name]
		alloc := it.Allocatable()
		ok := true
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage} {
			want, got := resource.MustParse(d.Resources[string(name)]), alloc[name]
			ok = assert.Truef(t, got.Equal(want), "%s %s: computed %s, Karpenter publishes %s", it.Name, name, got.String(), want.String()) && ok
		}
		for name, s := range d.Resources {
			if q, core := alloc[corev1.ResourceName(name)]; !core || name == "cpu" || name == "memory" || name == "pods" || name == "ephemeral-storage" {
				_ = q
				if !core {
					ok = assert.Failf(t, "missing resource", "%s lacks %s", it.Name, name) && ok
				}
				continue
			}
			want, got := resource.MustParse(s), alloc[corev1.ResourceName(name)]
			ok = assert.Truef(t, got.Equal(want), "%s %s: %s, want %s", it.Name, name, got.String(), want.String()) && ok
		}
		labels := it.Requirements.Labels()
		for k, want := range d.Labels {
			ok = assert.Equalf(t, want, labels[k], "%s label %s", it.Name, k) && ok
		}
		if ok {
			matched++
		}
	}
	assert.Equal(t, 1355, matched)
	t.Logf("%d/1355 types: allocatable, extended resources and labels equal Karpenter's", matched)
}

func TestInstanceTypeOfferings(t *testing.T) {
	e, _ := regionFromData(t)
	e.SpotPriceHistory = []ec2types.SpotPrice{
		{InstanceType: "m5.large", AvailabilityZone: sdkaws.String("us-east-1a"), SpotPrice: sdkaws.String("0.0400"), ProductDescription: "Linux/UNIX", Timestamp: sdkaws.Time(testTime(-2))},
		{InstanceType: "m5.large", AvailabilityZone: sdkaws.String("us-east-1a"), SpotPrice: sdkaws.String("0.0350"), ProductDescription: "Linux/UNIX", Timestamp: sdkaws.Time(testTime(-1))},
		{InstanceType: "m5.large", AvailabilityZone: sdkaws.String("us-east-1a"), SpotPrice: sdkaws.String("0.0300"), ProductDescription: "Windows", Timestamp: sdkaws.Time(testTime(0))},
		{InstanceType: "m5.large", AvailabilityZone: sdkaws.String("us-east-1b"), SpotPrice: sdkaws.String("0.0380"), ProductDescription: "Linux/UNIX (Amazon VPC)", Timestamp: sdkaws.Time(testTime(-3))},
	}
	e.CapacityReservations = []ec2types.CapacityReservation{{
		CapacityReservationId: sdkaws.String("cr-0123"), InstanceType: sdkaws.String("m5.large"), AvailabilityZone: sdkaws.String("us-east-1b"),
		AvailableInstanceCount: sdkaws.Int32(2), State: ec2types.CapacityReservationStateActive,
	}, {
		CapacityReservationId: sdkaws.String("cr-other"), InstanceType: sdkaws.String("m5.large"), AvailabilityZone: sdkaws.String("us-east-1a"),
		AvailableInstanceCount: sdkaws.Int32(5), State: ec2types.CapacityReservationStateActive, // not selected by the NodeClass
	}}
	region, err := aws.LoadRegion(context.Background(), e, "us-east-1")
	require.NoError(t, err)
	clk := newClock()
	ice := aws.NewUnavailableOfferings(clk.Now)
	ice.MarkUnavailable("on-demand", "m5.large", "us-east-1a")
	its, _ := region.InstanceTypes(aws.InstanceTypeSettings{Zones: map[string]string{"us-east-1a": "use1-az1", "us-east-1b": "use1-az2"}, Reservations: map[string]bool{"cr-0123": true}}, ice)
	var m5 *struct{ offers map[string]string }
	for _, it := range its {
		if it.Name != "m5.large" {
			continue
		}
		m5 = &struct{ offers map[string]string }{map[string]string{}}
		for _, o := range it.Offerings {
			m5.offers[o.Zone()+"/"+o.CapacityType()+"/"+o.ReservationID()] = fmt.Sprintf("%.4f %v", o.Price, o.Available)
		}
		assert.Equal(t, []string{"us-east-1a", "us-east-1b"}, it.Requirements.Get(v1.LabelTopologyZone).Values())
		assert.Equal(t, []string{"use1-az1", "use1-az2"}, it.Requirements.Get(aws.LabelZoneID).Values())
		assert.Equal(t, []string{"cr-0123"}, it.Requirements.Get(cloudprovider.ReservationIDLabel).Values())
		assert.Equal(t, []string{"on-demand", "reserved", "spot"}, it.Requirements.Get(v1.CapacityTypeLabelKey).Values())
	}
	require.NotNil(t, m5)
	assert.Equal(t, map[string]string{
		"us-east-1a/on-demand/":       "0.0960 false", // ICE'd
		"us-east-1a/spot/":            "0.0350 true",  // latest Linux price, not the Windows one
		"us-east-1b/on-demand/":       "0.0960 true",
		"us-east-1b/spot/":            "0.0380 true",
		"us-east-1c/on-demand/":       "0.0960 false", // no subnet there
		"us-east-1c/spot/":            "0.0000 false", // no spot price known
		"us-east-1b/reserved/cr-0123": "0.0000 true",
	}, m5.offers)
}
