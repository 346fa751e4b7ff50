package aws_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws"
	"github.com/nodeplan/nodeplan/aws/awstest"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// TestProviderUnderFaults drives the provider, through the real SDK clients, against EC2 and
// SQS behind fault proxies that delay, reorder, drop and duplicate replies at random (seeded
// per run): launches (also concurrent ones, and ones whose caller gives up while CreateFleet
// is in flight), capacity running out and coming back, Deletes (also concurrent ones),
// garbage collection, Refresh, and interruption messages polled by a handler that fails at
// random. After every step it checks what a host relies on:
//   - every NodeClaim Create returned runs; a failed Create left nothing running unless it
//     said its clean-up failed too (and on a calm network an abandoned one cleans up); after
//     a garbage collection that succeeded no instance runs that no NodeClaim names (none
//     outlives its NodeClaim beyond one);
//   - no reservation slot is counted twice: the provider never offers more free slots than
//     EC2 has, beyond the instances it cannot know of (orphans of lost replies);
//   - no interruption message that asks for action is deleted before its handler succeeded.
//
// The default run is short (rapid's default checks); for a longer one:
//
//	go test ./aws -run TestProviderUnderFaults -rapid.checks=2000 -rapid.steps=100
func TestProviderUnderFaults(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := newFaultWorld(t, rt)
		defer w.close()
		rt.Repeat(rapid.StateMachineActions(w))
	})
}

const reservationID = "cr-0aaa"

// faultWorld is the provider with its EC2 and SQS behind fault proxies, and what a host
// keeps: the NodeClaims it launched, those whose Delete has not finished, the messages sent
// and those handled.
type faultWorld struct {
	f                  *fixture
	p                  *aws.Provider
	ec2Server          *awstest.EC2Server
	sqsServer          *awstest.SQSServer
	ec2Proxy, sqsProxy *awstest.FaultProxy
	ec2Chaos           awstest.Chaos
	queue              *awstest.SQS
	reader             *aws.InterruptionReader

	claims   map[string]*v1.NodeClaim // launched, not being deleted
	deleting map[string]*v1.NodeClaim // a Delete failed: the host tries again
	// described is when the last successful Refresh read the reservations; uncertain counts
	// the reserved instances since then whose termination may have happened unseen (a Delete
	// whose answer was lost).
	described time.Time
	uncertain int
	names     int
	messages  map[string]sentMessage // by SQS message ID
	handled   map[string]bool        // event IDs whose handler returned nil
}

type sentMessage struct {
	eventID    string
	actionable bool // asks for action: must be handled before it is deleted
}

func chaosOf(rt *rapid.T, label string) awstest.Chaos {
	return awstest.Chaos{
		Seed:      rapid.Uint64().Draw(rt, label+" seed"),
		Delay:     rapid.Float64Range(0, 0.3).Draw(rt, label+" delay"),
		Reorder:   rapid.Float64Range(0, 0.2).Draw(rt, label+" reorder"),
		Drop:      rapid.Float64Range(0, 0.2).Draw(rt, label+" drop"),
		Duplicate: rapid.Float64Range(0, 0.2).Draw(rt, label+" duplicate"),
		MaxDelay:  2 * time.Millisecond,
	}
}

func newFaultWorld(t *testing.T, rt *rapid.T) *faultWorld {
	f := newFixture(t)
	f.withReservation(2)
	w := &faultWorld{f: f, claims: map[string]*v1.NodeClaim{}, deleting: map[string]*v1.NodeClaim{}, messages: map[string]sentMessage{}, handled: map[string]bool{}}
	w.ec2Server = awstest.NewEC2Server(f.ec2)
	w.ec2Proxy = awstest.NewFaultProxy(w.ec2Server.URL, awstest.Chaos{}) // calm while the provider starts
	w.queue = awstest.NewSQS("")
	w.queue.Now = f.clock.Now
	w.sqsServer = awstest.NewSQSServer(w.queue)
	w.sqsProxy = awstest.NewFaultProxy(w.sqsServer.URL, chaosOf(rt, "sqs"))
	w.described = f.clock.Now()
	w.p = f.provider(rt, awstest.EC2Client(awstest.Config(), w.ec2Proxy.URL))
	w.ec2Chaos = chaosOf(rt, "ec2")
	w.ec2Proxy.SetChaos(w.ec2Chaos)
	w.reader = &aws.InterruptionReader{SQS: awstest.SQSClient(awstest.Config(), w.sqsProxy.URL), QueueURL: w.queue.URL, WaitTimeSeconds: 1}
	return w
}

