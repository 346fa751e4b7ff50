package simulate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Input is what Run simulates.
type Input struct {
	// Snapshot is the cluster at Start. Its instance types are what the cloud offers each
	// NodePool.
	Snapshot *cluster.Snapshot
	// Workloads are the Deployments, ReplicaSets, StatefulSets and Jobs of the input
	// (manifest.Set.Workloads): what scale events and owner selections name.
	Workloads []*manifest.Workload
	// Start is the simulated time the run begins at.
	Start time.Time
	// Timeline is what happens during the run.
	Timeline *Timeline
	// Settings are the loops' timings and options (zero durations take the defaults).
	Settings Settings
	// InstanceTypes gives the instance types of a NodePool an apply adds or changes; nil
	// keeps the Snapshot's of the same name (a NodePool it does not have gets none).
	InstanceTypes func(*v1.NodePool) (cloudprovider.InstanceTypes, error)
	// Observe, when set, is called after every step with what the step saw and did (tests
	// hold each step to the engines and to verify with it).
	Observe func(*Step)
}

// StepKind says what a Step did.
type StepKind string

// Step kinds.
const (
	StepTimeline   StepKind = "timeline"   // a timeline event
	StepProvision  StepKind = "provision"  // a provisioning batch closed: Solve and launch
	StepDisrupt    StepKind = "disrupt"    // the disruption controller: Plan, commands, drains
	StepLifecycle  StepKind = "lifecycle"  // a Node registered or initialized, an instance ended
	StepAvailable  StepKind = "available"  // offerings became available again
	StepValidation StepKind = "validation" // a command's validation Plan
)

// Step is one step of a run, as Input.Observe sees it. Its snapshots are the run's own: read
// them, never modify them.
type Step struct {
	Time time.Time
	Kind StepKind
	// Before and After are the cluster before and after the step (After with the step's
	// times stamped: pod events, pods started).
	Before, After *cluster.Snapshot
	// View is what Solve or Plan was given: Before with the nodes marked for deletion
	// (cluster.Snapshot.Deleting) and the cloud's instance types now; nil when neither ran.
	View *cluster.Snapshot
	// Solve and Launched are a provisioning step's Solve result and what the cloud launched
	// of it (nil where refused).
	Solve    *scheduling.Result
	Launched []*v1.NodeClaim
	// Plan is a disruption or validation step's Plan result; Carried the commands of it the
	// step carried out (their replacements launched, their candidates marked or deleted).
	Plan    *disruption.Result
	Carried []disruption.Command
	// Consolidated says the Plan ran with disruption.Options.Consolidated (Karpenter's
	// consolidated state, or a controller busy validating commands).
	Consolidated bool
	// DecidedAt is, for a validation step that carried its commands out without a Plan (the
	// cluster did not change since they were decided), when the Plan that decided them ran.
	DecidedAt time.Time
	// Evicted pods were evicted by drains, Deleted pods deleted without eviction (a
	// terminationGracePeriod deadline, an instance that ended under them); both are pending
	// again (their controllers make them anew) unless they are DaemonSet or static pods.
	Evicted, Deleted []*corev1.Pod
	// Added and Removed are the pods a timeline event added or deleted for good.
	Added, Removed []*corev1.Pod
}

// Run simulates Karpenter's provisioning and disruption loops over the timeline and returns
// the trace. It is deterministic (the same input gives the same trace) and pure: the cloud
// is package fake's in-memory one, built from the snapshot's instance types with
// Settings.OfferingCapacity. Each decision is what scheduling.Solve or disruption.Plan answers
// on the cluster at that step; with Settings.Verify each is held to package verify. See the
// package doc for the loops.
func Run(in Input) (*Trace, error) {
	if in.Snapshot == nil || in.Timeline == nil {
		return nil, errors.New("simulate: Run needs a snapshot and a timeline")
	}
	s, err := newSim(in)
	if err != nil {
		return nil, err
	}
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.finish(), nil
}

