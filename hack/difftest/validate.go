package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/manifest"
)

// A violation is a hard constraint a plan breaks. The checker is deliberately simple; a plan is
// called invalid only for a kind of violation that Karpenter's own plan of the input does not
// show, so the checker's approximations (domain universes, skew on pre-existing imbalance)
// cancel out.
type violation struct {
	Kind, Pod, Detail string
}

func (v violation) String() string { return fmt.Sprintf("%s %s: %s", v.Kind, v.Pod, v.Detail) }

// violationKinds lists the kinds in np that are not in or, sorted. A reservation launched past
// its capacity is never excused: the oracle's fake cloud provider does not count a
// reservation's launches across Karpenter's rounds, so its plan breaks one where Karpenter's
// would find it used up, and nodeplan's promise is to count them (difftest plan:1009228:
// eight launches of a one-instance reservation hid behind the oracle's seven of another).
func violationKinds(np, or []violation) []string {
	seen := map[string]bool{}
	for _, v := range or {
		seen[v.Kind] = v.Kind != "reservation"
	}
	var out []string
	for _, v := range np {
		if !seen[v.Kind] {
			seen[v.Kind] = true
			out = append(out, v.Kind)
		}
	}
	sort.Strings(out)
	return out
}

type catalogFile struct {
	InstanceTypes []struct {
		Name      string              `json:"name"`
		Labels    map[string]string   `json:"labels"`
		Capacity  corev1.ResourceList `json:"capacity"`
		Overhead  corev1.ResourceList `json:"overhead"`
		Offerings []struct {
			Zone                string `json:"zone"`
			Available           *bool  `json:"available"`
			CapacityType        string `json:"capacityType"`
			ReservationCapacity int    `json:"reservationCapacity"`
		} `json:"offerings"`
	} `json:"instanceTypes"`
}

// world is an input as the checker sees it.
type world struct {
	set     *manifest.Set
	types   map[string]catalogType
	nodes   map[string]bool
	pending map[string]*corev1.Pod
	zones   []string
	// reserved is the capacity of the reserved offerings per instance type and zone.
	reserved map[[2]string]int
}

type catalogType struct {
	labels      map[string]string
	allocatable corev1.ResourceList
	cpuCapacity resource.Quantity
	capacity    corev1.ResourceList
	offers      [][2]string // available offerings: zone, capacity type
}

func loadWorld(dir string) (*world, error) {
	set, err := manifest.Load(filepath.Join(dir, "input.yaml"))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "instance-types.yaml"))
	if err != nil {
		return nil, err
	}
	var cf catalogFile
	if err := yaml.Unmarshal(data, &cf); err != nil {
		return nil, err
	}
	w := &world{set: set, types: map[string]catalogType{}, nodes: map[string]bool{}, pending: map[string]*corev1.Pod{}, reserved: map[[2]string]int{}}
	zones := map[string]bool{}
	for _, t := range cf.InstanceTypes {
		alloc := t.Capacity.DeepCopy()
		for k, q := range t.Overhead {
			a := alloc[k]
			a.Sub(q)
			alloc[k] = a
		}
		ct := catalogType{labels: t.Labels, allocatable: alloc, cpuCapacity: t.Capacity[corev1.ResourceCPU], capacity: t.Capacity}
		for _, o := range t.Offerings {
			// As the catalog file reads it (aws/catalog): a reserved offering is available by
			// default only while its reservation has capacity left (plan:980218: zone c's
			// empty reservation is no domain a reserved node can be in).
			avail := o.CapacityType != v1.CapacityTypeReserved || o.ReservationCapacity > 0
			if o.Available != nil {
				avail = *o.Available
			}
			if avail {
				ct.offers = append(ct.offers, [2]string{o.Zone, o.CapacityType})
				zones[o.Zone] = true
				if o.CapacityType == v1.CapacityTypeReserved {
					w.reserved[[2]string{t.Name, o.Zone}] += o.ReservationCapacity
				}
			}
		}
		w.types[t.Name] = ct
	}
	for z := range zones {
		w.zones = append(w.zones, z)
	}
	for _, n := range set.Nodes {
		w.nodes[n.Name] = true
	}
	for _, p := range set.Pods {
		if p.Spec.NodeName == "" {
			w.pending[key(p)] = p
		}
	}
	return w, nil
}