func (w *faultWorld) close() {
	w.ec2Proxy.Close()
	w.sqsProxy.Close()
	w.ec2Server.Close()
	w.sqsServer.Close()
}

// tick moves the clock on a second before each step, so that launch times tell steps apart.
func (w *faultWorld) tick() { w.f.clock.Step(time.Second) }

func (w *faultWorld) newClaim(rt *rapid.T) *v1.NodeClaim {
	types := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"spot", "on-demand", "reserved"}), 1, 3, rapid.ID[string]).Draw(rt, "capacity types")
	w.names++
	return claim(fmt.Sprintf("claim-%d", w.names), types...)
}

// launched records the outcome of a Create of c. A Create that failed without saying that
// its clean-up failed too left none of c's instances running.
func (w *faultWorld) launched(rt *rapid.T, c, out *v1.NodeClaim, err error) {
	if err == nil {
		w.claims[out.Name] = out
		return
	}
	rt.Logf("create: %v", err)
	var cleanup *aws.CleanupError
	if errors.As(err, &cleanup) {
		return
	}
	w.ec2Proxy.Idle()
	if ids := w.instancesOf(c.Name); len(ids) > 0 {
		rt.Fatalf("Create of %s failed (%v) and left %v running without saying so", c.Name, err, ids)
	}
}

