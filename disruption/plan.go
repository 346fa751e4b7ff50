package disruption

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// state is one Plan's working set. The snapshot is only read; everything Plan changes
// (commands taken, pods moved, replacements in flight) lives here.
type state struct {
	snap *cluster.Snapshot
	// base is snap with its nodes by name and the NodeClaims launched so far in flight
	// after them: what every simulation forks.
	base  *cluster.Snapshot
	now   time.Time
	opts  Options
	pools map[string]*v1.NodePool // defaulted copies
	// poolRequirements are each NodePool's template requirements (nil when they do not
	// parse), read once for every node's drift check.
	poolRequirements map[string]requirements.Requirements
	names            []string // NodePool names, sorted
	nodes            []*node  // the snapshot's nodes, sorted by name
	pdbs             *cluster.PDBLimits

	// taken nodes are expired or in an earlier command: marked for deletion in every later
	// simulation, so their pods are planned again together with the candidates' pods.
	taken map[*node]bool
	// nominated nodes are where the provisioner (0) or an earlier command's simulation (its
	// number) first sends pods (by node name): they may receive pods but are no candidates.
	nominated   map[string]int
	provisioned []*scheduling.NodeClaim // what the provisioner pass launches
	// launchedPrice is, per NodePool, the $/h of the NodeClaims launched so far (the
	// provisioner's and earlier commands' replacements): Karpenter's cluster cost, a Balanced
	// NodePool's total price, counts them once launched.
	launchedPrice map[string]float64
	pending       []PodMove         // where it puts the pending pods
	disrupting    map[string]int    // NodePool -> counted nodes disrupting (input + commands)
	counted       map[string]int    // NodePool -> counted nodes (countedNodes)
	reasons       map[*node]Blocker // why a method kept a node (keep)
	methods       []method          // the graceful and eventual methods, in order
	uninit        map[string]bool
	commands      []Command
	// cache lets the many simulations of one Plan share per-pod and per-node work.
	cache *scheduling.Cache
	// limitBound are the candidates of simulations that NodePool limits bound
	// (scheduling.Result.LimitsBound) since the last command that gave a limited NodePool
	// room back: a method that gave up on one of them tries it again then (retryLimited).
	limitBound map[*node]bool
	// marks are the last marked snapshots simulations forked, without and with
	// consolidation's closed nodes (simulate.go).
	marks [2]marks
	mech  mechState // interruption, repair and termination (interruption.go)
}

// Plan returns the commands Karpenter would start at now in snap and, for every other
// managed node, why it is not disrupted. See the package documentation (and cluster's for
// what it reads of each object). Plan never modifies snap. Errors are
// *cluster.InvalidInputError (a nil snapshot, a zero now, two nodes of one name, or what a
// simulation's scheduling.Solve refuses) or *cluster.InternalError (a bug).
func Plan(snap *cluster.Snapshot, now time.Time, opts Options) (*Result, error) {
	ms := methods(opts)
	if opts.Consolidated { // Karpenter's emptiness and consolidation skip a consolidated cluster
		ms = slices.DeleteFunc(ms, func(m method) bool { return m.reason() != ReasonDrifted })
	}
	return planWith(snap, now, opts, ms)
}