func key(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// holder is a node or claim pods land on.
type holder struct {
	name        string
	pool        string
	labels      map[string]string
	taints      []corev1.Taint
	allocatable corev1.ResourceList
	cpuCapacity resource.Quantity
	capacity    corev1.ResourceList
	pods        []*corev1.Pod
	isNew       bool
	newPods     map[string]bool
}

// validatePlan lists the hard constraints the plan o breaks.
func (w *world) validatePlan(o *planOutput) []violation {
	var out []violation
	add := func(kind, pod, format string, args ...any) {
		out = append(out, violation{kind, pod, fmt.Sprintf(format, args...)})
	}
	var holders []*holder
	byNode := map[string]*holder{}
	for _, n := range w.set.Nodes {
		h := &holder{name: n.Name, pool: n.Labels[v1.NodePoolLabelKey], labels: n.Labels, taints: n.Spec.Taints,
			allocatable: n.Status.Allocatable, cpuCapacity: n.Status.Capacity[corev1.ResourceCPU], capacity: n.Status.Capacity, newPods: map[string]bool{}}
		holders = append(holders, h)
		byNode[n.Name] = h
	}
	for _, p := range w.set.Pods {
		if h := byNode[p.Spec.NodeName]; h != nil {
			h.pods = append(h.pods, p)
		}
	}
	seen := map[string]int{}
	place := func(h *holder, pod string) {
		seen[pod]++
		p := w.pending[pod]
		if p == nil {
			add("unknown-pod", pod, "not a pending pod of the input")
			return
		}
		h.pods = append(h.pods, p)
		h.newPods[pod] = true
	}
	for _, en := range o.ExistingNodes {
		h := byNode[en.Name]
		if h == nil { // in-flight claim: its labels are not checked
			h = &holder{name: en.Name, labels: map[string]string{corev1.LabelHostname: en.Name}, newPods: map[string]bool{}}
			holders = append(holders, h)
			byNode[en.Name] = h
		}
		for _, p := range en.Pods {
			place(h, p)
		}
	}
	for i, c := range o.NodeClaims {
		t := w.types[c.InstanceType]
		l := map[string]string{}
		for k, v := range t.labels {
			l[k] = v
		}
		for k, v := range c.Labels {
			l[k] = v
		}
		l[corev1.LabelInstanceTypeStable] = c.InstanceType
		l[corev1.LabelTopologyZone] = c.Zone
		l[v1.CapacityTypeLabelKey] = c.CapacityType
		l[v1.NodePoolLabelKey] = c.NodePool
		l[corev1.LabelHostname] = fmt.Sprintf("new-claim-%d", i)
		h := &holder{name: fmt.Sprintf("claim %d (%s %s)", i, c.InstanceType, c.Zone), pool: c.NodePool, labels: l,
			allocatable: t.allocatable, isNew: true, newPods: map[string]bool{}}
		h.cpuCapacity, h.capacity = t.cpuCapacity, t.capacity
		for _, tt := range c.Taints {
			h.taints = append(h.taints, corev1.Taint{Key: tt.Key, Value: tt.Value, Effect: corev1.TaintEffect(tt.Effect)})
		}
		holders = append(holders, h)
		for _, p := range c.Pods {
			place(h, p)
		}
	}
	for _, e := range o.PodErrors {
		seen[e.Pod]++
	}
	for pod := range w.pending {
		if seen[pod] != 1 {
			add("accounting", pod, "appears %d times", seen[pod])
		}
	}

	for _, h := range holders {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: h.name, Labels: h.labels}}
		for _, p := range h.pods {
			if !h.newPods[key(p)] {
				continue
			}
			if ok, _ := nodeaffinity.GetRequiredNodeAffinity(p).Match(node); !ok && h.labels[v1.NodePoolLabelKey] != "" {
				add("node-affinity", key(p), "on %s", h.name)
			}
			if t, ok := untolerated(w.withoutStartupTaints(h), p.Spec.Tolerations); ok {
				add("taint", key(p), "%s does not tolerate %s", h.name, t.Key)
			}
			w.checkVolumes(p, node, add)
		}
		if h.allocatable != nil && len(h.newPods) > 0 {
			checkResources(h, w.daemonOverhead(h), add)
		}
		checkHostPorts(h, add)
	}
	w.checkPodAffinity(holders, add)
	w.checkSpread(holders, add)
	w.checkLimits(holders, add)
	w.checkReservations(holders, add)
	w.checkClaimLabels(o, add)
	return out
}

func untolerated(taints []corev1.Taint, tols []corev1.Toleration) (corev1.Taint, bool) {
	for _, t := range taints {
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		ok := false
		for _, tol := range tols {
			if tolerates(tol, t) {
				ok = true
				break
			}
		}
		if !ok {
			return t, true
		}
	}
	return corev1.Taint{}, false
}

// withoutStartupTaints are h's taints but the startup taints of its NodePool while h is not
// initialized. Such a taint breaks nothing: it goes when the node initializes, and Karpenter
// plans pods there despite it (with the node's NodeClaim; nodeplan reads a Node given without
// one the same way, on purpose: README's list of differences).
func (w *world) withoutStartupTaints(h *holder) []corev1.Taint {
	out := make([]corev1.Taint, 0, len(h.taints))
	for _, t := range h.taints {
		if !w.isStartupTaint(h, t) {
			out = append(out, t)
		}
	}
	return out
}

// isStartupTaint says whether t is a startup taint of h's NodePool and h is not initialized.
func (w *world) isStartupTaint(h *holder, t corev1.Taint) bool {
	if h.isNew || h.labels[v1.NodeInitializedLabelKey] == "true" {
		return false
	}
	for _, np := range w.set.NodePools {
		if np.Name != h.pool {
			continue
		}
		for _, st := range np.Spec.Template.Spec.StartupTaints {
			if st.Key == t.Key && st.Effect == t.Effect {
				return true
			}
		}
	}
	return false
}

