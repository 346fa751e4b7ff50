package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// topology holds every group of one Solve: it interns them (topology_terms.go), tells which
// groups select a pod, and counts a placed pod in them. What a group allows is its rule's
// (topology_spread.go, topology_affinity.go, topology_antiaffinity.go); topology_pod.go asks
// every group of a pod for a node, topology_hostname.go is the hostname key's fast path.
type topology struct {
	groups    map[string]*topologyGroup
	ordered   []*topologyGroup // creation order, for deterministic iteration
	universe  *universe
	wellKnown requirements.KeySet
	// selectCache maps a pod's namespace and labels (appendLabelsID) to the groups selecting it and
	// the inverse groups repelling it.
	selectCache map[string]podSelection
	hosts       hostIDs
	exists      map[string]*requirements.Requirement
	// nodeDomains are, per key, the domains where a node can be (launchable; read on first
	// use: every offering of the catalog).
	nodeDomains map[string]map[string]bool
	// claimHosts marks the host ids of NodeClaims opened in this Solve.
	claimHosts map[int32]bool
	// termCache maps the text of an affinity term to its group.
	termCache map[string]*topologyGroup
	// knownNamespaces resolve affinity terms' namespaceSelectors, read on first use into
	// namespaces (nil: none known).
	knownNamespaces func() []*corev1.Namespace
	namespaces      []*corev1.Namespace
	namespacesRead  bool
	// keys numbers the topology keys other than the hostname, so a NodeClaim can keep its
	// single value per key in a slice (claim.values) for the domain pre-filter.
	keys   []string
	keyIDs map[string]int
	// tieBuf is scratch space for the least populated domains of a spread.
	tieBuf []string
	// admCache holds the admissible domains of the current attempt (see beginAttempt);
	// admNowCache those over the nodes' counts alone (admissibleNow).
	admCache, admNowCache map[*topologyGroup]admissibleDomains
	// families group the spreads by what they count (spreadFamily).
	families map[string]*spreadFamily
	// bindingNow: the check is of a node that takes the pod now (admissibleNow).
	bindingNow bool
	// karpenter: Karpenter mode (karpenter.go) counts and settles as Karpenter does.
	karpenter bool
	// asKarpenters: the Solve stands for Karpenter's scheduler (solver.asKarpenters): an
	// anti-affinity counts a pod on a node whose requirement on its key is not In a set of
	// values in no domain, as Karpenter records it (difftest disrupt:1005199), and a pod a
	// node takes now keeps Karpenter's spread minimum over every launchable domain. Otherwise
	// (the default's plans) such a pod counts in every domain it may be in, and a pod a node
	// takes now is held to the minimum over the Nodes' domains alone (nodesDomains), as
	// kube-scheduler binds it (difftest plan:1000232; TestMultiNodePricesOpenZones keeps
	// disruption's simulations on Karpenter's).
	asKarpenters bool
	// capCarriers: a pod a hostname spread only selects may not raise a host holding a pod
	// that carries it beyond maxSkew (host_spread_cap.go).
	capCarriers bool
	// widen: a spread narrows a node to every domain that keeps its skew, not only the least
	// populated ones (the default mode's retry on a NodeClaim that cannot launch in those).
	widen bool
	// probe, while a new NodeClaim narrows (Karpenter mode), tells whether it can launch in
	// a domain: Karpenter retries a pod whose spread took a domain its NodeClaim cannot
	// launch in until its random pick lands in one that can.
	probe launchProbe
	// redraw: a tie takes the first domain the probe launches in (the pod's retry), not the
	// first one; missedDraw: an attempt without redraw took a tied domain the probe says
	// cannot launch (add then retries the pod with redraw).
	redraw, missedDraw bool
	// missOdds: the odds that Karpenter's draws miss where this attempt's missed: the
	// product over its missed draws of the share of tied domains that do not launch
	// (launchShare).
	missOdds float64
	missed   []drawKey // the draws missOdds counts
	// redrawOthers: a tie skips the domains the pod's other groups refuse (trySchedule's
	// retry); othersMissed: an attempt without it took a tied domain they refuse.
	redrawOthers, othersMissed bool
	// twins are the Karpenter-mode spread groups a relaxation makes, with twinSet to find
	// them (karpenter_relax.go).
	twins   []*topologyGroup
	twinSet map[*topologyGroup]bool
}

