package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// withInstance gives the node an AWS provider ID ending in instance id.
func withInstance(sn *cluster.Node, id string) *cluster.Node {
	sn.Node.Spec.ProviderID = "aws:///" + fake.TestZone1 + "/" + id
	return sn
}

func event(kind interruption.Kind, at time.Duration, ids ...string) interruption.Event {
	return interruption.Event{Kind: kind, ID: string(kind) + "-" + at.String(), Time: t0.Add(at), InstanceIDs: ids}
}

func TestInterruptionEvents(t *testing.T) {
	for _, tc := range []struct {
		name     string
		events   []interruption.Event
		codes    []InterruptionCode
		commands int
	}{
		{"spot interruption warning deletes", []interruption.Event{event(interruption.SpotInterrupted, 0, "i-a")}, []InterruptionCode{InterruptionDeleted}, 1},
		{"rebalance recommendation only records", []interruption.Event{event(interruption.RebalanceRecommendation, 0, "i-a")}, []InterruptionCode{InterruptionRecorded}, 0},
		{"scheduled change deletes every affected instance", []interruption.Event{event(interruption.ScheduledChange, 0, "i-a", "i-b")}, []InterruptionCode{InterruptionDeleted, InterruptionDeleted}, 2},
		{"instance stopping deletes", []interruption.Event{{Kind: interruption.InstanceStopped, State: "stopping", Time: t0, InstanceIDs: []string{"i-a"}}}, []InterruptionCode{InterruptionDeleted}, 1},
		{"instance stopped deletes", []interruption.Event{{Kind: interruption.InstanceStopped, State: "stopped", Time: t0, InstanceIDs: []string{"i-a"}}}, []InterruptionCode{InterruptionDeleted}, 1},
		{"instance shutting-down deletes", []interruption.Event{{Kind: interruption.InstanceTerminated, State: "shutting-down", Time: t0, InstanceIDs: []string{"i-a"}}}, []InterruptionCode{InterruptionDeleted}, 1},
		{"instance terminated deletes", []interruption.Event{{Kind: interruption.InstanceTerminated, State: "terminated", Time: t0, InstanceIDs: []string{"i-a"}}}, []InterruptionCode{InterruptionDeleted}, 1},
		{"capacity reservation warning deletes", []interruption.Event{event(interruption.CapacityReservationInterrupted, 0, "i-a")}, []InterruptionCode{InterruptionDeleted}, 1},
		{"no-op message is ignored", []interruption.Event{event(interruption.NoOp, 0)}, []InterruptionCode{InterruptionIgnored}, 0},
		{"unknown instance", []interruption.Event{event(interruption.SpotInterrupted, 0, "i-zzz")}, []InterruptionCode{InterruptionUnknownInstance}, 0},
		{"rebalance of an unknown instance", []interruption.Event{event(interruption.RebalanceRecommendation, 0, "i-zzz")}, []InterruptionCode{InterruptionUnknownInstance}, 0},
		{"unmanaged node is unknown", []interruption.Event{event(interruption.SpotInterrupted, 0, "i-u")}, []InterruptionCode{InterruptionUnknownInstance}, 0},
		{"provider ID names the instance too", []interruption.Event{event(interruption.SpotInterrupted, 0, "aws:///"+fake.TestZone1+"/i-a")}, []InterruptionCode{InterruptionDeleted}, 1},
		{"duplicate event, one command", []interruption.Event{event(interruption.SpotInterrupted, time.Minute, "i-a"), event(interruption.ScheduledChange, 0, "i-a")},
			[]InterruptionCode{InterruptionDeleted, InterruptionDuplicate}, 1},
		{"already deleting node is skipped", []interruption.Event{event(interruption.SpotInterrupted, 0, "i-d")}, []InterruptionCode{InterruptionAlreadyDeleting}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := withInstance(testNode("node-a", "p", "small", v1.CapacityTypeSpot, bound("a1", "1")), "i-a")
			b := withInstance(testNode("node-b", "p", "small", v1.CapacityTypeSpot), "i-b")
			d := withInstance(testNode("node-d", "p", "small", ""), "i-d")
			dt := metav1.NewTime(t0)
			d.Node.DeletionTimestamp = &dt
			u := withInstance(testNode("node-u", "", "small", ""), "i-u")
			delete(u.Node.Labels, v1.NodePoolLabelKey)
			// a zero budget: interruption is forceful and ignores it
			in := input([]*v1.NodePool{pool("p", spotToo, budget("0"))}, a, b, d, u)
			in.Interruptions = tc.events
			res, err := plan(t, in)
			require.NoError(t, err)
			var codes []InterruptionCode
			for _, o := range res.Interruptions {
				codes = append(codes, o.Code)
			}
			assert.Equal(t, tc.codes, codes)
			n := 0
			for _, c := range res.Commands {
				if c.Method == MethodInterruption {
					n++
					assert.Equal(t, ReasonInterrupted, c.Reason)
					if assert.NotNil(t, c.Event, "the event that started it") {
						assert.Contains(t, c.Event.InstanceIDs, c.InstanceID)
					}
				}
			}
			assert.Equal(t, tc.commands, n)
			checkNothingLost(t, in, res)
		})
	}
}