func tolerates(tol corev1.Toleration, t corev1.Taint) bool {
	if tol.Effect != "" && tol.Effect != t.Effect {
		return false
	}
	if tol.Key != "" && tol.Key != t.Key {
		return false
	}
	if tol.Key == "" && tol.Operator != corev1.TolerationOpExists {
		return false
	}
	return tol.Operator == corev1.TolerationOpExists || tol.Value == t.Value
}

func (w *world) checkVolumes(p *corev1.Pod, node *corev1.Node, add func(string, string, string, ...any)) {
	for _, vol := range p.Spec.Volumes {
		if vol.PersistentVolumeClaim == nil {
			continue
		}
		for _, pvc := range w.set.PersistentVolumeClaims {
			if pvc.Namespace != p.Namespace || pvc.Name != vol.PersistentVolumeClaim.ClaimName || pvc.Spec.VolumeName == "" {
				continue
			}
			for _, pv := range w.set.PersistentVolumes {
				if pv.Name != pvc.Spec.VolumeName || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
					continue
				}
				if ok, _ := nodeaffinity.NewLazyErrorNodeSelector(pv.Spec.NodeAffinity.Required).Match(node); !ok {
					add("volume-zone", key(p), "PV %s not reachable from %s", pv.Name, node.Name)
				}
			}
		}
	}
}

func podRequests(p *corev1.Pod) corev1.ResourceList {
	sum := corev1.ResourceList{}
	for _, c := range p.Spec.Containers {
		for k, q := range c.Resources.Requests {
			s := sum[k]
			s.Add(q)
			sum[k] = s
		}
	}
	for _, c := range p.Spec.InitContainers {
		for k, q := range c.Resources.Requests {
			if s, ok := sum[k]; !ok || q.Cmp(s) > 0 {
				sum[k] = q
			}
		}
	}
	return sum
}

// daemonOverhead is what the DaemonSets that would run on a new claim request.
func (w *world) daemonOverhead(h *holder) corev1.ResourceList {
	sum := corev1.ResourceList{}
	if !h.isNew {
		return sum
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: h.labels}}
	for _, ds := range w.set.DaemonSets {
		p := &corev1.Pod{Spec: ds.Spec.Template.Spec}
		if ok, _ := nodeaffinity.GetRequiredNodeAffinity(p).Match(node); !ok {
			continue
		}
		if _, bad := untolerated(h.taints, p.Spec.Tolerations); bad {
			continue
		}
		for k, q := range podRequests(p) {
			s := sum[k]
			s.Add(q)
			sum[k] = s
		}
	}
	return sum
}

func checkResources(h *holder, overhead corev1.ResourceList, add func(string, string, string, ...any)) {
	used := overhead.DeepCopy()
	for _, p := range h.pods {
		for k, q := range podRequests(p) {
			s := used[k]
			s.Add(q)
			used[k] = s
		}
	}
	for _, k := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		a, ok := h.allocatable[k]
		if u := used[k]; ok && u.Cmp(a) > 0 {
			add("resources", h.name, "%s %s > allocatable %s", k, u.String(), a.String())
		}
	}
	if a, ok := h.allocatable[corev1.ResourcePods]; ok && int64(len(h.pods)) > a.Value() {
		add("resources", h.name, "%d pods > %d", len(h.pods), a.Value())
	}
}

func checkHostPorts(h *holder, add func(string, string, string, ...any)) {
	used := map[string]string{}
	for _, p := range h.pods {
		for _, c := range p.Spec.Containers {
			for _, port := range c.Ports {
				if port.HostPort == 0 {
					continue
				}
				k := fmt.Sprintf("%s/%d", port.Protocol, port.HostPort)
				if other, ok := used[k]; ok && (h.newPods[key(p)] || h.newPods[other]) {
					add("host-port", key(p), "port %s also used by %s on %s", k, other, h.name)
				}
				used[k] = key(p)
			}
		}
	}
}

