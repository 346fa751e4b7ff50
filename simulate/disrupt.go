package simulate

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// extraTick marks a tick queued to act at once (an interruption arrived, a command was
// carried out), which does not queue the next periodic tick.
type extraTick struct{}

// instanceTypeNotFoundAge is when Karpenter first checks a node's instance type is still
// offered (drift), an hour after its launch.
const instanceTypeNotFoundAge = time.Hour

// planDue reports whether the disruption controller's tick runs a Plan: the cluster changed
// since the last one, a time-based rule may answer differently now (wake), the Plan would
// skip emptiness and consolidation where the last one ran them or the other way round, or
// EveryTick. The skip changes the answer on the same cluster: a full Plan's commands take
// PodDisruptionBudget room in their candidates' drains that a draining node's pods get
// once the controller, busy validating them, skips (TestSkippingIsExactWhenValidationStarts).
func (s *sim) planDue() bool {
	return s.set.EveryTick || s.version != s.plannedVersion || (!s.wake.IsZero() && !s.now.Before(s.wake)) ||
		s.skipsConsolidation() != s.lookedConsolidated
}

// skipsConsolidation reports whether a Plan now skips emptiness and consolidation:
// Karpenter's consolidated state, or a controller busy validating commands.
func (s *sim) skipsConsolidation() bool {
	return s.validating != nil || s.consolidated()
}

// plan runs Plan on the cluster as the engines see it now, held to verify when asked; the
// interruption events it read are handled (Karpenter deletes the messages). Emptiness and
// consolidation run unless skip (Karpenter's consolidated state, or a controller busy
// validating); when they ran and found nothing, the cluster is marked consolidated.
func (s *sim) plan(skip bool) (*disruption.Result, error) {
	view := s.view()
	opts := s.set.Disruption
	opts.Consolidated = skip
	res := s.repeated(skip)
	if res == nil {
		opts.Cache = s.engineCache()
		opts.PDBMatches = s.pdbMatches
		var err error
		if res, err = disruption.Plan(view, s.now, opts); err != nil {
			return nil, fmt.Errorf("disruption.Plan: %w", err)
		}
	}
	if s.set.Verify {
		if vs := verify.Plan(view, s.now, opts, res); len(vs) > 0 {
			return nil, fmt.Errorf("disruption.Plan broke a rule: %v", vs)
		}
	}
	s.step.View, s.step.Plan, s.step.Consolidated = view, res, skip
	if len(s.state.Interruptions()) > 0 {
		s.state = s.state.WithInterruptions()
	}
	s.plannedVersion = s.version // what this Plan saw: the step's own changes make the next tick plan again
	s.lookedConsolidated = skip
	until := s.timeWake(res)
	if !skip {
		s.noteConsolidation(res)
		s.lastFull = &fullPlan{version: s.version, res: res, until: until}
	}
	s.wake = s.nextWake(until)
	return res, nil
}

// fullPlan is a Plan that ran emptiness and consolidation: the cluster version it saw, its
// answer, and the first time a time-based rule may change that answer (zero: none).
type fullPlan struct {
	version int
	res     *disruption.Result
	until   time.Time
}

// repeated is the last full Plan's answer when a full Plan now would give it again: the
// cluster is as it saw it, no time-based rule changed since, and it drained no node (a
// drain's start is the Plan's now). That is a consolidated cluster whose state resets after
// five minutes without a change: Karpenter looks again, at the same cluster.
// TestPropSimulation holds every step's Plan to a fresh one; TestPropSkippingIsExact compares
// with planning anyway (EveryTick).
func (s *sim) repeated(skip bool) *disruption.Result {
	last := s.lastFull
	if skip || s.set.EveryTick || last == nil || last.version != s.version || !last.until.IsZero() && !s.now.Before(last.until) || len(last.res.Drains) > 0 {
		return nil
	}
	return last.res
}

