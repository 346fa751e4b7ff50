package interruption

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
)

func readBody(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return string(b)
}

// stateChange is an instance state-change notification for i-0123456789abcdef0 in state.
func stateChange(state string) string {
	return strings.Replace(`{"version":"0","id":"x","detail-type":"EC2 Instance State-change Notification","source":"aws.ec2","time":"2026-11-30T14:10:00Z","detail":{"instance-id":"i-0123456789abcdef0","state":"STATE"}}`, "STATE", state, 1)
}

func health(service, category string) string {
	r := strings.NewReplacer("SERVICE", service, "CATEGORY", category)
	return r.Replace(`{"version":"0","detail-type":"AWS Health Event","source":"aws.health","detail":{"service":"SERVICE","eventTypeCategory":"CATEGORY","affectedEntities":[{"entityValue":"i-01"}]}}`)
}

func TestParseKinds(t *testing.T) {
	for _, tc := range []struct {
		name   string
		body   string
		kind   Kind
		ids    []string
		action Action
	}{
		{"spot warning", readBody(t, "spot.json"), SpotInterrupted, []string{"i-0123456789abcdef0"}, CordonAndDrain},
		{"rebalance", readBody(t, "rebalance.json"), RebalanceRecommendation, []string{"i-0123456789abcdef0"}, NoAction},
		{"health scheduled change, duplicates dropped", readBody(t, "health.json"), ScheduledChange, []string{"i-0aaaaaaaaaaaaaaa1", "i-0bbbbbbbbbbbbbbb2"}, CordonAndDrain},
		{"stopping", readBody(t, "stopping.json"), InstanceStopped, []string{"i-0123456789abcdef0"}, CordonAndDrain},
		{"stopped", stateChange("stopped"), InstanceStopped, []string{"i-0123456789abcdef0"}, CordonAndDrain},
		{"shutting-down", stateChange("shutting-down"), InstanceTerminated, []string{"i-0123456789abcdef0"}, CordonAndDrain},
		{"terminated", stateChange("terminated"), InstanceTerminated, []string{"i-0123456789abcdef0"}, CordonAndDrain},
		{"running is a no-op", stateChange("running"), NoOp, nil, NoAction},
		{"pending is a no-op", stateChange("pending"), NoOp, nil, NoAction},
		{"capacity reservation", readBody(t, "reservation.json"), CapacityReservationInterrupted, []string{"i-0fedcba9876543210"}, CordonAndDrain},
		{"health of another service", health("RDS", "scheduledChange"), NoOp, nil, NoAction},
		{"health issue, not a scheduled change", health("EC2", "issue"), NoOp, nil, NoAction},
		{"empty body", "", NoOp, nil, NoAction},
		{"blank body", " \n", NoOp, nil, NoAction},
		{"unknown source", `{"version":"0","source":"aws.s3","detail-type":"Object Created","detail":{}}`, NoOp, nil, NoAction},
		{"unknown version", `{"version":"1","source":"aws.ec2","detail-type":"EC2 Spot Instance Interruption Warning","detail":{"instance-id":"i-1"}}`, NoOp, nil, NoAction},
		{"health: entities that are not instances are skipped", strings.Replace(health("EC2", "scheduledChange"), `{"entityValue":"i-01"}`, `{"entityValue":"vol-0abc"},{"entityValue":"i-0aaa"},{"entityValue":"arn:aws:ec2:x"}`, 1), ScheduledChange, []string{"i-0aaa"}, CordonAndDrain},
		{"unknown fields are ignored", `{"version":"0","source":"aws.ec2","detail-type":"EC2 Spot Instance Interruption Warning","extra":1,"detail":{"instance-id":"i-1","new":true}}`, SpotInterrupted, []string{"i-1"}, CordonAndDrain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := Parse([]byte(tc.body))
			require.NoError(t, err)
			assert.Equal(t, tc.kind, ev.Kind)
			assert.Equal(t, tc.ids, ev.InstanceIDs)
			assert.Equal(t, tc.action, ev.Action())
		})
	}
}