func newTopology(universe *universe, wellKnown requirements.KeySet) *topology {
	return &topology{
		groups:      map[string]*topologyGroup{},
		universe:    universe,
		wellKnown:   wellKnown,
		selectCache: map[string]podSelection{},
		hosts:       hostIDs{},
		claimHosts:  map[int32]bool{},
		termCache:   map[string]*topologyGroup{},
		admCache:    map[*topologyGroup]admissibleDomains{},
		admNowCache: map[*topologyGroup]admissibleDomains{},
		families:    map[string]*spreadFamily{},
		keyIDs:      map[string]int{},
		exists:      map[string]*requirements.Requirement{},
	}
}

// namespaceList is knownNamespaces, read once.
func (t *topology) namespaceList() []*corev1.Namespace {
	if !t.namespacesRead && t.knownNamespaces != nil {
		t.namespaces, t.namespacesRead = t.knownNamespaces(), true
	}
	return t.namespaces
}

func (t *topology) intern(g *topologyGroup, id string) *topologyGroup {
	if have, ok := t.groups[id]; ok {
		return have
	}
	g.counts, g.nodeCounts = map[string]int{}, map[string]int{}
	g.hostname = g.key == v1.LabelHostname
	if !g.hostname {
		g.domains = t.universe.domains(g, t.wellKnown)
		if _, ok := t.keyIDs[g.key]; !ok {
			t.keyIDs[g.key] = len(t.keys)
			t.keys = append(t.keys, g.key)
		}
	}
	t.groups[id] = g
	t.ordered = append(t.ordered, g)
	return g
}

// get is Requirements.Get without normalising the key (topology keys are normalised when
// the groups are built) and without allocating for undefined keys.
func (t *topology) get(rs requirements.Requirements, key string) *requirements.Requirement {
	if r, ok := rs[key]; ok {
		return r
	}
	r, ok := t.exists[key]
	if !ok {
		r = requirements.MustNew(key, requirements.Exists)
		t.exists[key] = r
	}
	return r
}

// selecting returns the non-inverse groups that count pod, and the inverse groups that repel
// it. Results are cached per namespace and label set.
func (t *topology) selecting(pod *corev1.Pod) (selected, blocked []*topologyGroup) {
	if len(t.ordered) == 0 {
		return nil, nil
	}
	var buf [256]byte
	id := appendLabelsID(buf[:0], pod)
	if s, ok := t.selectCache[string(id)]; ok { // no string is allocated to look up
		return s.selected, s.blocked
	}
	for _, g := range t.ordered {
		if !g.selects(pod) {
			continue
		}
		if g.rule.repels() {
			blocked = append(blocked, g)
		} else {
			selected = append(selected, g)
		}
	}
	t.selectCache[string(id)] = podSelection{selected, blocked}
	return selected, blocked
}

// podSelection is what selecting returns for a pod.
type podSelection struct{ selected, blocked []*topologyGroup }

// appendLabelsID appends the pod's namespace and labels, sorted by key, to b: a key for what
// selects the pod (the key list is kept on the stack for up to 8 labels).
func appendLabelsID(b []byte, pod *corev1.Pod) []byte {
	var buf [8]string
	keys := buf[:0]
	for k := range pod.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, pod.Namespace...)
	for _, k := range keys {
		b = append(b, 0)
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, pod.Labels[k]...)
	}
	return b
}

func (t *topology) count(g *topologyGroup, domains ...string) {
	for _, d := range domains {
		g.total++
		if g.hostname {
			t.countHost(g, d)
			continue
		}
		g.counts[d]++
	}
}

