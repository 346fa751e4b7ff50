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
		s.res, s.store = cache.res, cache.nodes
	} else {
		s.res, s.store = newResourceIndex(), newNodeStore()
	}
	s.toPlace = snap.Pending()
	if moving := snap.Moving(); len(moving) > 0 {
		s.toPlace = append(append(make([]*corev1.Pod, 0, len(s.toPlace)+len(moving)), s.toPlace...), moving...)
	}
	if err := s.validate(); err != nil {
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
	s.pending = append(append([]*corev1.Pod(nil), s.toPlace...), s.reschedulablePods()...)
	s.buildResourceIndex()
	if placing {
		s.topo = newTopology(s.universe(), s.wellKnown)
	} else {
		s.topo = newTopology(&universe{}, s.wellKnown) // no groups: only the nodes' host IDs
	}
	s.topo.hosts = s.store.hosts
	s.topo.karpenter = s.karpenter
	s.topo.asKarpenters = s.asKarpenters()
	s.volumes = newVolumeIndex(snap)
	s.topo.knownNamespaces = s.knownNamespaces
	pods, err := s.preparePods(placing)
	if err != nil {
		return nil, nil, err
	}
	s.buildTemplateTypes()
	s.buildReservations()
	s.buildExisting()
	s.markStartTypes()
	if placing {
		s.countBoundPods()
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
		// Karpenter relaxes a pod to tolerate PreferNoSchedule when a NodePool it schedules
		// with has such a taint, whether or not the NodePool can launch now (limits, types):
		// the pod may then join an existing node of that NodePool.
		for _, taint := range np.Spec.Template.Spec.Taints {
			if taint.Effect == corev1.TaintEffectPreferNoSchedule {
				s.toleratePreferNoSchedule = true
			}
		}
		t, why, err := s.template(np, s.snap.InstanceTypes()[np.Name])
		if err != nil {
			return err
		}
		s.addOfferingPool(np, t, s.snap.InstanceTypes()[np.Name])
		if t == nil {
			s.templateErrors = append(s.templateErrors, why)
			continue
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
// one fixed layout (the nodes' and their pods' were registered when they were read).
func (s *solver) buildResourceIndex() {
	for _, t := range s.templates {
		if s.cache == nil || !t.origin.resIndexed {
			for _, tt := range t.types {
				s.res.addAll(tt.it.Capacity)
				s.res.addAll(tt.it.Allocatable())
			}
			if s.cache != nil {
				t.origin.resIndexed = true
			}
		}
		for k := range t.nodePool.Spec.Limits {
			s.res.add(k)
		}
	}
	s.pendingRequests = make([]corev1.ResourceList, len(s.pending))
	for i, p := range s.pending {
		if p == nil {
			continue
		}
		if s.cache == nil || !s.cache.indexedPods[p] {
			if rl, ok := singleRequests(p); ok {
				s.res.addAll(rl)
			} else {
				s.res.addAll(s.requestsOf(i))
			}
			if s.cache != nil {
				s.cache.indexedPods[p] = true
			}
		}
	}
	for _, ds := range s.snap.DaemonSets() {
		if ds != nil && (s.cache == nil || !s.cache.indexedDaemonSets[ds]) {
			s.res.addAll(podRequests(&corev1.Pod{Spec: ds.Spec.Template.Spec}))
			if s.cache != nil {
				s.cache.indexedDaemonSets[ds] = true
			}
		}
	}
}

// pendingVec is the requests of pending pod i as a vector.
func (s *solver) pendingVec(i int) vec {
	if rl, ok := singleRequests(s.pending[i]); ok {
		return s.res.singleVec(rl)
	}
	return s.res.vec(s.requestsOf(i))
}

// requestsOf is the requests of pending pod i, computed the first time asked (a pod
// singleRequests accepts has none computed: its container's are read in place).
func (s *solver) requestsOf(i int) corev1.ResourceList {
	if s.pendingRequests[i] == nil {
		s.pendingRequests[i] = podRequests(s.pending[i])
	}
	return s.pendingRequests[i]
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
		// Karpenter counts a DaemonSet whose node selector and required term conflict on
		// every NodePool without the key (isDaemonPodCompatible merges them to DoesNotExist),
		// though no node can run it: Karpenter mode sizes its NodeClaims so.
		sel, terms, _, err := nodeRequirementsForPod(pod, true, true, s.karpenter)
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
	s.reservations, s.held = map[string]int{}, map[string]int{}
	for _, t := range s.templates {
		for _, tt := range t.types {
			tt.it.AddReservationCapacities(s.reservations)
		}
	}
	s.fullReservations = 0
	for _, n := range s.reservations {
		if n <= 0 {
			s.fullReservations++
		}
	}
}

// universe gathers where the domains of every topology key come from: the NodePools (and
// their instance types) that can produce them, and the existing nodes. It reads them on
// first use, key by key (most Solves build no topology group, or groups on a few keys).
func (s *solver) universe() *universe {
	return &universe{templates: s.templates, pools: s.offeringPools, karpenter: s.karpenter, readNodes: func() []universeNode {
		out := make([]universeNode, len(s.recs))
		for i, f := range s.recs {
			out[i] = universeNode{labels: f.labels, reqs: f.reqs, taints: s.countingTaints(i), live: s.nodes[i].Node != nil && !s.isDeleting(i)}
		}
		return out
	}}
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
	for _, f := range s.recs {
		for _, name := range f.namespaces {
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
