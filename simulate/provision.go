package simulate

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// retry marks a batch item queued for pods left pending (not for an arrival).
type retry struct{}

// arrive notes that pods became pending now (or a node was tainted for deletion, whose pods
// the provisioner plans again): a batch opens, or its idle window restarts, up to BatchMax.
func (s *sim) arrive() {
	if !s.batchOpen {
		s.batchOpen, s.batchStart = true, s.now
	}
	closeAt := s.now.Add(s.set.BatchIdle)
	if last := s.batchStart.Add(s.set.BatchMax); closeAt.After(last) {
		closeAt = last
	}
	s.batchClose = closeAt
	s.queue.push(closeAt, kindBatch, nil)
}

// batchDue reports whether a batch item runs a Solve: the open batch closes now, or a retry
// for pods left pending finds the cluster changed since the last Solve (or EveryTick).
func (s *sim) batchDue(it *item) bool {
	if _, ok := it.payload.(retry); ok {
		s.retryQueued = false
		if s.batchOpen {
			return false // the open batch will Solve
		}
		return s.set.EveryTick || s.version != s.solvedVersion
	}
	return s.batchOpen && s.now.Equal(s.batchClose)
}

// scheduleRetry queues the next retry for pods left pending once the cluster changed since
// the last Solve (every PodRetry after it; with EveryTick whatever changed).
func (s *sim) scheduleRetry() {
	if s.batchOpen || s.retryQueued || len(s.state.Pending()) == 0 || s.solvedAt.IsZero() {
		return
	}
	if !s.set.EveryTick && s.version == s.solvedVersion {
		return
	}
	at := s.solvedAt.Add(s.set.PodRetry)
	for !at.After(s.now) {
		at = at.Add(s.set.PodRetry)
	}
	s.retryQueued = true
	s.queue.push(at, kindBatch, retry{})
}

// provision is Karpenter's provisioning loop for one batch: Solve the cluster (the nodes
// marked for deletion Deleting, so their pods are planned again), launch the new NodeClaims
// in the fake cloud, and bind the pending pods where Solve put them (the pods of deleting
// nodes stay until their drain evicts them; the capacity for them is launched now).
func (s *sim) provision() error {
	s.batchOpen = false
	s.solvedVersion = s.version // what this Solve saw
	view := s.view()
	res, err := s.engineCache().Solve(view, s.set.Scheduling)
	if err != nil {
		return fmt.Errorf("scheduling.Solve: %w", err)
	}
	if s.set.Verify {
		if vs := verify.Solve(view, s.set.Scheduling, res); len(vs) > 0 {
			return fmt.Errorf("scheduling.Solve broke a rule: %v", vs)
		}
	}
	s.step.View, s.step.Solve = view, res
	claims := scheduling.NodeClaimsFor(view, res.NewNodeClaims, s.nextName)
	for _, nc := range claims {
		nc.CreationTimestamp = metav1.NewTime(s.now)
	}
	launched, err := s.launch(claims, false)
	if err != nil {
		return err
	}
	s.step.Launched = launched

	var moves []cluster.Move
	for _, b := range res.Bindings {
		if b.Pod.Spec.NodeName != "" {
			continue // a pod of a deleting node: its drain moves it
		}
		n := view.Find(b.To)
		if n == nil {
			return fmt.Errorf("scheduling.Solve placed pods on %q, which the cluster does not hold", b.To)
		}
		moves = append(moves, cluster.Move{Pod: b.Pod, To: n.BindName(), Claim: -1})
	}
	for _, m := range scheduling.ClaimMoves(res.NewNodeClaims) {
		if m.Pod.Spec.NodeName == "" && launched[m.Claim] != nil {
			moves = append(moves, m)
		}
	}
	bound := len(moves)
	if s.state, err = s.state.Carry(launched, moves, nil); err != nil {
		return err
	}
	if bound > 0 || len(res.NewNodeClaims) > 0 {
		s.unconsolidate() // pods bound, NodeClaims added
	}
	var onClaims []*v1.NodeClaim
	for _, nc := range launched {
		if nc != nil {
			onClaims = append(onClaims, nc)
		}
	}
	var names []string
	for _, nc := range onClaims {
		names = append(names, nc.Name)
		s.queue.push(s.now.Add(s.set.RegistrationLatency), kindRegister, nc.Name)
	}
	refused := res.Refused(launched)
	if len(onClaims) > 0 || bound > 0 {
		s.trace.event(Event{Kind: EventProvisioned, NodeClaims: names, Pods: bound})
	}
	if n := len(claims) - len(onClaims); n > 0 {
		var refusedNames []string
		for i, nc := range launched {
			if nc == nil {
				refusedNames = append(refusedNames, claims[i].Name)
			}
		}
		s.trace.totals.LaunchRefused += n
		s.trace.event(Event{Kind: EventLaunchRefused, NodeClaims: refusedNames, Pods: len(refused)})
	}
	s.solvedAt = s.now
	return nil
}

