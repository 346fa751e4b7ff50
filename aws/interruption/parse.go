package interruption

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// MalformedError says why a message body could not be parsed. Field is the JSON path of the
// offending field ("" for the body as a whole).
type MalformedError struct {
	Field  string
	Reason string
}

func (e *MalformedError) Error() string {
	if e.Field == "" {
		return "malformed interruption message: " + e.Reason
	}
	return fmt.Sprintf("malformed interruption message: %s: %s", e.Field, e.Reason)
}

func malformed(field, format string, args ...any) error {
	return &MalformedError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// envelope is the part of an EventBridge event every kind shares.
type envelope struct {
	Version    string          `json:"version"`
	ID         string          `json:"id"`
	DetailType string          `json:"detail-type"`
	Source     string          `json:"source"`
	Account    string          `json:"account"`
	Time       string          `json:"time"`
	Region     string          `json:"region"`
	Resources  []string        `json:"resources"`
	Detail     json.RawMessage `json:"detail"`
}

type ec2Detail struct {
	InstanceID     string `json:"instance-id"`
	InstanceAction string `json:"instance-action"`
	State          string `json:"state"`
}

type healthDetail struct {
	Service           string `json:"service"`
	EventTypeCode     string `json:"eventTypeCode"`
	EventTypeCategory string `json:"eventTypeCategory"`
	AffectedEntities  []struct {
		EntityValue string `json:"entityValue"`
	} `json:"affectedEntities"`
}

const (
	sourceEC2    = "aws.ec2"
	sourceHealth = "aws.health"

	detailSpot        = "EC2 Spot Instance Interruption Warning"
	detailRebalance   = "EC2 Instance Rebalance Recommendation"
	detailStateChange = "EC2 Instance State-change Notification"
	detailReservation = "EC2 Capacity Reservation Instance Interruption Warning"
	detailHealth      = "AWS Health Event"
)

// Parse decodes one message body. An empty body, an unknown (version, source, detail-type)
// or a known kind that asks for nothing gives a NoOp event. A body that is not a JSON object,
// a known kind without a valid instance ID, or a time that is not RFC 3339 gives a
// *MalformedError; the caller should count, report and delete such a message.
func Parse(body []byte) (Event, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return Event{Kind: NoOp}, nil
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return Event{}, malformed("", "%v", err)
	}
	ev := Event{Kind: NoOp, ID: env.ID, Account: env.Account, Region: env.Region}
	if env.Time != "" {
		t, err := time.Parse(time.RFC3339, env.Time)
		if err != nil {
			return Event{}, malformed("time", "%q is not an RFC 3339 time", env.Time)
		}
		ev.Time = t
	}
	if env.Version != "0" {
		return ev, nil
	}
	switch {
	case env.Source == sourceEC2 && env.DetailType == detailSpot:
		return parseEC2(ev, env, SpotInterrupted)
	case env.Source == sourceEC2 && env.DetailType == detailRebalance:
		return parseEC2(ev, env, RebalanceRecommendation)
	case env.Source == sourceEC2 && env.DetailType == detailReservation:
		return parseEC2(ev, env, CapacityReservationInterrupted)
	case env.Source == sourceEC2 && env.DetailType == detailStateChange:
		return parseEC2(ev, env, "")
	case env.Source == sourceHealth && env.DetailType == detailHealth:
		return parseHealth(ev, env)
	}
	return ev, nil
}

// parseEC2 reads the detail of the aws.ec2 kinds; kind "" means a state change, whose kind
// follows from the state.
func parseEC2(ev Event, env envelope, kind Kind) (Event, error) {
	var d ec2Detail
	if err := decodeDetail(env.Detail, &d); err != nil {
		return Event{}, err
	}
	if kind == "" {
		switch d.State {
		case "stopping", "stopped":
			kind = InstanceStopped
		case "shutting-down", "terminated":
			kind = InstanceTerminated
		case "":
			return Event{}, malformed("detail.state", "missing")
		default:
			return ev, nil // pending, running: nothing to do
		}
	}
	if err := checkInstanceID("detail.instance-id", d.InstanceID); err != nil {
		return Event{}, err
	}
	ev.Kind = kind
	ev.InstanceIDs = []string{d.InstanceID}
	ev.State = d.State
	ev.InstanceAction = d.InstanceAction
	return ev, nil
}

// parseHealth reads an AWS Health event; only EC2 scheduled changes are acted upon, for
// the affected entities that are instance IDs.
func parseHealth(ev Event, env envelope) (Event, error) {
	var d healthDetail
	if err := decodeDetail(env.Detail, &d); err != nil {
		return Event{}, err
	}
	if d.Service != "EC2" || d.EventTypeCategory != "scheduledChange" {
		return ev, nil
	}
	// Entities that are not instance IDs (a Health event may also name volumes, hosts or the
	// account) are skipped: Karpenter looks every entity up as an instance and acts on those
	// it finds. Only an event that names no instance at all is malformed.
	seen := map[string]bool{}
	var ids []string
	var firstBad error
	for i, e := range d.AffectedEntities {
		if err := checkInstanceID(fmt.Sprintf("detail.affectedEntities[%d].entityValue", i), e.EntityValue); err != nil {
			if firstBad == nil {
				firstBad = err
			}
			continue
		}
		if !seen[e.EntityValue] {
			seen[e.EntityValue] = true
			ids = append(ids, e.EntityValue)
		}
	}
	if len(ids) == 0 {
		if firstBad != nil {
			return Event{}, firstBad
		}
		return Event{}, malformed("detail.affectedEntities", "no affected instance")
	}
	ev.Kind = ScheduledChange
	ev.InstanceIDs = ids
	ev.HealthEventTypeCode = d.EventTypeCode
	return ev, nil
}

func decodeDetail(raw json.RawMessage, into any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return malformed("detail", "missing")
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return malformed("detail", "%v", err)
	}
	return nil
}

// checkInstanceID accepts EC2 instance IDs: "i-" followed by letters and digits.
func checkInstanceID(field, id string) error {
	rest, ok := strings.CutPrefix(id, "i-")
	if !ok || rest == "" || strings.IndexFunc(rest, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0 {
		if id == "" {
			return malformed(field, "missing instance ID")
		}
		return malformed(field, "%q is not an EC2 instance ID", truncate(id))
	}
	return nil
}

// truncate keeps error messages short whatever a message carries.
func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