// disrupt is one tick of the disruption controller: Plan; carry out the forceful commands
// (interruption, repair, expiration: Karpenter's own controllers, at once); start the
// validation of the graceful ones (unless commands already wait for theirs: the controller
// is busy); advance the drains.
func (s *sim) disrupt() error {
	res, err := s.plan(s.skipsConsolidation())
	if err != nil {
		return err
	}
	cmds, _ := res.Batch()
	var graceful []disruption.Command
	for _, cmd := range cmds {
		if cmd.Reason.Forceful() {
			if err := s.carry(cmd); err != nil {
				return err
			}
		} else {
			graceful = append(graceful, cmd)
		}
	}
	if len(graceful) > 0 && s.validating == nil {
		s.validating = &validation{at: s.now.Add(s.set.ValidationDelay), cmds: graceful, version: s.version, wake: s.wake}
		s.queue.push(s.validating.at, kindValidate, nil)
	}
	return s.drain(res)
}

// validate plans again ValidationDelay after graceful commands were decided and carries out
// those the new Plan decides again (the same reason, candidates among the earlier ones:
// Karpenter's validation re-derives the candidates and simulates again); the others are
// abandoned. After carrying a command out the controller plans again at once.
func (s *sim) validate() error {
	v := s.validating
	s.validating = nil
	if v == nil {
		return nil
	}
	if !s.set.EveryTick && s.version == v.version && (v.wake.IsZero() || s.now.Before(v.wake)) && len(s.deleting) == 0 && replacesAll(v.cmds) {
		// Nothing changed since the commands were decided, no time-based rule is due, no
		// drain waits and none starts (every command waits for replacements): a Plan would
		// decide them again (Karpenter's validation, the same candidates, budgets and
		// simulation, confirms them) and its drains would evict nothing. A command without
		// replacements starts its candidates' drains at once, which the validation Plan's
		// Drains advance in this step (TestSkippingIsExactWhenDrainStartsAtValidation).
		// TestPropSkippingIsExact compares with planning anyway (EveryTick).
		s.step.DecidedAt = v.at.Add(-s.set.ValidationDelay)
		for _, cmd := range v.cmds {
			if err := s.carry(cmd); err != nil {
				return err
			}
		}
		s.queue.push(s.now, kindTick, extraTick{})
		return nil
	}
	res, err := s.plan(false)
	if err != nil {
		return err
	}
	cmds, _ := res.Batch()
	carried := map[int]bool{}
	var fresh []disruption.Command
	for _, cmd := range cmds {
		if cmd.Reason.Forceful() {
			if err := s.carry(cmd); err != nil {
				return err
			}
			continue
		}
		i := confirmedBy(v.cmds, cmd)
		if i < 0 {
			fresh = append(fresh, cmd)
			continue
		}
		carried[i] = true
		if err := s.carry(cmd); err != nil {
			return err
		}
	}
	for i, cmd := range v.cmds {
		if !carried[i] {
			s.trace.event(Event{Kind: EventAbandoned, Reason: string(cmd.Reason), Method: string(cmd.Method),
				Nodes: sortedNames(cmd.Candidates), Detail: "the validation Plan did not decide it again"})
		}
	}
	switch {
	case len(carried) > 0:
		s.queue.push(s.now, kindTick, extraTick{})
	case len(fresh) > 0:
		s.validating = &validation{at: s.now.Add(s.set.ValidationDelay), cmds: fresh, version: s.version, wake: s.wake}
		s.queue.push(s.validating.at, kindValidate, nil)
	}
	return s.drain(res)
}

// replacesAll reports whether every command launches replacements (its candidates' drains
// wait for them).
func replacesAll(cmds []disruption.Command) bool {
	for _, cmd := range cmds {
		if len(cmd.Replacements) == 0 {
			return false
		}
	}
	return true
}

// confirmedBy is the index of the command of earlier that cmd confirms (same reason, every
// candidate one of its), or -1.
func confirmedBy(earlier []disruption.Command, cmd disruption.Command) int {
	for i, e := range earlier {
		if e.Reason != cmd.Reason {
			continue
		}
		all := true
		for _, c := range cmd.Candidates {
			all = all && slices.Contains(e.Candidates, c)
		}
		if all {
			return i
		}
	}
	return -1
}

