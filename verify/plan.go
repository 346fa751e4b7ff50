package verify

import (
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
)

// Plan checks that res is a valid outcome of disruption.Plan(snap, now, opts); see the
// package doc for what is and is not checked (no rule it checks depends on opts yet: it
// takes them so that a caller passes what Plan was given). It never modifies its arguments.
func Plan(snap *cluster.Snapshot, now time.Time, opts disruption.Options, res *disruption.Result) []Violation {
	if snap == nil || res == nil {
		return nil
	}
	p := newPlanWorld(snap, now)
	p.held = disruptedNodes(res)
	var out []Violation
	out = append(out, p.accounting(res)...)
	out = append(out, p.budgets(res)...)
	for ci, cmd := range res.Commands {
		out = append(out, p.blockers(ci, cmd)...)
		out = append(out, p.consolidateAfter(ci, cmd)...)
		out = append(out, p.claims(ci, cmd.Replacements)...)
	}
	out = append(out, p.claims(-1, res.Provisioned)...)
	out = append(out, nominated(res)...)
	out = append(out, p.destinations(res)...)
	out = append(out, p.moves(res)...)
	return out
}

type planWorld struct {
	snap        *cluster.Snapshot
	now         time.Time
	nodes       map[string]*cluster.Node
	names       []string
	pools       map[string]*v1.NodePool // defaulted copies
	typesByName map[string]*cloudprovider.InstanceType
	pdbs        []*pdbState
	held        map[string]bool // the candidates of the plan's commands
}

func newPlanWorld(snap *cluster.Snapshot, now time.Time) *planWorld {
	p := &planWorld{snap: snap, now: now, nodes: map[string]*cluster.Node{}, pools: map[string]*v1.NodePool{},
		typesByName: firstTypesByName(snap)}
	for _, n := range snap.Nodes() {
		if n == nil || (n.Node == nil && n.NodeClaim == nil) {
			continue
		}
		if _, dup := p.nodes[n.Name()]; !dup {
			p.nodes[n.Name()] = n
			p.names = append(p.names, n.Name())
		}
	}
	sort.Strings(p.names)
	for _, np := range snap.NodePools() {
		if np != nil {
			c := np.DeepCopy()
			c.SetDefaults()
			p.pools[np.Name] = c
		}
	}
	p.pdbs = buildPDBs(snap)
	return p
}

// poolOf is the node's NodePool name ("" when not managed).
func poolOf(n *cluster.Node) string {
	if v := n.Labels()[v1.NodePoolLabelKey]; v != "" {
		return v
	}
	if n.NodeClaim != nil {
		return n.NodeClaim.Labels[v1.NodePoolLabelKey]
	}
	return ""
}

func planViolation(code ViolationCode, command int, node string) Violation {
	v := newViolation(code)
	v.Command, v.Node = command, node
	return v
}

// accounting: every candidate and blocked node is known and appears once; every managed
// node appears; disrupted nodes can be candidates at all.
func (p *planWorld) accounting(res *disruption.Result) []Violation {
	var out []Violation
	seen := map[string]bool{}
	for ci, cmd := range res.Commands {
		for _, name := range cmd.Candidates {
			n := p.nodes[name]
			switch {
			case n == nil:
				out = append(out, planViolation(PlanNodeUnknown, ci, name))
				continue
			case seen[name]:
				out = append(out, planViolation(PlanNodeTwice, ci, name))
			}
			seen[name] = true
			if !p.candidate(n, cmd.Reason) {
				v := planViolation(PlanNodeNotCandidate, ci, name)
				v.NodePool = poolOf(n)
				out = append(out, v)
			}
		}
	}
	for _, b := range res.Blocked {
		switch {
		case p.nodes[b.Node] == nil:
			out = append(out, planViolation(PlanNodeUnknown, -1, b.Node))
		case seen[b.Node]:
			out = append(out, planViolation(PlanNodeTwice, -1, b.Node))
		}
		seen[b.Node] = true
	}
	for _, name := range p.names {
		if n := p.nodes[name]; poolOf(n) != "" && !seen[name] {
			v := planViolation(PlanNodeUnaccounted, -1, name)
			v.NodePool = poolOf(n)
			out = append(out, v)
		}
	}
	return out
}

// candidate: a managed, initialized Node of a known NodePool that is not being deleted;
// for expiration (Karpenter's NodeClaim lifecycle, not its disruption controller) any
// node of a known NodePool whose NodeClaim is not being deleted.
func (p *planWorld) candidate(n *cluster.Node, reason disruption.ReasonCode) bool {
	if reason.Forceful() {
		return p.pools[poolOf(n)] != nil && (n.NodeClaim == nil || n.NodeClaim.DeletionTimestamp == nil)
	}
	if n.Node == nil || p.pools[poolOf(n)] == nil || isMarked(n) {
		return false
	}
	return n.Node.Labels[v1.NodeInitializedLabelKey] == "true"
}

