package scheduling

import (
	"fmt"
	"sort"
	"strconv"
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
	// required: an anti-affinity group some pod's required term uses (its owners must see
	// where the pods it selects are; a preferred one may just block every candidate domain).
	required bool
	// Node filter of a spread group (nodeAffinityPolicy / nodeTaintsPolicy Honor).
	filterTerms       []requirements.Requirements // ORed; nil: every node
	filterTolerations []corev1.Toleration
	honorTaints       bool

	counts  map[string]int
	total   int
	domains []string // sorted domains of key (not used for hostname)
	// single caches `key In [domain]` per domain, multi `key In [domains...]` per set.
	single map[string]*requirements.Requirement
	multi  map[uint64]*requirements.Requirement
	// pinned counts, per domain, the pending pods an inverse group repels whose own node
	// requirements pin them to that domain.
	pinned map[string]int
	// hostCounts replace counts for the hostname key, indexed by host id (a slice lookup
	// instead of a string hash: hostname constraints are checked against every candidate).
	hostCounts []int32
	// occupiedClaims is how many NodeClaims opened in this Solve hold a pod g counts (for the
	// hostname key), so a pod that must avoid them all can skip the scan.
	occupiedClaims int
}

func (g *topologyGroup) hostCount(host int32) int32 {
	if int(host) < len(g.hostCounts) {
		return g.hostCounts[host]
	}
	return 0
}

// hostAllows reports whether a pod (self: selected by g) may join host under g.
func (g *topologyGroup) hostAllows(self bool, host int32) bool {
	c := g.hostCount(host)
	switch g.kind {
	case groupSpread:
		return c+int32(boolInt(self)) <= g.maxSkew
	case groupAffinity:
		return c > 0 || (self && g.total == 0)
	default:
		return c == 0
	}
}

// domainsRequirement is `key In [ds...]`, built once per set of domains (ds sorted; mask
// their positions in g.domains, used as the cache key when g has at most 64 domains).
func (g *topologyGroup) domainsRequirement(ds []string, mask uint64) *requirements.Requirement {
	if len(g.domains) > 64 {
		return requirements.MustNew(g.key, requirements.In, ds...)
	}
	if r, ok := g.multi[mask]; ok {
		return r
	}
	if g.multi == nil {
		g.multi = map[uint64]*requirements.Requirement{}
	}
	r := requirements.MustNew(g.key, requirements.In, ds...)
	g.multi[mask] = r
	return r
}