// sim is one run's state.
type sim struct {
	in    Input
	set   Settings
	ctx   context.Context
	now   time.Time
	end   time.Time
	state *cluster.Snapshot
	cloud *fake.CloudProvider
	types map[string]cloudprovider.InstanceTypes // the cloud's answer now, per NodePool
	queue queue
	// cache is the scheduling.Cache of every Solve and Plan (what they derive from the
	// objects that stay between steps is kept), pdbMatches the PodDisruptionBudgets selecting
	// each pod for every Plan; new ones every cacheUses uses bound what they hold of objects
	// the cluster no longer has.
	cache      *scheduling.Cache
	pdbMatches *cluster.PDBMatches
	cacheUsed  int

	// version counts changes of what Solve and Plan see (state, marks, instance types).
	version int
	used    map[string]bool // node and NodeClaim names taken
	claimN  map[string]int  // next NodeClaim number per NodePool

	// Provisioning.
	batchOpen          bool
	batchStart         time.Time
	batchClose         time.Time
	solvedAt           time.Time // the last Solve
	solvedVersion      int
	retryQueued        bool
	registeredAt       map[string]time.Time
	nextWorkloadIndex  map[*manifest.Workload]int
	unavailableExpires map[string]time.Time // offering key -> when it is available again

	// Disruption.
	plannedVersion int
	wake           time.Time // the next time a Plan may answer differently on the same cluster
	validating     *validation
	marked         map[string]bool          // nodes marked for deletion by a command
	carrying       []*carrying              // commands waiting for their replacements
	deleting       map[string]*deletion     // nodes whose deletion started
	instanceEnds   map[string]time.Time     // interrupted node -> its instance's end
	terminating    map[string]time.Time     // drained node -> its instance's end
	workloadName   map[string]string        // pod key -> workload
	pending        map[string]*pendingSince // waiting pods
	generation     int                      // of the pending walk
	trace          traceBuilder
	stepBefore     *cluster.Snapshot
	step           *Step
	interrupted    []string  // nodes the timeline event being carried out interrupted
	lastFull       *fullPlan // the last Plan that ran emptiness and consolidation
	// Karpenter's consolidated state (consolidated.go).
	stateChangedAt     time.Time
	consolidatedAt     *time.Time
	lookedConsolidated bool // the last Plan skipped emptiness and consolidation (consolidated or validating)
}

// carrying is a command whose candidates are marked and whose replacements are launched,
// waiting for them to initialize before the candidates are deleted.
type carrying struct {
	cmd          disruption.Command
	replacements []string // NodeClaim names
}

// deletion is a node whose NodeClaim (or Node) has a deletionTimestamp: its drain runs.
type deletion struct {
	since  time.Time
	reason string
}

// validation is graceful commands waiting ValidationDelay before a second Plan confirms them;
// version is the cluster's when they were decided, wake when a time-based rule could make
// the deciding Plan answer otherwise.
type validation struct {
	at      time.Time
	cmds    []disruption.Command
	version int
	wake    time.Time
}

type pendingSince struct {
	since time.Time
	seen  int
}

func newSim(in Input) (*sim, error) {
	s := &sim{
		in: in, set: in.Settings.withDefaults(), ctx: context.Background(), now: in.Start,
		end: in.Start.Add(in.Timeline.Duration), state: in.Snapshot, cache: scheduling.NewCache(), pdbMatches: cluster.NewPDBMatches(), stateChangedAt: in.Start,
		used: map[string]bool{}, claimN: map[string]int{}, registeredAt: map[string]time.Time{},
		nextWorkloadIndex: map[*manifest.Workload]int{}, unavailableExpires: map[string]time.Time{},
		marked: map[string]bool{}, deleting: map[string]*deletion{}, instanceEnds: map[string]time.Time{},
		terminating: map[string]time.Time{}, workloadName: map[string]string{}, pending: map[string]*pendingSince{},
	}
	s.cloud = fake.NewCloudProvider(nil)
	s.cloud.InstanceTypesForNodePool = map[string]cloudprovider.InstanceTypes{}
	for name, its := range in.Snapshot.InstanceTypes() {
		s.cloud.InstanceTypesForNodePool[name] = its
	}
	for _, np := range in.Snapshot.NodePools() {
		if np == nil {
			return nil, errors.New("simulate: the snapshot has a nil NodePool")
		}
		if _, ok := s.cloud.InstanceTypesForNodePool[np.Name]; !ok {
			s.cloud.InstanceTypesForNodePool[np.Name] = nil
		}
	}
	for _, n := range in.Snapshot.Nodes() {
		s.used[n.Name()] = true
		s.used[n.BindName()] = true
		if n.NodeClaim != nil {
			s.used[n.NodeClaim.Name] = true
		}
	}
	if err := s.refreshTypes(); err != nil {
		return nil, err
	}
	for i := range in.Timeline.Events {
		ev := &in.Timeline.Events[i]
		if err := s.check(ev); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", ev.Source, ev.Action(), err)
		}
		s.queue.push(in.Start.Add(ev.At), kindTimeline, ev)
	}
	s.queue.push(in.Start, kindTick, nil)
	s.trace.start(s)
	return s, nil
}

