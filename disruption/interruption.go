package disruption

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/scheduling"
)

// InterruptionCode says what one event did to one instance.
type InterruptionCode string

// Interruption outcomes. Only Deleted starts a command; the others explain why not.
const (
	// InterruptionDeleted: the NodeClaim is deleted at once (Karpenter's CordonAndDrain):
	// forceful, not limited by budgets, its pods planned again by the provisioner.
	InterruptionDeleted InterruptionCode = "Deleted"
	// InterruptionRecorded: the event is only recorded (a rebalance recommendation).
	InterruptionRecorded InterruptionCode = "Recorded"
	// InterruptionIgnored: a message Karpenter deletes unread (no_op kind).
	InterruptionIgnored InterruptionCode = "Ignored"
	// InterruptionUnknownInstance: no managed node of the snapshot (of a NodePool of the
	// input) has the instance.
	InterruptionUnknownInstance InterruptionCode = "UnknownInstance"
	// InterruptionAlreadyDeleting: the node was being deleted already; Karpenter skips it.
	InterruptionAlreadyDeleting InterruptionCode = "AlreadyDeleting"
	// InterruptionDuplicate: an earlier event (or command) of this Plan deletes the node.
	InterruptionDuplicate InterruptionCode = "Duplicate"
)

// InterruptionOutcome is what one event did to one of its instances.
type InterruptionOutcome struct {
	Kind       interruption.Kind
	EventID    string
	Time       time.Time
	InstanceID string
	// Node is the node holding the instance ("" when none does).
	Node string
	Code InterruptionCode
	// Command is the 1-based index in Result.Commands of the command deleting the node (the
	// earlier one for a duplicate), 0 when there is none.
	Command int
	// Unavailable is the offering or capacity reservation the event marked unavailable, so
	// that no simulation of this Plan launches it again (spot: the interrupted type in its
	// zone); the zero value when none.
	Unavailable Unavailable
}

// Unavailable is what an interruption took away from every later simulation of a Plan: the
// spot offering of InstanceType in Zone, or the capacity Reservation.
type Unavailable struct {
	InstanceType, Zone string
	Reservation        string
}

// String is the offering or reservation in English ("" for none).
func (u Unavailable) String() string {
	switch {
	case u.Reservation != "":
		return "capacity reservation " + u.Reservation
	case u.InstanceType != "":
		return fmt.Sprintf("spot offering %s in %s", u.InstanceType, u.Zone)
	}
	return ""
}

// mechState is what the forceful mechanisms and the termination plans keep in a Plan.
type mechState struct {
	// forceful nodes are deleted with their termination deadline set to now (node repair):
	// their pods are deleted at once, without eviction.
	forceful map[*node]bool
	// repair says why an unhealthy node is not repaired (yet): RepairPending or
	// RepairLimited.
	repair map[*node]Blocker
	// claimName names the in-flight node each launched NodeClaim became.
	claimName map[*scheduling.NodeClaim]string
}

// interruptions turns the input's interruption events into commands as Karpenter's
// interruption controller does: spot interruption warnings, scheduled changes, instance
// stopping/stopped/shutting-down/terminated and capacity-reservation warnings delete the
// NodeClaim at once (no budget, no blockers, no simulation; the provisioner then plans its
// pods, on capacity that avoids the interrupted spot offering); rebalance recommendations
// are only recorded. Events are taken oldest first; one instance is deleted once.
func (s *state) interruptions() []InterruptionOutcome {
	if len(s.snap.Interruptions()) == 0 {
		return nil
	}
	byInstance := map[string]*node{}
	for _, n := range s.nodes {
		for _, id := range instanceIDs(n) {
			byInstance[id] = n
		}
	}
	evs := append([]interruption.Event(nil), s.snap.Interruptions()...)
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return strings.Join(a.InstanceIDs, ",") < strings.Join(b.InstanceIDs, ",")
	})
	deletedBy := map[*node]int{}
	var out []InterruptionOutcome
	for _, ev := range evs {
		ids := ev.InstanceIDs
		if len(ids) == 0 {
			ids = []string{""}
		}
		for _, id := range ids {
			o := InterruptionOutcome{Kind: ev.Kind, EventID: ev.ID, Time: ev.Time, InstanceID: id}
			n := byInstance[instanceOf(id)]
			if n != nil {
				o.Node = n.Name()
			}
			switch {
			case ev.Kind == interruption.NoOp || ev.Kind == "":
				o.Code = InterruptionIgnored
			case n == nil || n.pool == nil:
				o.Code = InterruptionUnknownInstance
			case ev.Action() == interruption.NoAction:
				o.Code = InterruptionRecorded
			case deletedBy[n] > 0:
				o.Code, o.Command = InterruptionDuplicate, deletedBy[n]
			case s.taken[n]:
				o.Code, o.Command = InterruptionDuplicate, s.commandOf(n)
			case n.Deleting():
				o.Code = InterruptionAlreadyDeleting
			default:
				o.Code = InterruptionDeleted
				o.Unavailable = s.markUnavailable(ev.Kind, n)
				e := ev
				s.commit(Command{Method: MethodInterruption, Reason: ReasonInterrupted, Event: &e, InstanceID: id}, []*node{n}, nil)
				o.Command = len(s.commands)
				deletedBy[n] = o.Command
			}
			out = append(out, o)
		}
	}
	return out
}