// terminating: the NodeClaim is being deleted or its instance is terminating.
func terminating(n *cluster.Node) bool {
	return n.NodeClaim != nil && (n.NodeClaim.DeletionTimestamp != nil || instanceTerminating(n))
}

func instanceTerminating(n *cluster.Node) bool {
	if n.NodeClaim == nil {
		return false
	}
	for _, c := range n.NodeClaim.Status.Conditions {
		if c.Type == v1.ConditionTypeInstanceTerminating && c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}

// counted nodes make up a NodePool's size for its budgets: managed, initialized, the
// instance not terminating (a deleting one counts, as disrupting: Karpenter's
// BuildDisruptionBudgetMapping).
func (p *planWorld) counted(n *cluster.Node) bool {
	return p.pools[poolOf(n)] != nil && n.Node != nil && n.Node.Labels[v1.NodeInitializedLabelKey] == "true" && !instanceTerminating(n)
}

func nodeNotReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status != corev1.ConditionTrue
		}
	}
	return false
}

// budgets: for every command but expiration, the nodes of its NodePool disrupted so far
// (already disrupting, plus every earlier command's and this one's candidates) stay within
// the budget for its reason.
func (p *planWorld) budgets(res *disruption.Result) []Violation {
	var out []Violation
	size, disrupting := map[string]int{}, map[string]int{}
	for _, name := range p.names {
		n := p.nodes[name]
		if !p.counted(n) {
			continue
		}
		size[poolOf(n)]++
		if isMarked(n) || nodeNotReady(n.Node) {
			disrupting[poolOf(n)]++
		}
	}
	taken := map[string]bool{}
	for ci, cmd := range res.Commands {
		here := map[string]bool{}
		for _, name := range cmd.Candidates {
			n := p.nodes[name]
			if n == nil || taken[name] {
				continue
			}
			taken[name] = true
			if p.counted(n) && !isMarked(n) && !nodeNotReady(n.Node) {
				disrupting[poolOf(n)]++
			}
			here[poolOf(n)] = true
		}
		if cmd.Reason.Forceful() {
			continue
		}
		for _, pool := range sortedKeysOf(here) {
			np := p.pools[pool]
			if np == nil {
				continue
			}
			allowed := allowedDisruptions(np, p.now, size[pool], v1.DisruptionReason(cmd.Reason))
			if disrupting[pool] > allowed {
				v := newViolation(PlanBudget)
				v.Command, v.NodePool, v.Key = ci, pool, string(cmd.Reason)
				v.Got, v.Limit = int64(disrupting[pool]), int64(allowed)
				out = append(out, v)
			}
		}
	}
	return out
}

// allowedDisruptions is the smallest allowance of the NodePool's active budgets for the
// reason: a count, or a percentage of size rounded up; a budget that does not parse allows
// nothing.
func allowedDisruptions(np *v1.NodePool, now time.Time, size int, reason v1.DisruptionReason) int {
	allowed := int(^uint(0) >> 1)
	for _, b := range np.Spec.Disruption.Budgets {
		active, err := b.IsActive(now)
		if err != nil {
			return 0
		}
		if !active || (len(b.Reasons) > 0 && !containsReason(b.Reasons, reason)) {
			continue
		}
		n, ok := budgetNodes(b.Nodes, size)
		if !ok {
			return 0
		}
		allowed = min(allowed, n)
	}
	return allowed
}

func containsReason(rs []v1.DisruptionReason, r v1.DisruptionReason) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// budgetNodes reads "N" or "P%" (rounded up, as Kubernetes rounds maxUnavailable).
func budgetNodes(s string, size int) (int, bool) {
	if s == "" {
		return 0, false
	}
	pct := s[len(s)-1] == '%'
	digits := s
	if pct {
		digits = s[:len(s)-1]
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' || n > 1<<30 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if len(digits) == 0 {
		return 0, false
	}
	if pct {
		if n > 100 {
			return 0, false
		}
		return (n*size + 99) / 100, true
	}
	return n, true
}

// nominated: no command disrupts a node that it or an earlier command sends pods to.
func nominated(res *disruption.Result) []Violation {
	var out []Violation
	dest := map[string]int{}
	for ci, cmd := range res.Commands {
		for _, d := range cmd.Destinations {
			if _, ok := dest[d]; !ok {
				dest[d] = ci
			}
		}
		for _, name := range cmd.Candidates {
			if _, ok := dest[name]; ok {
				out = append(out, planViolation(PlanDestinationDisrupted, ci, name))
			}
		}
	}
	return out
}