// run processes the queue up to the end of the timeline.
func (s *sim) run() error {
	// Pods pending at the start open the first batch.
	if len(s.state.Pending()) > 0 {
		s.arrive()
	}
	s.walkPending()
	for s.queue.len() > 0 {
		it := s.queue.peek()
		if it.at.After(s.end) {
			break
		}
		s.queue.pop()
		if it.at.After(s.now) {
			s.trace.flush(s)
			s.now = it.at
		}
		if err := s.handle(it); err != nil {
			return fmt.Errorf("simulate: at %s (+%v): %w", s.now.UTC().Format(time.RFC3339), s.now.Sub(s.in.Start), err)
		}
	}
	s.trace.flush(s)
	return nil
}

// handle runs one queued item as a step.
func (s *sim) handle(it *item) error {
	s.stepBefore = s.state
	var err error
	switch it.kind {
	case kindTimeline:
		s.step = &Step{Kind: StepTimeline}
		err = s.timeline(it.payload.(*TimelineEvent))
	case kindAvailable:
		s.step = &Step{Kind: StepAvailable}
		err = s.available(it.payload.(string))
	case kindInstanceEnd, kindTerminate, kindRegister, kindInitialize:
		s.step = &Step{Kind: StepLifecycle}
		err = s.lifecycle(it.kind, it.payload.(string))
	case kindBatch:
		if !s.batchDue(it) {
			return nil
		}
		s.step = &Step{Kind: StepProvision}
		err = s.provision()
	case kindValidate:
		s.step = &Step{Kind: StepValidation}
		err = s.validate()
	case kindTick:
		if _, extra := it.payload.(extraTick); !extra {
			s.queue.push(s.now.Add(s.set.DisruptionPeriod), kindTick, nil)
		}
		s.consolidationState() // the controller looks at every tick: a five-minute-old state resets
		if !s.planDue() {
			return nil
		}
		s.step = &Step{Kind: StepDisrupt}
		err = s.disrupt()
	}
	if err != nil {
		return err
	}
	return s.settle()
}

// settle stamps the step's times (pods on ready nodes start, pod events), schedules what the
// change calls for, and reports the step.
func (s *sim) settle() error {
	before := s.stepBefore
	next := s.state.WithPodsRunning(s.now).WithPodEvents(before, s.now)
	if next != s.state || s.state != before {
		s.state = next
		s.version++
	}
	s.walkPending()
	s.scheduleRetry()
	s.step.Time, s.step.Before, s.step.After = s.now, before, s.state
	if s.in.Observe != nil {
		s.in.Observe(s.step)
	}
	s.step = nil
	return nil
}

// view is what the engines see: the cluster with the nodes marked for deletion.
func (s *sim) view() *cluster.Snapshot {
	if len(s.marked) == 0 {
		return s.state
	}
	return s.state.Deleting(slices.Sorted(maps.Keys(s.marked))...)
}

// refreshTypes asks the cloud for each NodePool's instance types (offerings found out of
// capacity or interrupted unavailable) and puts them in the cluster.
func (s *sim) refreshTypes() error {
	types, err := cloudprovider.InstanceTypesFor(s.ctx, s.cloud, s.state.NodePools())
	if err != nil {
		return err
	}
	s.types = types
	if s.state, err = s.state.WithInstanceTypes(types); err != nil {
		return err
	}
	s.version++
	return nil
}

// cacheUses is how many Solves and Plans share one scheduling.Cache.
const cacheUses = 200

// engineCache is the scheduling.Cache for the next Solve or Plan.
func (s *sim) engineCache() *scheduling.Cache {
	if s.cacheUsed++; s.cacheUsed > cacheUses {
		s.cache, s.pdbMatches, s.cacheUsed = scheduling.NewCache(), cluster.NewPDBMatches(), 1
	}
	return s.cache
}

// nextName is a NodeClaim name for NodePool pool no node or claim of the run has had.
func (s *sim) nextName(pool string) string {
	for {
		s.claimN[pool]++
		name := fmt.Sprintf("%s-%d", pool, s.claimN[pool])
		if !s.used[name] {
			s.used[name] = true
			return name
		}
	}
}

// podsOf are the pods the cluster holds, pending ones first, then by node, in order.
func podsOf(snap *cluster.Snapshot) []*corev1.Pod {
	out := append([]*corev1.Pod(nil), snap.Pending()...)
	for _, n := range snap.Nodes() {
		out = append(out, n.Pods...)
	}
	return out
}

// sortedNames is names sorted (a copy).
func sortedNames(names []string) []string {
	out := append([]string(nil), names...)
	sort.Strings(out)
	return out
}
