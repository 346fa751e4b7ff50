package verify

import (
	"fmt"
	"math"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// spreadConstraints are the pod's own constraints, or, when it has none, the cluster
// defaults selecting the pod's own labels.
func (w *world) spreadConstraints(p *corev1.Pod) []corev1.TopologySpreadConstraint {
	if len(p.Spec.TopologySpreadConstraints) > 0 || len(p.Labels) == 0 {
		return p.Spec.TopologySpreadConstraints
	}
	var out []corev1.TopologySpreadConstraint
	for _, c := range w.opts.DefaultTopologySpreadConstraints {
		c = *c.DeepCopy()
		if c.LabelSelector == nil {
			c.LabelSelector = &metav1.LabelSelector{MatchLabels: p.Labels}
		}
		out = append(out, c)
	}
	return out
}

// spreadFilter says which nodes a constraint of pod counts (nodeAffinityPolicy default
// Honor, nodeTaintsPolicy default Ignore).
type spreadFilter struct {
	pod                        *corev1.Pod
	honorAffinity, honorTaints bool
}

func newSpreadFilter(p *corev1.Pod, c corev1.TopologySpreadConstraint) spreadFilter {
	return spreadFilter{pod: p,
		honorAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
		honorTaints:   c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor}
}

func (f spreadFilter) passes(l *location) bool {
	if f.honorAffinity && !matchesNode(f.pod, l.k8s) {
		return false
	}
	if f.honorTaints {
		if _, bad := untolerated(f.pod.Spec.Tolerations, l.taints); bad {
			return false
		}
	}
	return true
}

// signature identifies the filter by what it reads of the pod.
func (f spreadFilter) signature() string {
	s := ""
	if f.honorAffinity {
		var na *corev1.NodeSelector
		if a := f.pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
			na = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
		s += fmt.Sprintf("A%v%v", f.pod.Spec.NodeSelector, na)
	}
	if f.honorTaints {
		s += fmt.Sprintf("T%v", f.pod.Spec.Tolerations)
	}
	return s
}

// spreadSelector is the constraint's selector plus its matchLabelKeys.
func spreadSelector(p *corev1.Pod, c corev1.TopologySpreadConstraint) labels.Selector {
	sel := selector(c.LabelSelector)
	for _, k := range c.MatchLabelKeys {
		if v, ok := p.Labels[k]; ok {
			if r, err := labels.NewRequirement(k, selection.Equals, []string{v}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	return sel
}

// checkSpread checks every DoNotSchedule constraint of every placed pod against the final
// placement, the way kube-scheduler could bind the placed pods one at a time. For one
// constraint (namespace, key, selector with matchLabelKeys, node filter) and one domain,
// the pods it counts there are the running ones (bound, not terminating) and the placed
// ones; a placed pod carrying the constraint may find at most minimum + maxSkew − (1 if
// it selects itself) of them before it, where the minimum is over the eligible domains
// (see eligibleDomains; for kubernetes.io/hostname the nodes of the final placement; 0 with
// fewer than minDomains of them) in the final placement without the pod. Binding the pods with
// the smallest allowance first (those that do not select themselves, and so add nothing,
// before them; the placed pods that do not carry the constraint last), each finds the
// running pods plus the members bound before it that select themselves. The plan must
// also hold once every pod is bound, whatever the order: kube-scheduler checks a spread
// only when it binds a pod that carries it, so pods the spread only selects may bind first;
// a member's domain may then hold at most maxSkew more of the pods the spread selects than
// the least populated domain of the nodes the filter admits. Over keys other than the
// hostname, members that all bind now in their domain (bindsNow) pass both checks when the
// domain holds over the Nodes' domains alone (holdsNow): kube-scheduler sees no other then.
func (w *world) checkSpread() []Violation {
	type member struct {
		pod              *corev1.Pod
		loc              *location
		allow, low, self int
		karpAllow        int
		maxSkew          int32
		// minDomains is the member's own (0: none): members with other minDomains share
		// the group.
		minDomains int32
	}
	type group struct {
		ns, key string
		sel     labels.Selector
		filter  spreadFilter
		counts  map[string]int
		domains map[string][]member
	}
	var out []Violation
	groups := map[string]*group{}
	var order []string
	domains := map[string]map[string]bool{}
	for _, p := range w.placed {
		l := w.where[p]
		for _, c := range w.spreadConstraints(p) {
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				continue
			}
			k := c.TopologyKey
			f := newSpreadFilter(p, c)
			d, ok := l.labels[k]
			if !ok {
				v := l.violation(TopologySpread)
				v.Pod, v.Key, v.Got, v.Limit = key(p), k, -1, int64(c.MaxSkew)
				out = append(out, v)
				continue
			}
			if !f.passes(l) {
				continue // reported as a node selector or taint violation
			}
			sel := spreadSelector(p, c)
			sig := p.Namespace + "\x00" + k + "\x00" + sel.String() + "\x00" + f.signature()
			g := groups[sig]
			if g == nil {
				g = &group{ns: p.Namespace, key: k, sel: sel, filter: f, counts: w.countSelected(p.Namespace, k, sel, f),
					domains: map[string][]member{}}
				groups[sig] = g
				order = append(order, sig)
			}
			self := 0
			if sel.Matches(labels.Set(p.Labels)) {
				self = 1
			}
			others := func(dom string) int {
				if dom == d {
					return g.counts[dom] - self
				}
				return g.counts[dom]
			}
			low := 0
			if v1.NormalizeLabelKey(k) == v1.LabelHostname {
				// Every node the filter admits is a domain, those of the final placement
				// among them: their least count, as kube-scheduler finds it once the
				// plan's nodes are there (0 with fewer than minDomains of them).
				low = math.MaxInt
				for dom := range g.counts {
					low = min(low, others(dom))
				}
				if low == math.MaxInt || (c.MinDomains != nil && len(g.counts) < int(*c.MinDomains)) {
					low = 0
				}
			} else {
				dsig := k + "\x00" + f.signature()
				doms, done := domains[dsig]
				if !done {
					doms = w.eligibleDomains(k, f)
					domains[dsig] = doms
				}
				low = math.MaxInt
				n := 0
				for dom := range doms {
					n++
					low = min(low, others(dom))
				}
				for dom := range g.counts {
					if !doms[dom] {
						n++
						low = min(low, others(dom))
					}
				}
				if low == math.MaxInt || (c.MinDomains != nil && n < int(*c.MinDomains)) {
					low = 0
				}
			}
			// Karpenter takes the minimum only over the domains the pod's own requirements
			// allow, even under nodeAffinityPolicy Ignore.
			karpLow := low
			if !f.honorAffinity && v1.NormalizeLabelKey(k) != v1.LabelHostname {
				n := 0
				karpLow = math.MaxInt
				for _, dom := range sortedKeysOf(g.counts) {
					if allowsDomain(p, k, dom) {
						n++
						karpLow = min(karpLow, others(dom))
					}
				}
				if karpLow == math.MaxInt || (c.MinDomains != nil && n < int(*c.MinDomains)) {
					karpLow = 0
				}
			}
			g.domains[d] = append(g.domains[d], member{pod: p, loc: l, allow: low + int(c.MaxSkew) - self, low: low, self: self,
				maxSkew: c.MaxSkew, karpAllow: karpLow + int(c.MaxSkew) - self, minDomains: derefMinDomains(c.MinDomains)})
		}
	}
	for _, sig := range order {
		g := groups[sig]
		// The placed pods the group counts, per domain: one pass over them per group (not
		// per domain, which made a hostname spread over 5,000 pods quadratic).
		placed := map[string]int{}
		for _, q := range w.placed {
			if q.Namespace != g.ns || isTerminating(q) {
				continue
			}
			lq := w.where[q]
			if d, ok := lq.labels[g.key]; ok && g.domains[d] != nil && g.filter.passes(lq) && g.sel.Matches(labels.Set(q.Labels)) {
				placed[d]++
			}
		}
		// A member's domain holds its pods as launched, whatever order they bind in: it may
		// hold at most the least populated domain's count plus maxSkew of the pods the spread
		// selects, over the domains of the nodes the filter admits (zero with fewer than
		// minDomains of them; hostnames: every node, as the cap models them).
		hostname := v1.NormalizeLabelKey(g.key) == v1.LabelHostname
		least, liveN := math.MaxInt, 0
		if hostname {
			for _, n := range g.counts {
				least = min(least, n)
			}
		} else {
			// Over other keys, the domains of the nodes that stay (a deleting node's goes
			// with it).
			live := w.liveDomains(g.key, g.filter)
			for d := range live {
				least = min(least, g.counts[d])
			}
			liveN = len(live)
		}
		// A member with minDomains above the domains' number is held to a minimum of zero.
		leastFor := func(minDomains int32) int {
			if !hostname && liveN < int(minDomains) {
				return 0
			}
			return least
		}
		for _, d := range sortedKeysOf(g.domains) {
			ms := g.domains[d]
			running := g.counts[d] - placed[d]
			// Members that do not select themselves add nothing: bind them first.
			sort.SliceStable(ms, func(i, j int) bool {
				if ms[i].self != ms[j].self {
					return ms[i].self < ms[j].self
				}
				return ms[i].allow < ms[j].allow
			})
			// Members all on nodes that take pods now bind before the NodeClaims' pods
			// (holdsNow); one elsewhere binds after them and must find them there.
			allNow := true
			for _, m := range ms {
				allNow = allNow && m.loc.bindsNow
			}
			// They bind before any NodeClaim launches, so the domains they see are the Nodes'
			// alone: when it holds over those (holdsNow), a domain only a NodePool could
			// launch a node in holds no minimum at zero for them (difftest default
			// plan:1000232).
			counted := 0
			for _, m := range ms {
				before := running + counted
				counted += m.self
				skew := g.counts[d] - leastFor(m.minDomains)
				bindTime, asLaunched := before > m.allow, skew > int(m.maxSkew)
				if (bindTime || asLaunched) && allNow && !hostname && w.holdsNow(g.ns, g.key, g.sel, g.filter, d, m.minDomains, m.maxSkew) {
					continue
				}
				if bindTime {
					code := TopologySpread
					if before <= m.karpAllow {
						code = TopologySpreadAffinityIgnored
					}
					v := m.loc.violation(code)
					v.Pod, v.Key = key(m.pod), g.key
					v.Got, v.Limit = int64(before+m.self-m.low), int64(m.maxSkew)
					out = append(out, v)
				} else if asLaunched {
					v := m.loc.violation(TopologySpreadAsLaunched)
					v.Pod, v.Key = key(m.pod), g.key
					v.Got, v.Limit = int64(skew), int64(m.maxSkew)
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// sortedKeysOf lists a map's keys in order.
func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// derefMinDomains is a constraint's minDomains (0: none).
func derefMinDomains(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// liveDomains are the values of key on the nodes of the final placement that f admits and
// that are not being deleted.
func (w *world) liveDomains(k string, f spreadFilter) map[string]bool {
	out := map[string]bool{}
	for _, l := range w.locs {
		if d, ok := l.labels[k]; ok && !l.marked && f.passes(l) {
			out[d] = true
		}
	}
	return out
}

// holdsNow reports whether a spread member placed in domain d on a node that takes pods now
// (bindsNow) keeps its skew among the pods that can be there when it binds: kube-scheduler
// binds it before any pod of a NodeClaim not launched yet or of a node not initialized, so
// those count only the pods already bound and the pods placed on such nodes, in any order,
// over the domains of the Nodes that stay (zero with fewer than minDomains of them).
func (w *world) holdsNow(ns, k string, sel labels.Selector, f spreadFilter, d string, minDomains, maxSkew int32) bool {
	counts := map[string]int{}
	nodes := map[string]bool{}
	for _, l := range w.locs {
		dom, ok := l.labels[k]
		if !ok || !f.passes(l) {
			continue
		}
		if l.claim < 0 && l.node != nil && l.node.Node != nil && !l.marked {
			nodes[dom] = true
		}
		pods := l.bound
		if l.bindsNow {
			pods = l.pods()
		}
		for _, q := range pods {
			if q.Namespace == ns && !isTerminating(q) && sel.Matches(labels.Set(q.Labels)) {
				counts[dom]++
			}
		}
	}
	least := math.MaxInt
	for dom := range nodes {
		least = min(least, counts[dom])
	}
	if least == math.MaxInt || len(nodes) < int(minDomains) {
		least = 0
	}
	return counts[d]-least <= int(maxSkew)
}

// countSelected counts, per domain of key, the pods sel selects in namespace ns on the
// nodes f admits.
func (w *world) countSelected(ns, k string, sel labels.Selector, f spreadFilter) map[string]int {
	out := map[string]int{}
	for _, l := range w.locs {
		d, ok := l.labels[k]
		if !ok || !f.passes(l) {
			continue
		}
		if _, seen := out[d]; !seen {
			out[d] = 0
		}
		for _, q := range l.pods() {
			if q.Namespace == ns && !isTerminating(q) && sel.Matches(labels.Set(q.Labels)) {
				out[d]++
			}
		}
	}
	return out
}

// eligibleDomains are the values of key a node for the pod could have: those of the
// nodes f admits, and those a usable NodePool could launch with one of its instance types
// its limits leave room for (its nodes as launched counted: a NodePool whose limits its
// nodes have used up launches no node anywhere) in one of their available offerings,
// where NodePool, template labels, type and offering
// together are compatible with one of the pod's required node-affinity terms (when the
// filter honours affinity) and the pod tolerates the NodePool's taints (when it honours
// taints).
func (w *world) eligibleDomains(k string, f spreadFilter) map[string]bool {
	out := map[string]bool{}
	for _, l := range w.locs {
		if d, ok := l.labels[k]; ok && f.passes(l) {
			out[d] = true
		}
	}
	terms := []requirements.Requirements{{}}
	if f.honorAffinity {
		terms = podTerms(f.pod)
	}
	nk := v1.NormalizeLabelKey(k)
	for _, np := range w.snap.NodePools() {
		if !usablePool(np) {
			continue
		}
		if f.honorTaints {
			if _, bad := untolerated(f.pod.Spec.Tolerations, np.Spec.Template.Spec.Taints); bad {
				continue
			}
		}
		base, err := requirements.FromNodeSelectorRequirements(np.Spec.Template.Spec.Requirements...)
		if err != nil {
			continue
		}
		base.Add(requirementValues(requirements.FromLabels(np.Spec.Template.ObjectMeta.Labels))...)
		if w.opts.MinValuesPolicy != scheduling.MinValuesBestEffort && shortOfMinValues(base, w.snap.InstanceTypes()[np.Name]) {
			continue
		}
		var used corev1.ResourceList
		if len(np.Spec.Limits) > 0 {
			used, _ = w.poolUsage(np.Name)
		}
		roomy := func(it *cloudprovider.InstanceType) bool { return used == nil || roomFor(np, used, it) }
		eachLaunch(base, w.snap.InstanceTypes()[np.Name], roomy, func(r requirements.Requirements) {
			for _, t := range terms {
				if !r.IsCompatible(t, nil) {
					continue
				}
				rt := r.Copy()
				rt.Add(requirementValues(t)...)
				if !rt.Has(nk) || rt.Get(nk).Operator() != requirements.In {
					continue
				}
				for _, v := range rt.Get(nk).Values() {
					out[v] = true
				}
			}
		})
	}
	return out
}

// eachLaunch calls f with the requirements of each node a NodePool with requirements base
// can launch: base with those of an instance type of types it admits and keep accepts, and
// of one of the type's available offerings compatible with them.
func eachLaunch(base requirements.Requirements, types cloudprovider.InstanceTypes, keep func(*cloudprovider.InstanceType) bool, f func(requirements.Requirements)) {
	for _, it := range types {
		if it == nil || !base.HasIntersection(it.Requirements) || !keep(it) {
			continue
		}
		withType := base.Copy()
		withType.Add(requirementValues(it.Requirements)...)
		for _, o := range it.Offerings {
			if o == nil || !o.Available || !withType.HasIntersection(o.Requirements) {
				continue
			}
			r := withType.Copy()
			r.Add(requirementValues(o.Requirements)...)
			f(r)
		}
	}
}

// shortOfMinValues reports whether a requirement of base (a NodePool's) with minValues finds
// fewer values than that among the instance types base admits, in their available
// compatible offerings: under the Strict minValues policy such a NodePool launches no node
// (difftest default plan:971084: zone a, offered only by a NodePool whose family admits two
// types where its instance-type minValues is 3, is no domain).
func shortOfMinValues(base requirements.Requirements, types cloudprovider.InstanceTypes) bool {
	if !base.HasMinValues() {
		return false
	}
	seen := map[string]map[string]bool{}
	every := func(*cloudprovider.InstanceType) bool { return true }
	eachLaunch(base, types, every, func(r requirements.Requirements) {
		for _, k := range base.Keys() {
			if base.Get(k).MinValues() == 0 || !r.Has(k) || r.Get(k).Operator() != requirements.In {
				continue
			}
			if seen[k] == nil {
				seen[k] = map[string]bool{}
			}
			for _, v := range r.Get(k).Values() {
				seen[k][v] = true
			}
		}
	})
	for _, k := range base.Keys() {
		if n := base.Get(k).MinValues(); n > 0 && len(seen[k]) < n {
			return true
		}
	}
	return false
}

// podTerms are the pod's nodeSelector ANDed with each of its required node-affinity terms
// (ORed); unparsable terms are left out.
func podTerms(p *corev1.Pod) []requirements.Requirements {
	base := requirements.FromLabels(p.Spec.NodeSelector)
	var req *corev1.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		req = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if req == nil || len(req.NodeSelectorTerms) == 0 {
		return []requirements.Requirements{base}
	}
	var out []requirements.Requirements
	for _, t := range req.NodeSelectorTerms {
		if len(t.MatchFields) > 0 {
			continue
		}
		r, err := requirements.FromCoreNodeSelectorRequirements(t.MatchExpressions...)
		if err != nil {
			continue
		}
		merged := base.Copy()
		merged.Add(requirementValues(r)...)
		out = append(out, merged)
	}
	return out
}

// allowsDomain: one of the pod's required node-affinity terms (with its nodeSelector)
// admits value dom for key.
func allowsDomain(p *corev1.Pod, k, dom string) bool {
	nk := v1.NormalizeLabelKey(k)
	for _, t := range podTerms(p) {
		if !t.Has(nk) || t.Get(nk).Has(dom) {
			return true
		}
	}
	return false
}
