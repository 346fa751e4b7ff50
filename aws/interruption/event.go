package interruption

import "time"

// Kind is what a message announces. The values are Karpenter's message kinds, as they appear
// in its metrics and events.
type Kind string

const (
	// SpotInterrupted: EC2 reclaims a spot instance in two minutes.
	SpotInterrupted Kind = "spot_interrupted"
	// RebalanceRecommendation: a spot instance is at elevated risk of interruption.
	RebalanceRecommendation Kind = "rebalance_recommendation"
	// ScheduledChange: AWS Health announced maintenance or retirement of EC2 instances.
	ScheduledChange Kind = "scheduled_change"
	// InstanceStopped: an instance entered the stopping or stopped state.
	InstanceStopped Kind = "instance_stopped"
	// InstanceTerminated: an instance entered the shutting-down or terminated state.
	InstanceTerminated Kind = "instance_terminated"
	// CapacityReservationInterrupted: an interruptible capacity reservation reclaims an
	// instance.
	CapacityReservationInterrupted Kind = "capacity_reservation_interrupted"
	// NoOp: a well-formed message that asks for nothing (another source, an EC2 state such
	// as running, a Health event of another service). It is deleted without action.
	NoOp Kind = "no_op"
)

// Action is what Karpenter does to the NodeClaims of an event's instances.
type Action string

const (
	// CordonAndDrain deletes the NodeClaim gracefully: pods are evicted, PDBs respected.
	CordonAndDrain Action = "CordonAndDrain"
	// NoAction only records the event.
	NoAction Action = "NoAction"
)

// Action returns Karpenter's action for the kind: NoAction for rebalance recommendations and
// no-op messages, CordonAndDrain for every other kind.
func (k Kind) Action() Action {
	switch k {
	case RebalanceRecommendation, NoOp, "":
		return NoAction
	default:
		return CordonAndDrain
	}
}

// Event is one parsed message.
type Event struct {
	Kind Kind
	// ID, Account, Region and Time are the EventBridge envelope's id, account, region and
	// time (zero when the envelope leaves them out).
	ID      string
	Account string
	Region  string
	Time    time.Time
	// InstanceIDs are the instances concerned, in message order without duplicates: one for
	// the EC2 kinds, the affected entities of a Health event that are instance IDs (others,
	// such as volumes, are skipped). Empty for NoOp.
	InstanceIDs []string
	// State is the new instance state of an instance state-change notification.
	State string
	// InstanceAction is the spot or capacity-reservation warning's instance-action
	// (terminate, stop, hibernate).
	InstanceAction string
	// HealthEventTypeCode is the Health event's eventTypeCode (e.g.
	// AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED).
	HealthEventTypeCode string
}

// Action is Karpenter's action for the event's kind.
func (e Event) Action() Action { return e.Kind.Action() }
