package scheduling

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

type groupKind int

const (
	groupSpread groupKind = iota
	groupAffinity
	groupAntiAffinity
	// groupInverse records where pods with a required anti-affinity term are, so the pods
	// that term selects keep away from them.
	groupInverse
)

// topologyGroup counts, per domain of one topology key, the placed pods its selector selects.
// Groups are shared by every pod with the same constraint.
type topologyGroup struct {
	kind       groupKind
	key        string
	namespaces map[string]bool // nil: every namespace
	selector   labels.Selector
	maxSkew    int32
	minDomains int32
	// Node filter of a spread group (nodeAffinityPolicy / nodeTaintsPolicy Honor).
	filterTerms       []requirements.Requirements // ORed; nil: every node
	filterTolerations []corev1.Toleration
	honorTaints       bool

	counts  map[string]int
	total   int
	domains []string // sorted domains of key (not used for hostname)
}

func (g *topologyGroup) selects(pod *corev1.Pod) bool {
	if g.namespaces != nil && !g.namespaces[pod.Namespace] {
		return false
	}
	return g.selector.Matches(labels.Set(pod.Labels))
}

// passesFilter reports whether a node with these requirements and taints counts for a
// spread group.
func (g *topologyGroup) passesFilter(nodeReqs requirements.Requirements, taints []corev1.Taint, wellKnown requirements.KeySet) bool {
	if g.kind != groupSpread {
		return true
	}
	if g.honorTaints && !tolerates(g.filterTolerations, taints) {
		return false
	}
	if g.filterTerms == nil {
		return true
	}
	for _, t := range g.filterTerms {
		if nodeReqs.IsCompatible(t, wellKnown) {
			return true
		}
	}
	return false
}

func (g *topologyGroup) record(domains ...string) {
	for _, d := range domains {
		g.counts[d]++
		g.total++
	}
}

// topology holds every group of one Solve.
type topology struct {
	groups    map[string]*topologyGroup
	ordered   []*topologyGroup // creation order, for deterministic iteration
	universe  map[string][]string
	wellKnown requirements.KeySet
	// selectCache maps a pod's namespace and labels to the groups selecting it.
	selectCache map[string][]*topologyGroup
	blockCache  map[string][]*topologyGroup
}

func newTopology(universe map[string][]string, wellKnown requirements.KeySet) *topology {
	return &topology{
		groups:      map[string]*topologyGroup{},
		universe:    universe,
		wellKnown:   wellKnown,
		selectCache: map[string][]*topologyGroup{},
		blockCache:  map[string][]*topologyGroup{},
	}
}

func (t *topology) intern(g *topologyGroup, id string) *topologyGroup {
	if have, ok := t.groups[id]; ok {
		return have
	}
	g.counts = map[string]int{}
	if g.key != v1.LabelHostname {
		g.domains = t.universe[g.key]
	}
	t.groups[id] = g
	t.ordered = append(t.ordered, g)
	return g
}

// namespacesOf resolves an affinity term's namespaces: the listed ones, plus every namespace
// when namespaceSelector is empty (a non-empty namespaceSelector is resolved against the
// namespaces nodeplan knows, which are those of the pods it sees).
func namespacesOf(pod *corev1.Pod, term corev1.PodAffinityTerm, known []*corev1.Namespace) (map[string]bool, error) {
	if term.NamespaceSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
		if err != nil {
			return nil, err
		}
		if sel.Empty() {
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

// affinityGroup interns the group of a pod (anti-)affinity term.
func (t *topology) affinityGroup(kind groupKind, pod *corev1.Pod, term corev1.PodAffinityTerm, path string) (*topologyGroup, error) {
	sel := labels.Nothing()
	if term.LabelSelector != nil {
		s, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("%s.labelSelector: %v", path, err)
		}
		sel = s
	}
	if len(term.MatchLabelKeys) > 0 || len(term.MismatchLabelKeys) > 0 {
		reqs, _ := sel.Requirements()
		extra := labels.NewSelector().Add(reqs...)
		for _, k := range term.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				r, err := labels.NewRequirement(k, "in", []string{v})
				if err == nil {
					extra = extra.Add(*r)
				}
			}
		}
		for _, k := range term.MismatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				r, err := labels.NewRequirement(k, "notin", []string{v})
				if err == nil {
					extra = extra.Add(*r)
				}
			}
		}
		sel = extra
	}
	if term.TopologyKey == "" {
		return nil, fmt.Errorf("%s.topologyKey: required", path)
	}
	ns, err := namespacesOf(pod, term, nil)
	if err != nil {
		return nil, fmt.Errorf("%s.namespaceSelector: %v", path, err)
	}
	key := v1.NormalizeLabelKey(term.TopologyKey)
	g := &topologyGroup{kind: kind, key: key, namespaces: ns, selector: sel}
	id := fmt.Sprintf("%d|%s|%s|%s", kind, key, namespaceID(ns), sel.String())
	return t.intern(g, id), nil
}