// checkPodAffinity checks required pod affinity and anti-affinity (both directions).
func (w *world) checkPodAffinity(holders []*holder, add func(string, string, string, ...any)) {
	type placed struct {
		p *corev1.Pod
		h *holder
	}
	var all []placed
	for _, h := range holders {
		for _, p := range h.pods {
			all = append(all, placed{p, h})
		}
	}
	matches := func(term corev1.PodAffinityTerm, owner, q *corev1.Pod) bool {
		if !w.termNamespace(term, owner, q.Namespace) {
			return false
		}
		sel, err := withLabelKeys(term.LabelSelector, owner, term.MatchLabelKeys, term.MismatchLabelKeys)
		return err == nil && sel.Matches(labels.Set(q.Labels))
	}
	// boundMatch reports whether a pod bound before the plan (not one it places) matches
	// a's term and passes where.
	boundMatch := func(a placed, term corev1.PodAffinityTerm, where func(placed) bool) bool {
		for _, b := range all {
			if b.p != a.p && !b.h.newPods[key(b.p)] && matches(term, a.p, b.p) && where(b) {
				return true
			}
		}
		return false
	}
	// placedSeed reports whether a pod the plan places in domain d of term's key matches a's
	// term and carries no alike term of its own.
	placedSeed := func(a placed, term corev1.PodAffinityTerm, d string) bool {
		for _, b := range all {
			if b.p != a.p && b.h.newPods[key(b.p)] && b.h.labels[term.TopologyKey] == d && matches(term, a.p, b.p) &&
				!carriesAlike(b.p, term) {
				return true
			}
		}
		return false
	}
	for _, a := range all {
		aff := a.p.Spec.Affinity
		if aff == nil {
			continue
		}
		if aff.PodAntiAffinity != nil {
			for _, term := range aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				d, ok := a.h.labels[term.TopologyKey]
				if !ok {
					continue
				}
				for _, b := range all {
					if b.p == a.p || !(a.h.newPods[key(a.p)] || b.h.newPods[key(b.p)]) {
						continue
					}
					if b.h.labels[term.TopologyKey] == d && matches(term, a.p, b.p) {
						add("anti-affinity-"+shortKey(term.TopologyKey), key(a.p), "shares %s=%s with %s", shortKey(term.TopologyKey), d, key(b.p))
					}
				}
			}
		}
		if aff.PodAffinity != nil && a.h.newPods[key(a.p)] {
			for _, term := range aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				d, ok := a.h.labels[term.TopologyKey]
				if !ok {
					add("affinity-"+shortKey(term.TopologyKey), key(a.p), "node without %s", shortKey(term.TopologyKey))
					continue
				}
				near, elsewhere := false, false
				for _, b := range all {
					// kube-scheduler counts a matching pod only on a node with the key.
					if _, keyed := b.h.labels[term.TopologyKey]; b.p == a.p || !keyed || !matches(term, a.p, b.p) {
						continue
					}
					if b.h.labels[term.TopologyKey] == d {
						near = true
					} else {
						elsewhere = true
					}
				}
				self := matches(term, a.p, a.p)
				if !near && (!self || elsewhere) {
					add("affinity-"+shortKey(term.TopologyKey), key(a.p), "no matching pod in %s=%s", shortKey(term.TopologyKey), d)
					continue
				}
				// kube-scheduler binds the pods one at a time: the first new pod of a domain
				// without a bound match binds only while no pod matches anywhere (its own
				// term's exception), so a match bound elsewhere before the plan keeps it, and
				// the rest of its group, pending (README: Karpenter launches such nodes).
				// A matching pod the plan places there that carries no such term seeds the
				// domain too: it can be bound first (plan:971646: app-0 pods, without pod
				// affinity, on zone-b nodes ahead of app-2's).
				if self && !boundMatch(a, term, func(b placed) bool { return b.h.labels[term.TopologyKey] == d }) &&
					!placedSeed(a, term, d) &&
					boundMatch(a, term, func(b placed) bool { _, keyed := b.h.labels[term.TopologyKey]; return keyed }) {
					add("affinity-bootstrap-"+shortKey(term.TopologyKey), key(a.p), "no bound matching pod in %s=%s, one elsewhere", shortKey(term.TopologyKey), d)
				}
			}
		}
	}
}

// carriesAlike reports whether p has a required pod affinity term with term's key, selector
// and namespaces.
func carriesAlike(p *corev1.Pod, term corev1.PodAffinityTerm) bool {
	if p.Spec.Affinity == nil || p.Spec.Affinity.PodAffinity == nil {
		return false
	}
	for _, t := range p.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if t.TopologyKey == term.TopologyKey && equality.Semantic.DeepEqual(t.LabelSelector, term.LabelSelector) &&
			slices.Equal(t.Namespaces, term.Namespaces) && equality.Semantic.DeepEqual(t.NamespaceSelector, term.NamespaceSelector) {
			return true
		}
	}
	return false
}

// termNamespace reports whether an affinity term of owner selects pods of namespace ns: the
// owner's own when the term names none and has no namespaceSelector, else the namespaces it
// lists and those whose labels its namespaceSelector matches (an empty one: every namespace).
func (w *world) termNamespace(term corev1.PodAffinityTerm, owner *corev1.Pod, ns string) bool {
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		return ns == owner.Namespace
	}
	if slices.Contains(term.Namespaces, ns) {
		return true
	}
	if term.NamespaceSelector == nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
	if err != nil {
		return false
	}
	if sel.Empty() {
		return true
	}
	for _, n := range w.set.Namespaces {
		if n.Name == ns {
			return sel.Matches(labels.Set(n.Labels))
		}
	}
	return false
}