// openCount is a pod on a node open on the key of an (anti-)affinity group: anti-affinity
// counts it in every domain the node may still be in, affinity in none (only in its total, so
// no pod starts the group elsewhere as if nothing matched).
type openCount struct {
	g       *topologyGroup
	domains []string
}

// deferral says which spread counts record leaves until a NodeClaim's launch is decided.
type deferral int

const (
	// countNow: a node, whose domains and labels are known.
	countNow deferral = iota
	// deferSelected (the default mode's NodeClaims): a pod a spread selects without carrying
	// it, on a NodeClaim whose domain of the spread's key or whose pass of its node filter is
	// not decided yet, is counted where the NodeClaim's cheapest option launches (trackDeferred,
	// settleDeferred; on the hostname key only once it passes the filter whatever launches);
	// the spread's own pods settle the NodeClaim when they join.
	deferSelected
	// deferKarpenter (Karpenter mode's open NodeClaims): a spread counts the pod only when the
	// NodeClaim's requirements name every label of its node filter and its domain is decided,
	// as Karpenter does; the others wait for the launch.
	deferKarpenter
)

// record counts pod p (form f), placed on a node with requirements nodeReqs and taints, in
// every group that selects it, and records it as owner of its inverse groups. It returns the
// counts made in several domains, the node being open on the group's key, and deferred with
// the spread counts deferral leaves for later.
// With made, the counts it makes in a single domain are appended to *made (madeCount).
func (t *topology) record(p *podData, f *podForm, inverse []*topologyGroup, nodeReqs requirements.Requirements, taints []corev1.Taint, d deferral, deferred []deferredCount, made *[]madeCount) (open []openCount, _ []deferredCount) {
	for _, g := range p.selectedBy {
		if d != countNow && g.rule.countsDecided() && t.defers(g, f, nodeReqs, taints, d) {
			deferred = t.withDeferred(deferred, g)
			continue
		}
		if !g.passesFilter(nodeReqs, taints, t.wellKnown) || t.keyless(g, nodeReqs) || t.matchKeyless(g, nodeReqs) {
			continue
		}
		open = t.recordIn(g, t.get(nodeReqs, g.key), open, made)
	}
	t.pinPending(p, -1)
	for _, g := range inverse {
		if !t.keyless(g, nodeReqs) {
			open = t.recordIn(g, t.get(nodeReqs, g.key), open, made)
		}
	}
	return open, deferred
}

// keyless reports, in the default mode, whether anti-affinity group g's key is one a node
// with requirements nodeReqs never has: not well-known and neither its NodePool's labels nor
// its requirements name it (a NodeClaim never takes a label its NodePool does not define).
// kube-scheduler's anti-affinity counts no pod on such a node and keeps none off it
// (difftest default plan:960634: five app-5 pods with an anti-affinity on "team" belong on
// pool-2's nodes, which have no team label; the default required the one free team).
func (t *topology) keyless(g *topologyGroup, nodeReqs requirements.Requirements) bool {
	return !t.karpenter && !g.hostname && !g.rule.needsKey() && !t.wellKnown[g.key] && !nodeReqs.Has(g.key)
}

// matchKeyless reports, in the default mode, whether affinity group g's key is one a node
// with requirements nodeReqs never has (keyless; or its requirements hold the key DoesNotExist).
// kube-scheduler counts a pod's match only on a node with the term's key: a match on such a
// node counts nowhere, not even in the group's total, which keeps a pod from starting the
// group (difftest default plan:964343: app-2 pods on pool-0's open NodeClaims, which never
// have a team label, kept app-4's team affinity from starting on pool-2 in the first round,
// so app-5 pods took pool-2's cpu limit first).
func (t *topology) matchKeyless(g *topologyGroup, nodeReqs requirements.Requirements) bool {
	if t.karpenter || g.hostname || !g.rule.needsKey() || g.rule.repels() || t.wellKnown[g.key] {
		return false
	}
	r, named := nodeReqs[g.key]
	return !named || r.Operator() == requirements.DoesNotExist
}