func TestParseEnvelopeAndDetail(t *testing.T) {
	ev, err := Parse([]byte(readBody(t, "spot.json")))
	require.NoError(t, err)
	assert.Equal(t, Event{
		Kind: SpotInterrupted, ID: "0d9a1c52-7e3b-4f60-b2a1-5c8e9f0a1b2c", Account: "123456789012",
		Region: "eu-west-1", Time: time.Date(2026, 11, 30, 14, 2, 0, 0, time.UTC),
		InstanceIDs: []string{"i-0123456789abcdef0"}, InstanceAction: "terminate",
	}, ev)

	ev, err = Parse([]byte(readBody(t, "health.json")))
	require.NoError(t, err)
	assert.Equal(t, "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED", ev.HealthEventTypeCode)

	ev, err = Parse([]byte(readBody(t, "stopping.json")))
	require.NoError(t, err)
	assert.Equal(t, "stopping", ev.State)
}

func TestParseMalformed(t *testing.T) {
	spot := `{"version":"0","source":"aws.ec2","detail-type":"EC2 Spot Instance Interruption Warning",`
	for _, tc := range []struct {
		name, body, field string
	}{
		{"not JSON", "hello", ""},
		{"truncated", readBody(t, "spot.json")[:80], ""},
		{"array", `[1,2]`, ""},
		{"wrong envelope type", `{"version":0}`, ""},
		{"bad time", `{"version":"0","time":"yesterday"}`, "time"},
		{"no detail", spot + `"id":"x"}`, "detail"},
		{"null detail", spot + `"detail":null}`, "detail"},
		{"detail not an object", spot + `"detail":"i-1"}`, "detail"},
		{"missing instance ID", spot + `"detail":{}}`, "detail.instance-id"},
		{"instance ID of another kind", spot + `"detail":{"instance-id":"vol-1"}}`, "detail.instance-id"},
		{"instance ID with junk", spot + `"detail":{"instance-id":"i-1; rm"}}`, "detail.instance-id"},
		{"state change without state", strings.Replace(stateChange("x"), `,"state":"x"`, "", 1), "detail.state"},
		{"state change without instance", strings.Replace(stateChange("stopped"), `"instance-id":"i-0123456789abcdef0",`, "", 1), "detail.instance-id"},
		{"health without entities", strings.Replace(health("EC2", "scheduledChange"), `{"entityValue":"i-01"}`, "", 1), "detail.affectedEntities"},
		{"health with a bad entity", strings.Replace(health("EC2", "scheduledChange"), `i-01`, `arn:x`, 1), "detail.affectedEntities[0].entityValue"},
		{"health naming no instance", strings.Replace(health("EC2", "scheduledChange"), `{"entityValue":"i-01"}`, `{"entityValue":"vol-1"},{"entityValue":"h-2"}`, 1), "detail.affectedEntities[0].entityValue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := Parse([]byte(tc.body))
			var m *MalformedError
			require.True(t, errors.As(err, &m), "want a MalformedError, got %v", err)
			assert.Equal(t, tc.field, m.Field)
			assert.Equal(t, Event{}, ev)
		})
	}
}

func TestMalformedErrorKeepsBodyOut(t *testing.T) {
	long := strings.Repeat("A", 500)
	_, err := Parse([]byte(`{"version":"0","source":"aws.ec2","detail-type":"EC2 Spot Instance Interruption Warning","detail":{"instance-id":"` + long + `"}}`))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 200, "an error quotes at most a short prefix of a field")
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"spot.json", "rebalance.json", "health.json", "stopping.json", "reservation.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(stateChange("terminated")))
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := Parse(body)
		if err != nil {
			var m *MalformedError
			if !errors.As(err, &m) {
				t.Fatalf("error is not a MalformedError: %v", err)
			}
			return
		}
		if (ev.Kind == NoOp) != (len(ev.InstanceIDs) == 0) {
			t.Fatalf("kind %s with instances %v", ev.Kind, ev.InstanceIDs)
		}
	})
}