// checkSpread checks DoNotSchedule topology spread over the domains pods landed in plus, for
// zone and capacity type, every value the catalog offers that the pod's node selector allows.
// spreadCounts says whether kube-scheduler counts node g for p's spread tsc: its node
// affinity (unless nodeAffinityPolicy is Ignore) and, with nodeTaintsPolicy Honor, its taints
// as launched: a startup taint of an uninitialized node is gone by the time kube-scheduler
// binds the plan's pods there, and from then on the node counts.
func (w *world) spreadCounts(tsc corev1.TopologySpreadConstraint, p *corev1.Pod, g *holder) bool {
	if tsc.NodeAffinityPolicy == nil || *tsc.NodeAffinityPolicy != corev1.NodeInclusionPolicyIgnore {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: g.labels}}
		if ok, _ := nodeaffinity.GetRequiredNodeAffinity(p).Match(node); !ok {
			return false
		}
	}
	if tsc.NodeTaintsPolicy != nil && *tsc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		if _, untol := untolerated(w.withoutStartupTaints(g), p.Spec.Tolerations); untol {
			return false
		}
	}
	return true
}

// withLabelKeys is selector sel of owner's spread or affinity term as kube-scheduler reads
// it: each of the match keys the owner has a label for adds "key in (owner's value)", each
// mismatch key "key notin (owner's value)" (plan:980142: a capacity-type spread with
// matchLabelKeys [version] counted a bound pod of the old version).
func withLabelKeys(sel *metav1.LabelSelector, owner *corev1.Pod, match, mismatch []string) (labels.Selector, error) {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, err
	}
	for i, keys := range [][]string{match, mismatch} {
		op := selection.In
		if i == 1 {
			op = selection.NotIn
		}
		for _, k := range keys {
			v, ok := owner.Labels[k]
			if !ok {
				continue
			}
			r, err := labels.NewRequirement(k, op, []string{v})
			if err != nil {
				return nil, err
			}
			s = s.Add(*r)
		}
	}
	return s, nil
}

// spreadID names a DoNotSchedule spread by namespace, key, selector and skew.
func spreadID(p *corev1.Pod, tsc corev1.TopologySpreadConstraint, sel labels.Selector) string {
	return fmt.Sprintf("%s|%s|%s|%d", p.Namespace, tsc.TopologyKey, sel.String(), tsc.MaxSkew)
}

// carries says whether q has the DoNotSchedule spread id.
func carries(q *corev1.Pod, id string) bool {
	for _, tsc := range q.Spec.TopologySpreadConstraints {
		if tsc.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		if sel, err := withLabelKeys(tsc.LabelSelector, q, tsc.MatchLabelKeys, nil); err == nil && spreadID(q, tsc, sel) == id {
			return true
		}
	}
	return false
}

func (w *world) checkSpread(holders []*holder, add func(string, string, string, ...any)) {
	done := map[string]bool{}
	for _, h := range holders {
		for _, p := range h.pods {
			if !h.newPods[key(p)] {
				continue
			}
			for _, tsc := range p.Spec.TopologySpreadConstraints {
				if tsc.WhenUnsatisfiable != corev1.DoNotSchedule {
					continue
				}
				sel, err := withLabelKeys(tsc.LabelSelector, p, tsc.MatchLabelKeys, nil)
				if err != nil {
					continue
				}
				id := spreadID(p, tsc, sel)
				if done[id] {
					continue
				}
				done[id] = true
				counts := map[string]int{}
				placedIn := map[string]bool{} // domains the plan put a pod carrying the spread in
				later := map[string]bool{}    // those of them with a carrier on a node that binds it later
				if tsc.TopologyKey != corev1.LabelHostname {
					honorTaints := tsc.NodeTaintsPolicy != nil && *tsc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor
					for _, d := range w.domains(tsc.TopologyKey, p, holders, honorTaints) {
						counts[d] = 0
					}
				}
				for _, g := range holders {
					if !w.spreadCounts(tsc, p, g) {
						continue
					}
					d, ok := g.labels[tsc.TopologyKey]
					if !ok {
						continue
					}
					counts[d] += 0 // every node the spread counts gives a domain, empty or not
					for _, q := range g.pods {
						if g.newPods[key(q)] && carries(q, id) {
							placedIn[d] = true
							later[d] = later[d] || !bindsNow(g)
						}
						if q.Namespace == p.Namespace && sel.Matches(labels.Set(q.Labels)) {
							counts[d]++
						}
					}
				}
				if len(counts) == 0 {
					continue
				}
				// The carriers on nodes that take pods now bind before any NodeClaim launches:
				// their domains hold when the spread holds over the Nodes' domains then
				// (holdsNow); the others' domains hold as launched (as verify.Solve judges a
				// domain whose members all bind now: difftest plan:1009228).
				skew := carriersSkew(counts, placedIn, tsc.MinDomains)
				if skew > int(tsc.MaxSkew) && w.holdsNow(tsc, p, sel, id, holders) {
					skew = carriersSkew(counts, later, tsc.MinDomains)
				}
				if skew > int(tsc.MaxSkew) {
					// A constraint selecting other pods only binds when its own pods are placed;
					// the final counts can exceed it legitimately, so it is its own kind.
					kind := "spread-"
					if !sel.Matches(labels.Set(p.Labels)) {
						kind = "spread-other-"
					}
					add(kind+shortKey(tsc.TopologyKey), key(p), "skew %d > %d: %v", skew, tsc.MaxSkew, counts)
				}
			}
		}
	}
}

