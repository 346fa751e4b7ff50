package aws_test

import (
	"context"
	"sync"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/aws"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/aws/awstest"
)

// gatheringInstances holds each DescribeInstances answer at a gate, so that Deletes of one
// instance all see it running before any terminates it.
type gatheringInstances struct {
	aws.EC2API
	*gate
}

func (g gatheringInstances) DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, opts ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	out, err := g.EC2API.DescribeInstances(ctx, in, opts...)
	g.wait()
	return out, err
}

// withReservation gives the fixture one m5.xlarge reservation in us-east-1b with free slots.
func (f *fixture) withReservation(free int32) {
	f.ec2.CapacityReservations = []ec2types.CapacityReservation{{
		CapacityReservationId: sdkaws.String("cr-0aaa"), InstanceType: sdkaws.String("m5.xlarge"), AvailabilityZone: sdkaws.String("us-east-1b"),
		AvailableInstanceCount: sdkaws.Int32(free), State: ec2types.CapacityReservationStateActive,
	}}
	f.nodeClass.Status.CapacityReservations = []awsv1.CapacityReservation{{ID: "cr-0aaa", InstanceType: "m5.xlarge", AvailabilityZone: "us-east-1b", State: "active"}}
}

// reservedSlots is how many free slots of cr-0aaa the provider offers.
func reservedSlots(t *testing.T, p *aws.Provider) int {
	t.Helper()
	for _, it := range generalTypes(t, p) {
		for _, o := range it.Offerings {
			if o.ReservationID() == "cr-0aaa" {
				return o.ReservationCapacity
			}
		}
	}
	t.Fatal("no offering of cr-0aaa")
	return 0
}

// Concurrent Deletes of one reserved instance give its slot back once. On the old code each
// Delete that saw the instance running gave it back: two free slots in a reservation of one.
func TestConcurrentDeletesGiveAReservationSlotBackOnce(t *testing.T) {
	f := newFixture(t)
	f.withReservation(1)
	const deletes = 4
	p := f.provider(t, gatheringInstances{EC2API: f.ec2, gate: newGate(deletes, 100*time.Millisecond)})
	ctx := context.Background()
	out, err := p.Create(ctx, claim("res", "reserved"))
	require.NoError(t, err)
	require.Equal(t, 0, reservedSlots(t, p))

	var wg sync.WaitGroup
	for range deletes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.Delete(ctx, out)
		}()
	}
	wg.Wait()
	assert.Empty(t, f.ec2.Live())
	assert.Equal(t, 1, reservedSlots(t, p), "the one slot is free again, once")
}

// An instance launched into a reservation after Refresh whose launch answer was lost was never
// counted; garbage collection ending it gives no slot back. One that ran when the reservations
// were described gives its slot back when deleted.
func TestOnlyCountedSlotsGoBack(t *testing.T) {
	f := newFixture(t)
	f.withReservation(2)
	srv, p := f.overHTTP(t)
	ctx := context.Background()
	srv.Faults.Inject("CreateFleet", awstest.MalformedBody, 1)
	srv.Faults.Inject("DescribeInstances", awstest.ServerError, 3)
	_, err := p.Create(ctx, claim("lost", "reserved"))
	require.Error(t, err)
	require.Len(t, f.ec2.Live(), 1, "the clean-up failed: an orphan holds a slot the provider never counted")
	assert.Equal(t, 2, reservedSlots(t, p))
	f.clock.Step(time.Minute)
	collected, err := p.GarbageCollect(ctx, nil, 30*time.Second)
	require.NoError(t, err)
	require.Len(t, collected, 1)
	assert.Equal(t, 2, reservedSlots(t, p), "no slot goes back that was not taken")
}