// planWith is Plan with these graceful and eventual methods, tried in order.
func planWith(snap *cluster.Snapshot, now time.Time, opts Options, ms []method) (res *Result, err error) {
	switch {
	case snap == nil:
		return nil, invalid(opPlan, cluster.InputNil, "Snapshot", "", "", "nil snapshot")
	case now.IsZero():
		return nil, invalid(opPlan, cluster.InputInvalid, "", "", "now", "the zero time: Plan judges ages and schedules at now, so it must be given")
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, cluster.Internal(opPlan, r)
		}
	}()
	s := &state{
		snap: snap, now: now, opts: opts,
		pools:            map[string]*v1.NodePool{},
		poolRequirements: map[string]requirements.Requirements{},
		taken:            map[*node]bool{},
		nominated:        map[string]int{},
		disrupting:       map[string]int{},
		launchedPrice:    map[string]float64{},
		reasons:          map[*node]Blocker{},
		methods:          ms,
		uninit:           map[string]bool{},
		limitBound:       map[*node]bool{},
		cache:            opts.Cache,
		mech:             mechState{forceful: map[*node]bool{}, repair: map[*node]Blocker{}, claimName: map[*scheduling.NodeClaim]string{}},
	}
	if s.cache == nil {
		s.cache = scheduling.NewCache()
	}
	for _, np := range snap.NodePools() { // not nil, names unique: cluster.New refuses them
		c := np.DeepCopy()
		c.SetDefaults()
		s.pools[np.Name] = c
		if reqs, err := requirements.FromNodeSelectorRequirements(c.Spec.Template.Spec.Requirements...); err == nil {
			s.poolRequirements[np.Name] = reqs
		}
		s.names = append(s.names, np.Name)
	}
	sort.Strings(s.names)
	s.pdbs = snap.PDBLimits()
	// Karpenter's simulations and provisioner leave a deleting node's pod whose
	// do-not-disrupt duration runs at now where it is (CurrentlyReschedulablePods).
	s.base = snap.ByName().DoNotDisruptAt(now)
	sns := s.base.Nodes()
	for i := 1; i < len(sns); i++ {
		if sns[i].Name() == sns[i-1].Name() {
			return nil, invalid(opPlan, cluster.InputDuplicate, "Node", sns[i].Name(), "", "two nodes of this name (a Node and an unpaired NodeClaim of the same name?)")
		}
	}
	for i, sn := range sns {
		n := s.buildNode(sn, i)
		s.nodes = append(s.nodes, n)
		if n.disrupting {
			s.disrupting[n.poolName]++
		}
		if _, managed := n.Labels()[v1.NodePoolLabelKey]; managed && !n.initialized {
			s.uninit[n.Name()] = true
		}
	}
	rankByRatio(s.nodes)

	// Expiration deletes first and the provisioner plans the pods left pending (nominating the
	// nodes it sends them to) before the disruption controller's passes, as in a live cluster
	// the provisioner acts well inside the 15 s every command waits before it is validated.
	events := s.interruptions()
	s.repair()
	s.expiration()
	if err := s.provision(); err != nil {
		return nil, err
	}
	cleared := false
	for progress := true; progress; {
		progress = false
		for _, m := range s.methods {
			p, err := s.try(m)
			if err != nil {
				return nil, err
			}
			if p != nil { // as Karpenter's controller: after a command, start again from the first method
				s.commit(p.cmd, p.cands, p.sim)
				if s.loosensLimits(p.cands) {
					s.retryLimited()
				}
				progress = true
				break
			}
		}
		if progress && !cleared {
			s.clearLeftoverTaints()
			cleared = true
		}
	}
	res = s.result()
	res.Interruptions = events
	drains, err := s.drains()
	if err != nil {
		return nil, err
	}
	res.Drains = drains
	return res, nil
}

func (s *state) result() *Result {
	r := &Result{Commands: s.commands, Provisioned: s.provisioned, PendingPods: s.pending}
	left := s.budgetsLeft()
	for _, n := range s.nodes {
		if s.taken[n] || n.poolName == "" {
			continue
		}
		if r.Blocked == nil {
			r.Blocked = make([]Blocked, 0, len(s.nodes))
		}
		r.Blocked = append(r.Blocked, s.blocked(n, left))
	}
	return r
}

// consolidationUnfit says why a node cannot be consolidated whatever the simulation says
// (code "" if it can): its object is the instance type or the missing label.
func consolidationUnfit(n *node) Blocker {
	switch {
	case n.it == nil:
		b := newBlock(BlockNotConsolidatable, n.Labels()[v1.LabelInstanceType])
		b.NodePool = n.poolName
		return b
	case n.zone() == "":
		return Blocker{Code: BlockNotConsolidatable, Object: v1.LabelTopologyZone, Label: v1.LabelTopologyZone}
	case n.capacityType() == "":
		return Blocker{Code: BlockNotConsolidatable, Object: v1.CapacityTypeLabelKey, Label: v1.CapacityTypeLabelKey}
	}
	return Blocker{}
}

// budgetLeft is, per NodePool, how many more nodes may be disrupted for one reason (left), and
// the Budget blocker of each (why).
type budgetLeft struct {
	left map[string]int
	why  map[string]Blocker
}

// budgets is the budget for reason as the plan stands.
func (s *state) budgets(reason v1.DisruptionReason) budgetLeft {
	count := s.countedNodes()
	out, why := map[string]int{}, map[string]Blocker{}
	for _, name := range s.names {
		allowed, err := s.pools[name].AllowedDisruptions(s.now, count[name], reason)
		left := max(allowed-s.disrupting[name], 0)
		out[name] = left
		b := Blocker{Code: BlockBudget, Object: name, Budget: string(reason), Allowed: allowed, Nodes: count[name], Disrupting: s.disrupting[name]}
		if err != nil {
			b.Detail = err.Error()
		}
		why[name] = b
	}
	return budgetLeft{left: out, why: why}
}

