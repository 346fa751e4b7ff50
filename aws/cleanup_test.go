package aws_test

import (
	"context"
	"errors"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/aws"
	"github.com/nodeplan/nodeplan/aws/awstest"
)

// cancelOnceLaunched cancels when an instance runs in e (or after 30 s, so a Create that
// fails before launching does not hang the test).
func cancelOnceLaunched(e *awstest.EC2, cancel context.CancelFunc) {
	for deadline := time.Now().Add(30 * time.Second); len(e.Live()) == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	cancel()
}

// The caller's context ends while CreateFleet is in flight (EC2 launched, the reply is not
// back): the clean-up runs on a context of its own and terminates the instance. On the old
// code the clean-up reused the dead context, failed, and the instance ran on.
func TestCreateCleansUpWhenTheCallerGivesUpInFlight(t *testing.T) {
	f := newFixture(t)
	srv, p := f.overHTTP(t)
	srv.Faults.Inject("CreateFleet", awstest.Stall, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cancelOnceLaunched(f.ec2, cancel)
	out, err := p.Create(ctx, claim("cancelled", "on-demand"))
	require.Error(t, err)
	assert.Nil(t, out)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	var cleanup *aws.CleanupError
	assert.False(t, errors.As(err, &cleanup), "the clean-up succeeded: %v", err)
	assert.Empty(t, f.ec2.Live(), "nothing launched for the abandoned Create keeps running")
}

// twoInstanceFleet answers CreateFleet with two instances (as a fleet asked for one may), and
// the caller's context ends as the answer arrives.
type twoInstanceFleet struct {
	aws.EC2API
	cancel context.CancelFunc
}

func (f twoInstanceFleet) CreateFleet(ctx context.Context, in *ec2.CreateFleetInput, opts ...func(*ec2.Options)) (*ec2.CreateFleetOutput, error) {
	out, err := f.EC2API.CreateFleet(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	again := *in
	again.ClientToken = sdkaws.String("second-launch")
	more, err := f.EC2API.CreateFleet(ctx, &again, opts...)
	if err != nil {
		return nil, err
	}
	out.Instances[0].InstanceIds = append(out.Instances[0].InstanceIds, more.Instances[0].InstanceIds...)
	f.cancel()
	return out, nil
}

// The extra instance of a fleet is terminated even when the caller's context has ended, and
// the claim keeps the first. On the old code the termination reused the dead context, failed,
// and the launch failed with both instances left running.
func TestCreateTerminatesExtraInstancesAfterTheCallerGaveUp(t *testing.T) {
	f := newFixture(t)
	srv := awstest.NewEC2Server(f.ec2)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := f.provider(t, twoInstanceFleet{EC2API: awstest.EC2Client(awstest.Config(), srv.URL), cancel: cancel})
	out, err := p.Create(ctx, claim("twice", "on-demand"))
	require.NoError(t, err)
	_, id, err := aws.ParseProviderID(out.Status.ProviderID)
	require.NoError(t, err)
	assert.Equal(t, []string{id}, f.ec2.Live(), "the claim's instance runs, the extra one is terminated")
}

// A launch whose answer is lost (a malformed reply after EC2 ran it) and whose clean-up
// cannot find the instance (every DescribeInstances attempt fails) says so with a
// CleanupError: the instance runs until garbage collection ends it, and the error still
// names the launch's failure first.
func TestCreateSaysItsCleanupFailed(t *testing.T) {
	f := newFixture(t)
	srv, p := f.overHTTP(t)
	srv.Faults.Inject("CreateFleet", awstest.MalformedBody, 1)
	srv.Faults.Inject("DescribeInstances", awstest.ServerError, 3)
	out, err := p.Create(context.Background(), claim("lost", "on-demand"))
	require.Error(t, err)
	assert.Nil(t, out)
	var cleanup *aws.CleanupError
	require.True(t, errors.As(err, &cleanup), "%v", err)
	require.Error(t, cleanup.Cleanup)
	assert.Len(t, f.ec2.Live(), 1, "the lost launch's instance runs until garbage collection")
	assert.Equal(t, cleanup.Launch.Error()+"; and cleaning up after it: "+cleanup.Cleanup.Error()+" (garbage collection will retry)", cleanup.Error())
}
