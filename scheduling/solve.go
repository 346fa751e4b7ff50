package scheduling

import (
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	corehelpers "k8s.io/component-helpers/scheduling/corev1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// solver is the state of one Solve call.
type solver struct {
	snap *cluster.Snapshot
	// toPlace are the snapshot's pending pods, then its moving pods.
	toPlace   []*corev1.Pod
	opts      Options
	wellKnown requirements.KeySet
	res       *resourceIndex
	facts     map[*cluster.Node]*nodeFacts // nodeFacts' memo: the Cache's, else this Solve's own
	templates []*template
	// templateErrors explain NodePools that can launch nothing.
	templateErrors []Cause
	// offeringPools are the ready NodePools with instance types, usable or not: where
	// Karpenter finds the domains of a topology spread.
	offeringPools            []offeringPool
	toleratePreferNoSchedule bool
	topo                     *topology
	existing                 []*existingNode
	// claims are the NodeClaims opened in this Solve, in creation order; head/tail chain them
	// fewest pods first (Karpenter's stable re-sort by pod count, kept incrementally).
	claims      []*claim
	head, tail  *claim
	lastOfCount map[int]*claim
	hostnameSeq int
	scratch     bitset
	daemons     []*podData
	// pendingRequests are the requests of the pending pods, computed once.
	pendingRequests    []corev1.ResourceList
	filterBuf          []domainFilter
	finalCache         map[finalKey]*finalOptions
	volumes            *volumeIndex
	noDynamicNodePools bool
	cache              *Cache
	// deleting are the names of the Deleting nodes.
	deleting map[string]bool
	// nodes are the snapshot's nodes that have a Node or a NodeClaim.
	nodes []*cluster.Node
	// pending are toPlace plus the reschedulable pods of Deleting nodes.
	pending []*corev1.Pod
	// reservations is the capacity left in each capacity reservation (the smallest
	// ReservationCapacity any instance type reports for it).
	reservations map[string]int
	// limitRefused is set when a NodePool's remaining limits refused a new NodeClaim in the
	// current round (rounds.go).
	limitRefused bool
	// karpenter is Karpenter mode (karpenter.go); launched are the NodeClaims its earlier
	// rounds launched, tried before the open ones as Karpenter tries existing nodes.
	karpenter bool
	launched  []*claim
	round     int // the current round, from 1
	// minValuesRound: a round after minValues refused pods (rounds.go).
	minValuesRound bool
	// groupIDs number the topology groups for the repack's shapes (packing_repack.go).
	groupIDs map[*topologyGroup]int
}

// Solve places the snapshot's pending pods, then its moving pods (cluster.Snapshot.Moving),
// then the reschedulable pods of its Deleting nodes (not DaemonSet or static pods, not
// terminal, without karpenter.sh/do-not-disrupt=true, not kept in place by a
// PodDisruptionBudget of snap.PDBLimits), against the bound pods of the other nodes. Deleting
// nodes take no pods; a node ClosedToMoves takes no pod with spec.nodeName unless it comes
// from a Deleting node. Solve never modifies snap.
//
// It returns an error only for invalid input (a nil snapshot, a nil pod, a NodePool whose
// requirements do not parse, an instance type without a name or with a nil offering, and a
// resource quantity of a NodePool's limits, an instance type, a node, a bound pod or a
// DaemonSet that is negative or beyond an int64 of millicores or units); pods that cannot be
// placed, pending pods the API server would reject included (invalid resources, spread
// constraints, tolerations, names), are reported in Result.PodErrors, never dropped.
func Solve(snap *cluster.Snapshot, opts Options) (*Result, error) { return solve(snap, opts, nil) }

// Solve is scheduling.Solve remembering per-pod and per-node work in c across Solves (a nil
// Cache remembers nothing).
func (c *Cache) Solve(snap *cluster.Snapshot, opts Options) (*Result, error) {
	return solve(snap, opts, c)
}

func solve(snap *cluster.Snapshot, opts Options, cache *Cache) (res *Result, err error) {
	if snap == nil {
		return nil, invalid(opSolve, cluster.InputNil, "Snapshot", "", "", "nil snapshot")
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, cluster.Internal(opSolve, r)
		}
	}()
	s, pods, err := prepare(snap, opts, cache, true)
	if err != nil {
		return nil, err
	}
	if s.noDynamicNodePools {
		errs := map[*podData]podFailure{}
		failure := noNodePoolFailure(s.templateErrors)
		for _, p := range pods {
			errs[p] = failure
		}
		return s.result(pods, errs), nil
	}
	errs := s.run(pods)
	if !s.karpenter && !s.opts.SkipRepack {
		s.repack()
	}
	return s.result(pods, errs), nil
}