// commandOf is the 1-based index of the command that takes n, 0 if none.
func (s *state) commandOf(n *node) int {
	for i, c := range s.commands {
		for _, name := range c.Candidates {
			if name == n.Name() {
				return i + 1
			}
		}
	}
	return 0
}

// instanceIDs are the IDs an event may name the node by: its provider IDs and the instance
// ID they end in (aws:///us-east-1a/i-0abc -> i-0abc).
func instanceIDs(n *node) []string {
	var ids []string
	add := func(pid string) {
		if pid != "" {
			ids = append(ids, pid, instanceOf(pid))
		}
	}
	if n.Node != nil {
		add(n.Node.Spec.ProviderID)
	}
	if n.NodeClaim != nil {
		add(n.NodeClaim.Status.ProviderID)
	}
	return ids
}

// instanceOf is the last path segment of a provider ID, or the ID itself.
func instanceOf(id string) string {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		return id[i+1:]
	}
	return id
}

// markUnavailable is the interruption controller's side effect on offerings: a spot
// interruption makes the node's spot offering (its type in its zone) unavailable, a capacity
// reservation warning the node's reservation, in the instance types of s.base, which every
// later simulation forks. It returns what it marked (the zero value for nothing).
func (s *state) markUnavailable(kind interruption.Kind, n *node) Unavailable {
	labels := n.Labels()
	typ, zone, resv := labels[v1.LabelInstanceType], labels[v1.LabelTopologyZone], labels[cloudprovider.ReservationIDLabel]
	var match func(*cloudprovider.Offering) bool
	var what Unavailable
	switch {
	case kind == interruption.SpotInterrupted && typ != "" && zone != "":
		match = func(o *cloudprovider.Offering) bool {
			return o.Zone() == zone && o.CapacityType() == v1.CapacityTypeSpot
		}
		what = Unavailable{InstanceType: typ, Zone: zone}
	case kind == interruption.CapacityReservationInterrupted && resv != "":
		typ = ""
		match = func(o *cloudprovider.Offering) bool { return o.ReservationID() == resv }
		what = Unavailable{Reservation: resv}
	default:
		return Unavailable{}
	}
	types := maps.Clone(s.base.InstanceTypes())
	for pool, its := range types {
		var cp cloudprovider.InstanceTypes
		for i, it := range its {
			if it == nil || (typ != "" && it.Name != typ) || !anyOffering(it, match) {
				continue
			}
			if cp == nil {
				cp = append(cloudprovider.InstanceTypes(nil), its...)
			}
			c := &cloudprovider.InstanceType{Name: it.Name, Requirements: it.Requirements, Capacity: it.Capacity,
				Overhead: it.Overhead, Offerings: make(cloudprovider.Offerings, len(it.Offerings))}
			for j, o := range it.Offerings {
				if o != nil && o.Available && match(o) {
					oc := *o
					oc.Available = false
					o = &oc
				}
				c.Offerings[j] = o
			}
			cp[i] = c
		}
		if cp != nil {
			types[pool] = cp
		}
	}
	base, err := s.base.WithInstanceTypes(types)
	if err != nil {
		// Copies of the snapshot's own types, which New accepted: a refusal is a bug, which
		// Plan reports as an InternalError.
		panic(err)
	}
	s.base = base
	return what
}

func anyOffering(it *cloudprovider.InstanceType, match func(*cloudprovider.Offering) bool) bool {
	for _, o := range it.Offerings {
		if o != nil && o.Available && match(o) {
			return true
		}
	}
	return false
}
