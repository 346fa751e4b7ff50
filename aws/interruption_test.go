package aws_test

import (
	"context"
	"errors"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/aws"
	"github.com/nodeplan/nodeplan/aws/awstest"
	"github.com/nodeplan/nodeplan/aws/interruption"
)

var _ aws.SQSAPI = (*awstest.SQS)(nil)

// clock is a settable clock for the fakes.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func body(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("interruption/testdata/" + name)
	require.NoError(t, err)
	return string(b)
}

// recorder is a handler that records events and fails for listed instance IDs.
type recorder struct {
	events []interruption.Event
	fail   map[string]bool
}

func (r *recorder) handle(_ context.Context, ev interruption.Event) error {
	if r.fail[ev.InstanceIDs[0]] {
		return errors.New("cluster API unavailable")
	}
	r.events = append(r.events, ev)
	return nil
}

func (r *recorder) kinds() []string {
	var out []string
	for _, ev := range r.events {
		out = append(out, string(ev.Kind))
	}
	sort.Strings(out)
	return out
}

// fill sends one message of each kind, a no-op and two malformed ones; it returns the IDs of
// the malformed messages.
func fill(t *testing.T, q *awstest.SQS) []string {
	for _, name := range []string{"spot.json", "rebalance.json", "health.json", "stopping.json", "reservation.json"} {
		q.Send(body(t, name))
	}
	q.Send(`{"version":"0","source":"aws.s3","detail-type":"Object Created","detail":{}}`)
	return []string{q.Send("{not json"), q.Send(`{"version":"0","source":"aws.ec2","detail-type":"EC2 Spot Instance Interruption Warning","detail":{}}`)}
}

var allKinds = []string{"capacity_reservation_interrupted", "instance_stopped", "rebalance_recommendation", "scheduled_change", "spot_interrupted"}

func TestInterruptionReaderInMemory(t *testing.T) {
	clk := newClock()
	q := awstest.NewSQS("https://sqs.local/000000000000/q")
	q.Now = clk.Now
	malformed := fill(t, q)
	r := &aws.InterruptionReader{SQS: q, QueueURL: q.URL}
	rec := &recorder{fail: map[string]bool{"i-0fedcba9876543210": true}} // the reservation event fails once
	res, err := r.Poll(context.Background(), rec.handle)
	require.NoError(t, err)
	assert.Equal(t, 8, res.Received)
	assert.Equal(t, 4, res.Handled)
	assert.Equal(t, 1, res.NoOps)
	assert.Equal(t, 1, res.Retained)
	require.Len(t, res.Malformed, 2)
	assert.Equal(t, malformed, []string{res.Malformed[0].MessageID, res.Malformed[1].MessageID})
	var m *interruption.MalformedError
	assert.True(t, errors.As(res.Malformed[1].Err, &m))
	assert.Equal(t, int64(2), r.MalformedTotal())
	require.Len(t, res.Errors, 1)
	assert.Equal(t, 1, q.Len(), "only the event whose handler failed stays queued")

	// Hidden until the visibility timeout passes, then redelivered and handled.
	res, err = r.Poll(context.Background(), rec.handle)
	require.NoError(t, err)
	assert.Equal(t, 0, res.Received)
	clk.Step(21 * time.Second)
	rec.fail = nil
	res, err = r.Poll(context.Background(), rec.handle)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Handled)
	assert.Equal(t, 0, q.Len())
	assert.Equal(t, allKinds, rec.kinds())
}

// An AWS Health event naming a known instance and an entity that is not an instance is
// handled for the instance, not deleted as malformed (Karpenter acts on the instances it knows).
func TestInterruptionReaderActsOnTheInstancesOfAMixedHealthEvent(t *testing.T) {
	q := awstest.NewSQS("https://sqs.local/000000000000/q")
	q.Send(`{"version":"0","id":"h1","detail-type":"AWS Health Event","source":"aws.health","detail":{"service":"EC2","eventTypeCategory":"scheduledChange","affectedEntities":[{"entityValue":"i-0aaa"},{"entityValue":"vol-0bbb"}]}}`)
	r := &aws.InterruptionReader{SQS: q, QueueURL: q.URL}
	rec := &recorder{}
	res, err := r.Poll(context.Background(), rec.handle)
	require.NoError(t, err)
	assert.Empty(t, res.Malformed)
	assert.Equal(t, 1, res.Handled)
	require.Len(t, rec.events, 1)
	assert.Equal(t, interruption.ScheduledChange, rec.events[0].Kind)
	assert.Equal(t, []string{"i-0aaa"}, rec.events[0].InstanceIDs)
	assert.Zero(t, q.Len())
}

