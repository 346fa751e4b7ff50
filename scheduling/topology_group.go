package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/nodeplan/nodeplan/requirements"
)

// topologyGroup counts, per domain of one topology key, the placed pods its selector selects;
// its rule decides from those counts where a pod may go. Groups are shared by every pod with
// the same constraint.
type topologyGroup struct {
	rule topologyRule
	// spread is rule when g is a topology spread (its skew and node filter), else nil.
	spread *spreadRule
	key    string
	// hostname: key is the hostname, every node its own domain; set once when the group is
	// interned, it picks the per-host counter (hostCounts, topology_hostname.go) over counts.
	hostname   bool
	namespaces map[string]bool // nil: every namespace
	selector   labels.Selector

	counts map[string]int
	total  int
	// nodeCounts are, in the default mode, the counts of a spread over a key other than the
	// hostname on the nodes that take pods now: the bound pods and those placed on
	// initialized existing nodes (bindsNow). Such a pod binds before any pod of a NodeClaim
	// not launched yet, so its spread may also hold against these alone (admissibleNow).
	nodeCounts map[string]int
	// carriedNow counts, per domain, the pods of carriedIn placed on initialized existing
	// nodes (bindsNow): where carriedIn counts more, a carrier binds later and must find
	// the pods before it, so nodeCounts alone do not decide there.
	carriedNow map[string]int32
	// heldNow counts, per domain, the carriers placed on a node that takes them now only
	// because the spread holds over nodeCounts (admissibleNow): any pod the spread selects
	// that joins such a node in that domain must keep it so (keepsHeldNow).
	heldNow map[string]int32
	// family are the spreads counting what this one counts (nil for the other rules).
	family  *spreadFamily
	domains []string // sorted domains of key (not used for hostname)
	// single caches `key In [domain]` per domain, multi `key In [domains...]` per set.
	single map[string]*requirements.Requirement
	multi  map[uint64]*requirements.Requirement
	// hostCounts replace counts for the hostname key, indexed by host id (a slice lookup
	// instead of a string hash: hostname constraints are checked against every candidate).
	hostCounts []int32
	// carriers count, per host id, the pods placed there this Solve that carry this
	// required hostname spread (default mode: host_spread_cap.go).
	carriers []int32
	// carriedIn counts, per domain of a key other than the hostname, the pods placed there
	// this Solve that carry this required spread (default mode: host_spread_cap.go).
	carriedIn map[string]int32
	// filterDomains are, for a default-mode spread with a node filter, the domains where a
	// node passing it can be (filterDomains; nil until read).
	filterDomains map[string]bool
	// launchable are, for a default-mode spread over a key other than the hostname, the
	// domains where a node it counts can be (launchableDomains; nil until read).
	launchable map[string]bool
	// onNodes are, for such a spread, the domains of the existing nodes it counts
	// (nodesDomains; nil until read).
	onNodes map[string]bool
	// hostFloor is, for a hostname spread, the least count over the nodes it counts once no
	// NodeClaim opens any more (fillHostFloors); zero before.
	hostFloor int32
	// floor is the highest minimum a pod carrying this spread was placed against: the
	// minimum may not drop below it (keepsDeferred).
	floor int
	// pinned counts, per domain, the pending pods an inverse group repels whose own node
	// requirements pin them to that domain (nil for the other groups).
	pinned map[string]int
	// occupiedClaims is how many NodeClaims opened in this Solve hold a pod g counts (for the
	// hostname key), so a pod that must avoid them all can skip the scan.
	occupiedClaims int
	// creator is, in Karpenter mode, the pod whose term first made a pod (anti-)affinity
	// group: Karpenter registers a NodePool's domains with the group only when that pod
	// tolerates the NodePool's taints (universe.domains).
	creator *corev1.Pod
	// unborn holds, in Karpenter mode, the counts a group a relaxation makes starts with
	// when a pod's relaxed form first uses it this round (nil: made; karpenter_relax.go).
	unborn *groupCounts
	// lost holds, in Karpenter mode, what the round had counted in a group before its birth
	// dropped it: Karpenter's next round counts those pods again (karpenter_relax.go).
	lost *groupCounts
}

// topologyRule is what one kind of constraint (spread, affinity, anti-affinity and its
// inverse) allows given its group's counts, how it counts a pod whose domain is still open,
// and the reason a pod it refuses gets: each behaviour of a kind sits behind this interface,
// as kube-scheduler puts each behind its plugin's.
type topologyRule interface {
	// name tells the kinds apart in the ids groups are interned under.
	name() string
	// code is the reason of a pod the group leaves no domain.
	code() ReasonCode
	// repels reports whether the group counts the owners of an anti-affinity term, so the
	// pods it selects keep away from them (their blockers), not the pods it selects.
	repels() bool
	// countsDecided reports whether the group counts a pod only in a decided domain: a
	// NodeClaim it joins is settled, or the count waits for its launch (a spread). The other
	// kinds count a pod on an open NodeClaim at once (countOpen) and settle at the round's end.
	countsDecided() bool
	// bootstraps reports whether a pod the group selects may start it in any domain when
	// nothing matches yet (pod affinity).
	bootstraps() bool
	// needsKey reports whether only a node with g's key can take a pod carrying the group.
	needsKey() bool
	// exclusiveHost reports whether a pod carrying the group (self: the group selects it)
	// may share no host with a pod the group counts.
	exclusiveHost(self bool) bool
	// countOpen counts a pod on a node whose requirement r on g's key allows several
	// domains, and returns the domains it counted it in, to settle later (nil: none;
	// empty: counted in g's total only).
	countOpen(t *topology, g *topologyGroup, r *requirements.Requirement) []string
	// settle moves an open count to domain v ("": the node has no such label); unsettle
	// undoes it.
	settle(t *topology, oc openCount, v string)
	unsettle(t *topology, oc openCount, v string)
	// admissible is the domains of g a pod may join now, whatever the node (self: g counts
	// the pod; strict: the pod's strict node requirements).
	admissible(t *topology, g *topologyGroup, self bool, strict requirements.Requirements) admissibleDomains
	// narrow is the node requirement r on g's key narrowed to the domains the pod may take
	// (adm are its admissible ones), r itself when it needs no narrowing, or nil when none.
	narrow(t *topology, g *topologyGroup, adm admissibleDomains, r *requirements.Requirement) *requirements.Requirement
	// allowsHost reports whether the pod may join a host holding count pods of g.
	allowsHost(g *topologyGroup, self bool, count int32) bool
}

func (g *topologyGroup) selects(pod *corev1.Pod) bool {
	if g.namespaces != nil && !g.namespaces[pod.Namespace] {
		return false
	}
	return g.selector.Matches(labels.Set(pod.Labels))
}

// domainsIn returns the domains of g that r allows.
func (g *topologyGroup) domainsIn(r *requirements.Requirement) []string {
	return allowedBy(g.domains, r)
}

// allowedBy returns the domains of ds that r allows.
func allowedBy(ds []string, r *requirements.Requirement) []string {
	var out []string
	for _, d := range ds {
		if r.Has(d) {
			out = append(out, d)
		}
	}
	return out
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