// prepare is Solve before its first placement (snap is not nil): the NodePools' templates
// with their instance types and DaemonSet overhead, the pods to place with their forms, the
// existing nodes with the room left on them, and (when placing) the topology groups with the
// bound pods counted. LowerBound prepares without placing: its pods' forms hold only their
// node requirements and tolerations.
func prepare(snap *cluster.Snapshot, opts Options, cache *Cache, placing bool) (*solver, []*podData, error) {
	s := &solver{snap: snap, opts: opts, wellKnown: snap.WellKnownLabels(), cache: cache, lastOfCount: map[int]*claim{}, finalCache: map[finalKey]*finalOptions{},
		karpenter: opts.Packing == PackingKarpenter}
	if cache != nil {
		s.facts = cache.nodeFacts
	}
	s.toPlace = snap.Pending()
	if moving := snap.Moving(); len(moving) > 0 {
		s.toPlace = append(append(make([]*corev1.Pod, 0, len(s.toPlace)+len(moving)), s.toPlace...), moving...)
	}
	if err := validate(snap, cache); err != nil {
		return nil, nil, err
	}
	if s.wellKnown == nil {
		s.wellKnown = v1.WellKnownLabels
	}
	if s.opts.MaxInstanceTypes <= 0 {
		s.opts.MaxInstanceTypes = DefaultMaxInstanceTypes
	}
	if err := s.buildTemplates(); err != nil {
		return nil, nil, err
	}
	s.deleting = map[string]bool{}
	for _, n := range snap.Nodes() {
		if n != nil && (n.Node != nil || n.NodeClaim != nil) {
			s.nodes = append(s.nodes, n)
			if n.Deleting() {
				s.deleting[n.Name()] = true
			}
		}
	}
	s.pending = append(append([]*corev1.Pod(nil), s.toPlace...), reschedulablePods(s.nodes, snap.PDBLimits())...)
	s.buildResourceIndex()
	if placing {
		s.topo = newTopology(s.universe(), s.wellKnown)
	} else {
		s.topo = newTopology(&universe{}, s.wellKnown) // no groups: only the nodes' host IDs
	}
	s.topo.karpenter = s.karpenter
	s.volumes = newVolumeIndex(snap)
	s.topo.namespaces = s.knownNamespaces()
	pods, err := s.preparePods(placing)
	if err != nil {
		return nil, nil, err
	}
	s.buildTemplateTypes()
	s.buildReservations()
	s.buildExisting()
	if placing {
		s.countBoundPods()
		s.countPinned(pods)
	}
	return s, pods, nil
}

func (s *solver) buildTemplates() error {
	var pools []*v1.NodePool
	for _, np := range s.snap.NodePools() {
		if np != nil {
			pools = append(pools, np)
		}
	}
	sort.SliceStable(pools, func(i, j int) bool {
		wi, wj := weightOf(pools[i]), weightOf(pools[j])
		if wi != wj {
			return wi > wj
		}
		return pools[i].Name > pools[j].Name // Karpenter: equal weights by name descending
	})
	s.noDynamicNodePools = true
	for _, np := range pools {
		if np == nil || np.DeletionTimestamp != nil || np.Spec.Replicas != nil {
			continue
		}
		if !s.opts.launches(np) {
			s.templateErrors = append(s.templateErrors, Cause{Code: ReasonNodeClassUnsupported, NodePool: np.Name, Detail: nodeClassOf(np)})
			continue
		}
		if notReady(np) {
			s.templateErrors = append(s.templateErrors, Cause{Code: ReasonNodePoolNotReady, NodePool: np.Name, Detail: notReadyMessage(np)})
			continue
		}
		// As Karpenter, with no usable NodePool at all nothing is planned, not even
		// placements on existing nodes.
		s.noDynamicNodePools = false
		t, why, err := s.template(np, s.snap.InstanceTypes()[np.Name])
		if err != nil {
			return err
		}
		s.addOfferingPool(np, t, s.snap.InstanceTypes()[np.Name])
		if t == nil {
			s.templateErrors = append(s.templateErrors, why)
			continue
		}
		for _, taint := range t.taints {
			if taint.Effect == corev1.TaintEffectPreferNoSchedule {
				s.toleratePreferNoSchedule = true
			}
		}
		s.templates = append(s.templates, t)
	}
	return nil
}