// domainRequirement is `key In [d]`, built once per domain.
func (g *topologyGroup) domainRequirement(d string) *requirements.Requirement {
	if r, ok := g.single[d]; ok {
		return r
	}
	if g.single == nil {
		g.single = map[string]*requirements.Requirement{}
	}
	r := requirements.MustNew(g.key, requirements.In, d)
	g.single[d] = r
	return r
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

func (t *topology) count(g *topologyGroup, domains ...string) {
	for _, d := range domains {
		g.total++
		if g.key == v1.LabelHostname {
			h := t.hostID(d)
			for int(h) >= len(g.hostCounts) {
				g.hostCounts = append(g.hostCounts, 0)
			}
			g.hostCounts[h]++
			if g.hostCounts[h] == 1 && t.claimHosts[h] {
				g.occupiedClaims++
			}
			continue
		}
		g.counts[d]++
	}
}

// hostID numbers hostnames densely.
func (t *topology) hostID(name string) int32 {
	if id, ok := t.hosts[name]; ok {
		return id
	}
	id := int32(len(t.hosts))
	t.hosts[name] = id
	return id
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

// selfSelects reports whether g counts p itself.
func (p *podData) selfSelects(g *topologyGroup) bool {
	for _, s := range p.selectedBy {
		if s == g {
			return true
		}
	}
	return false
}

// hostBlocked is a fast pre-check: whether a hostname constraint of p rules host out.
func (p *podData) hostBlocked(f *podForm, host int32) bool {
	for _, g := range f.owned {
		if g.key == v1.LabelHostname && !g.hostAllows(p.selfSelects(g), host) {
			return true
		}
	}
	for _, g := range p.blockedBy {
		if g.key == v1.LabelHostname && g.hostCount(host) > 0 {
			return true
		}
	}
	return false
}

// topology holds every group of one Solve.
type topology struct {
	groups    map[string]*topologyGroup
	ordered   []*topologyGroup // creation order, for deterministic iteration
	universe  *universe
	wellKnown requirements.KeySet
	// selectCache maps a pod's namespace and labels to the groups selecting it.
	selectCache map[string][]*topologyGroup
	blockCache  map[string][]*topologyGroup
	hosts       map[string]int32
	exists      map[string]*requirements.Requirement
	// claimHosts marks the host ids of NodeClaims opened in this Solve.
	claimHosts map[int32]bool
	// termCache maps the text of an affinity term to its group.
	termCache map[string]*topologyGroup
	// namespaces resolve affinity terms' namespaceSelectors.
	namespaces []*corev1.Namespace
	// keys numbers the topology keys other than the hostname, so a NodeClaim can keep its
	// single value per key in a slice (claim.values) for the domain pre-filter.
	keys   []string
	keyIDs map[string]int
	// tieBuf is scratch space for the least populated domains of a spread.
	tieBuf []string
	// admCache holds the admissible domains of the current attempt (see beginAttempt).
	admCache map[*topologyGroup]admissibleDomains
}

func newTopology(universe *universe, wellKnown requirements.KeySet) *topology {
	return &topology{
		groups:      map[string]*topologyGroup{},
		universe:    universe,
		wellKnown:   wellKnown,
		selectCache: map[string][]*topologyGroup{},
		blockCache:  map[string][]*topologyGroup{},
		hosts:       map[string]int32{},
		claimHosts:  map[int32]bool{},
		termCache:   map[string]*topologyGroup{},
		admCache:    map[*topologyGroup]admissibleDomains{},
		keyIDs:      map[string]int{},
		exists:      map[string]*requirements.Requirement{},
	}
}

func (t *topology) intern(g *topologyGroup, id string) *topologyGroup {
	if have, ok := t.groups[id]; ok {
		return have
	}
	g.counts = map[string]int{}
	g.pinned = map[string]int{}
	if g.key != v1.LabelHostname {
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
	// Most pods share their terms with many others (one Deployment, many replicas): look the
	// group up by the term's text before parsing its selectors.
	var fast string
	if len(term.MatchLabelKeys) == 0 && len(term.MismatchLabelKeys) == 0 && term.NamespaceSelector == nil {
		fast = fmt.Sprintf("%d|%s|%s|%v|%s", kind, term.TopologyKey, pod.Namespace, term.Namespaces, selectorText(term.LabelSelector))
	}
	return t.cached(fast, func() (*topologyGroup, error) { return t.parseAffinityGroup(kind, pod, term, path) })
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

func (t *topology) parseAffinityGroup(kind groupKind, pod *corev1.Pod, term corev1.PodAffinityTerm, path string) (*topologyGroup, error) {
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
	ns, err := namespacesOf(pod, term, t.namespaces)
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
	var fast string
	if len(c.MatchLabelKeys) == 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s|%d|%d|%s|%s|%s|%s|", c.TopologyKey, c.MaxSkew, derefInt32(c.MinDomains), derefPolicy(c.NodeAffinityPolicy), derefPolicy(c.NodeTaintsPolicy), pod.Namespace, selectorText(c.LabelSelector))
		b.WriteString(spreadFilterID(c, strictTerms, pod.Spec.Tolerations))
		fast = b.String()
	}
	return t.cached(fast, func() (*topologyGroup, error) { return t.parseSpreadGroup(pod, c, strictTerms, path) })
}

func (t *topology) parseSpreadGroup(pod *corev1.Pod, c corev1.TopologySpreadConstraint, strictTerms []requirements.Requirements, path string) (*topologyGroup, error) {
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
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		g.filterTerms = strictTerms
	}
	if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		g.honorTaints = true
		g.filterTolerations = pod.Spec.Tolerations
	}
	id := fmt.Sprintf("%d|%s|%s|%s|%d|%d|%s", groupSpread, g.key, pod.Namespace, sel.String(), g.maxSkew, g.minDomains, spreadFilterID(c, strictTerms, pod.Spec.Tolerations))
	return t.intern(g, id), nil
}

// selecting returns the non-inverse groups that count pod, and the inverse groups that repel
// it. Results are cached per namespace and label set.
func (t *topology) selecting(pod *corev1.Pod) (selected, blocked []*topologyGroup) {
	if len(t.ordered) == 0 {
		return nil, nil
	}
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
// nil when no domain is allowed. host is the candidate's host id.
func (g *topologyGroup) allowed(t *topology, p *podData, f *podForm, r *requirements.Requirement, host int32) *requirements.Requirement {
	if g.key == v1.LabelHostname {
		if g.hostAllows(p.selfSelects(g), host) {
			return r
		}
		return nil
	}
	adm := t.admissible(g, p, f)
	switch g.kind {
	case groupSpread:
		// The least populated admissible domains the node allows; the NodeClaim settles in
		// the cheapest of them when the pod is counted (launch.go). Karpenter takes one of
		// them in map order, which may be one the NodeClaim cannot launch in.
		var best []string
		var mask uint64 // best as bits of g.domains, when it has at most 64
		bestCount, j := 0, 0
		for i, d := range g.domains {
			if j == len(adm.domains) || adm.domains[j] != d {
				continue
			}
			j++
			if !r.Has(d) {
				continue
			}
			switch c := g.counts[d]; {
			case len(best) == 0 || c < bestCount:
				best, bestCount, mask = append(t.tieBuf[:0], d), c, 0
			case c == bestCount:
				best = append(best, d)
			default:
				continue
			}
			if i < 64 {
				mask |= 1 << i
			}
		}
		t.tieBuf = best
		switch len(best) {
		case 0:
			return nil
		case 1:
			return g.domainRequirement(best[0])
		}
		return g.domainsRequirement(best, mask)
	case groupAffinity:
		if adm.bootstrap {
			if singleValue(r) != "" {
				return r
			}
			for _, d := range g.domains {
				if r.Has(d) {
					return g.domainRequirement(d)
				}
			}
			return nil
		}
		var with []string
		for _, d := range adm.domains {
			if r.Has(d) {
				with = append(with, d)
			}
		}
		if len(with) == 0 {
			return nil
		}
		return requirements.MustNew(g.key, requirements.In, with...)
	default: // anti-affinity and inverse
		var free []string
		for _, d := range adm.domains {
			if r.Has(d) {
				free = append(free, d)
			}
		}
		if len(free) == 0 {
			return nil
		}
		if len(free) == len(g.domains) && r.Operator() != requirements.In {
			return r
		}
		return requirements.MustNew(g.key, requirements.In, free...)
	}
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
func (t *topology) requirementsFor(p *podData, f *podForm, nodeReqs requirements.Requirements, host int32) (narrowed requirements.Requirements, failedKey string, ok bool) {
	if len(f.owned) == 0 && len(p.blockedBy) == 0 && !p.collapses {
		return nil, "", true
	}
	get := func(key string) *requirements.Requirement {
		if narrowed != nil {
			if r, ok := narrowed[key]; ok {
				return r
			}
		}
		return t.get(nodeReqs, key)
	}
	apply := func(g *topologyGroup) bool {
		cur := get(g.key)
		next := g.allowed(t, p, f, cur, host)
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
	// A pod with a required anti-affinity is recorded where it is, so the pods it repels
	// keep away; a NodeClaim open across domains would block them all. Karpenter leaves it
	// open and settles one domain per provisioning round; nodeplan keeps the NodeClaim to the
	// free domains the fewest pending pods are pinned to (so it does not take their place),
	// and settles it in its cheapest one (launch.go) in the same pass.
	for _, g := range p.inverse {
		if g.key == v1.LabelHostname {
			continue
		}
		cur := get(g.key)
		if singleValue(cur) != "" || cur.Operator() == requirements.DoesNotExist {
			continue
		}
		if r := g.leastPinned(cur); r != nil {
			if narrowed == nil {
				narrowed = requirements.Requirements{}
			}
			narrowed[g.key] = cur.Intersection(r)
		}
	}
	return narrowed, "", true
}

// leastPinned is the domains of r that the fewest pending pods g selects are pinned to by
// their own node requirements, or nil when that is all of r's domains.
func (g *topologyGroup) leastPinned(r *requirements.Requirement) *requirements.Requirement {
	var best []string
	all, fewest := 0, 0
	for _, d := range g.domains {
		if !r.Has(d) {
			continue
		}
		all++
		switch n := g.pinned[d]; {
		case len(best) == 0 || n < fewest:
			best, fewest = append(best[:0], d), n
		case n == fewest:
			best = append(best, d)
		}
	}
	switch {
	case len(best) == 0 || len(best) == all && r.Operator() == requirements.In:
		return nil
	case len(best) == 1:
		return g.domainRequirement(best[0])
	}
	return requirements.MustNew(g.key, requirements.In, best...)
}

// record counts pod p, placed on a node with requirements nodeReqs and taints, in every
// group that selects it, and records it as owner of its inverse groups.
func (t *topology) record(p *podData, inverse []*topologyGroup, nodeReqs requirements.Requirements, taints []corev1.Taint) {
	for _, g := range p.selectedBy {
		if !g.passesFilter(nodeReqs, taints, t.wellKnown) {
			continue
		}
		t.recordDomains(g, t.get(nodeReqs, g.key))
	}
	for _, g := range p.blockedBy {
		if v := p.pinnedTo(t, g); v != "" {
			g.pinned[v]--
		}
	}
	for _, g := range inverse {
		t.recordDomains(g, t.get(nodeReqs, g.key))
	}
}

func (t *topology) recordDomains(g *topologyGroup, r *requirements.Requirement) {
	if v := singleValue(r); v != "" {
		t.count(g, v)
		return
	}
	if g.kind == groupAntiAffinity || g.kind == groupInverse {
		// The pod may land in any of these domains: block them all until it is known.
		t.count(g, g.domainsIn(r)...)
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

// claimsExhausted reports whether every open NodeClaim already holds a pod that p's hostname
// anti-affinity (or an inverse anti-affinity blocking p) forbids it to join.
func (p *podData) claimsExhausted(f *podForm, claims int) bool {
	for _, g := range f.owned {
		if g.key == v1.LabelHostname && (g.kind == groupAntiAffinity || (g.kind == groupSpread && g.maxSkew == 1 && p.selfSelects(g))) && g.occupiedClaims >= claims {
			return true
		}
	}
	for _, g := range p.blockedBy {
		if g.key == v1.LabelHostname && g.occupiedClaims >= claims {
			return true
		}
	}
	return false
}

// domainFilter is a quick, claim-independent pre-check for non-hostname topology groups: the
// domains each group admits at all. A NodeClaim already collapsed to another domain of the
// key is rejected without the full check.
type domainFilter struct {
	key     int // in topology.keys
	allowed []string
}

// admissibleDomains are the domains of a group a pod may join now, whatever the node.
type admissibleDomains struct {
	domains []string
	// bootstrap: a self-selecting pod whose affinity finds no match may start anywhere.
	bootstrap bool
}

// admissible is, for pod p (form f), the domains of g it may join now: for spread, those
// within maxSkew of the global minimum (over the domains the pod's strict node requirements
// allow, or zero with fewer than minDomains of them); for affinity, the domains holding a
// match that the pod allows; for anti-affinity, the empty domains. Computed once per attempt.
func (t *topology) admissible(g *topologyGroup, p *podData, f *podForm) admissibleDomains {
	if a, ok := t.admCache[g]; ok {
		return a
	}
	self := p.selfSelects(g)
	var a admissibleDomains
	switch g.kind {
	case groupSpread:
		// The global minimum is over the domains the pod's strict node requirements allow
		// (preferred node affinity never narrows it); under nodeAffinityPolicy Ignore every
		// node counts, so over every domain, as kube-scheduler checks it (Karpenter narrows it
		// then too, and places pods kube-scheduler refuses).
		eligible := g.domains
		if g.filterTerms != nil {
			eligible = g.domainsIn(t.get(f.strict, g.key))
		}
		minCount := 0
		if len(eligible) >= int(g.minDomains) && len(eligible) > 0 {
			minCount = int(^uint(0) >> 1)
			for _, d := range eligible {
				minCount = min(minCount, g.counts[d])
			}
		}
		for _, d := range g.domains {
			if g.counts[d]+boolInt(self)-minCount <= int(g.maxSkew) {
				a.domains = append(a.domains, d)
			}
		}
	case groupAffinity:
		pr := t.get(f.strict, g.key)
		for _, d := range g.domains {
			if g.counts[d] > 0 && pr.Has(d) {
				a.domains = append(a.domains, d)
			}
		}
		// A pod may start its group only where no pod matches anywhere, as kube-scheduler
		// binds it (Karpenter also starts one when the matches are only out of the pod's reach,
		// launching a node the pod is never bound to).
		if len(a.domains) == 0 && self && g.total == 0 {
			a.domains, a.bootstrap = g.domains, true
		}
	default:
		for _, d := range g.domains {
			if g.counts[d] == 0 {
				a.domains = append(a.domains, d)
			}
		}
	}
	t.admCache[g] = a
	return a
}

// beginAttempt forgets what was computed for the previous pod or form.
func (t *topology) beginAttempt() { clear(t.admCache) }

// filters builds the domain filters of p for this attempt.
func (t *topology) filters(p *podData, f *podForm, buf []domainFilter) []domainFilter {
	buf = buf[:0]
	add := func(g *topologyGroup) {
		if g.key != v1.LabelHostname {
			buf = append(buf, domainFilter{key: t.keyIDs[g.key], allowed: t.admissible(g, p, f).domains})
		}
	}
	for _, g := range f.owned {
		add(g)
	}
	for _, g := range p.blockedBy {
		add(g)
	}
	return buf
}

// rejectedByFilters reports whether a NodeClaim whose single values per topology key are
// values is ruled out by the filters.
func rejectedByFilters(filters []domainFilter, values []string) bool {
	for _, df := range filters {
		if df.key >= len(values) {
			continue
		}
		v := values[df.key]
		if v == "" {
			continue
		}
		found := false
		for _, a := range df.allowed {
			if a == v {
				found = true
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}

// singleValues are reqs' single values of the topology keys ("" where open), into buf.
func (t *topology) singleValues(reqs requirements.Requirements, buf []string) []string {
	buf = buf[:0]
	for _, k := range t.keys {
		v := ""
		if r, ok := reqs[k]; ok {
			v = singleValue(r)
		}
		buf = append(buf, v)
	}
	return buf
}

// claimHost is hostID for a NodeClaim's placeholder hostname.
func (t *topology) claimHost(name string) int32 {
	id := t.hostID(name)
	t.claimHosts[id] = true
	return id
}

// pinnedTo is the domain of g's key a pending pod's own strict requirements pin it to, or "".
func (p *podData) pinnedTo(t *topology, g *topologyGroup) string {
	if p.form == nil || g.key == v1.LabelHostname || g.kind != groupInverse {
		return ""
	}
	return singleValue(t.get(p.form.strict, g.key))
}

// markCollapses notes, per pod, whether it declares a required anti-affinity on a key other
// than the hostname (so requirementsFor must pin its node's domain) and whether groups count
// it where its NodeClaim may still be open (settling), and counts the pods pinned to each
// domain of the inverse groups that repel them.
func (t *topology) markCollapses(pods []*podData) {
	for _, p := range pods {
		p.settling = p.settles()
		for _, g := range p.blockedBy {
			if v := p.pinnedTo(t, g); v != "" {
				g.pinned[v]++
			}
		}
		for _, g := range p.inverse {
			if g.key != v1.LabelHostname {
				p.collapses = true
			}
		}
	}
}

// universe records where topology domains come from.
type universe struct {
	// templates maps key -> domain -> the NodePools that can launch a node in it.
	templates map[string]map[string][]*template
	nodes     []universeNode
}

type universeNode struct {
	labels map[string]string
	reqs   requirements.Requirements
	taints []corev1.Taint
}

// domains are the domains a group starts with: those NodePools can produce (for a spread
// group honouring taints, only NodePools whose taints its pods tolerate), and the labels of
// existing nodes (for a spread group, only nodes passing its node filter).
func (u *universe) domains(g *topologyGroup, wellKnown requirements.KeySet) []string {
	seen := map[string]bool{}
	for d, from := range u.templates[g.key] {
		for _, t := range from {
			if g.kind != groupSpread || !g.honorTaints || tolerates(g.filterTolerations, schedulingTaints(t.taints)) {
				seen[d] = true
				break
			}
		}
	}
	for _, n := range u.nodes {
		v, ok := n.labels[g.key]
		if !ok || seen[v] {
			continue
		}
		if g.kind == groupSpread && !g.passesFilter(n.reqs, schedulingTaints(n.taints), nil) {
			continue
		}
		seen[v] = true
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// schedulingTaints drops PreferNoSchedule taints, which never keep a pod off a node.
func schedulingTaints(taints []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		if t.Effect != corev1.TaintEffectPreferNoSchedule {
			out = append(out, t)
		}
	}
	return out
}

// spreadFilterID identifies a spread constraint's node filter: the pod's strict node
// requirements (nodeAffinityPolicy Honor) and tolerations (nodeTaintsPolicy Honor), written
// out in full (Requirements.String abbreviates long value lists).
func spreadFilterID(c corev1.TopologySpreadConstraint, strictTerms []requirements.Requirements, tolerations []corev1.Toleration) string {
	var b strings.Builder
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		for _, r := range strictTerms {
			b.WriteString(requirementsID(r))
			b.WriteByte(';')
		}
	}
	if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
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