// bindsNow says whether node g takes pods now: an existing, initialized node (or one no
// NodePool manages). The pods the plan puts there bind before those of its NodeClaims.
func bindsNow(g *holder) bool {
	_, managed := g.labels["karpenter.sh/nodepool"]
	return !g.isNew && (!managed || g.labels["karpenter.sh/initialized"] == "true")
}

// holdsNow says whether spread id keeps its skew in the domains of its carriers the plan places
// on nodes that take pods now, as those pods bind, before any NodeClaim launches: over the
// existing nodes' domains, counting the pods bound there and those the plan puts on nodes
// that take them now (difftest disrupt:1002946). The carriers that bind later are judged as
// launched.
func (w *world) holdsNow(tsc corev1.TopologySpreadConstraint, p *corev1.Pod, sel labels.Selector, id string, holders []*holder) bool {
	if tsc.TopologyKey == corev1.LabelHostname {
		return false
	}
	counts, placedIn := map[string]int{}, map[string]bool{}
	for _, g := range holders {
		if g.isNew || !w.spreadCounts(tsc, p, g) {
			continue
		}
		d, ok := g.labels[tsc.TopologyKey]
		if !ok {
			continue
		}
		counts[d] += 0
		now := bindsNow(g)
		for _, q := range g.pods {
			if !g.newPods[key(q)] {
				if q.Namespace == p.Namespace && sel.Matches(labels.Set(q.Labels)) {
					counts[d]++
				}
				continue
			}
			if carries(q, id) && now {
				placedIn[d] = true
			}
			if now && q.Namespace == p.Namespace && sel.Matches(labels.Set(q.Labels)) {
				counts[d]++
			}
		}
	}
	return carriersSkew(counts, placedIn, tsc.MinDomains) <= int(tsc.MaxSkew)
}

// carriersSkew is the most a domain holding a carrier (placedIn) holds above the least
// populated domain of counts (zero with fewer domains than minDomains). kube-scheduler checks
// the skew of the domain it binds a carrying pod in; a domain only other pods fill never is.
func carriersSkew(counts map[string]int, placedIn map[string]bool, minDomains *int32) int {
	lo, hi := 1<<30, 0
	for d, c := range counts {
		lo = min(lo, c)
		if placedIn[d] {
			hi = max(hi, c)
		}
	}
	if minDomains != nil && len(counts) < int(*minDomains) {
		lo = 0 // fewer domains than minDomains: the global minimum is zero
	}
	return hi - lo
}

// domains are the values of key (zone or capacity type) that the input's catalog offers and
// the pod's required node affinity allows for that key, within some NodePool that can still
// launch a node there: an instance type its requirements admit offered there, for which its
// limits (the plan's nodes counted, holders) leave room (plan:960280: zone c, offered only by
// types of the wrong family or arch for one NodePool and by a NodePool at its nodes limit, is
// no domain kube-scheduler can see; plan:984082: on-demand, offered only by a NodePool whose
// node had used up its cpu limit). Under nodeTaintsPolicy Honor (honorTaints) a NodePool
// with a NoSchedule or NoExecute taint p does not tolerate launches no node the spread
// counts, so it gives no domain (plan:1000022).
func (w *world) domains(k string, p *corev1.Pod, holders []*holder, honorTaints bool) []string {
	vals := map[string]bool{}
	for _, np := range w.set.NodePools {
		used := w.poolUsed(np, holders)
		if used != nil && used.nodesFull || w.shortOfMinValues(np) {
			continue
		}
		if _, bad := untolerated(np.Spec.Template.Spec.Taints, p.Spec.Tolerations); honorTaints && bad {
			continue // under nodeTaintsPolicy Honor no node of this NodePool counts (plan:1009211)
		}
		allowed := func(v string) bool {
			for _, r := range np.Spec.Template.Spec.Requirements {
				if r.Key == k && r.Operator == corev1.NodeSelectorOpIn {
					for _, x := range r.Values {
						if x == v {
							return true
						}
					}
					return false
				}
			}
			return true
		}
		for _, v := range w.offeredValues(k) {
			if !allowed(v) {
				continue
			}
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{k: v}}}
			if ok, _ := onlyKey(p, k).Match(node); ok && w.launchableFor(p, np, k, v, used) {
				vals[v] = true
			}
		}
	}
	var out []string
	for v := range vals {
		out = append(out, v)
	}
	return out
}

// poolSelector matches the nodes NodePool np's requirements admit.
func poolSelector(np *v1.NodePool) *nodeaffinity.LazyErrorNodeSelector {
	term := corev1.NodeSelectorTerm{}
	for _, r := range np.Spec.Template.Spec.Requirements {
		term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
	}
	return nodeaffinity.NewLazyErrorNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}})
}