// instancesOf are the live instances tagged for the NodeClaim name.
func (w *faultWorld) instancesOf(name string) []string {
	var ids []string
	for _, id := range w.f.ec2.Live() {
		inst, _ := w.f.ec2.Instance(id)
		for _, tag := range inst.Tags {
			if sdkaws.ToString(tag.Key) == aws.TagNodeClaim && sdkaws.ToString(tag.Value) == name {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// Launch creates one NodeClaim.
func (w *faultWorld) Launch(rt *rapid.T) {
	w.tick()
	c := w.newClaim(rt)
	out, err := w.p.Create(context.Background(), c)
	w.launched(rt, c, out, err)
}

// LaunchConcurrently creates two or three NodeClaims at once (their replies reorder, and they
// may need the same new launch templates).
func (w *faultWorld) LaunchConcurrently(rt *rapid.T) {
	w.tick()
	claims := make([]*v1.NodeClaim, rapid.IntRange(2, 3).Draw(rt, "launches"))
	for i := range claims {
		claims[i] = w.newClaim(rt)
	}
	outs, errs := make([]*v1.NodeClaim, len(claims)), make([]error, len(claims))
	var wg sync.WaitGroup
	for i, c := range claims {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = w.p.Create(context.Background(), c)
		}()
	}
	wg.Wait()
	for i, c := range claims {
		w.launched(rt, c, outs[i], errs[i])
	}
}

// LaunchAbandoned creates a NodeClaim whose caller gives up once EC2 has acted on CreateFleet,
// before the answer arrives. On a calm network its clean-up must succeed: nothing of it runs.
func (w *faultWorld) LaunchAbandoned(rt *rapid.T) {
	w.tick()
	calm := rapid.Bool().Draw(rt, "calm network")
	if calm {
		w.ec2Proxy.SetChaos(awstest.Chaos{})
		defer w.ec2Proxy.SetChaos(w.ec2Chaos)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.ec2Proxy.OnReply(func(action string) {
		if action == "CreateFleet" {
			cancel()
		}
	})
	defer w.ec2Proxy.OnReply(nil)
	c := w.newClaim(rt)
	out, err := w.p.Create(ctx, c)
	w.launched(rt, c, out, err)
	if w.ec2Proxy.Idle(); calm && err != nil {
		if ids := w.instancesOf(c.Name); len(ids) > 0 {
			rt.Fatalf("Create of %s was abandoned on a calm network and left %v running (%v)", c.Name, ids, err)
		}
	}
}

// Capacity runs out in a pool, or comes back.
func (w *faultWorld) Capacity(rt *rapid.T) {
	pool := awstest.Pool(rapid.SampledFrom([]string{"spot", "on-demand"}).Draw(rt, "capacity type"),
		rapid.SampledFrom(fixtureTypes).Draw(rt, "type"), rapid.SampledFrom(testZones).Draw(rt, "zone"))
	w.f.ec2.SetInsufficientCapacity(pool, rapid.Bool().Draw(rt, "insufficient"))
}

// named are the NodeClaims the host still has (launched or being deleted), by name.
func (w *faultWorld) named() []string {
	var names []string
	for n := range w.claims {
		names = append(names, n)
	}
	for n := range w.deleting {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (w *faultWorld) claimNamed(name string) *v1.NodeClaim {
	if c, ok := w.claims[name]; ok {
		return c
	}
	return w.deleting[name]
}

// deleted records the outcomes of Deletes of one claim: done when one said so or the
// instance is gone, still deleting otherwise.
func (w *faultWorld) deleted(rt *rapid.T, c *v1.NodeClaim, errs ...error) {
	for _, err := range errs {
		if err == nil || cloudprovider.IsNodeClaimNotFoundError(err) {
			delete(w.claims, c.Name)
			delete(w.deleting, c.Name)
			return
		}
	}
	rt.Logf("delete %s: %v", c.Name, errors.Join(errs...))
	delete(w.claims, c.Name)
	w.deleting[c.Name] = c
	if c.Labels[cloudprovider.ReservationIDLabel] != "" {
		w.uncertain++
	}
}

// pick draws one of the host's NodeClaims; a step that needs one is skipped when there is none.
func (w *faultWorld) pick(rt *rapid.T) *v1.NodeClaim {
	names := w.named()
	if len(names) == 0 {
		rt.Skip("no NodeClaim")
	}
	return w.claimNamed(rapid.SampledFrom(names).Draw(rt, "claim"))
}

// Delete deletes one NodeClaim the host has (again, when an earlier Delete failed).
func (w *faultWorld) Delete(rt *rapid.T) {
	c := w.pick(rt)
	w.tick()
	w.deleted(rt, c, w.p.Delete(context.Background(), c))
}

// DeleteConcurrently deletes one NodeClaim from two or three callers at once.
func (w *faultWorld) DeleteConcurrently(rt *rapid.T) {
	c := w.pick(rt)
	w.tick()
	errs := make([]error, rapid.IntRange(2, 3).Draw(rt, "deletes"))
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.p.Delete(context.Background(), c)
		}()
	}
	wg.Wait()
	w.deleted(rt, c, errs...)
}

// GarbageCollect runs a minute later; when it succeeds, no instance runs that no NodeClaim
// of the host names.
func (w *faultWorld) GarbageCollect(rt *rapid.T) {
	w.f.clock.Step(time.Minute)
	var claims []*v1.NodeClaim
	for _, n := range w.named() {
		claims = append(claims, w.claimNamed(n))
	}
	if _, err := w.p.GarbageCollect(context.Background(), claims, 30*time.Second); err != nil {
		rt.Logf("garbage collection: %v", err)
		return
	}
	w.ec2Proxy.Idle()
	known := w.instancesNamed()
	for _, id := range w.f.ec2.Live() {
		if !known[id] {
			rt.Fatalf("instance %s runs after a garbage collection, and no NodeClaim names it", id)
		}
	}
}

// Refresh reloads the region (and so the reservations' free counts).
func (w *faultWorld) Refresh(rt *rapid.T) {
	w.tick()
	at := w.f.clock.Now()
	if err := w.p.Refresh(context.Background(), "us-east-1"); err != nil {
		rt.Logf("refresh: %v", err)
		return
	}
	w.described, w.uncertain = at, 0
}

// Interrupt puts an interruption message on the queue: a spot warning or a scheduled change
// for a NodeClaim's instance (or an unknown one), a no-op, or a malformed body.
func (w *faultWorld) Interrupt(rt *rapid.T) {
	id := "i-0000000000unknown"
	if len(w.named()) > 0 && rapid.Bool().Draw(rt, "known instance") {
		_, id, _ = aws.ParseProviderID(w.pick(rt).Status.ProviderID)
	}
	eventID := fmt.Sprintf("event-%d", len(w.messages))
	kind := rapid.SampledFrom([]string{"spot", "health", "noop", "malformed"}).Draw(rt, "message")
	body := map[string]string{
		"spot":      `{"version":"0","id":"%s","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2","detail":{"instance-id":"%s","instance-action":"terminate"}}`,
		"health":    `{"version":"0","id":"%s","detail-type":"AWS Health Event","source":"aws.health","detail":{"service":"EC2","eventTypeCategory":"scheduledChange","affectedEntities":[{"entityValue":"%s"},{"entityValue":"vol-0abc"}]}}`,
		"noop":      `{"version":"0","id":"%s","detail-type":"Object Created","source":"aws.s3","detail":{"key":"%s"}}`,
		"malformed": `{"version":"0","id":"%s","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2","detail":{"instance-id":"not-%s"}}`,
	}[kind]
	msgID := w.queue.Send(fmt.Sprintf(body, eventID, id))
	w.messages[msgID] = sentMessage{eventID: eventID, actionable: kind == "spot" || kind == "health"}
}

// Poll reads the queue once; the handler resolves each event to NodeClaims and fails at
// random. Time passes, so that messages in flight come back.
func (w *faultWorld) Poll(rt *rapid.T) {
	failOneIn := rapid.IntRange(0, 3).Draw(rt, "fail one in")
	calls := 0
	res, err := w.reader.Poll(context.Background(), func(ctx context.Context, ev interruption.Event) error {
		calls++
		if _, err := w.p.Interrupted(ctx, ev); err != nil {
			return err
		}
		if failOneIn > 0 && calls%failOneIn == 0 {
			return errors.New("handler failed")
		}
		w.handled[ev.ID] = true
		return nil
	})
	if err != nil {
		rt.Logf("poll: %v", err)
	} else if len(res.Errors) > 0 {
		rt.Logf("poll: %v", errors.Join(res.Errors...))
	}
	w.f.clock.Step(time.Duration(rapid.IntRange(0, 30).Draw(rt, "seconds")) * time.Second)
}

// instancesNamed are the instance IDs of the host's NodeClaims.
func (w *faultWorld) instancesNamed() map[string]bool {
	known := map[string]bool{}
	for _, n := range w.named() {
		if _, id, err := aws.ParseProviderID(w.claimNamed(n).Status.ProviderID); err == nil {
			known[id] = true
		}
	}
	return known
}

// Check runs after every step, once nothing is in flight.
func (w *faultWorld) Check(rt *rapid.T) {
	w.ec2Proxy.Idle()
	w.sqsProxy.Idle()
	live := w.f.ec2.Live()
	for _, n := range slices.Sorted(maps.Keys(w.claims)) {
		if _, id, _ := aws.ParseProviderID(w.claims[n].Status.ProviderID); !slices.Contains(live, id) {
			rt.Fatalf("NodeClaim %s was launched as %s, which does not run", n, id)
		}
	}
	w.checkReservation(rt, live)
	for _, msgID := range w.queue.Deleted() {
		if m := w.messages[msgID]; m.actionable && !w.handled[m.eventID] {
			rt.Fatalf("message %s (%s) was deleted before its handler succeeded", msgID, m.eventID)
		}
	}
}

// checkReservation compares the free slots the provider offers with EC2's: never more, but
// for the instances launched into the reservation since the provider read it that no
// NodeClaim names (orphans of lost replies, which it cannot know), and never fewer, but for
// the reserved instances whose termination it may not have seen.
func (w *faultWorld) checkReservation(rt *rapid.T, live []string) {
	offered := -1
	for _, it := range generalTypes(rt, w.p) {
		for _, o := range it.Offerings {
			if o.ReservationID() == reservationID {
				offered = o.ReservationCapacity
			}
		}
	}
	if offered < 0 {
		return // the last Refresh could not read the reservations: nothing is offered
	}
	cr, _ := w.f.ec2.Reservation(reservationID)
	free := int(sdkaws.ToInt32(cr.AvailableInstanceCount))
	known, orphans := w.instancesNamed(), 0
	for _, id := range live {
		inst, _ := w.f.ec2.Instance(id)
		if sdkaws.ToString(inst.CapacityReservationId) == reservationID && !known[id] && !sdkaws.ToTime(inst.LaunchTime).Before(w.described) {
			orphans++
		}
	}
	if offered > free+orphans {
		rt.Fatalf("the provider offers %d free slots of %s, EC2 has %d (and %d unknown launches hold slots): a slot was given back twice", offered, reservationID, free, orphans)
	}
	if offered < free+orphans-w.uncertain {
		rt.Fatalf("the provider offers %d free slots of %s, EC2 has %d (%d unknown launches, %d unseen terminations): a slot was taken twice", offered, reservationID, free, orphans, w.uncertain)
	}
}
