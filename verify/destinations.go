package verify

import (
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// world is the plan's snapshot as Solve's world: the pods of every node where they are,
// the pending ones to place (DefaultTopologySpreadConstraints play no part here). A managed
// node that is not being deleted and that no command holds has no karpenter.sh/disrupted
// taint: Karpenter's disruption controller takes off what a command that did not finish left.
func (p *planWorld) world() *world {
	w := newWorld(p.snap, scheduling.Options{})
	for _, l := range w.locs {
		if l.claim < 0 && l.pool != "" && !l.marked && !p.held[l.name] && slices.ContainsFunc(l.taints, cluster.IsDisruptedTaint) {
			l.taints = slices.DeleteFunc(slices.Clone(l.taints), cluster.IsDisruptedTaint)
			l.finish()
		}
	}
	return w
}

// claims checks the NodeClaims a command (or, with command -1, the provisioner) launches
// like new NodeClaims of Solve: the launch choice, and that their pods fit them.
func (p *planWorld) claims(command int, cs []*scheduling.NodeClaim) []Violation {
	var out []Violation
	w := p.world()
	for i, c := range cs {
		if c == nil {
			continue
		}
		l := claimLocation(i, c)
		l.finish()
		vs := w.checkLaunch(l)
		if l.launched {
			vs = append(vs, w.checkFit(l)...)
		}
		for _, v := range vs {
			v.Command = command
			out = append(out, v)
		}
	}
	return out
}

// movedPods are the pods a command's candidates must find a new home for: the leaving pods;
// under drift with a grace period, not those that block (they wait for the deadline).
func (p *planWorld) movedPods(cmd disruption.Command) []movedPod {
	var out []movedPod
	for _, m := range p.leaving(cmd) {
		if p.podsExempt(cmd, m.node) && p.blocked(m.pod) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// disruptedNodes are the candidates of every command of res.
func disruptedNodes(res *disruption.Result) map[string]bool {
	disrupted := map[string]bool{}
	for _, cmd := range res.Commands {
		for _, name := range cmd.Candidates {
			disrupted[name] = true
		}
	}
	return disrupted
}

// movedPod is a pod and the disrupted node it leaves.
type movedPod struct {
	pod  *corev1.Pod
	node string
}

// destinations: every pod moved off a disrupted node (not for forceful commands, which
// Karpenter carries out whether or not the pods fit elsewhere) is on one of the last
// simulation's NodeClaims, or all of them fit together (see packSearch) the nodes no command
// disrupts, the room those NodeClaims leave and the earlier NodeClaims — with resources,
// node selector, taints and host ports.
func (p *planWorld) destinations(res *disruption.Result) []Violation {
	w := p.world()
	var bins []*location
	for _, l := range w.locs {
		if !l.marked && !p.held[l.name] {
			bins = append(bins, l)
		}
	}
	// The last simulation (the provisioner's pass, or the last command that simulates)
	// planned again every pod of the earlier commands' candidates and every pending pod, with
	// the NodeClaims launched before it in flight and empty: where those pods end up is its
	// answer. So its NodeClaims hold the pods they list, the earlier ones are room, and every
	// displaced pod not on its NodeClaims must find a home.
	final := lastSimulation(res)
	onReplacement := map[string]bool{}
	launched := [][]*scheduling.NodeClaim{res.Provisioned}
	for _, cmd := range res.Commands {
		launched = append(launched, cmd.Replacements)
	}
	for li, cs := range launched {
		for i, c := range cs {
			if c == nil || c.InstanceType == nil || c.Offering == nil {
				continue
			}
			l := claimLocation(i, c)
			l.finish()
			bins = append(bins, l)
			if li != final+1 {
				l.placed = nil
				continue
			}
			for _, pod := range c.Pods {
				onReplacement[key(pod)] = true
			}
		}
	}
	var moves []move
	for ci, cmd := range res.Commands {
		if cmd.Reason.Forceful() {
			continue
		}
		for _, mp := range p.movedPods(cmd) {
			if !onReplacement[key(mp.pod)] {
				moves = append(moves, move{mp.pod, ci, mp.node, requests(mp.pod)})
			}
		}
	}
	sort.SliceStable(moves, func(i, j int) bool {
		a, b := moves[i].req, moves[j].req
		if c := a.Cpu().Cmp(*b.Cpu()); c != 0 {
			return c > 0
		}
		if c := a.Memory().Cmp(*b.Memory()); c != 0 {
			return c > 0
		}
		return key(moves[i].pod) < key(moves[j].pod)
	})
	names := resourceNames(bins, moves)
	free := make([][]int64, len(bins))
	ports := make([][]hostPort, len(bins))
	for i, l := range bins {
		used := corev1.ResourceList{}
		for _, q := range append(l.pods(), daemonsOn(p.snap.DaemonSets(), l)...) {
			addTo(used, requests(q))
			ports[i] = append(ports[i], hostPortsOf(q)...)
		}
		free[i] = make([]int64, len(names))
		for k, n := range names {
			have, want := l.alloc[n], used[n]
			free[i][k] = have.MilliValue() - want.MilliValue()
		}
	}
	need := make([][]int64, len(moves))
	admits := make([][]bool, len(moves)) // node selection and taints, which do not change
	for m, mv := range moves {
		need[m] = make([]int64, len(names))
		for k, n := range names {
			q := mv.req[n]
			need[m][k] = q.MilliValue()
		}
		admits[m] = make([]bool, len(bins))
		for b, l := range bins {
			_, bad := untolerated(mv.pod.Spec.Tolerations, l.taints)
			admits[m][b] = !bad && matchesNode(mv.pod, l.k8s)
		}
	}
	s := &packSearch{need: need, free: free, ports: ports, admits: admits, budget: 200000}
	for m := range moves {
		s.want = append(s.want, hostPortsOf(moves[m].pod))
	}
	if s.solve(0) {
		return nil
	}
	// Pods no node could take even alone certainly have no home; when every pod has one
	// alone and the complete search proved they do not fit together, the pods first fit
	// leaves over are named; when the search ran out of steps nothing more is claimed.
	var lost []int
	for m := range moves {
		if !s.fitsAlone(m) {
			lost = append(lost, m)
		}
	}
	if len(lost) == 0 && s.budget > 0 {
		for m := range moves {
			if !s.placedByFirstFit(m) {
				lost = append(lost, m)
			}
		}
	}
	var out []Violation
	for _, m := range lost {
		v := planViolation(PlanNoDestination, moves[m].command, moves[m].node)
		v.Pod = key(moves[m].pod)
		out = append(out, v)
	}
	return out
}

// lastSimulation is the index of the last command of res whose simulation plans its pods
// (a graceful command other than emptiness), or -1 for the provisioner's pass.
func lastSimulation(res *disruption.Result) int {
	last := -1
	for ci, cmd := range res.Commands {
		if !cmd.Reason.Forceful() && cmd.Method != disruption.MethodEmptiness {
			last = ci
		}
	}
	return last
}

func resourceNames(bins []*location, moves []move) []corev1.ResourceName {
	set := map[string]bool{}
	for _, mv := range moves {
		for n, q := range mv.req {
			if q.Sign() > 0 {
				set[string(n)] = true
			}
		}
	}
	var out []corev1.ResourceName
	for _, n := range sortedKeysOf(set) {
		out = append(out, corev1.ResourceName(n))
	}
	return out
}

// packSearch looks for homes for all moved pods at once: a depth-first search over the
// pods (largest first) and the nodes that admit them, within a step budget.
type packSearch struct {
	need   [][]int64
	free   [][]int64
	ports  [][]hostPort
	want   [][]hostPort
	admits [][]bool
	budget int
	first  []bool // pods first fit placed, for the report
}

func (s *packSearch) fits(m, b int) bool {
	if !s.admits[m][b] || portClash(s.ports[b], s.want[m]) {
		return false
	}
	for k, x := range s.need[m] {
		if x > 0 && x > s.free[b][k] {
			return false
		}
	}
	return true
}

func (s *packSearch) put(m, b int, sign int64) {
	for k, x := range s.need[m] {
		s.free[b][k] -= sign * x
	}
	if sign > 0 {
		s.ports[b] = append(s.ports[b], s.want[m]...)
	} else {
		s.ports[b] = s.ports[b][:len(s.ports[b])-len(s.want[m])]
	}
}

func (s *packSearch) solve(m int) bool {
	if m == len(s.need) {
		return true
	}
	for b := range s.free {
		if s.budget <= 0 {
			return false
		}
		s.budget--
		if !s.fits(m, b) {
			continue
		}
		s.put(m, b, 1)
		ok := s.solve(m + 1)
		s.put(m, b, -1)
		if ok {
			return true
		}
	}
	return false
}

// fitsAlone: some node takes pod m with nothing else moved.
func (s *packSearch) fitsAlone(m int) bool {
	for b := range s.free {
		if s.fits(m, b) {
			return true
		}
	}
	return false
}

// placedByFirstFit: first fit in order places pod m (the search proved that not all fit;
// first fit names which ones are left over).
func (s *packSearch) placedByFirstFit(m int) bool {
	if s.first == nil {
		s.first = make([]bool, len(s.need))
		for i := range s.need {
			for b := range s.free {
				if s.fits(i, b) {
					s.put(i, b, 1)
					s.first[i] = true
					break
				}
			}
		}
	}
	return s.first[m]
}

// move is a pod leaving a disrupted node.
type move struct {
	pod     *corev1.Pod
	command int
	node    string
	req     corev1.ResourceList
}

func portClash(have, want []hostPort) bool {
	for _, a := range want {
		for _, b := range have {
			if a.conflicts(b) {
				return true
			}
		}
	}
	return false
}
