package aws_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/nodeplan/nodeplan/aws"
	"github.com/nodeplan/nodeplan/aws/awstest"
	"github.com/nodeplan/nodeplan/aws/interruption"
)

// TestCreateNeverLeaks draws fault schedules for the calls a launch makes (CreateFleet and
// the DescribeInstances / TerminateInstances of its cleanup) and checks, through the real SDK
// client and the EC2 query protocol: a successful Create runs exactly the instance it returns;
// a failed one leaves nothing running, or says its cleanup failed and garbage collection then
// removes what is left. No claim is ever reported launched that was not.
func TestCreateNeverLeaks(t *testing.T) {
	faults := []awstest.Fault{awstest.Throttle, awstest.ServerError, awstest.ServerErrorAfter, awstest.MalformedBody}
	rapid.Check(t, func(rt *rapid.T) {
		f := newFixture(t)
		srv, p := f.overHTTP(t)
		for _, action := range []string{"CreateFleet", "DescribeInstances", "TerminateInstances"} {
			for _, fault := range rapid.SliceOfN(rapid.SampledFrom(faults), 0, 4).Draw(rt, action) {
				srv.Faults.Inject(action, fault, 1)
			}
		}
		ctx := context.Background()
		out, err := p.Create(ctx, claim("inv", "on-demand", "spot"))
		live := f.ec2.Live()
		if err == nil {
			_, id, perr := aws.ParseProviderID(out.Status.ProviderID)
			if perr != nil || len(live) != 1 || live[0] != id {
				rt.Fatalf("Create returned %s but %v run", out.Status.ProviderID, live)
			}
			return
		}
		if len(live) == 0 {
			return
		}
		var cleanup *aws.CleanupError
		if !errors.As(err, &cleanup) {
			rt.Fatalf("Create failed (%v) and left %v running without saying so", err, live)
		}
		srv.Faults.Clear()
		f.clock.Step(time.Minute)
		if _, err := p.GarbageCollect(ctx, nil, 30*time.Second); err != nil {
			rt.Fatalf("garbage collection: %v", err)
		}
		if left := f.ec2.Live(); len(left) != 0 {
			rt.Fatalf("garbage collection left %v", left)
		}
	})
}

// TestInterruptionReaderLosesNothing draws a queue of good, no-op and malformed messages and
// a handler that fails at random, then polls (advancing past the visibility timeout) until
// the queue is empty: every good message was handled at least once, every malformed one was
// counted, and the queue drains.
func TestInterruptionReaderLosesNothing(t *testing.T) {
	bodies := map[string]string{
		"spot":      `{"version":"0","source":"aws.ec2","detail-type":"EC2 Spot Instance Interruption Warning","detail":{"instance-id":"i-%d"}}`,
		"stopping":  `{"version":"0","source":"aws.ec2","detail-type":"EC2 Instance State-change Notification","detail":{"instance-id":"i-%d","state":"stopping"}}`,
		"noop":      `{"version":"0","source":"aws.s3","detail-type":"Object Created","detail":{"n":%d}}`,
		"malformed": `{"version":"0","source":"aws.ec2","detail-type":"EC2 Spot Instance Interruption Warning","detail":{"instance-id":"bad-%d"}}`,
		"garbage":   `not json %d`,
	}
	kinds := []string{"spot", "stopping", "noop", "malformed", "garbage"}
	rapid.Check(t, func(rt *rapid.T) {
		clk := newClock()
		q := awstest.NewSQS("https://sqs.local/000000000000/q")
		q.Now = clk.Now
		drawn := rapid.SliceOfN(rapid.SampledFrom(kinds), 1, 30).Draw(rt, "messages")
		good, bad := map[string]bool{}, 0
		for i, k := range drawn {
			q.Send(fmt.Sprintf(bodies[k], i))
			switch k {
			case "spot", "stopping":
				good[fmt.Sprintf("i-%d", i)] = true
			case "malformed", "garbage":
				bad++
			}
		}
		r := &aws.InterruptionReader{SQS: q, QueueURL: q.URL, MaxMessages: int32(rapid.IntRange(1, 10).Draw(rt, "batch"))}
		handled := map[string]bool{}
		failRate := rapid.IntRange(0, 3).Draw(rt, "fail-one-in")
		calls := 0
		for round := 0; q.Len() > 0; round++ {
			if round > 200 {
				rt.Fatalf("queue never drained: %d left", q.Len())
			}
			_, err := r.Poll(context.Background(), func(_ context.Context, ev interruption.Event) error {
				calls++
				if failRate > 0 && calls%(failRate+1) == 0 {
					return fmt.Errorf("transient")
				}
				handled[ev.InstanceIDs[0]] = true
				return nil
			})
			if err != nil {
				rt.Fatal(err)
			}
			clk.Step(30 * time.Second)
		}
		for id := range good {
			if !handled[id] {
				rt.Fatalf("good message for %s was deleted unhandled", id)
			}
		}
		if r.MalformedTotal() != int64(bad) {
			rt.Fatalf("counted %d malformed messages, sent %d", r.MalformedTotal(), bad)
		}
	})
}