func weightOf(np *v1.NodePool) int32 {
	if np == nil || np.Spec.Weight == nil {
		return 0
	}
	return *np.Spec.Weight
}

// buildResourceIndex registers every resource name that appears anywhere, so vectors have
// one fixed layout.
func (s *solver) buildResourceIndex() {
	s.res = newResourceIndex()
	if s.cache != nil {
		s.res = s.cache.res
	}
	for _, t := range s.templates {
		for _, tt := range t.types {
			it := tt.it
			s.index(it, func() corev1.ResourceList { return it.Capacity })
			s.index(allocatableOf{it}, func() corev1.ResourceList { return it.Allocatable() })
		}
		for k := range t.nodePool.Spec.Limits {
			s.res.add(k)
		}
	}
	s.pendingRequests = make([]corev1.ResourceList, len(s.pending))
	for i, p := range s.pending {
		if p != nil {
			s.pendingRequests[i] = s.podRequests(p)
			s.index(p, func() corev1.ResourceList { return s.pendingRequests[i] })
		}
	}
	for _, n := range s.nodes {
		if n.Node != nil {
			s.index(n.Node, func() corev1.ResourceList { return n.Node.Status.Allocatable })
		}
		if n.NodeClaim != nil {
			s.index(n.NodeClaim, func() corev1.ResourceList { return n.NodeClaim.Status.Allocatable })
		}
		for _, p := range n.Pods {
			if p != nil {
				s.index(p, func() corev1.ResourceList { return s.podRequests(p) })
			}
		}
	}
	for _, ds := range s.snap.DaemonSets() {
		if ds != nil {
			s.res.addAll(podRequests(&corev1.Pod{Spec: ds.Spec.Template.Spec}))
		}
	}
}

// universe gathers where the domains of every topology key come from: the NodePools (and
// their instance types) that can produce them, and the existing nodes.
func (s *solver) universe() *universe {
	keys := map[string]bool{}
	addKeys := func(pod *corev1.Pod) {
		for _, c := range pod.Spec.TopologySpreadConstraints {
			keys[v1.NormalizeLabelKey(c.TopologyKey)] = true
		}
		for _, c := range s.opts.DefaultTopologySpreadConstraints {
			keys[v1.NormalizeLabelKey(c.TopologyKey)] = true
		}
		if a := pod.Spec.Affinity; a != nil {
			if a.PodAffinity != nil {
				for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
					keys[v1.NormalizeLabelKey(t.TopologyKey)] = true
				}
				for _, t := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
					keys[v1.NormalizeLabelKey(t.PodAffinityTerm.TopologyKey)] = true
				}
			}
			if a.PodAntiAffinity != nil {
				for _, t := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
					keys[v1.NormalizeLabelKey(t.TopologyKey)] = true
				}
				for _, t := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
					keys[v1.NormalizeLabelKey(t.PodAffinityTerm.TopologyKey)] = true
				}
			}
		}
	}
	for _, p := range s.pending {
		if p != nil {
			addKeys(p)
		}
	}
	for _, n := range s.nodes {
		for _, p := range n.Pods {
			if p != nil {
				addKeys(p)
			}
		}
	}
	u := &universe{reachable: map[string]map[string][][]corev1.Taint{}, offered: map[string]map[string][][]corev1.Taint{}}
	for key := range keys {
		if key == v1.LabelHostname {
			continue
		}
		u.offered[key] = offeredDomains(key, s.offeringPools)
		from := map[string][][]corev1.Taint{}
		for _, t := range s.templates {
			seen := map[string]bool{}
			tr := t.reqs.Get(key)
			if t.reqs.Has(key) && tr.Operator() == requirements.In {
				for _, v := range tr.Values() {
					seen[v] = true
				}
			}
			for _, tt := range t.types {
				for _, v := range typeValues(tt.it, key, t.reqs) {
					if tr.Has(v) {
						seen[v] = true
					}
				}
			}
			for v := range seen {
				from[v] = append(from[v], t.taints)
			}
		}
		u.reachable[key] = from
	}
	for _, n := range s.nodes {
		f := s.nodeFacts(n)
		taints, _ := s.effectiveTaints(n, f)
		u.nodes = append(u.nodes, universeNode{labels: f.labels, reqs: s.nodeRequirements(n), taints: taints})
	}
	if s.karpenter {
		u.discovered = map[string]map[string]int{}
		for key := range u.offered {
			u.discovered[key] = discoveryRank(key, s.offeringPools, u.nodes)
		}
	}
	return u
}