// offerLabels are the labels of a node NodePool np launches on offering o of type t.
func offerLabels(np *v1.NodePool, name string, t catalogType, o [2]string) map[string]string {
	labels := map[string]string{corev1.LabelTopologyZone: o[0], v1.CapacityTypeLabelKey: o[1], corev1.LabelInstanceTypeStable: name,
		v1.NodePoolLabelKey: np.Name}
	for lk, lv := range t.labels {
		labels[lk] = lv
	}
	for lk, lv := range np.Spec.Template.ObjectMeta.Labels {
		labels[lk] = lv
	}
	return labels
}

// launchableFor reports whether some catalog type has an available offering with value v
// of key k (zone or capacity type) on which a node would match p's whole required node
// affinity (its nodeSelector and any one of its terms): kube-scheduler counts only nodes
// that match, so a value no such node can have is no domain of p's spread (plan:880056: terms
// "zone c" or "cpu > 4", and the catalog's only types in zones a and b have 2 vCPUs).
func (w *world) launchableFor(p *corev1.Pod, np *v1.NodePool, k, v string, used *poolUse) bool {
	affinity := nodeaffinity.GetRequiredNodeAffinity(p)
	pool := poolSelector(np)
	for name, t := range w.types {
		if !used.roomFor(t.capacity) {
			continue
		}
		for _, o := range t.offers {
			if k == corev1.LabelTopologyZone && o[0] != v || k == v1.CapacityTypeLabelKey && o[1] != v {
				continue
			}
			labels := offerLabels(np, name, t, o)
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}
			if inPool, _ := pool.Match(node); !inPool {
				continue
			}
			if ok, _ := affinity.Match(node); ok {
				return true
			}
		}
	}
	return false
}

// shortOfMinValues reports whether a requirement of NodePool np with minValues finds fewer
// values than that among the catalog's types its requirements admit, with an available
// offering: the NodePool launches no node at all, as a NodeClaim's options fall short
// (plan:971084: zone a, offered only by a NodePool whose family admits two types where its
// instance-type minValues is 3, is no domain kube-scheduler can see).
func (w *world) shortOfMinValues(np *v1.NodePool) bool {
	want := map[string]int{}
	for _, r := range np.Spec.Template.Spec.Requirements {
		if r.MinValues != nil && *r.MinValues > 0 {
			want[r.Key] = max(want[r.Key], *r.MinValues)
		}
	}
	if len(want) == 0 {
		return false
	}
	pool := poolSelector(np)
	seen := map[string]map[string]bool{}
	for name, t := range w.types {
		for _, o := range t.offers {
			labels := offerLabels(np, name, t, o)
			if ok, _ := pool.Match(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: labels}}); !ok {
				continue
			}
			for k := range want {
				if v, ok := labels[k]; ok {
					if seen[k] == nil {
						seen[k] = map[string]bool{}
					}
					seen[k][v] = true
				}
			}
		}
	}
	for k, n := range want {
		if len(seen[k]) < n {
			return true
		}
	}
	return false
}

// poolUse is what a NodePool's nodes, the plan's counted, take of its limits (nil: it has
// none).
type poolUse struct {
	limits    corev1.ResourceList
	used      corev1.ResourceList
	nodesFull bool // as many nodes as its nodes limit allows
}

// poolUsed sums the capacity of NodePool np's nodes, the plan's counted (holders).
func (w *world) poolUsed(np *v1.NodePool, holders []*holder) *poolUse {
	if len(np.Spec.Limits) == 0 {
		return nil
	}
	u := &poolUse{limits: corev1.ResourceList(np.Spec.Limits), used: corev1.ResourceList{}}
	n := int64(0)
	for _, h := range holders {
		if h.pool != np.Name {
			continue
		}
		n++
		for r, q := range h.capacity {
			sum := u.used[r]
			sum.Add(q)
			u.used[r] = sum
		}
	}
	if lim, ok := u.limits[corev1.ResourceName("nodes")]; ok && n >= lim.Value() {
		u.nodesFull = true
	}
	return u
}

// roomFor reports whether the limits leave room for one more node of capacity c.
func (u *poolUse) roomFor(c corev1.ResourceList) bool {
	if u == nil {
		return true
	}
	if u.nodesFull {
		return false
	}
	for r, lim := range u.limits {
		if r == "nodes" {
			continue
		}
		sum := u.used[r].DeepCopy()
		if q, ok := c[r]; ok {
			sum.Add(q)
		}
		if sum.Cmp(lim) > 0 {
			return false
		}
	}
	return true
}

