package scheduling

import (
	"slices"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// Karpenter mode (Options.Packing = PackingKarpenter) answers "what would Karpenter launch?"
// as its provisioner would, round after round: one Solve places what it can; every NodeClaim
// it opened launches on its cheapest available offering; the next Solve sees those nodes
// launched (their pods bound and counted where they launched, tried as existing nodes before
// any new NodeClaim, without minValues, counted against limits at the type that launched) and
// places the pods still pending; until a round places nothing.
//
// Within a round it keeps Karpenter's counting: a pod a topology spread counts is counted only
// once its node's domain is decided (a NodeClaim still open on the key counts it nowhere until
// it launches) and only on a NodeClaim whose requirements name every label of the spread's
// node filter; a pod with a required anti-affinity keeps its NodeClaim open over every free
// domain; limits.nodes counts nodes and earlier rounds' launches, not the round's own
// NodeClaims (template.nodesLimited). Such a plan can break a
// constraint as launched, as Karpenter's does: verify reports it.

// deferredCount is a pod a topology spread did not count on an open NodeClaim (record):
// Karpenter's next round counts it where the NodeClaim launched, if the launched node passes
// the filter; the default mode counts it once the NodeClaim is settled (settleDeferred).
type deferredCount struct {
	g *topologyGroup
	n int // how many pods
	// at is where the default mode counts them for now ("": nowhere; trackDeferred).
	at string
}

// withDeferred adds one pod g leaves uncounted to ds (one entry per group), counted where
// the entry's pods are.
func (t *topology) withDeferred(ds []deferredCount, g *topologyGroup) []deferredCount {
	if d := deferredOf(ds, g); d != nil {
		d.n++
		if d.at != "" {
			t.count(g, d.at)
		}
		return ds
	}
	return append(ds, deferredCount{g: g, n: 1})
}

// deferredOf is g's entry in ds, or nil.
func deferredOf(ds []deferredCount, g *topologyGroup) *deferredCount {
	for i := range ds {
		if ds[i].g == g {
			return &ds[i]
		}
	}
	return nil
}

// countN counts n pods of g in domain v.
func (t *topology) countN(g *topologyGroup, v string, n int) {
	for range n {
		t.count(g, v)
	}
}

// uncountN undoes countN (not on the hostname key).
func (t *topology) uncountN(g *topologyGroup, v string, n int) {
	for range n {
		t.uncount(g, v)
	}
}

// prelaunch is a NodeClaim as its round opened it, before the launch pinned it.
type prelaunch struct {
	reqs    requirements.Requirements
	values  []string
	types   bitset
	loose   map[string]*requirements.Requirement
	relaxed bool
	pods    int
}

// karpenterRound launches every NodeClaim opened in the round that just ended and returns the
// pods to try again in the next round (nil when there is no reason to).
func (s *solver) karpenterRound(pods []*podData, errs map[*podData]podFailure) []*podData {
	if len(errs) == 0 || s.opts.SingleRound {
		return nil
	}
	var queue []*podData
	for _, p := range pods {
		if _, failed := errs[p]; failed && p.invalid == nil {
			queue = append(queue, p)
		}
	}
	if len(queue) == 0 {
		return nil
	}
	for c := s.head; c != nil; c = c.next {
		s.launch(c)
	}
	s.withoutExhaustedReservations()
	s.dropRuns()
	s.head, s.tail = nil, nil
	clear(s.lastOfCount)
	s.korderReset()
	return queue
}

// launch settles c as its cheapest available offering launches it: instance type, zone and
// capacity type pinned, the pods (anti-)affinity counted while it was open counted where it
// launched, the spread counts Karpenter left out counted there, its limits recounted at the
// launched type; c then takes pods as an existing node does (s.launched).
func (s *solver) launch(c *claim) {
	s.launched = append(s.launched, c)
	c.launched = true
	base := c.pinReserved(c.reqs) // it launches on a reservation it holds
	l, ok := cheapestLaunch(c.t, base, c.types, anyType)
	if !ok {
		return // no offering: finalize drops it, its pods stay unplaced
	}
	if l.o.CapacityType() == v1.CapacityTypeReserved {
		s.cloudLeft[l.o.ReservationID()]--
	}
	s.topo.addLaunched(l)
	c.pre = &prelaunch{reqs: c.reqs, values: append([]string(nil), c.values...), types: c.types, loose: c.loose, relaxed: c.relaxed, pods: len(c.pods)}
	reqs := base.Copy()
	reqs[v1.LabelInstanceType] = requirements.MustNew(v1.LabelInstanceType, requirements.In, c.t.types[l.i].it.Name)
	pin := func(key string) string {
		v, _ := s.topo.pinLaunched(reqs, key, l)
		return v
	}
	pin(v1.LabelTopologyZone)
	pin(v1.CapacityTypeLabelKey)
	for _, oc := range c.open {
		s.topo.settleCount(oc, pin(oc.g.key))
	}
	c.open = nil
	for _, d := range c.deferred {
		if !launchedPasses(d.g, l) {
			continue
		}
		if d.g.hostname {
			s.topo.countN(d.g, c.hostname, d.n)
		} else if v := pin(d.g.key); v != "" {
			s.topo.countN(d.g, v, d.n)
		}
	}
	c.deferred, c.made = nil, nil
	if c.t.nodesLimited {
		c.t.nodesLeft-- // the next round counts the launched node
	}
	types := newBitset(len(c.t.types))
	types.set(l.i)
	c.reqs = reqs
	c.setValues(s, c.reqs)
	c.node = s.launchedRoom(c, l.i)
	c.keepTypes(types)
	if c.counted != nil {
		// The next round counts the node at the type that launched.
		launched := c.t.types[l.i].capacity
		for r, lim := range c.t.limited {
			if lim {
				c.t.remaining[r] += c.counted[r] - launched[r]
			}
		}
		c.counted = launched.clone()
	}
}

// nodeRoom is the room a NodeClaim launched between Karpenter's rounds offers the next
// rounds' pods when its node runs other DaemonSets than the NodeClaim kept room for.
type nodeRoom struct {
	alloc vec        // the launched type's allocatable less the node's DaemonSets
	ports []hostPort // the node's DaemonSets' host ports
}

// launchedRoom is the room of c launched as type i, nil when it is the type's room in c's
// NodePool. An open NodeClaim keeps room for every DaemonSet its NodePool may run on the
// type; Karpenter's next round takes the launched node as an existing one and keeps room
// only for the DaemonSets whose node affinity its labels match and who tolerate its taints
// (a DaemonSet of on-demand nodes takes nothing on a node launched spot).
func (s *solver) launchedRoom(c *claim, i int) *nodeRoom {
	tt := c.t.types[i]
	reqs := c.reqs.Copy()
	for _, k := range tt.it.Requirements.Keys() {
		reqs.Add(tt.it.Requirements.Get(k))
	}
	labels := reqs.Labels()
	labels[v1.NodeRegisteredLabelKey], labels[v1.NodeInitializedLabelKey] = "true", "true"
	node := requirements.FromLabels(labels)
	taints := schedulingTaints(c.t.taints)
	overhead := make(vec, len(s.res.names))
	var ports []hostPort
	for _, d := range s.daemons {
		if tolerates(d.form.tolerations, taints) && daemonCompatibleWithNode(d, node) {
			overhead.add(d.requests)
			ports = append(ports, d.ports...)
		}
	}
	if slices.Equal(overhead, tt.overhead) && slices.Equal(ports, tt.daemonPorts) {
		return nil
	}
	_, alloc := s.typeVecs(tt.it)
	alloc = alloc.clone()
	alloc.sub(overhead)
	return &nodeRoom{alloc: alloc, ports: ports}
}

// launchedPasses reports whether a node launched with option l passes g's node filter, as
// Karpenter's next round reads it from the node's labels and taints (its template's).
func launchedPasses(g *topologyGroup, l launchOption) bool {
	s := g.spread
	if s == nil {
		return true
	}
	if !s.admitsTaints(l.t.taints) {
		return false
	}
	if s.filterTerms == nil {
		return true
	}
	for _, term := range s.filterTerms {
		if l.satisfies(term) {
			return true
		}
	}
	return false
}

// grownAfterLaunch reports whether a later round added pods to c after it launched.
func (c *claim) grownAfterLaunch() bool { return c.pre != nil && len(c.pods) > c.pre.pods }

// restoreUnchanged gives each launched NodeClaim that no later round added a pod to the
// requirements and options its round opened it with: the NodeClaim Karpenter creates.
func (s *solver) restoreUnchanged() {
	for _, c := range s.launched {
		if p := c.pre; p != nil && !c.grownAfterLaunch() {
			c.reqs, c.values, c.loose, c.relaxed = p.reqs, p.values, p.loose, p.relaxed
			c.node = nil
			c.keepTypes(p.types)
		}
	}
}