// nodeLabels are an existing node's labels, or an in-flight NodeClaim's labels plus its
// single-valued requirements.
func nodeLabels(n *cluster.Node) map[string]string { return n.Labels() }

// daemonOrNodeOwner is "DaemonSet" or "Node" when one owns pod (Karpenter provisions for
// neither), else "".
func daemonOrNodeOwner(pod *corev1.Pod) string {
	switch {
	case cluster.IsDaemonSetPod(pod):
		return "DaemonSet"
	case cluster.OwnedBy(pod, "Node"):
		return "Node"
	}
	return ""
}

// preparePods computes per-pod data and, when placing, builds the topology groups of every
// pod; otherwise a pod's form is its node requirements and tolerations alone (nodeForm).
func (s *solver) preparePods(placing bool) ([]*podData, error) {
	pods := make([]*podData, 0, len(s.pending))
	for i, pod := range s.pending {
		p := &podData{pod: pod, key: pod.Namespace + "/" + pod.Name}
		if s.cache == nil {
			p.requests = s.res.vec(s.pendingRequests[i]) // podVec would compute them again
		} else {
			p.requests = s.podVec(pod)
		}
		p.cpu = p.requests[0]
		p.mem = p.requests[1]
		p.ports = hostPortsOf(pod)
		var volumeReason string
		p.volumeAlternatives, p.volumes, volumeReason = s.volumes.podVolumes(pod)
		if kind := daemonOrNodeOwner(pod); kind != "" {
			p.invalid = detailCause(ReasonNotProvisionable, fmt.Sprintf("pod is owned by a %s: Karpenter does not provision for it (DaemonSet overhead is counted on every node instead)", kind))
		} else if hasDRAClaims(pod) {
			p.invalid = detailCause(ReasonNotProvisionable, "pod uses Dynamic Resource Allocation (resource claims), which Karpenter does not provision for")
		} else if volumeReason != "" {
			p.invalid = detailCause(ReasonVolumeUnresolved, volumeReason)
		} else if why := invalidPodSpec(pod, s.pendingRequests[i], i >= len(s.toPlace)); why != "" {
			p.invalid = detailCause(ReasonInvalidPodSpec, why)
		} else if why := refusedRequirements(pod); why != "" {
			p.invalid = detailCause(ReasonNotProvisionable, why)
		} else if !placing {
			if f, err := nodeForm(pod); err != nil {
				p.invalid = detailCause(ReasonInvalidPodSpec, fmt.Sprintf("pod %s: %v", p.key, err))
			} else {
				p.form = f
			}
		} else if f, err := s.formFor(pod); err != nil {
			p.invalid = detailCause(ReasonInvalidPodSpec, fmt.Sprintf("pod %s: %v", p.key, err))
		} else {
			p.form = f
			p.inverse = s.inverseGroups(pod)
		}
		pods = append(pods, p)
	}
	if !placing {
		return pods, nil
	}
	// Inverse anti-affinity groups of bound pods, before selection is computed.
	for _, n := range s.nodes {
		for _, bp := range n.Pods {
			if bp != nil {
				s.inverseGroups(bp)
			}
		}
	}
	for _, p := range pods {
		p.selectedBy, p.blockedBy = s.topo.selecting(p.pod)
	}
	s.topo.markCollapses(pods)
	return pods, nil
}

func (s *solver) inverseGroups(pod *corev1.Pod) []*topologyGroup {
	a := pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return nil
	}
	var out []*topologyGroup
	for i, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		g, err := s.topo.affinityGroup(groupInverse, pod, term, fmt.Sprintf("spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[%d]", i))
		if err == nil {
			out = append(out, g)
		}
	}
	return out
}