// recordIn is recordDomains for record: the open count it makes appended to open, the
// single one to *made when made is not nil.
func (t *topology) recordIn(g *topologyGroup, r *requirements.Requirement, open []openCount, made *[]madeCount) []openCount {
	if made != nil {
		if v := singleValue(r); v != "" {
			*made = append(*made, madeCount{g: g, v: v, unborn: g.unborn != nil})
		}
	}
	if ds := t.recordDomains(g, r); ds != nil {
		open = append(open, openCount{g: g, domains: ds})
	}
	return open
}

// defers reports whether spread g leaves a pod with form f on a NodeClaim with requirements
// nodeReqs and taints uncounted for now.
func (t *topology) defers(g *topologyGroup, f *podForm, nodeReqs requirements.Requirements, taints []corev1.Taint, d deferral) bool {
	if d == deferKarpenter {
		return !g.passesFilter(nodeReqs, taints, nil) || !g.hostname && singleValue(t.get(nodeReqs, g.key)) == ""
	}
	if f.carries(g) {
		return false
	}
	if g.hostname {
		// The NodeClaim is its own domain: only whether it passes the filter may be open.
		_, ok := g.filterDecided(nodeReqs, taints, t.wellKnown)
		return !ok
	}
	return !t.decided(g, nodeReqs, taints)
}

// decided reports whether a NodeClaim with requirements reqs and taints has its domain of g's
// key and its pass of g's node filter decided, whatever option launches.
func (t *topology) decided(g *topologyGroup, reqs requirements.Requirements, taints []corev1.Taint) bool {
	if cur := t.get(reqs, g.key); singleValue(cur) == "" && cur.Operator() != requirements.DoesNotExist {
		return false
	}
	_, ok := g.filterDecided(reqs, taints, t.wellKnown)
	return ok
}

// recordDomains counts a pod on a node whose requirement on g's key is r, and returns the
// domains when it counted it in several.
func (t *topology) recordDomains(g *topologyGroup, r *requirements.Requirement) []string {
	if v := singleValue(r); v != "" {
		t.count(g, v)
		return nil
	}
	return g.rule.countOpen(t, g, r)
}

// settleCount moves an open count to domain v ("": the node has no such label).
func (t *topology) settleCount(oc openCount, v string) { oc.g.rule.settle(t, oc, v) }

// unsettleCount undoes settleCount.
func (t *topology) unsettleCount(oc openCount, v string) { oc.g.rule.unsettle(t, oc, v) }

// countEveryOpen counts a pod in every domain r allows (it may land in any of them: block
// them all until it is known), and returns them.
func (t *topology) countEveryOpen(g *topologyGroup, r *requirements.Requirement) []string {
	ds := g.domainsIn(r)
	t.count(g, ds...)
	return ds
}

// settleEveryOpen moves a count made in every domain of oc to domain v.
func (t *topology) settleEveryOpen(oc openCount, v string) {
	t.uncount(oc.g, oc.domains...)
	if v != "" {
		t.count(oc.g, v)
	}
}

// unsettleEveryOpen undoes settleEveryOpen.
func (t *topology) unsettleEveryOpen(oc openCount, v string) {
	if v != "" {
		t.uncount(oc.g, v)
	}
	t.count(oc.g, oc.domains...)
}

// uncount undoes count (not on the hostname key, which open counts never concern).
func (t *topology) uncount(g *topologyGroup, domains ...string) {
	for _, d := range domains {
		g.total--
		g.counts[d]--
	}
}

// markCollapses notes, per pod, whether it declares a required anti-affinity on a key other
// than the hostname (so requirementsFor must narrow its node's domains) and whether groups
// count it where its NodeClaim may still be open (settling).
func (t *topology) markCollapses(pods []*podData) {
	for _, p := range pods {
		if t.karpenter {
			continue // Karpenter settles nothing before launch (karpenter.go)
		}
		p.settling = p.settles()
		for _, g := range p.inverse {
			if !g.hostname {
				p.collapses = true
			}
		}
	}
}
