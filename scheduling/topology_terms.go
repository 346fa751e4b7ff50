package scheduling

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// Building groups from pods' affinity terms and spread constraints. Groups are interned by
// what they count and allow, so every replica of a Deployment shares its groups; a term's
// text is looked up first, before its selectors are parsed.

// namespacesOf resolves an affinity term's namespaces: the listed ones, plus every namespace
// when namespaceSelector is empty (a non-empty namespaceSelector is resolved against the
// namespaces nodeplan knows, which are those of the pods it sees). listAll resolves an empty
// one against them too, as Karpenter lists the namespaces it selects: its group is then the
// one a term listing the same namespaces makes (Karpenter hashes the set).
func namespacesOf(pod *corev1.Pod, term corev1.PodAffinityTerm, known []*corev1.Namespace, listAll bool) (map[string]bool, error) {
	if term.NamespaceSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
		if err != nil {
			return nil, err
		}
		if sel.Empty() && !listAll {
			return nil, nil
		}
		ns := map[string]bool{}
		for _, n := range term.Namespaces {
			ns[n] = true
		}
		for _, n := range known {
			if sel.Matches(labels.Set(n.Labels)) {
				ns[n.Name] = true
			}
		}
		return ns, nil
	}
	ns := map[string]bool{}
	for _, n := range term.Namespaces {
		ns[n] = true
	}
	if len(ns) == 0 {
		ns[pod.Namespace] = true
	}
	return ns, nil
}

func namespaceID(ns map[string]bool) string {
	if ns == nil {
		return "*"
	}
	keys := make([]string, 0, len(ns))
	for k := range ns {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// affinityGroup interns the group of a pod (anti-)affinity term under rule (affinityRule,
// antiAffinityRule, or inverseRule for the pods a required anti-affinity term selects).
func (t *topology) affinityGroup(rule topologyRule, pod *corev1.Pod, term corev1.PodAffinityTerm, path termPath) (*topologyGroup, error) {
	// Most pods share their terms with many others (one Deployment, many replicas): look the
	// group up by the term's text before parsing its selectors.
	var fast string
	if len(term.MatchLabelKeys) == 0 && len(term.MismatchLabelKeys) == 0 && term.NamespaceSelector == nil {
		// rule|topologyKey|namespace|[namespaces]|selector, written without fmt (per pod).
		var b strings.Builder
		for _, s := range [...]string{rule.name(), "|", term.TopologyKey, "|", pod.Namespace, "|["} {
			b.WriteString(s)
		}
		for i, ns := range term.Namespaces {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(ns)
		}
		b.WriteString("]|")
		b.WriteString(selectorText(term.LabelSelector))
		fast = b.String()
	}
	return t.cached(fast, func() (*topologyGroup, error) { return t.parseAffinityGroup(rule, pod, term, path.String()) })
}

// termPath is the field path of a pod's term or constraint, base+field+"[i]"+suffix, built
// only when a group is parsed (most pods' groups are found by their text).
type termPath struct {
	base, field string
	i           int
	suffix      string
}

func (p termPath) String() string {
	return p.base + p.field + "[" + strconv.Itoa(p.i) + "]" + p.suffix
}

// cached returns the group interned under the term text key, or parses it (an empty key is
// never cached: the term depends on more than its text).
func (t *topology) cached(key string, parse func() (*topologyGroup, error)) (*topologyGroup, error) {
	if g, ok := t.termCache[key]; ok && key != "" {
		return g, nil
	}
	g, err := parse()
	if err == nil && key != "" {
		t.termCache[key] = g
	}
	return g, err
}

// selectorText renders a label selector canonically (sorted keys), for cache keys.
func selectorText(ls *metav1.LabelSelector) string {
	if ls == nil {
		return "<nil>"
	}
	keys := make([]string, 0, len(ls.MatchLabels))
	for k := range ls.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(ls.MatchLabels[k])
		b.WriteByte(',')
	}
	for _, e := range ls.MatchExpressions {
		fmt.Fprintf(&b, "|%q %q %q", e.Key, e.Operator, e.Values)
	}
	return b.String()
}

func (t *topology) parseAffinityGroup(rule topologyRule, pod *corev1.Pod, term corev1.PodAffinityTerm, path string) (*topologyGroup, error) {
	sel, err := podSelector(pod, term.LabelSelector, term.MatchLabelKeys, term.MismatchLabelKeys, path)
	if err != nil {
		return nil, err
	}
	if term.TopologyKey == "" {
		return nil, fmt.Errorf("%s.topologyKey: required", path)
	}
	ns, err := namespacesOf(pod, term, t.namespaceList(), t.karpenter)
	if err != nil {
		return nil, fmt.Errorf("%s.namespaceSelector: %v", path, err)
	}
	key := v1.NormalizeLabelKey(term.TopologyKey)
	g := &topologyGroup{rule: rule, key: key, namespaces: ns, selector: sel}
	if t.karpenter {
		g.creator = pod
	}
	if rule.repels() || rule.bootstraps() {
		g.pinned = map[string]int{}
	}
	id := fmt.Sprintf("%s|%s|%s|%s", rule.name(), key, namespaceID(ns), sel.String())
	return t.intern(g, id), nil
}

// podSelector is the label selector of a term or constraint (nil selects nothing), narrowed
// to the pod's values of the matchLabelKeys and away from those of the mismatchLabelKeys.
func podSelector(pod *corev1.Pod, ls *metav1.LabelSelector, match, mismatch []string, path string) (labels.Selector, error) {
	sel := labels.Nothing()
	if ls != nil {
		s, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			return nil, fmt.Errorf("%s.labelSelector: %v", path, err)
		}
		sel = s
	}
	if len(match) == 0 && len(mismatch) == 0 {
		return sel, nil
	}
	reqs, _ := sel.Requirements()
	out := labels.NewSelector().Add(reqs...)
	out = addLabelKeys(out, pod, match, selection.In)
	return addLabelKeys(out, pod, mismatch, selection.NotIn), nil
}