// nodeForm is a pod's required node constraints alone: its node selector, its required
// node-affinity terms and its tolerations (no preferences, no topology).
func nodeForm(pod *corev1.Pod) (*podForm, error) {
	sel, terms, _, err := nodeRequirementsForPod(pod, true, false)
	if err != nil {
		return nil, err
	}
	f := &podForm{nodeSelector: sel, requiredTerms: terms, tolerations: pod.Spec.Tolerations}
	f.derive()
	return f, nil
}

// formFor builds a pod's unrelaxed scheduling form.
func (s *solver) formFor(pod *corev1.Pod) (*podForm, error) {
	ignore := s.opts.PreferencePolicy == PreferencesIgnore
	sel, terms, preferred, err := nodeRequirementsForPod(pod, ignore, false)
	if err != nil {
		return nil, err
	}
	f := &podForm{nodeSelector: sel, requiredTerms: terms, preferredNode: preferred, tolerations: pod.Spec.Tolerations}
	strictTerms := []requirements.Requirements{sel}
	if len(terms) > 0 {
		strictTerms = strictTerms[:0]
		for _, t := range terms {
			strictTerms = append(strictTerms, sel.Union(t))
		}
	}
	tscs := pod.Spec.TopologySpreadConstraints
	if len(tscs) == 0 && len(pod.Labels) > 0 {
		// A pod without labels has nothing to select its peers by: no default applies (as
		// kube-scheduler and Karpenter, whose deduced selector is then empty).
		for _, c := range s.opts.DefaultTopologySpreadConstraints {
			c := *c.DeepCopy()
			if c.LabelSelector == nil {
				c.LabelSelector = labelSelectorFor(pod.Labels)
			}
			tscs = append(tscs, c)
		}
	}
	for i, c := range tscs {
		anyway := c.WhenUnsatisfiable == corev1.ScheduleAnyway
		if anyway && ignore {
			continue
		}
		g, err := s.topo.spreadGroup(pod, c, strictTerms, fmt.Sprintf("spec.topologySpreadConstraints[%d]", i))
		if err != nil {
			return nil, err
		}
		f.spread = append(f.spread, g)
		f.scheduleAnyway = append(f.scheduleAnyway, anyway)
	}
	if a := pod.Spec.Affinity; a != nil {
		var err error
		if pa := a.PodAffinity; pa != nil {
			f.requiredAffinity, f.preferredAffinity, err = s.affinityGroups(groupAffinity, pod, pa.RequiredDuringSchedulingIgnoredDuringExecution,
				pa.PreferredDuringSchedulingIgnoredDuringExecution, "spec.affinity.podAffinity", ignore)
			if err != nil {
				return nil, err
			}
		}
		if pa := a.PodAntiAffinity; pa != nil {
			f.requiredAnti, f.preferredAnti, err = s.affinityGroups(groupAntiAffinity, pod, pa.RequiredDuringSchedulingIgnoredDuringExecution,
				pa.PreferredDuringSchedulingIgnoredDuringExecution, "spec.affinity.podAntiAffinity", ignore)
			if err != nil {
				return nil, err
			}
		}
	}
	f.derive()
	return f, nil
}

// affinityGroups interns the groups of a pod's required terms, and of its preferred terms
// heaviest first (none when preferences are ignored).
func (s *solver) affinityGroups(kind groupKind, pod *corev1.Pod, required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, path string, ignore bool) (req, pref []*topologyGroup, err error) {
	for i, term := range required {
		g, err := s.topo.affinityGroup(kind, pod, term, fmt.Sprintf("%s.requiredDuringSchedulingIgnoredDuringExecution[%d]", path, i))
		if err != nil {
			return nil, nil, err
		}
		req = append(req, g)
	}
	if ignore {
		return req, nil, nil
	}
	for _, i := range byWeight(preferred) {
		g, err := s.topo.affinityGroup(kind, pod, preferred[i].PodAffinityTerm, fmt.Sprintf("%s.preferredDuringSchedulingIgnoredDuringExecution[%d].podAffinityTerm", path, i))
		if err != nil {
			return nil, nil, err
		}
		pref = append(pref, g)
	}
	return req, pref, nil
}

func byWeight(terms []corev1.WeightedPodAffinityTerm) []int {
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return terms[idx[a]].Weight > terms[idx[b]].Weight })
	return idx
}

