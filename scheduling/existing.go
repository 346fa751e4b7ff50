package scheduling

import (
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// existingNode is a node (or in-flight NodeClaim) that already exists.
type existingNode struct {
	node *cluster.Node
	name string
	// order is the name Karpenter tries the node by (karpenterOrder).
	order       string
	reqs        requirements.Requirements
	taints      []corev1.Taint
	available   vec
	ports       []hostPort
	initialized bool
	placed      []*podData
	host        int32
	// volumeLimits are the node's CSI attach limits per driver; volumeClaims the claims
	// attached per driver (a claim shared by several pods counts once).
	volumeLimits map[string]int
	volumeClaims map[string]map[string]bool
}

// volumesFit reports whether the node can attach p's volumes within its CSI limits.
func (e *existingNode) volumesFit(uses []volumeUse) bool {
	extra := map[string]int{}
	seen := map[volumeUse]bool{}
	for _, u := range uses {
		limit, ok := e.volumeLimits[u.driver]
		if !ok || seen[u] {
			continue
		}
		seen[u] = true
		if !e.volumeClaims[u.driver][u.claim] {
			extra[u.driver]++
		}
		if len(e.volumeClaims[u.driver])+extra[u.driver] > limit {
			return false
		}
	}
	return true
}

func (e *existingNode) attach(uses []volumeUse) {
	for _, u := range uses {
		if e.volumeClaims[u.driver] == nil {
			e.volumeClaims[u.driver] = map[string]bool{}
		}
		e.volumeClaims[u.driver][u.claim] = true
	}
}

// isEphemeralTaint reports whether t is one of Karpenter's known ephemeral taints (not ready,
// unreachable, the cloud provider's uninitialized, Karpenter's unregistered, and any
// readiness.k8s.io/ taint): a node that is not initialized yet will lose them, so
// effectiveTaints ignores them there (with its startup taints).
func isEphemeralTaint(t corev1.Taint) bool {
	switch {
	case t.Key == corev1.TaintNodeNotReady && (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute),
		t.Key == corev1.TaintNodeUnreachable && t.Effect == corev1.TaintEffectNoSchedule,
		t.Key == "node.cloudprovider.kubernetes.io/uninitialized" && t.Effect == corev1.TaintEffectNoSchedule,
		t.Key == v1.UnregisteredTaintKey && t.Effect == corev1.TaintEffectNoExecute,
		strings.HasPrefix(t.Key, "readiness.k8s.io/"):
		return true
	}
	return false
}

func (s *solver) buildExisting() {
	byName := map[string]*templateType{}
	for _, t := range s.templates {
		for _, tt := range t.types {
			byName[tt.it.Name] = tt
		}
	}
	for _, n := range s.nodes {
		if n.Deleting() || (n.Node == nil && n.NodeClaim == nil) {
			continue
		}
		f := s.nodeFacts(n)
		e := &existingNode{node: n, name: n.Name(), order: karpenterOrder(n, f.pool)}
		e.taints, e.initialized = s.effectiveTaints(n, f)
		e.reqs = s.nodeRequirements(n)
		e.host = s.topo.hostID(e.reqs[v1.LabelHostname].Values()[0])
		alloc := allocatable(n)
		e.available = f.alloc.clone()
		// Until a node is initialized the kubelet may report zero for resources it has not
		// registered yet (extended resources, or everything on an in-flight NodeClaim).
		if tt, ok := byName[f.typeName]; ok && !e.initialized {
			typeAlloc := s.res.vec(tt.it.Allocatable())
			for i, x := range e.available {
				if x == 0 {
					e.available[i] = typeAlloc[i]
				}
			}
		}
		e.volumeLimits = s.volumes.csiNodeLimits[e.name]
		e.volumeClaims = map[string]map[string]bool{}
		for _, p := range f.volumePods {
			if _, uses, _ := s.volumes.podVolumes(p); len(uses) > 0 {
				e.attach(uses)
			}
		}
		s.subPods(e.available, n, f)
		e.ports = append(e.ports, f.ports...)
		for _, d := range s.daemons {
			// A PreferNoSchedule taint keeps no DaemonSet pod off a node (Karpenter checks it
			// and overcommits the node).
			if f.daemons[d.key] || !tolerates(d.form.tolerations, schedulingTaints(e.taints)) {
				continue
			}
			if daemonCompatibleWithNode(d, e.reqs) {
				e.available.sub(d.requests)
				e.ports = append(e.ports, d.ports...)
			}
		}
		// Nodes of a NodePool count against its limits.
		if np := f.pool; np != "" {
			for _, t := range s.templates {
				if t.name != np {
					continue
				}
				if t.hasLimits {
					var capacity corev1.ResourceList
					if n.Node != nil {
						capacity = n.Node.Status.Capacity
					}
					if len(capacity) == 0 && n.NodeClaim != nil {
						capacity = n.NodeClaim.Status.Capacity
					}
					if len(capacity) == 0 {
						capacity = alloc
					}
					t.remaining.sub(s.res.vec(capacity))
				}
				if t.nodesLeft > 0 || s.karpenter && t.nodesLimited {
					t.nodesLeft--
				}
			}
		}
		s.existing = append(s.existing, e)
	}
	sort.SliceStable(s.existing, func(i, j int) bool {
		a, b := s.existing[i], s.existing[j]
		if a.initialized != b.initialized {
			return a.initialized
		}
		return a.order < b.order
	})
}

// karpenterOrder is the name Karpenter's scheduler tries an existing node by, after the
// initialized ones: its Node's name, or, for a NodeClaim without a Node, the NodeClaim's, which
// Karpenter generates as <nodepool>-<random suffix>. A NodeClaim of NodePool pool named
// otherwise (disruption's provisioned-N and command-C-replacement-R) is ordered as if its name
// had that prefix, so pods fill the in-flight nodes in Karpenter's order (which arm64 node takes
// the zone's payments pods decides which drifted node can move: disrupt-drift-realistic).
func karpenterOrder(n *cluster.Node, pool string) string {
	name := n.Name()
	if n.Node != nil || pool == "" || strings.HasPrefix(name, pool+"-") {
		return name
	}
	return pool + "-" + name
}

// effectiveTaints are the taints that keep pods off an existing node (a node that is not
// initialized yet will lose its known ephemeral and startup taints), and whether it is
// initialized. Placement and topology counting both read them, so a pod placed on such a node
// sees the pods there counted.
func (s *solver) effectiveTaints(n *cluster.Node, f *nodeFacts) ([]corev1.Taint, bool) {
	managed, initialized := f.managed, f.initialized
	var taints []corev1.Taint
	if n.Node != nil {
		taints = n.Node.Spec.Taints
	} else {
		taints = n.NodeClaim.Spec.Taints
	}
	if initialized {
		return taints, true
	}
	var startup []corev1.Taint
	if n.NodeClaim != nil {
		startup = n.NodeClaim.Spec.StartupTaints
	} else if managed {
		// A managed Node given without its NodeClaim: the claim would carry its NodePool's
		// startup taints.
		for _, t := range s.templates {
			if t.name == f.pool {
				startup = t.startupTaints
			}
		}
	}
	var out []corev1.Taint
	for _, t := range taints {
		if !isEphemeralTaint(t) && !containsTaint(startup, t) {
			out = append(out, t)
		}
	}
	return out, false
}

func daemonCompatibleWithNode(d *podData, nodeReqs requirements.Requirements) bool {
	terms := d.form.requiredTerms
	if len(terms) == 0 {
		terms = []requirements.Requirements{{}}
	}
	for _, term := range terms {
		if nodeReqs.IsCompatible(d.form.nodeSelector.Union(term), nil) {
			return true
		}
	}
	return false
}

func containsTaint(ts []corev1.Taint, t corev1.Taint) bool {
	for _, x := range ts {
		if x.Key == t.Key && x.Effect == t.Effect && x.Value == t.Value {
			return true
		}
	}
	return false
}

// countBoundPods records pods already running in the topology groups that select them.
func (s *solver) countBoundPods() {
	if len(s.topo.ordered) == 0 {
		return
	}
	// Pods of nodes marked for deletion are counted where they are unless they are being
	// planned again in this Solve (a PDB or a DaemonSet can keep them in place).
	replanned := make(map[*corev1.Pod]bool, len(s.pending))
	for _, p := range s.pending {
		replanned[p] = true
	}
	for _, n := range s.nodes {
		if n.NodeClaim != nil && n.Node == nil && n.NodeClaim.DeletionTimestamp != nil {
			continue
		}
		reqs := s.nodeRequirements(n)
		taints, _ := s.effectiveTaints(n, s.nodeFacts(n))
		for _, bp := range n.Pods {
			if bp == nil || cluster.IsTerminal(bp) || bp.DeletionTimestamp != nil || replanned[bp] {
				continue
			}
			selected, _ := s.topo.selecting(bp)
			for _, g := range selected {
				if v := singleValue(s.topo.get(reqs, g.key)); v != "" && g.passesFilter(reqs, taints, nil) {
					s.topo.count(g, v)
				}
			}
			for _, g := range s.inverseGroups(bp) {
				if v := singleValue(s.topo.get(reqs, g.key)); v != "" {
					s.topo.count(g, v)
				}
			}
		}
	}
}

// tryAdd places p on the node if it fits.
func (e *existingNode) tryAdd(s *solver, p *podData, f *podForm) bool {
	if !e.check(s, p, f, nil) {
		return false
	}
	e.available.sub(p.requests)
	e.attach(p.volumes)
	e.ports = append(e.ports, p.ports...)
	e.placed = append(e.placed, p)
	s.raiseFloors(p, f)
	s.topo.record(p, f, s.ownedInverse(p, f), e.reqs, e.taints, countNow, nil)
	return true
}

// check reports whether p (form f) fits the node; when it does not and why is not nil, why
// gets the cause (the details cost only then).
func (e *existingNode) check(s *solver, p *podData, f *podForm, why *Cause) bool {
	if e.node.ClosedToMoves() && s.movesFromLiveNode(p) {
		return e.reject(why, Cause{Code: ReasonConsolidateAfter})
	}
	for i, x := range p.requests {
		if x > e.available[i] {
			if why != nil {
				*why = Cause{Code: ReasonInsufficientResource, Node: e.name, Resource: s.res.first(func(r int) bool { return p.requests[r] > e.available[r] })}
				r := s.res.pos[corev1.ResourceName(why.Resource)]
				why.Needed, why.Available = s.res.amount(r, p.requests[r]), s.res.amount(r, max(e.available[r], 0))
			}
			return false
		}
	}
	if !tolerates(f.tolerations, e.taints) {
		return why != nil && e.reject(why, Cause{Code: ReasonUntoleratedTaint, Taint: untolerated(f.tolerations, e.taints)})
	}
	if len(p.ports) > 0 && portsConflict(e.ports, p.ports) {
		return why != nil && e.reject(why, portCause(e.ports, p.ports))
	}
	if !e.reqs.IsCompatible(f.reqs, nil) {
		return why != nil && e.reject(why, conflictCause(e.reqs, f.reqs, nil))
	}
	if len(p.volumeAlternatives) > 0 {
		ok := false
		for _, alt := range p.volumeAlternatives {
			if e.reqs.IsCompatible(alt, nil) {
				ok = true
				break
			}
		}
		if !ok {
			return why != nil && e.reject(why, volumeCause(e.reqs, p.volumeAlternatives[0], nil))
		}
	}
	if len(p.volumes) > 0 && !e.volumesFit(p.volumes) {
		return why != nil && e.reject(why, Cause{Code: ReasonVolumeAttachLimit, Key: e.fullDriver(p.volumes)})
	}
	for _, g := range f.owned {
		if !e.reqs.Has(g.key) && g.rule.needsKey() {
			return why != nil && e.reject(why, topologyCause(g))
		}
	}
	if g := p.hostBlocked(f, e.host); g != nil {
		return why != nil && e.reject(why, topologyCause(g))
	}
	narrowed, failed, ok := s.topo.requirementsFor(p, f, e.reqs, e.host)
	if !ok {
		return why != nil && e.reject(why, topologyCause(failed))
	}
	for k, r := range narrowed {
		if !e.reqs.Get(k).Intersects(r) {
			return why != nil && e.reject(why, Cause{Code: topologyCodeOn(p, f, k), Key: k})
		}
	}
	return true
}

// nodeCauses says why each existing node rejects p, a pod that was not placed. They are
// derived once, as Solve ends, with p's preferences relaxed as far as its attempts went, so
// that no attempt pays for them; nil for a pod that was never tried on nodes.
func (s *solver) nodeCauses(p *podData) []Cause {
	if p.form == nil || s.noDynamicNodePools || len(s.existing) == 0 {
		return nil
	}
	f := p.form
	for next := f.relax(s.toleratePreferNoSchedule); next != nil; next = next.relax(s.toleratePreferNoSchedule) {
		f = next
	}
	s.topo.beginAttempt()
	out := make([]Cause, 0, len(s.existing))
	for _, n := range s.existing {
		var why Cause
		if !n.check(s, p, f, &why) {
			out = append(out, why)
		}
	}
	return out
}

// reject sets why (when asked) to c on this node; it returns false, check's answer.
func (e *existingNode) reject(why *Cause, c Cause) bool {
	if why != nil {
		c.Node = e.name
		*why = c
	}
	return false
}

// fullDriver is the first CSI driver of uses whose attach limit the node would exceed.
func (e *existingNode) fullDriver(uses []volumeUse) string {
	for i := range uses {
		if !e.volumesFit(uses[:i+1]) {
			return uses[i].driver
		}
	}
	return ""
}
