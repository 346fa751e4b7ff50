package verify

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// namespaceLabels are the labels of every namespace the input knows (listed ones, and
// the namespaces of its pods with their kubernetes.io/metadata.name label).
func namespaceLabels(nss []*corev1.Namespace, pods []*corev1.Pod, nodes []*cluster.Node) map[string]map[string]string {
	out := map[string]map[string]string{}
	add := func(ns string) {
		if _, ok := out[ns]; !ok {
			out[ns] = map[string]string{corev1.LabelMetadataName: ns}
		}
	}
	for _, ns := range nss {
		if ns == nil {
			continue
		}
		m := map[string]string{corev1.LabelMetadataName: ns.Name}
		for k, v := range ns.Labels {
			m[k] = v
		}
		out[ns.Name] = m
	}
	for _, p := range pods {
		if p != nil {
			add(p.Namespace)
		}
	}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		for _, p := range n.Pods {
			if p != nil {
				add(p.Namespace)
			}
		}
	}
	return out
}

// affinityTerm is a required pod (anti-)affinity term of owner, resolved.
type affinityTerm struct {
	owner *corev1.Pod
	key   string
	sel   labels.Selector
	ns    map[string]bool // nil: every namespace
}

func (w *world) resolveTerm(owner *corev1.Pod, t corev1.PodAffinityTerm) affinityTerm {
	sel := selector(t.LabelSelector)
	for _, k := range t.MatchLabelKeys {
		if v, ok := owner.Labels[k]; ok {
			if r, err := labels.NewRequirement(k, selection.In, []string{v}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	for _, k := range t.MismatchLabelKeys {
		if v, ok := owner.Labels[k]; ok {
			if r, err := labels.NewRequirement(k, selection.NotIn, []string{v}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	at := affinityTerm{owner: owner, key: t.TopologyKey, sel: sel}
	if t.NamespaceSelector != nil && len(t.NamespaceSelector.MatchLabels) == 0 && len(t.NamespaceSelector.MatchExpressions) == 0 {
		return at // an empty namespace selector selects every namespace
	}
	at.ns = map[string]bool{}
	for _, n := range t.Namespaces {
		at.ns[n] = true
	}
	if t.NamespaceSelector != nil {
		if nsSel, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector); err == nil {
			for n, lbls := range w.namespaces {
				if nsSel.Matches(labels.Set(lbls)) {
					at.ns[n] = true
				}
			}
		}
	} else if len(t.Namespaces) == 0 {
		at.ns[owner.Namespace] = true
	}
	return at
}

func (t affinityTerm) selects(q *corev1.Pod) bool {
	return (t.ns == nil || t.ns[q.Namespace]) && t.sel.Matches(labels.Set(q.Labels))
}

// byDomain indexes the pods of the final placement (not terminating) by their node's value
// of key.
func (w *world) byDomain(k string, cache map[string]map[string][]*corev1.Pod) map[string][]*corev1.Pod {
	if idx, ok := cache[k]; ok {
		return idx
	}
	idx := map[string][]*corev1.Pod{}
	for _, l := range w.locs {
		d, ok := l.labels[k]
		if !ok {
			continue
		}
		for _, q := range l.pods() {
			if !isTerminating(q) {
				idx[d] = append(idx[d], q)
			}
		}
	}
	cache[k] = idx
	return idx
}

func requiredAffinity(p *corev1.Pod) []corev1.PodAffinityTerm {
	if a := p.Spec.Affinity; a != nil && a.PodAffinity != nil {
		return a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

func requiredAntiAffinity(p *corev1.Pod) []corev1.PodAffinityTerm {
	if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		return a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return nil
}

// checkPodAffinity checks required pod affinity and anti-affinity of the placed pods, and
// the anti-affinity of pods already running against the placed pods, in the final
// placement.
func (w *world) checkPodAffinity() []Violation {
	var out []Violation
	cache := map[string]map[string][]*corev1.Pod{}
	reported := map[[3]string]bool{}
	anti := func(l *location, p, q *corev1.Pod, k string) {
		pair := [3]string{key(p), key(q), k}
		if key(q) < key(p) {
			pair = [3]string{key(q), key(p), k}
		}
		if reported[pair] {
			return
		}
		reported[pair] = true
		v := l.violation(PodAntiAffinity)
		v.Pod, v.OtherPod, v.Key = key(p), key(q), k
		out = append(out, v)
	}
	placed := map[*corev1.Pod]bool{}
	for _, p := range w.placed {
		placed[p] = true
	}
	out = append(out, w.affinityGroups(cache)...)
	for _, p := range w.placed {
		l := w.where[p]
		w.eachRepelled(p, l, cache, func(q *corev1.Pod, k string) { anti(l, p, q, k) })
	}
	// Pods already running keep others away too.
	for _, l := range w.locs {
		for _, q := range l.bound {
			if isTerminating(q) {
				continue
			}
			w.eachRepelled(q, l, cache, func(p *corev1.Pod, k string) {
				if placed[p] {
					anti(w.where[p], p, q, k)
				}
			})
		}
	}
	return out
}

// bootstrapped: the split of a self-selecting group into domains comes from Karpenter's
// bootstrap rule, not from a misplacement: either no pod the term selects is in a domain
// the owner's node affinity allows, or one of them elsewhere could not have joined the
// owner's domain d (so it started its own).
func (w *world) bootstrapped(at affinityTerm, d string, cache map[string]map[string][]*corev1.Pod) bool {
	nk := v1.NormalizeLabelKey(at.key)
	reach := func(p *corev1.Pod, dom string) bool {
		for _, t := range podTerms(p) {
			if !t.Has(nk) || t.Get(nk).Has(dom) {
				return true
			}
		}
		return false
	}
	inReach := false
	for dom, pods := range w.byDomain(at.key, cache) {
		if dom == d {
			continue
		}
		for _, q := range pods {
			if q == at.owner || !at.selects(q) {
				continue
			}
			if reach(at.owner, dom) {
				inReach = true
			}
			if !reach(q, d) {
				return true
			}
		}
	}
	return !inReach
}

// eachRepelled calls f for every pod other than owner (on l) in owner's domain that one of
// owner's required anti-affinity terms selects, with the term's key.
func (w *world) eachRepelled(owner *corev1.Pod, l *location, cache map[string]map[string][]*corev1.Pod, f func(q *corev1.Pod, key string)) {
	for _, t := range requiredAntiAffinity(owner) {
		at := w.resolveTerm(owner, t)
		d, ok := l.labels[at.key]
		if !ok {
			continue
		}
		for _, q := range w.byDomain(at.key, cache)[d] {
			if q != owner && at.selects(q) {
				f(q, at.key)
			}
		}
	}
}

// affinityGroups checks required pod affinity the way kube-scheduler binds pods one at a
// time. The placed pods whose terms are alike (key, namespaces, selector) form a group; a
// domain holding members is seeded when a pod the term selects that is not a member runs
// or is placed there (it can be bound first, the members after it). A member needs a pod
// the term selects in its domain; all unseeded domains of a group but one break the
// affinity, and that one too unless a member there selects itself and no pod the
// term selects was running before (the first member starts the group).
func (w *world) affinityGroups(cache map[string]map[string][]*corev1.Pod) []Violation {
	type member struct {
		pod *corev1.Pod
		at  affinityTerm
	}
	groups := map[string][]member{}
	var order []string
	for _, p := range w.placed {
		for _, t := range requiredAffinity(p) {
			at := w.resolveTerm(p, t)
			sig := at.signature()
			if _, ok := groups[sig]; !ok {
				order = append(order, sig)
			}
			groups[sig] = append(groups[sig], member{p, at})
		}
	}
	running := map[*corev1.Pod]*location{}
	for _, l := range w.locs {
		for _, q := range l.bound {
			running[q] = l
		}
	}
	var out []Violation
	for _, sig := range order {
		ms := groups[sig]
		isMember := map[*corev1.Pod]bool{}
		for _, m := range ms {
			isMember[m.pod] = true
		}
		at := ms[0].at
		idx := w.byDomain(at.key, cache)
		seeded := map[string]bool{}
		for d, pods := range idx {
			for _, q := range pods {
				if at.selects(q) && (running[q] != nil || !isMember[q]) {
					seeded[d] = true
					break
				}
			}
		}
		// kube-scheduler counts a selected pod only on a node with the term's key: one on a
		// node without it leaves the group free to start.
		ranBefore := false
		for q, l := range running {
			if _, keyed := l.labels[at.key]; keyed && !isTerminating(q) && at.selects(q) {
				ranBefore = true
				break
			}
		}
		// Members by domain, in placement order.
		var doms []string
		byDom := map[string][]member{}
		for _, m := range ms {
			l := w.where[m.pod]
			d, ok := l.labels[at.key]
			if !ok {
				v := l.violation(PodAffinity)
				v.Pod, v.Key = key(m.pod), at.key
				out = append(out, v)
				continue
			}
			if seeded[d] {
				continue
			}
			if _, seen := byDom[d]; !seen {
				doms = append(doms, d)
			}
			byDom[d] = append(byDom[d], m)
		}
		started := false
		for _, d := range doms {
			// One member here that selects itself can bind first, with no match anywhere (its
			// own term's exception), and the others then find it (difftest plan:971646:
			// app-4-0, whose zone affinity selects app-4, and app-1 pods, whose alike term
			// selects it, on one NodeClaim).
			selfish := false
			for _, m := range byDom[d] {
				selfish = selfish || m.at.selects(m.pod)
			}
			if selfish && !ranBefore && !started {
				started = true // the first member here starts the group
				continue
			}
			code := PodAffinity
			for _, m := range byDom[d] {
				if m.at.selects(m.pod) && w.bootstrapped(m.at, d, cache) {
					code = PodAffinityBootstrap
				}
			}
			for _, m := range byDom[d] {
				v := w.where[m.pod].violation(code)
				v.Pod, v.Key = key(m.pod), at.key
				out = append(out, v)
			}
		}
	}
	return out
}

// signature identifies alike terms.
func (t affinityTerm) signature() string {
	ns := "*"
	if t.ns != nil {
		ns = strings.Join(sortedKeysOf(t.ns), ",")
	}
	return t.key + "\x00" + ns + "\x00" + t.sel.String()
}