// buildTemplateTypes computes, per template and instance type, allocatable, capacity and
// the overhead of the DaemonSets that would run there; and the NodePool limits.
func (s *solver) buildTemplateTypes() {
	for _, ds := range s.snap.DaemonSets() {
		if ds == nil {
			continue
		}
		pod := &corev1.Pod{Spec: *ds.Spec.Template.Spec.DeepCopy()}
		pod.Namespace, pod.Name, pod.Labels = ds.Namespace, ds.Name, ds.Spec.Template.Labels
		if hasDRAClaims(pod) {
			continue
		}
		p := &podData{pod: pod, key: ds.Namespace + "/" + ds.Name, requests: s.res.vec(podRequests(pod)), ports: hostPortsOf(pod)}
		sel, terms, _, err := nodeRequirementsForPod(pod, true, true)
		if err != nil {
			continue
		}
		p.form = &podForm{nodeSelector: sel, requiredTerms: terms, tolerations: pod.Spec.Tolerations}
		p.form.derive()
		s.daemons = append(s.daemons, p)
	}
	for _, t := range s.templates {
		for _, tt := range t.types {
			tt.capacity, tt.alloc = s.typeVecs(tt.it)
			tt.alloc = tt.alloc.clone() // the DaemonSet overhead is subtracted below
			tt.overhead = make(vec, len(s.res.names))
			for _, d := range s.daemons {
				if daemonRunsOn(d, t, tt.it, s.wellKnown) {
					tt.overhead.add(d.requests)
					tt.daemonPorts = append(tt.daemonPorts, d.ports...)
				}
			}
			tt.alloc.sub(tt.overhead)
		}
		limits := t.nodePool.Spec.Limits
		if len(limits) > 0 {
			t.hasLimits = true
			t.remaining = make(vec, len(s.res.names))
			t.limited = make([]bool, len(s.res.names))
			for name, q := range limits {
				if name == "nodes" {
					t.nodesLeft, t.nodesLimited = q.Value(), true
					continue
				}
				i := s.res.pos[name]
				t.remaining[i] = quantityValue(name, q)
				t.limited[i] = true
			}
		}
	}
	s.scratch = newBitset(0)
}

// daemonRunsOn reports whether a DaemonSet pod would run on a node of template t with type it:
// it tolerates the template taints (PreferNoSchedule always), and one of its node-affinity
// terms is compatible with the template and intersects the type.
func daemonRunsOn(d *podData, t *template, it *cloudprovider.InstanceType, wellKnown requirements.KeySet) bool {
	for _, taint := range t.taints {
		if taint.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !tolerates(d.form.tolerations, []corev1.Taint{taint}) {
			return false
		}
	}
	terms := d.form.requiredTerms
	if len(terms) == 0 {
		terms = []requirements.Requirements{{}}
	}
	for _, term := range terms {
		reqs := d.form.nodeSelector.Union(term)
		if t.daemonReqs.IsCompatible(reqs, wellKnown) && typeIntersects(it.Requirements, reqs) {
			return true
		}
	}
	return false
}

var discardLogger = klog.Logger{}

// tolerates reports whether tolerations tolerate every taint.
func tolerates(tolerations []corev1.Toleration, taints []corev1.Taint) bool {
	for i := range taints {
		if !corehelpers.TolerationsTolerateTaint(discardLogger, tolerations, &taints[i], false) {
			return false
		}
	}
	return true
}

func resourceOne() *resource.Quantity { return resource.NewQuantity(1, resource.DecimalSI) }

// run is Karpenter's queue: pods in first-fit-decreasing order, retried while anything else
// makes progress; then, while NodePool limits refused pods, Karpenter's later rounds.
func (s *solver) run(pods []*podData) map[*podData]podFailure {
	errs := map[*podData]podFailure{}
	queue := make([]*podData, 0, len(pods))
	for _, p := range pods {
		if p.invalid != nil {
			errs[p] = singleFailure(*p.invalid)
			continue
		}
		queue = append(queue, p)
	}
	var undo *roundUndo
	for len(queue) > 0 {
		s.round++
		s.limitRefused = false
		placed := s.runQueue(queue, errs)
		if s.karpenter {
			if placed == 0 {
				break
			}
			queue = s.karpenterRound(pods, errs)
			continue
		}
		s.settleDeferred()
		if placed == 0 && undo != nil {
			undo.apply(s.topo) // a later round that places nothing changes nothing
			break
		}
		queue, undo = s.laterRound(pods, errs)
	}
	s.restoreUnchanged()
	return errs
}

