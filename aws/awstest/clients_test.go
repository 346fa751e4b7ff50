package awstest_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/aws/awstest"
)

// A call whose first two attempts are throttled succeeds on its last one, every time: with
// the SDK's own handling of the request body, a local server's fast answer made about one
// such call in thirteen fail with "use of closed network connection" (aws/aws-sdk-go-v2#2737).
func TestLastAttemptSurvivesAFastAnswer(t *testing.T) {
	types, err := awstest.DataTypes()
	require.NoError(t, err)
	e := awstest.NewEC2()
	for _, d := range types[:8] { // a reply of some kilobytes
		info, _ := d.InstanceTypeInfo()
		e.InstanceTypes = append(e.InstanceTypes, info)
	}
	srv := awstest.NewEC2Server(e)
	defer srv.Close()
	for i := range 100 {
		client := awstest.EC2Client(awstest.Config(), srv.URL)
		srv.Faults.Inject("DescribeInstanceTypes", awstest.Throttle, 2)
		_, err := client.DescribeInstanceTypes(context.Background(), &ec2.DescribeInstanceTypesInput{})
		require.NoError(t, err, "call %d", i)
	}
}