// launch creates claims in the fake cloud with the offerings' capacity as the cluster uses
// them now: Launch (nil where refused) or, for a command's replacements, LaunchAll (all or
// none: an insufficient-capacity error is returned). Offerings found out of capacity become
// unavailable for UnavailableFor.
func (s *sim) launch(claims []*v1.NodeClaim, all bool) ([]*v1.NodeClaim, error) {
	if len(claims) == 0 {
		return nil, nil
	}
	s.setCapacity()
	before := s.cloud.Unavailable()
	var launched []*v1.NodeClaim
	var err error
	if all {
		launched, err = cloudprovider.LaunchAll(s.ctx, s.cloud, claims)
	} else {
		launched, err = cloudprovider.Launch(s.ctx, s.cloud, claims)
	}
	for _, nc := range launched {
		if nc != nil {
			s.trace.totals.Launched++
		}
	}
	if terr := s.noteUnavailable(before); terr != nil {
		return nil, terr
	}
	return launched, err
}

// setCapacity sets the fake cloud's launches left per limited offering: the limit less the
// nodes of that offering the cluster runs (launched claims included).
func (s *sim) setCapacity() {
	if len(s.set.OfferingCapacity) == 0 {
		return
	}
	running := map[string]int{}
	for _, n := range s.state.Nodes() {
		l := n.Labels()
		running[l[v1.LabelInstanceType]+"/"+l[v1.LabelTopologyZone]+"/"+l[v1.CapacityTypeLabelKey]]++
	}
	capacity := map[string]int{}
	for k, limit := range s.set.OfferingCapacity {
		capacity[k] = max(0, limit-running[k])
	}
	s.cloud.OfferingCapacity = capacity
}

// noteUnavailable schedules the end of every offering the cloud found unavailable since
// before, and tells the cluster.
func (s *sim) noteUnavailable(before map[string]bool) error {
	var fresh []string
	for k := range s.cloud.Unavailable() {
		if !before[k] {
			fresh = append(fresh, k)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	slices.Sort(fresh)
	for _, k := range fresh {
		s.unavailableExpires[k] = s.now.Add(s.set.UnavailableFor)
		s.queue.push(s.now.Add(s.set.UnavailableFor), kindAvailable, k)
	}
	return s.refreshTypes()
}

// available ends an offering's unavailability (unless a later refusal extended it).
func (s *sim) available(key string) error {
	if until, ok := s.unavailableExpires[key]; !ok || until.After(s.now) {
		return nil
	}
	delete(s.unavailableExpires, key)
	s.cloud.MakeAvailable(key)
	s.trace.event(Event{Kind: EventAvailable, Offerings: []string{key}})
	return s.refreshTypes()
}

// offeringKey is the fake cloud's key of the offering a node runs on.
func offeringKey(n *cluster.Node) string {
	l := n.Labels()
	return strings.Join([]string{l[v1.LabelInstanceType], l[v1.LabelTopologyZone], l[v1.CapacityTypeLabelKey]}, "/")
}