// runQueue places the pods of one round, recording the reason of each that fails in errs,
// and returns how many it placed.
func (s *solver) runQueue(queue []*podData, errs map[*podData]podFailure) (placed int) {
	sort.SliceStable(queue, func(i, j int) bool { return podLess(queue[i], queue[j]) })
	lastLen := make(map[*podData]int, len(queue))
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if n, ok := lastLen[p]; ok && n == len(queue)+1 {
			break // a full turn of the queue placed nothing: the rest keep their reasons
		}
		if failure, ok := s.trySchedule(p); !ok {
			errs[p] = failure
			queue = append(queue, p)
			lastLen[p] = len(queue)
			continue
		}
		delete(errs, p)
		placed++
	}
	return placed
}

func podLess(a, b *podData) bool {
	if a.cpu != b.cpu {
		return a.cpu > b.cpu
	}
	if a.mem != b.mem {
		return a.mem > b.mem
	}
	ta, tb := a.pod.CreationTimestamp, b.pod.CreationTimestamp
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	if a.pod.UID != b.pod.UID {
		return a.pod.UID < b.pod.UID
	}
	return a.key < b.key
}

// trySchedule places p, relaxing its preferences one at a time; it reports success or the
// failure of the last attempt.
func (s *solver) trySchedule(p *podData) (podFailure, bool) {
	var failure podFailure
	for f := p.form; f != nil; f = f.relax(s.toleratePreferNoSchedule) {
		var ok bool
		if failure, ok = s.add(p, f); ok {
			return podFailure{}, true
		}
	}
	return failure, false
}

// noDomainFor computes the domain pre-filters of p (form f) into s.filterBuf and reports
// whether one of its groups admits no domain at all (none of the NodeClaims can take p).
func (s *solver) noDomainFor(p *podData, f *podForm) bool {
	s.filterBuf = s.topo.filters(p, f, s.filterBuf)
	for _, df := range s.filterBuf {
		if len(df.allowed) == 0 {
			return true
		}
	}
	return false
}

// add tries existing nodes, then open NodeClaims, then a new NodeClaim per template.
func (s *solver) add(p *podData, f *podForm) (podFailure, bool) {
	s.topo.beginAttempt()
	for _, n := range s.existing {
		if n.tryAdd(s, p, f) {
			return podFailure{}, true
		}
	}
	if len(s.launched) > 0 && !s.noDomainFor(p, f) {
		for _, c := range s.launched {
			if len(s.filterBuf) > 0 && rejectedByFilters(s.filterBuf, c.values) {
				continue
			}
			if c.tryAdd(s, p, f) {
				return podFailure{}, true
			}
		}
	}
	if !p.claimsExhausted(f, len(s.claims)) && !s.noDomainFor(p, f) {
		if s.opts.Packing != PackingKarpenter {
			// A NodeClaim whose cheapest remaining type still has room for the pod takes it
			// at no extra cost; only then fall back to Karpenter's fewest-pods-first order.
			for c := s.head; c != nil; c = c.next {
				if !c.mayFitHead(p) || !p.requests.fits(c.head) {
					continue
				}
				if len(s.filterBuf) > 0 && rejectedByFilters(s.filterBuf, c.values) {
					continue
				}
				if c.tryAdd(s, p, f) {
					s.bumpCount(c)
					return podFailure{}, true
				}
			}
		}
		for c := s.head; c != nil; c = c.next {
			if len(s.filterBuf) > 0 && rejectedByFilters(s.filterBuf, c.values) {
				continue
			}
			if c.tryAdd(s, p, f) {
				s.bumpCount(c)
				return podFailure{}, true
			}
		}
	}
	if len(s.templates) == 0 {
		// Every usable NodePool was dropped (its requirements left no instance type).
		return noNodePoolFailure(s.templateErrors), false
	}
	var causes []Cause
	for _, t := range s.templates {
		c, why := s.newClaim(t, p, f)
		if c != nil {
			return podFailure{}, true
		}
		causes = append(causes, why)
	}
	return nodePoolsFailure(causes), false
}