// spreadGroup interns the group of a topology spread constraint.
func (t *topology) spreadGroup(pod *corev1.Pod, c corev1.TopologySpreadConstraint, strictTerms []requirements.Requirements, path string) (*topologyGroup, error) {
	if c.MaxSkew <= 0 {
		return nil, fmt.Errorf("%s.maxSkew: must be greater than zero, got %d", path, c.MaxSkew)
	}
	if c.TopologyKey == "" {
		return nil, fmt.Errorf("%s.topologyKey: required", path)
	}
	sel := labels.Nothing()
	if c.LabelSelector != nil {
		s, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("%s.labelSelector: %v", path, err)
		}
		sel = s
	}
	if len(c.MatchLabelKeys) > 0 {
		reqs, _ := sel.Requirements()
		s := labels.NewSelector().Add(reqs...)
		for _, k := range c.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				if r, err := labels.NewRequirement(k, "in", []string{v}); err == nil {
					s = s.Add(*r)
				}
			}
		}
		sel = s
	}
	g := &topologyGroup{
		kind: groupSpread, key: v1.NormalizeLabelKey(c.TopologyKey),
		namespaces: map[string]bool{pod.Namespace: true}, selector: sel,
		maxSkew: c.MaxSkew,
	}
	if c.MinDomains != nil {
		g.minDomains = *c.MinDomains
	}
	filterID := ""
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		g.filterTerms = strictTerms
		for _, r := range strictTerms {
			filterID += r.String() + ";"
		}
	}
	if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		g.honorTaints = true
		g.filterTolerations = pod.Spec.Tolerations
		filterID += fmt.Sprintf("taints:%v", pod.Spec.Tolerations)
	}
	id := fmt.Sprintf("%d|%s|%s|%s|%d|%d|%s", groupSpread, g.key, pod.Namespace, sel.String(), g.maxSkew, g.minDomains, filterID)
	return t.intern(g, id), nil
}

// selecting returns the non-inverse groups that count pod, and the inverse groups that repel
// it. Results are cached per namespace and label set.
func (t *topology) selecting(pod *corev1.Pod) (selected, blocked []*topologyGroup) {
	id := labelsID(pod)
	if s, ok := t.selectCache[id]; ok {
		return s, t.blockCache[id]
	}
	for _, g := range t.ordered {
		if !g.selects(pod) {
			continue
		}
		if g.kind == groupInverse {
			blocked = append(blocked, g)
		} else {
			selected = append(selected, g)
		}
	}
	t.selectCache[id] = selected
	t.blockCache[id] = blocked
	return selected, blocked
}

func labelsID(pod *corev1.Pod) string {
	keys := make([]string, 0, len(pod.Labels))
	for k := range pod.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(pod.Namespace)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(pod.Labels[k])
	}
	return b.String()
}

// domainsIn returns the domains of g that r allows.
func (g *topologyGroup) domainsIn(r *requirements.Requirement) []string {
	var out []string
	for _, d := range g.domains {
		if r.Has(d) {
			out = append(out, d)
		}
	}
	return out
}