// A spot interruption marks the node's spot offering unavailable: the provisioner pre-spins
// capacity for its pods, never that type as spot in that zone.
func TestSpotInterruptionReplacementAvoidsTheOffering(t *testing.T) {
	a := withInstance(testNode("node-a", "p", "small", v1.CapacityTypeSpot, bound("a1", "1500m")), "i-a")
	in := input([]*v1.NodePool{pool("p", spotToo)}, a)
	in.Interruptions = []interruption.Event{event(interruption.SpotInterrupted, 0, "i-a")}
	snapshot := deepCopyInput(in)
	res, err := plan(t, in)
	require.NoError(t, err)
	require.Len(t, res.Interruptions, 1)
	o := res.Interruptions[0]
	assert.Equal(t, InterruptionDeleted, o.Code)
	assert.Equal(t, Unavailable{InstanceType: "small", Zone: fake.TestZone1}, o.Unavailable)
	require.Len(t, res.Provisioned, 1, "the provisioner launches for the interrupted node's pod")
	p := res.Provisioned[0]
	assert.False(t, p.InstanceType.Name == "small" && p.Offering.Zone() == fake.TestZone1 && p.Offering.CapacityType() == v1.CapacityTypeSpot,
		"replacement on the interrupted offering: %s %s %s", p.InstanceType.Name, p.Offering.Zone(), p.Offering.CapacityType())
	assert.Equal(t, v1.CapacityTypeSpot, p.Offering.CapacityType(), "spot elsewhere is still cheapest")
	// the input's offerings are untouched
	for _, it := range in.InstanceTypes["p"] {
		for _, off := range it.Offerings {
			assert.True(t, off.Available)
		}
	}
	assert.Equal(t, len(snapshot.InstanceTypes["p"]), len(in.InstanceTypes["p"]))
	// the drain sends the pod to the pre-spun claim
	require.Len(t, res.Drains, 1)
	require.Len(t, res.Drains[0].Groups, 1)
	assert.Equal(t, "provisioned-1", res.Drains[0].Groups[0].Pods[0].Destination)
}

func TestCapacityReservationInterruptionMarksTheReservation(t *testing.T) {
	a := withInstance(testNode("node-a", "p", "small", v1.CapacityTypeReserved), "i-a")
	a.Node.Labels[cloudprovider.ReservationIDLabel] = "cr-1"
	in := input([]*v1.NodePool{pool("p")}, a)
	in.Interruptions = []interruption.Event{event(interruption.CapacityReservationInterrupted, 0, "i-a")}
	res, err := plan(t, in)
	require.NoError(t, err)
	require.Len(t, res.Interruptions, 1)
	assert.Equal(t, Unavailable{Reservation: "cr-1"}, res.Interruptions[0].Unavailable)
}