// carry carries a command out. A forceful one deletes its candidates at once. A graceful
// one launches its replacements (all or none: a refusal abandons it, as Karpenter does),
// marks its candidates for deletion and deletes them once the replacements are initialized
// (at once without replacements).
func (s *sim) carry(cmd disruption.Command) error {
	s.step.Carried = append(s.step.Carried, cmd)
	ev := Event{Kind: EventDisruption, Reason: string(cmd.Reason), Method: string(cmd.Method), Nodes: sortedNames(cmd.Candidates)}
	if n := s.state.Find(firstOf(cmd.Candidates)); n != nil {
		ev.NodePool = n.Labels()[v1.NodePoolLabelKey]
	}
	if cmd.Reason.Forceful() {
		s.trace.event(ev)
		for _, name := range cmd.Candidates {
			if err := s.startDeletion(name, string(cmd.Reason), cmd.Reason == disruption.ReasonUnhealthy); err != nil {
				return err
			}
		}
		return nil
	}
	view := s.view()
	claims := scheduling.NodeClaimsFor(view, cmd.Replacements, s.nextName)
	for _, nc := range claims {
		nc.CreationTimestamp = metav1.NewTime(s.now)
	}
	launched, err := s.launch(claims, true)
	if cloudprovider.IsInsufficientCapacityError(err) {
		ev.Kind, ev.Detail = EventAbandoned, "its replacements could not launch: "+err.Error()
		s.trace.event(ev)
		return nil
	}
	if err != nil {
		return err
	}
	if s.state, err = s.state.WithClaims(launched...); err != nil {
		return err
	}
	s.unconsolidate() // replacements added
	c := &carrying{cmd: cmd}
	for _, nc := range launched {
		c.replacements = append(c.replacements, nc.Name)
		ev.NodeClaims = append(ev.NodeClaims, nc.Name)
		s.queue.push(s.now.Add(s.set.RegistrationLatency), kindRegister, nc.Name)
	}
	s.trace.event(ev)
	if len(launched) == 0 {
		for _, name := range cmd.Candidates {
			if err := s.startDeletion(name, string(cmd.Reason), false); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.mark(cmd.Candidates); err != nil {
		return err
	}
	s.carrying = append(s.carrying, c)
	s.arrive() // trigger.node: the marked nodes' pods are planned onto the replacements
	return nil
}

func firstOf(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// drain advances the drain of every node whose deletion started, as Plan's Drains say: the
// pods of the first eviction group it may evict are evicted, the pods whose DeleteAt has
// come (or all, past the deadline) are deleted; a node with nothing left to evict is drained,
// and its instance ends TerminationLatency later.
func (s *sim) drain(res *disruption.Result) error {
	for _, d := range res.Drains {
		if s.deleting[d.Node] == nil {
			continue // marked, waiting for its command's replacements
		}
		if _, drained := s.terminating[d.Node]; drained {
			continue
		}
		var evict, remove []*corev1.Pod
		left := 0
		for gi, g := range d.Groups {
			for _, pd := range g.Pods {
				switch {
				case pd.Action == disruption.DrainDelete,
					pd.DeleteAt != nil && !s.now.Before(*pd.DeleteAt):
					remove = append(remove, pd.Pod)
				case pd.Action == disruption.DrainEvict && gi == 0:
					evict = append(evict, pd.Pod)
				default:
					left++
				}
			}
		}
		if len(evict)+len(remove) > 0 {
			s.state = s.state.WithoutPods(append(append([]*corev1.Pod(nil), evict...), remove...)...)
			if err := s.recreate(evict, true); err != nil {
				return err
			}
			if err := s.recreate(remove, false); err != nil {
				return err
			}
			s.trace.event(Event{Kind: EventEvicted, Nodes: []string{d.Node}, Pods: len(evict)})
			if len(remove) > 0 {
				s.trace.event(Event{Kind: EventDeleted, Nodes: []string{d.Node}, Pods: len(remove)})
			}
		}
		if left == 0 {
			s.terminating[d.Node] = s.now.Add(s.set.TerminationLatency)
			s.queue.push(s.terminating[d.Node], kindTerminate, d.Node)
		}
	}
	return nil
}

// nextWake is the first time after now at which a Plan of the same cluster may answer
// otherwise: until (timeWake of the Plan's answer), or the reset of Karpenter's consolidated
// state. Zero when there is none.
func (s *sim) nextWake(until time.Time) time.Time {
	wake := until
	if r := s.resetWake(); r.After(s.now) && (wake.IsZero() || r.Before(wake)) {
		wake = r
	}
	return wake
}

// timeWake is the first time after now at which a time-based rule may change res, Plan's
// answer on the cluster now: a blocker's time (consolidateAfter elapsing, a do-not-disrupt
// duration ending, a repair), a drain's deadlines, a node's expiry or first instance-type
// check, a budget schedule's start or end. Zero when there is none.
func (s *sim) timeWake(res *disruption.Result) time.Time {
	var wake time.Time
	at := func(t time.Time) {
		if t.After(s.now) && (wake.IsZero() || t.Before(wake)) {
			wake = t
		}
	}
	for _, b := range res.Blocked {
		for _, x := range b.Blockers {
			if x.At != nil {
				at(*x.At)
			}
		}
	}
	for _, d := range res.Drains {
		for _, t := range []*time.Time{d.Deadline, d.TerminatesAt} {
			if t != nil {
				at(*t)
			}
		}
		for _, g := range d.Groups {
			for _, pd := range g.Pods {
				for _, t := range []*time.Time{pd.DeleteAt, pd.Until} {
					if t != nil {
						at(*t)
					}
				}
			}
		}
	}
	pools := map[string]*v1.NodePool{}
	for _, np := range s.state.NodePools() {
		c := np.DeepCopy()
		c.SetDefaults()
		pools[np.Name] = c
		for _, b := range c.Spec.Disruption.Budgets {
			at(budgetChange(b, s.now))
		}
	}
	for _, n := range s.state.Nodes() {
		created := creation(n)
		if created.IsZero() {
			continue
		}
		at(created.Add(instanceTypeNotFoundAge))
		pool := pools[n.Labels()[v1.NodePoolLabelKey]]
		ea := v1.NillableDuration{}
		if pool != nil {
			ea = pool.Spec.Template.Spec.ExpireAfter
		}
		if n.NodeClaim != nil && !n.NodeClaim.Spec.ExpireAfter.IsZero() {
			ea = n.NodeClaim.Spec.ExpireAfter
		}
		if ea.Duration != nil {
			at(created.Add(*ea.Duration))
		}
	}
	return wake
}

// creation is when the node was launched: its NodeClaim's creation, else its Node's.
func creation(n *cluster.Node) time.Time {
	if n.NodeClaim != nil && !n.NodeClaim.CreationTimestamp.IsZero() {
		return n.NodeClaim.CreationTimestamp.Time
	}
	if n.Node != nil {
		return n.Node.CreationTimestamp.Time
	}
	return time.Time{}
}

// budgetChange is the first time after now a scheduled budget starts or stops being active
// (zero for a budget without schedule, or one that does not parse).
func budgetChange(b v1.Budget, now time.Time) time.Time {
	if b.Schedule == nil || b.Duration == nil || b.Duration.Duration <= 0 {
		return time.Time{}
	}
	sched, err := v1.ParseSchedule(*b.Schedule)
	if err != nil {
		return time.Time{}
	}
	d := b.Duration.Duration
	next := sched.Next(now)
	// The window open now (if any) ends d after its last start.
	for h := sched.Next(now.Add(-d)); !h.IsZero() && !h.After(now); h = sched.Next(h) {
		if end := h.Add(d); end.After(now) && end.Before(next) {
			next = end
		}
	}
	return next
}