// countedNodes are, per NodePool, its nodes counted toward its budgets: read once per Plan
// (the nodes and whether each counts never change within one), not at every method's try.
func (s *state) countedNodes() map[string]int {
	if s.counted == nil {
		s.counted = map[string]int{}
		for _, n := range s.nodes {
			if n.counted {
				s.counted[n.poolName]++
			}
		}
	}
	return s.counted
}

// commit records a command: its nodes are taken (their pods planned again in every later
// simulation), the nodes its simulation sends pods to are nominated, its replacements become
// in-flight NodeClaims.
func (s *state) commit(cmd Command, cands []*node, sim *simulation) {
	for _, c := range cands {
		s.taken[c] = true
		if c.counted && !c.disrupting {
			s.disrupting[c.poolName]++
		}
		delete(s.reasons, c)
	}
	if sim != nil {
		cmd.Destinations = s.nominate(sim.res, len(s.commands)+1)
		cmd.Moves = movesOf(cands, sim.res, replacementMove)
		for j, c := range cmd.Replacements {
			s.addInflight(c, ReplacementName(len(s.commands)+1, j+1))
		}
	} else if !cmd.Reason.Forceful() { // a forceful command's are the provisioner's: provision sets them
		cmd.Moves = movesOf(cands, nil, nil)
	}
	names := make([]string, 0, len(cands))
	for _, c := range cands {
		names = append(names, c.Name())
	}
	sort.Strings(names)
	cmd.Candidates = names
	s.commands = append(s.commands, cmd)
}

// nominate marks every existing node a scheduling result sends pods to as nominated by
// command (0: the provisioner's pass), and returns their names, sorted.
func (s *state) nominate(res *scheduling.Result, command int) []string {
	var names []string
	for _, b := range res.Bindings { // sorted by node name
		if len(names) == 0 || names[len(names)-1] != b.To {
			if _, ok := s.nominated[b.To]; !ok {
				s.nominated[b.To] = command
				// s.nodes are sorted by name, each name once; a claim launched in flight
				// is none of them.
				if i, found := slices.BinarySearchFunc(s.nodes, b.To, func(n *node, name string) int { return strings.Compare(n.Name(), name) }); found {
					s.nodes[i].nominated = true
				}
			}
			names = append(names, b.To)
		}
	}
	return names
}

// provision is the provisioner's pass before the disruption controller's: the pending pods
// and the pods of deleting and expired nodes are planned onto the cluster; the nodes they go
// to are nominated and the NodeClaims it launches are in flight (empty) in every later
// simulation.
func (s *state) provision() error {
	if len(s.snap.Pending())+len(s.snap.Moving()) == 0 && !s.anyDeletingPods() {
		return nil
	}
	sim, err := s.simulateFor(nil, nil, false)
	if err != nil {
		return err
	}
	s.nominate(sim.res, 0)
	launched := make([]int, len(sim.res.NewNodeClaims))
	for i, c := range sim.res.NewNodeClaims {
		launched[i] = -1
		if s.addInflight(c, ProvisionedName(len(s.provisioned)+1)) {
			launched[i] = len(s.provisioned)
			s.provisioned = append(s.provisioned, c)
		}
	}
	provisioned := func(ci int, m *PodMove) {
		if m.Provisioned = launched[ci]; m.Provisioned < 0 {
			m.Pending = MoveUnlaunchable
		}
	}
	// Only forceful commands precede this pass; their pods go where it plans them.
	for i := range s.commands {
		cmd := &s.commands[i]
		cmd.Moves = movesOf(s.candidates(cmd), sim.res, provisioned)
	}
	s.pending = pendingMoves(s.snap.Pending(), sim.res, provisioned)
	return nil
}

// clearLeftoverTaints takes karpenter.sh/disrupted:NoSchedule (left by a command that did not
// finish) off every managed node that no command holds and that is not deleting. Karpenter's
// disruption controller patches the Nodes at the start of its first pass, but that pass and
// the provisioner before it decide on the cluster state read before the patch; the pass that
// follows a command, right away, sees the Nodes untainted. (A pass without a command is
// followed by the next only after the 10 s polling period, which is no longer now.)
func (s *state) clearLeftoverTaints() {
	var names []string
	for _, n := range s.nodes {
		if n.poolName == "" || n.Deleting() || s.taken[n] || n.Node == nil || n.Node.DeletionTimestamp != nil {
			continue
		}
		if slices.ContainsFunc(n.Node.Spec.Taints, cluster.IsDisruptedTaint) {
			names = append(names, n.Name())
		}
	}
	s.base = s.base.WithoutDisruptedTaint(names...)
	if len(names) > 0 {
		// The untainted nodes take pods again: the state got looser, so every candidate
		// given up on in the first pass is simulated again, as Karpenter's next pass does.
		s.retry(func(*node) bool { return true })
	}
}