// result assembles the output in a deterministic order.
func (s *solver) result(pods []*podData, errs map[*podData]podFailure) *Result {
	r := &Result{}
	for _, c := range s.claims {
		r.NewNodeClaims = append(r.NewNodeClaims, s.finalize(c, errs))
	}
	// a claim whose pods all failed finalisation is dropped
	kept := r.NewNodeClaims[:0]
	for _, c := range r.NewNodeClaims {
		if c != nil {
			kept = append(kept, c)
		}
	}
	r.NewNodeClaims = kept
	placed := 0
	for _, n := range s.existing {
		placed += len(n.placed)
	}
	if placed > 0 {
		r.Bindings = make([]cluster.Move, 0, placed)
	}
	for _, n := range s.existing {
		for _, p := range n.placed {
			r.Bindings = append(r.Bindings, cluster.Move{Pod: p.pod, From: p.pod.Spec.NodeName, To: n.name, Claim: -1})
		}
	}
	sort.SliceStable(r.Bindings, func(i, j int) bool { return r.Bindings[i].To < r.Bindings[j].To })
	for _, p := range pods {
		if failure, ok := errs[p]; ok {
			r.PodErrors = append(r.PodErrors, newPodError(p.pod, failure, s.nodeCauses(p)))
		}
	}
	// By namespace and name, not input order: the same pods in another order give the
	// same result.
	slices.SortStableFunc(r.PodErrors, func(a, b PodError) int { return cluster.ComparePods(a.Pod, b.Pod) })
	return r
}

func (s *solver) buildReservations() {
	s.reservations = map[string]int{}
	for _, t := range s.templates {
		for _, tt := range t.types {
			for _, o := range tt.it.Offerings {
				if offeringValue(o, v1.CapacityTypeLabelKey) != v1.CapacityTypeReserved {
					continue
				}
				id := offeringValue(o, cloudprovider.ReservationIDLabel)
				if have, ok := s.reservations[id]; !ok || o.ReservationCapacity < have {
					s.reservations[id] = o.ReservationCapacity
				}
			}
		}
	}
}

// notReady reports a NodePool whose Ready condition is explicitly not True (a snapshot without
// status is taken as ready).
// notReadyMessage is the Ready condition's message, or "".
func notReadyMessage(np *v1.NodePool) string {
	for _, c := range np.Status.Conditions {
		if c.Type == "Ready" {
			return c.Message
		}
	}
	return ""
}

func notReady(np *v1.NodePool) bool {
	for _, c := range np.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status != "True"
		}
	}
	return false
}

// refusedRequirements are pod requirements Karpenter refuses to provision for: requiring
// that no NodePool owns the node, or a capacity type that does not exist.
func refusedRequirements(pod *corev1.Pod) string {
	reqs, err := requirements.ForPodStrict(pod)
	if err != nil {
		return ""
	}
	if r, ok := reqs[v1.NodePoolLabelKey]; ok && r.Operator() == requirements.DoesNotExist {
		return "pod requires " + v1.NodePoolLabelKey + " DoesNotExist: it is not for Karpenter to provision"
	}
	if r, ok := reqs[v1.CapacityTypeLabelKey]; ok && r.Operator() == requirements.In {
		known := false
		for _, v := range v1.WellKnownValuesForRequirements[v1.CapacityTypeLabelKey] {
			known = known || r.Has(v)
		}
		if !known {
			return fmt.Sprintf("pod requires %s %s: none of on-demand, spot or reserved", v1.CapacityTypeLabelKey, r)
		}
	}
	return ""
}

// knownNamespaces are the snapshot's Namespaces plus every namespace a pod lives in (with the
// kubernetes.io/metadata.name label the API server gives every namespace), sorted by name.
func (s *solver) knownNamespaces() []*corev1.Namespace {
	byName := map[string]*corev1.Namespace{}
	for _, ns := range s.snap.Namespaces() {
		if ns != nil {
			byName[ns.Name] = ns
		}
	}
	add := func(name string) {
		if _, ok := byName[name]; !ok {
			ns := &corev1.Namespace{}
			ns.Name = name
			ns.Labels = map[string]string{corev1.LabelMetadataName: name}
			byName[name] = ns
		}
	}
	for _, p := range s.pending {
		if p != nil {
			add(p.Namespace)
		}
	}
	for _, n := range s.snap.Nodes() {
		if n == nil {
			continue
		}
		for _, name := range s.nodeFacts(n).namespaces {
			add(name)
		}
	}
	out := make([]*corev1.Namespace, 0, len(byName))
	for _, ns := range byName {
		out = append(out, ns)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