// addLabelKeys adds `key op [the pod's value]` to sel for every key the pod has a label for.
func addLabelKeys(sel labels.Selector, pod *corev1.Pod, keys []string, op selection.Operator) labels.Selector {
	for _, k := range keys {
		if v, ok := pod.Labels[k]; ok {
			if r, err := labels.NewRequirement(k, op, []string{v}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	return sel
}

// spreadGroup interns the group of a topology spread constraint.
// Its node filter is the pod's strict node requirements (strictTerms, ORed) and tolerations.
func (t *topology) spreadGroup(pod *corev1.Pod, c corev1.TopologySpreadConstraint, strictTerms []requirements.Requirements, tolerations []corev1.Toleration, path termPath) (*topologyGroup, error) {
	var fast string
	if len(c.MatchLabelKeys) == 0 {
		// key|maxSkew|minDomains|affinityPolicy|taintsPolicy|namespace|selector|filter,
		// written without fmt (per pod).
		var b strings.Builder
		for _, s := range [...]string{c.TopologyKey, "|", strconv.FormatInt(int64(c.MaxSkew), 10), "|", strconv.FormatInt(int64(derefInt32(c.MinDomains)), 10), "|",
			derefPolicy(c.NodeAffinityPolicy), "|", derefPolicy(c.NodeTaintsPolicy), "|", pod.Namespace, "|", selectorText(c.LabelSelector), "|"} {
			b.WriteString(s)
		}
		b.WriteString(t.spreadFilterID(c, strictTerms, tolerations))
		fast = b.String()
	}
	return t.cached(fast, func() (*topologyGroup, error) {
		return t.parseSpreadGroup(pod, c, strictTerms, tolerations, path.String())
	})
}

func (t *topology) parseSpreadGroup(pod *corev1.Pod, c corev1.TopologySpreadConstraint, strictTerms []requirements.Requirements, tolerations []corev1.Toleration, path string) (*topologyGroup, error) {
	if c.MaxSkew <= 0 {
		return nil, fmt.Errorf("%s.maxSkew: must be greater than zero, got %d", path, c.MaxSkew)
	}
	if c.TopologyKey == "" {
		return nil, fmt.Errorf("%s.topologyKey: required", path)
	}
	sel, err := podSelector(pod, c.LabelSelector, c.MatchLabelKeys, nil, path)
	if err != nil {
		return nil, err
	}
	rule := &spreadRule{maxSkew: c.MaxSkew}
	if c.MinDomains != nil {
		rule.minDomains = *c.MinDomains
	}
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		rule.filterTerms = strictTerms
	}
	if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		rule.honorTaints = true
		rule.filterTolerations = tolerations
		rule.preferNoSchedule = t.karpenter
	}
	g := &topologyGroup{
		rule: rule, spread: rule, key: v1.NormalizeLabelKey(c.TopologyKey),
		namespaces: map[string]bool{pod.Namespace: true}, selector: sel,
	}
	filter := t.spreadFilterID(c, strictTerms, tolerations)
	id := fmt.Sprintf("%s|%s|%s|%s|%d|%d|%s", rule.name(), g.key, pod.Namespace, sel.String(), rule.maxSkew, rule.minDomains, filter)
	g = t.intern(g, id)
	if g.family == nil {
		famID := fmt.Sprintf("%s|%s|%s|%s", g.key, pod.Namespace, sel.String(), filter)
		fam := t.families[famID]
		if fam == nil {
			fam = &spreadFamily{}
			t.families[famID] = fam
		}
		fam.groups = append(fam.groups, g)
		g.family = fam
	}
	return g, nil
}

// spreadFamily are the spreads that count the same pods on the same nodes, whatever their
// maxSkew and minDomains: kube-scheduler checks each of them against the same counts.
type spreadFamily struct{ groups []*topologyGroup }

// labelSelectorFor selects pods with exactly these labels' values.
func labelSelectorFor(lbls map[string]string) *metav1.LabelSelector {
	m := map[string]string{}
	for k, v := range lbls {
		m[k] = v
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

// spreadFilterID identifies a spread constraint's node filter: the pod's strict node
// requirements (nodeAffinityPolicy Honor) and tolerations (nodeTaintsPolicy Honor), written
// out in full (Requirements.String abbreviates long value lists). In Karpenter mode both
// always, whatever the policies: Karpenter's TopologyGroup hash takes the whole filter, so a
// pod whose relaxation drops a required term or tolerates PreferNoSchedule makes a new group
// (karpenter_relax.go).
func (t *topology) spreadFilterID(c corev1.TopologySpreadConstraint, strictTerms []requirements.Requirements, tolerations []corev1.Toleration) string {
	var b strings.Builder
	if t.karpenter || c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		for _, r := range strictTerms {
			b.WriteString(requirementsID(r))
			b.WriteByte(';')
		}
	}
	if t.karpenter {
		// The policies too, as Karpenter hashes them: the filter alone no longer tells them.
		fmt.Fprintf(&b, "affinity:%t;", c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor)
		fmt.Fprintf(&b, "taintsPolicy:%t;", c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor)
	}
	if t.karpenter || c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		b.WriteString("taints:")
		for _, t := range tolerations {
			seconds := ""
			if t.TolerationSeconds != nil {
				seconds = strconv.FormatInt(*t.TolerationSeconds, 10)
			}
			fmt.Fprintf(&b, "%q%q%q%q%s,", t.Key, t.Operator, t.Value, t.Effect, seconds)
		}
	}
	return b.String()
}

// requirementsID is a canonical, unabbreviated text for a set of requirements.
func requirementsID(rs requirements.Requirements) string {
	var b strings.Builder
	for _, k := range rs.Keys() {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(reqID(rs[k]))
		b.WriteByte(';')
	}
	return b.String()
}

func derefInt32(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

func derefPolicy(p *corev1.NodeInclusionPolicy) string {
	if p == nil {
		return ""
	}
	return string(*p)
}