// onlyKey is the pod's required node affinity restricted to terms on key k.
func onlyKey(p *corev1.Pod, k string) *nodeaffinity.LazyErrorNodeSelector {
	ns := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
	if v, ok := p.Spec.NodeSelector[k]; ok {
		ns.NodeSelectorTerms[0].MatchExpressions = append(ns.NodeSelectorTerms[0].MatchExpressions,
			corev1.NodeSelectorRequirement{Key: k, Operator: corev1.NodeSelectorOpIn, Values: []string{v}})
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(terms) == 1 {
			for _, e := range terms[0].MatchExpressions {
				if e.Key == k {
					ns.NodeSelectorTerms[0].MatchExpressions = append(ns.NodeSelectorTerms[0].MatchExpressions, e)
				}
			}
		}
	}
	if len(ns.NodeSelectorTerms[0].MatchExpressions) == 0 {
		ns.NodeSelectorTerms[0].MatchExpressions = []corev1.NodeSelectorRequirement{{Key: k, Operator: corev1.NodeSelectorOpExists}}
	}
	return nodeaffinity.NewLazyErrorNodeSelector(ns)
}

func (w *world) offeredValues(k string) []string {
	switch k {
	case corev1.LabelTopologyZone:
		return w.zones
	case v1.CapacityTypeLabelKey:
		return []string{"on-demand", "spot"}
	}
	return nil
}

// checkLimits: a NodePool the plan launches in stays within its cpu and nodes limits, its
// nodes counted with the new NodeClaims. A NodePool whose existing nodes alone exceed a limit
// and that launches nothing breaks nothing of the plan's (and would otherwise hide another
// NodePool's excess from the comparison, which is by kind).
func (w *world) checkLimits(holders []*holder, add func(string, string, string, ...any)) {
	for _, np := range w.set.NodePools {
		cpu := resource.Quantity{}
		nodes, launched := 0, false
		for _, h := range holders {
			if h.pool == np.Name {
				cpu.Add(h.cpuCapacity)
				nodes++
				launched = launched || h.isNew
			}
		}
		if !launched {
			continue
		}
		if l, ok := corev1.ResourceList(np.Spec.Limits)[corev1.ResourceCPU]; ok && cpu.Cmp(l) > 0 {
			add("limits-cpu", np.Name, "%s > %s", cpu.String(), l.String())
		}
		if l, ok := corev1.ResourceList(np.Spec.Limits)["nodes"]; ok && int64(nodes) > l.Value() {
			add("limits-nodes", np.Name, "%d > %d", nodes, l.Value())
		}
	}
}

// checkReservations: no more new NodeClaims launch on the reserved offerings of an instance
// type in a zone than their reservations hold (the launches past it fail or fall back to
// another capacity type; the oracle's fake cloud provider does not count a reservation's
// launches across Karpenter's rounds).
func (w *world) checkReservations(holders []*holder, add func(string, string, string, ...any)) {
	launched := map[[2]string]int{}
	for _, h := range holders {
		if h.isNew && h.labels[v1.CapacityTypeLabelKey] == v1.CapacityTypeReserved {
			launched[[2]string{h.labels[corev1.LabelInstanceTypeStable], h.labels[corev1.LabelTopologyZone]}]++
		}
	}
	for k, n := range launched {
		if n > w.reserved[k] {
			add("reservation", k[0]+" "+k[1], "%d reserved launches > capacity %d", n, w.reserved[k])
		}
	}
}

// checkClaimLabels: a new NodeClaim carries a label whose key is neither well-known (a
// Kubernetes or Karpenter key, or a catalog label) nor defined by its NodePool (template labels,
// requirements). Karpenter refuses such a pod requirement for that NodePool; a plan that labels
// the node anyway (to satisfy a pod affinity or spread on that key) makes a domain up.
func (w *world) checkClaimLabels(o *planOutput, add func(string, string, string, ...any)) {
	defined := map[string]map[string]bool{}
	for _, np := range w.set.NodePools {
		keys := map[string]bool{}
		for k := range np.Spec.Template.ObjectMeta.Labels {
			keys[k] = true
		}
		for _, r := range np.Spec.Template.Spec.Requirements {
			keys[r.Key] = true
		}
		defined[np.Name] = keys
	}
	wellKnown := func(k string) bool {
		for _, t := range w.types {
			if _, ok := t.labels[k]; ok {
				return true
			}
		}
		prefix, _, found := strings.Cut(k, "/")
		// Kubernetes' keys, Karpenter's, and the NodeClass label (the oracle's karpenter.test.sh/testnodeclass).
		return found && (strings.HasSuffix(prefix, "kubernetes.io") || strings.Contains(prefix, "karpenter"))
	}
	for i, c := range o.NodeClaims {
		for k, v := range c.Labels {
			if !wellKnown(k) && !defined[c.NodePool][k] {
				for _, p := range c.Pods {
					add("undefined-label", p, "claim %d (NodePool %s) labelled %s=%s, which the NodePool does not define", i, c.NodePool, k, v)
				}
			}
		}
	}
}

func shortKey(k string) string {
	switch k {
	case corev1.LabelHostname:
		return "host"
	case corev1.LabelTopologyZone:
		return "zone"
	case v1.CapacityTypeLabelKey:
		return "capacity-type"
	}
	return k
}