func TestInterruptionReaderRequiresQueue(t *testing.T) {
	_, err := (&aws.InterruptionReader{}).Poll(context.Background(), nil)
	assert.Error(t, err)
}

// sqsOverHTTP is a queue behind the local SQS JSON server, read with the real SDK client.
func sqsOverHTTP(t *testing.T) (*awstest.SQSServer, *aws.InterruptionReader, *clock) {
	clk := newClock()
	q := awstest.NewSQS("")
	q.Now = clk.Now
	srv := awstest.NewSQSServer(q)
	t.Cleanup(srv.Close)
	client := awstest.SQSClient(awstest.Config(), srv.URL)
	return srv, &aws.InterruptionReader{SQS: client, QueueURL: q.URL, WaitTimeSeconds: 1}, clk
}

func TestInterruptionReaderOverSQSProtocol(t *testing.T) {
	srv, r, _ := sqsOverHTTP(t)
	fill(t, srv.Queue)
	srv.Faults.Inject("ReceiveMessage", awstest.Throttle, 2)
	srv.Faults.Inject("DeleteMessage", awstest.ServerError, 1)
	rec := &recorder{}
	res, err := r.Poll(context.Background(), rec.handle)
	require.NoError(t, err, "the SDK's retries absorb two throttles and a 500")
	assert.Equal(t, 8, res.Received)
	assert.Equal(t, 5, res.Handled)
	assert.Len(t, res.Malformed, 2)
	assert.Empty(t, res.Errors)
	assert.Equal(t, allKinds, rec.kinds())
	assert.Equal(t, 0, srv.Queue.Len())
	assert.Equal(t, []string{"ReceiveMessage:Throttle", "ReceiveMessage:Throttle", "DeleteMessage:ServerError"}, srv.Faults.Served())
}

// A reply lost after SQS handed the messages out (malformed body, timeout) fails the poll;
// the messages reappear after the visibility timeout and none is lost.
func TestInterruptionReaderLostReplies(t *testing.T) {
	for _, f := range []awstest.Fault{awstest.MalformedBody, awstest.Timeout} {
		t.Run(f.String(), func(t *testing.T) {
			srv, r, clk := sqsOverHTTP(t)
			fill(t, srv.Queue)
			srv.Faults.Inject("ReceiveMessage", f, 1)
			rec := &recorder{}
			res, err := r.Poll(context.Background(), rec.handle)
			if f == awstest.MalformedBody {
				require.Error(t, err)
				assert.NotContains(t, err.Error(), "local-test-secret")
			} else { // the SDK retried the timed-out call and got nothing: the batch is in flight
				require.NoError(t, err)
				assert.Zero(t, res.Received)
			}
			assert.Equal(t, 8, srv.Queue.Len())
			clk.Step(time.Minute)
			res, err = r.Poll(context.Background(), rec.handle)
			require.NoError(t, err)
			assert.Equal(t, 5, res.Handled)
			assert.Equal(t, allKinds, rec.kinds())
			assert.Equal(t, 0, srv.Queue.Len())
		})
	}
}

// A failed DeleteMessage (retries exhausted) is reported; the message is handled again later,
// never lost.
func TestInterruptionReaderDeleteFailure(t *testing.T) {
	srv, r, clk := sqsOverHTTP(t)
	srv.Queue.Send(body(t, "spot.json"))
	srv.Faults.Inject("DeleteMessage", awstest.ServerError, 3)
	rec := &recorder{}
	res, err := r.Poll(context.Background(), rec.handle)
	require.NoError(t, err)
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0].Error(), "msg-0001")
	assert.NotContains(t, res.Errors[0].Error(), "rh-", "receipt handles stay out of errors")
	clk.Step(time.Minute)
	res, err = r.Poll(context.Background(), rec.handle)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Handled)
	assert.Equal(t, 0, srv.Queue.Len())
	assert.Len(t, rec.events, 2, "handled twice: handlers must be idempotent")
}