// allowed narrows the node requirement r for g's key for the pod p with form f, or returns
// nil when no domain is allowed. host is the candidate's hostname.
func (g *topologyGroup) allowed(p *podData, f *podForm, r *requirements.Requirement) *requirements.Requirement {
	self := g.selects(p.pod)
	if g.key == v1.LabelHostname {
		h := singleValue(r)
		if h == "" {
			return nil
		}
		c := g.counts[h]
		switch g.kind {
		case groupSpread:
			if int32(c+boolInt(self)) <= g.maxSkew {
				return r
			}
		case groupAffinity:
			if c > 0 || (self && g.total == 0) {
				return r
			}
		case groupAntiAffinity, groupInverse:
			if c == 0 {
				return r
			}
		}
		return nil
	}
	switch g.kind {
	case groupSpread:
		eligible := g.domains
		if g.filterTerms != nil {
			strict := f.strict.Get(g.key)
			eligible = g.domainsIn(strict)
		}
		minCount := 0
		if len(eligible) >= int(g.minDomains) && len(eligible) > 0 {
			minCount = int(^uint(0) >> 1)
			for _, d := range eligible {
				if c := g.counts[d]; c < minCount {
					minCount = c
				}
			}
		}
		best, bestCount := "", 0
		for _, d := range g.domains {
			if !r.Has(d) {
				continue
			}
			c := g.counts[d]
			if c+boolInt(self)-minCount > int(g.maxSkew) {
				continue
			}
			if best == "" || c < bestCount {
				best, bestCount = d, c
			}
		}
		if best == "" {
			return nil
		}
		return requirements.MustNew(g.key, requirements.In, best)
	case groupAffinity:
		var with []string
		for _, d := range g.domains {
			if g.counts[d] > 0 && r.Has(d) && f.reqs.Get(g.key).Has(d) {
				with = append(with, d)
			}
		}
		if len(with) > 0 {
			return requirements.MustNew(g.key, requirements.In, with...)
		}
		if !self || g.anyAllowedHasMatches(f) {
			return nil
		}
		if v := singleValue(r); v != "" {
			return r
		}
		for _, d := range g.domains {
			if r.Has(d) {
				return requirements.MustNew(g.key, requirements.In, d)
			}
		}
		return nil
	default: // anti-affinity and inverse
		var free []string
		for _, d := range g.domains {
			if g.counts[d] == 0 && r.Has(d) {
				free = append(free, d)
			}
		}
		if len(free) == 0 {
			return nil
		}
		if len(free) == len(g.domains) && !r.IsEmpty() && r.Operator() != requirements.In {
			return r
		}
		return requirements.MustNew(g.key, requirements.In, free...)
	}
}

// anyAllowedHasMatches reports whether a domain the pod may use already holds a match, in
// which case the pod must join it rather than bootstrap a new one.
func (g *topologyGroup) anyAllowedHasMatches(f *podForm) bool {
	pr := f.reqs.Get(g.key)
	for _, d := range g.domains {
		if g.counts[d] > 0 && pr.Has(d) {
			return true
		}
	}
	return false
}

func singleValue(r *requirements.Requirement) string {
	if r.Operator() == requirements.In {
		if vs := r.Values(); len(vs) == 1 {
			return vs[0]
		}
	}
	return ""
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// requirementsFor returns the requirements topology adds for pod p (form f) on a node with
// requirements nodeReqs, or ok=false with the key that has no allowed domain.
func (t *topology) requirementsFor(p *podData, f *podForm, nodeReqs requirements.Requirements) (narrowed requirements.Requirements, failedKey string, ok bool) {
	if len(f.owned) == 0 && len(p.blockedBy) == 0 {
		return nil, "", true
	}
	get := func(key string) *requirements.Requirement {
		if narrowed != nil {
			if r, ok := narrowed[key]; ok {
				return r
			}
		}
		return nodeReqs.Get(key)
	}
	apply := func(g *topologyGroup) bool {
		cur := get(g.key)
		next := g.allowed(p, f, cur)
		if next == nil {
			return false
		}
		if next != cur {
			if narrowed == nil {
				narrowed = requirements.Requirements{}
			}
			narrowed[g.key] = cur.Intersection(next)
			if narrowed[g.key].IsEmpty() {
				return false
			}
		}
		return true
	}
	for _, g := range f.owned {
		if !apply(g) {
			return nil, g.key, false
		}
	}
	for _, g := range p.blockedBy {
		if !apply(g) {
			return nil, g.key, false
		}
	}
	return narrowed, "", true
}

// record counts pod p, placed on a node with requirements nodeReqs and taints, in every
// group that selects it, and records it as owner of its inverse groups.
func (t *topology) record(p *podData, inverse []*topologyGroup, nodeReqs requirements.Requirements, taints []corev1.Taint) {
	for _, g := range p.selectedBy {
		if !g.passesFilter(nodeReqs, taints, t.wellKnown) {
			continue
		}
		recordDomains(g, nodeReqs.Get(g.key))
	}
	for _, g := range inverse {
		recordDomains(g, nodeReqs.Get(g.key))
	}
}

func recordDomains(g *topologyGroup, r *requirements.Requirement) {
	if v := singleValue(r); v != "" {
		g.record(v)
		return
	}
	if g.kind == groupAntiAffinity || g.kind == groupInverse {
		// The pod may land in any of these domains: block them all until it is known.
		g.record(g.domainsIn(r)...)
	}
}

// labelSelectorFor selects pods with exactly these labels' values.
func labelSelectorFor(lbls map[string]string) *metav1.LabelSelector {
	m := map[string]string{}
	for k, v := range lbls {
		m[k] = v
	}
	return &metav1.LabelSelector{MatchLabels: m}
}
