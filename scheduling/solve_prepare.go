package scheduling

import (
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

// Solve's first stage, before any placement: the NodePools' templates with their instance
// types, DaemonSet overhead and limits, the resource index, capacity reservations and where
// topology domains come from.

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
