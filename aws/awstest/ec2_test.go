package awstest_test

import (
	"context"
	"errors"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/aws/awstest"
)

// fleetIn asks for one on-demand m5.large in each zone, from template lt.
func fleetIn(zones ...string) *ec2.CreateFleetInput {
	var overrides []ec2types.FleetLaunchTemplateOverridesRequest
	for _, z := range zones {
		overrides = append(overrides, ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: "m5.large", AvailabilityZone: sdkaws.String(z)})
	}
	return &ec2.CreateFleetInput{
		Type: ec2types.FleetTypeInstant,
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
			TotalTargetCapacity: sdkaws.Int32(1), DefaultTargetCapacityType: ec2types.DefaultTargetCapacityTypeOnDemand,
		},
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: sdkaws.String("lt")},
			Overrides:                   overrides,
		}},
	}
}

func errorCodes(out *ec2.CreateFleetOutput) map[string]string {
	codes := map[string]string{}
	for _, e := range out.Errors {
		codes[*e.LaunchTemplateAndOverrides.Overrides.AvailabilityZone] = *e.ErrorCode
	}
	return codes
}

// The zero EC2 takes faults (they were nil maps a test had to make first, or panic).
func TestZeroEC2TakesFaults(t *testing.T) {
	var e awstest.EC2
	ctx := context.Background()
	e.FailNext("DescribeSubnets", errors.New("boom"))
	_, err := e.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	require.Error(t, err)
	_, err = e.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{})
	require.NoError(t, err, "once")

	_, err = e.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{LaunchTemplateName: sdkaws.String("lt"), LaunchTemplateData: &ec2types.RequestLaunchTemplateData{}})
	require.NoError(t, err)
	e.SetInsufficientCapacity(awstest.Pool("on-demand", "m5.large", "us-east-1a"), true)
	out, err := e.CreateFleet(ctx, fleetIn("us-east-1a", "us-east-1b"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"us-east-1a": "InsufficientInstanceCapacity"}, errorCodes(out))
	require.Len(t, out.Instances, 1)

	e.SetFleetError(awstest.Pool("on-demand", "m5.large", "us-east-1b"), "VcpuLimitExceeded")
	out, err = e.CreateFleet(ctx, fleetIn("us-east-1a", "us-east-1b"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"us-east-1a": "InsufficientInstanceCapacity", "us-east-1b": "VcpuLimitExceeded"}, errorCodes(out))
	assert.Empty(t, out.Instances)

	e.SetInsufficientCapacity(awstest.Pool("on-demand", "m5.large", "us-east-1a"), false)
	e.SetFleetError(awstest.Pool("on-demand", "m5.large", "us-east-1b"), "")
	out, err = e.CreateFleet(ctx, fleetIn("us-east-1a", "us-east-1b"))
	require.NoError(t, err)
	assert.Empty(t, out.Errors)
	assert.Len(t, e.Live(), 2)
}
