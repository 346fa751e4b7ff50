package simulate

import (
	"time"
)

// Trace is what a run did: the cluster's curves over time and the totals.
type Trace struct {
	// Start and End bound the run (End = Start + the timeline's Duration).
	Start, End time.Time
	// Series has a point at the start and at every instant something happened, in time
	// order; the values hold until the next point.
	Series []Point
	// Totals sum the run up.
	Totals Totals
}

// Point is the cluster at one instant, after what happened then.
type Point struct {
	Time time.Time
	// PricePerHour is the price of every node and in-flight NodeClaim (cluster.Snapshot.Price):
	// what the cloud bills from launch to termination.
	PricePerHour float64
	// Nodes counts the nodes and in-flight NodeClaims; PendingPods the pods waiting for a
	// node (pending, or bound to one not ready yet).
	Nodes, PendingPods int
	// Events are what happened at this instant, in the order they happened.
	Events []Event
}

// EventKind says what happened.
type EventKind string

// Event kinds.
const (
	// EventTimeline: a timeline event was carried out (Action, Source, Pods: pods added or
	// deleted, Nodes: nodes interrupted).
	EventTimeline EventKind = "Timeline"
	// EventProvisioned: a Solve launched Nodes NodeClaims (NodeClaims names them) and bound
	// Pods pods to existing nodes and to them.
	EventProvisioned EventKind = "Provisioned"
	// EventLaunchRefused: the cloud refused NodeClaims (insufficient capacity); their Pods
	// pods wait for the next Solve.
	EventLaunchRefused EventKind = "LaunchRefused"
	// EventRegistered and EventInitialized: a NodeClaim's Node registered, then became
	// ready (its pods start).
	EventRegistered  EventKind = "Registered"
	EventInitialized EventKind = "Initialized"
	// EventDisruption: a disruption command was carried out (Reason, Method, Nodes: its
	// candidates, NodeClaims: its replacements).
	EventDisruption EventKind = "Disruption"
	// EventAbandoned: a command decided by a Plan was not carried out (Detail says why: a
	// Plan ValidationDelay later did not decide it again, or its replacements could not
	// launch).
	EventAbandoned EventKind = "Abandoned"
	// EventEvicted: a drain evicted Pods pods of Nodes; EventDeleted: it deleted them at
	// the terminationGracePeriod deadline, or the instance ended under them (interruption).
	EventEvicted EventKind = "Evicted"
	EventDeleted EventKind = "Deleted"
	// EventTerminated: Nodes' instances are gone (no longer billed).
	EventTerminated EventKind = "Terminated"
	// EventAvailable: offerings (Offerings) found unavailable are available again.
	EventAvailable EventKind = "Available"
)

// Event is one thing that happened; the fields its kind documents are set.
type Event struct {
	Kind EventKind
	// Action and Source are a timeline event's (scale, deletePods, ...; "day.yaml: events[3]").
	Action, Source string
	// Reason and Method are a disruption command's (disruption.Reason, disruption.Method).
	Reason, Method string
	// Nodes and NodeClaims are node and NodeClaim names, sorted.
	Nodes, NodeClaims []string
	// NodePool is the NodePool of a disruption command's first candidate.
	NodePool string
	// Offerings are offering keys (type/zone/capacity-type).
	Offerings []string
	// Pods counts the pods concerned.
	Pods int
	// Detail is a note in English.
	Detail string
}

// Totals sum a run up.
type Totals struct {
	// Cost is the USD spent: the integral of PricePerHour over the run.
	Cost float64
	// NodeHours is the integral of Nodes over the run, in hours.
	NodeHours float64
	// PeakNodes is the largest Nodes of the series.
	PeakNodes int
	// Launched and LaunchRefused count NodeClaims launched and refused.
	Launched, LaunchRefused int
	// Evictions counts pods evicted by drains; Deleted the pods deleted without eviction
	// (at a terminationGracePeriod deadline, or with an interrupted instance).
	Evictions, Deleted int
	// Disruptions counts the nodes disrupted, by reason (Empty, Underutilized, Drifted,
	// Expired, Interrupted, Unhealthy).
	Disruptions map[string]int
	// MaxPendingSeconds is, per workload ("Deployment shop/web"; "Pod shop/*" for the pods
	// of a namespace without a controller), the longest any of its pods waited from becoming pending to
	// running (a pod still waiting at the end counts until then).
	MaxPendingSeconds map[string]float64
	// Unpriced names the nodes the run could not price (their instance type or offering
	// is unknown to their NodePool): they are left out of Cost.
	Unpriced []string
}