// candidates are the nodes of cmd.
func (s *state) candidates(cmd *Command) []*node {
	out := make([]*node, 0, len(cmd.Candidates))
	for _, name := range cmd.Candidates {
		i := sort.Search(len(s.nodes), func(i int) bool { return s.nodes[i].Name() >= name })
		if i < len(s.nodes) && s.nodes[i].Name() == name {
			out = append(out, s.nodes[i])
		}
	}
	return out
}

func (s *state) anyDeletingPods() bool {
	for _, n := range s.nodes {
		if (n.Deleting() || s.taken[n]) && len(n.reschedulable) > 0 {
			return true
		}
	}
	return false
}

// ProvisionedName is the name of Result.Provisioned[n-1] wherever a Result names a NodeClaim
// it launches (destinations, pod errors, drains).
func ProvisionedName(n int) string { return fmt.Sprintf("provisioned-%d", n) }

// ReplacementName is the name of Result.Commands[command-1].Replacements[n-1] wherever a
// Result names a NodeClaim it launches.
func ReplacementName(command, n int) string {
	return fmt.Sprintf("command-%d-replacement-%d", command, n)
}

// addInflight adds a launched NodeClaim, named name, to every later simulation as an
// uninitialized in-flight node without pods (the pods planned onto it are still pending, or
// still on their deleting nodes). It reports whether the claim could be launched (it has an
// instance type and an offering).
func (s *state) addInflight(c *scheduling.NodeClaim, name string) bool {
	if c == nil || c.InstanceType == nil || c.Offering == nil {
		return false
	}
	// The cloud labels a launched NodeClaim with its type's and offering's single values
	// (arch, os, …): without them a DaemonSet selecting on them would not count against it.
	lbls := c.InstanceType.Requirements.Labels()
	for _, m := range []map[string]string{c.Offering.Requirements.Labels(), c.Labels} {
		for k, v := range m {
			lbls[k] = v
		}
	}
	lbls[v1.NodePoolLabelKey] = c.NodePool
	lbls[v1.LabelInstanceType] = c.InstanceType.Name
	lbls[v1.LabelTopologyZone] = c.Offering.Zone()
	lbls[v1.CapacityTypeLabelKey] = c.Offering.CapacityType()
	lbls[v1.LabelHostname] = name
	nc := &v1.NodeClaim{}
	nc.Name = name
	nc.Labels = lbls
	nc.Spec.Taints = c.Taints
	nc.Spec.StartupTaints = c.StartupTaints
	nc.Status.Allocatable = c.InstanceType.Allocatable()
	nc.Status.Capacity = c.InstanceType.Capacity
	s.base = s.base.WithInFlight(nc)
	s.launchedPrice[c.NodePool] += c.Offering.Price
	s.mech.claimName[c] = name
	s.uninit[name] = true
	return true
}

func joinNames(ns []*node) string {
	names := make([]string, 0, len(ns))
	for _, n := range ns {
		names = append(names, n.Name())
	}
	return strings.Join(names, ", ")
}

// isNominated reports whether the provisioner or an earlier command sends pods to n.
func (s *state) isNominated(n *node) bool { return n.nominated }

// loosensLimits reports whether taking cands gives a NodePool with limits room back: no later
// simulation counts their capacity against it (Karpenter's scheduler subtracts only the
// nodes not marked for deletion from the limits), while their replacements count in their
// own NodePools.
func (s *state) loosensLimits(cands []*node) bool {
	for _, c := range cands {
		if np := s.pools[c.poolName]; np != nil && len(np.Spec.Limits) > 0 {
			return true
		}
	}
	return false
}

// retryLimited is the exception to "the state only gets tighter within a Plan": a method
// that gave up on a candidate whose simulation NodePool limits bound tries it again once a
// command gave a limited NodePool room back, as Karpenter's controller simulates every
// candidate again at every pass (a drifted node whose replacement the cpu limit refused is
// replaced once an earlier command's node no longer counts). Simulations the limits did not
// bind would plan the same with more room, so their candidates stay given up.
func (s *state) retryLimited() {
	s.retry(func(n *node) bool { return s.limitBound[n] })
	clear(s.limitBound)
}

// retry makes every method that gives up on candidates (givesUp) try again those again says.
func (s *state) retry(again func(*node) bool) {
	for _, m := range s.methods {
		if g, ok := m.(givesUp); ok {
			f := g.givenUp()
			for n := range f {
				if again(n) {
					delete(f, n)
				}
			}
		}
	}
}
