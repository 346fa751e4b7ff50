package scheduling

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// podData is what the scheduler computes once per pod.
type podData struct {
	pod      *corev1.Pod
	key      string // namespace/name
	requests vec
	cpu, mem int64
	ports    []hostPort
	// invalid is set when the pod can never be scheduled (bad selector, restricted label...).
	invalid *Cause
	// form is the pod's current scheduling constraints; relaxation replaces it.
	form *podForm
	// selectedBy are the topology groups that count this pod when it is placed.
	selectedBy []*topologyGroup
	// blockedBy are inverse anti-affinity groups whose owners repel this pod.
	blockedBy []*topologyGroup
	// inverse are the inverse groups of the pod's own required anti-affinity terms.
	inverse []*topologyGroup
	// collapses: the pod declares a required anti-affinity on a key other than the hostname,
	// so its node is kept to the domains of that key the fewest pending pods are pinned to.
	collapses bool
	// settling: the pod carries a spread on a key other than the hostname, or one with a node
	// filter, that counts it, or a required pod affinity on a key other than the hostname
	// that selects it, so the NodeClaim it joins is settled for it (settlingFor, launch.go).
	settling bool
	// pinCounted: the pod counts, while pending, in the pinned domains of the inverse groups
	// that repel it (countPinned).
	pinCounted bool
	// affinityPinned: the pod counts, while pending, in the pinned domains of its own required
	// pod affinities (pinAffinity).
	affinityPinned bool
	// volumeAlternatives are the node requirements the pod's volumes allow (ORed; nil: any).
	volumeAlternatives []requirements.Requirements
	volumes            []volumeUse
	// first: the default's second try places the pod ahead of the others (starved.go).
	first bool
}

// podForm is a pod's scheduling constraints at one stage of preference relaxation. Forms are
// immutable; relax returns a new one.
type podForm struct {
	nodeSelector      requirements.Requirements
	requiredTerms     []requirements.Requirements // ORed; the first is in force
	preferredNode     []requirements.Requirements // by weight, heaviest first
	preferredAffinity []*topologyGroup            // by weight, heaviest first
	preferredAnti     []*topologyGroup
	requiredAffinity  []*topologyGroup
	requiredAnti      []*topologyGroup
	spread            []*topologyGroup // in spec order
	scheduleAnyway    []bool           // parallel to spread
	spreadIdx         []int            // parallel to spread: the constraint's index
	tolerations       []corev1.Toleration
	// twins are, in Karpenter mode, the spread groups the relaxations that change a
	// spread's node filter give the pod (karpenter_relax.go); dropped counts the required
	// node affinity terms relaxed away.
	twins   *spreadTwins
	dropped int
	// mergeConflicts (Karpenter mode) merges a preferred node term into reqs even when it
	// conflicts with the strict requirements, as Karpenter does (derive).
	mergeConflicts bool

	// derived
	reqs   requirements.Requirements // nodeSelector ∩ requiredTerms[0] ∩ preferredNode[0]
	strict requirements.Requirements // without the preferred term
	owned  []*topologyGroup
	// settling are the groups of the form that settle a NodeClaim its pod joins: its spreads
	// that count the pod and its required affinities that select it, as podData.settling
	// says (computed once: settlingFor).
	settling     []*topologyGroup
	settlingDone bool
}

func (f *podForm) derive() {
	f.strict = f.nodeSelector.Copy()
	if len(f.requiredTerms) > 0 {
		f.strict = f.strict.Union(f.requiredTerms[0])
	}
	f.reqs = f.strict
	// A preference that conflicts with the strict requirements can never be met: merged, the
	// conflict reads as DoesNotExist and admits nodes without the selected label. The default
	// leaves it out (relaxed away later as a preference no node meets); Karpenter merges it
	// and launches a node the pod cannot bind to, which Karpenter mode reproduces.
	if len(f.preferredNode) > 0 && (f.mergeConflicts || f.strict.HasIntersection(f.preferredNode[0])) {
		f.reqs = f.strict.Union(f.preferredNode[0])
	}
	f.owned = f.owned[:0]
	f.owned = append(f.owned, f.spread...)
	f.owned = append(f.owned, f.requiredAffinity...)
	f.owned = append(f.owned, f.requiredAnti...)
	f.owned = append(f.owned, f.preferredAffinity...)
	f.owned = append(f.owned, f.preferredAnti...)
}

// settlingFor are the groups of form f that count p and settle a NodeClaim p joins: its
// spreads, and its required pod affinities that select p itself on a key other than the
// hostname (so the group's next pods find it in the same round).
func (p *podData) settlingFor(f *podForm) []*topologyGroup {
	if !f.settlingDone {
		f.settlingDone = true
		for _, g := range p.selectedBy {
			if (pinsCounted(g) || hasFilter(g)) && f.carries(g) || selfAffinity(g) && slices.Contains(f.requiredAffinity, g) {
				f.settling = append(f.settling, g)
			}
		}
	}
	return f.settling
}

// spreadsBeyondHosts reports whether the form has a spread on a key other than the hostname.
func (f *podForm) spreadsBeyondHosts() bool {
	for _, g := range f.spread {
		if !g.hostname {
			return true
		}
	}
	return false
}

// carries reports whether g is one of the form's spread constraints.
func (f *podForm) carries(g *topologyGroup) bool { return slices.Contains(f.spread, g) }

// carriesRequired reports whether g is one of the form's DoNotSchedule spreads.
func (f *podForm) carriesRequired(g *topologyGroup) bool {
	i := slices.Index(f.spread, g)
	return i >= 0 && !f.scheduleAnyway[i]
}

// relax returns the form with one preference removed, in Karpenter's order, or nil when
// nothing is left to relax; pns says whether the last step tolerates PreferNoSchedule taints.
func (f *podForm) relax(pns pnsRelax) *podForm {
	n := *f
	n.owned, n.settling, n.settlingDone = nil, nil, false
	switch {
	case len(f.requiredTerms) > 1:
		n.requiredTerms = f.requiredTerms[1:]
		n.dropped++
		n.spread = f.twins.afterDropping(n.dropped, n.spread, n.spreadIdx)
	case len(f.preferredAffinity) > 0:
		n.preferredAffinity = f.preferredAffinity[1:]
	case len(f.preferredAnti) > 0:
		n.preferredAnti = f.preferredAnti[1:]
	case len(f.preferredNode) > 0:
		n.preferredNode = f.preferredNode[1:]
	case indexOf(f.scheduleAnyway, true) >= 0:
		// Karpenter moves the last constraint into the removed one's place, so the next
		// relaxation removes the first ScheduleAnyway one of that order (difftest
		// plan:993261: of hostname, capacity-type and zone spreads, the zone spread goes
		// second, not the capacity-type one).
		i, last := indexOf(f.scheduleAnyway, true), len(f.spread)-1
		n.spread = append([]*topologyGroup(nil), f.spread[:last]...)
		n.scheduleAnyway = append([]bool(nil), f.scheduleAnyway[:last]...)
		n.spreadIdx = append([]int(nil), f.spreadIdx[:last]...)
		if i < last {
			n.spread[i], n.scheduleAnyway[i], n.spreadIdx[i] = f.spread[last], f.scheduleAnyway[last], f.spreadIdx[last]
		}
	case pns.adds(f.tolerations):
		n.tolerations = preferNoScheduleTolerated(f.tolerations)
		n.spread = f.twins.tolerating(n.spread, n.spreadIdx)
	default:
		return nil
	}
	n.derive()
	return &n
}

// relaxBears reports whether relax's next form for f has spread groups of its own, which
// Karpenter makes when the pod relaxes (karpenter_relax.go), without making the form.
func (f *podForm) relaxBears(pns pnsRelax) bool {
	switch {
	case f.twins == nil:
		return false
	case len(f.requiredTerms) > 1:
		return f.dropped < len(f.twins.byTerms)
	case len(f.preferredAffinity) > 0 || len(f.preferredAnti) > 0 || len(f.preferredNode) > 0 ||
		indexOf(f.scheduleAnyway, true) >= 0:
		return false
	}
	return pns.adds(f.tolerations) && f.twins.tolerated != nil
}

// withoutPreferences returns the form with every preference relaxed away and its required
// node-affinity terms kept, or nil when it has no preference to relax.
func (f *podForm) withoutPreferences(pns pnsRelax) *podForm {
	anyway := indexOf(f.scheduleAnyway, true) >= 0
	tolerate := pns.adds(f.tolerations)
	if len(f.preferredAffinity) == 0 && len(f.preferredAnti) == 0 && len(f.preferredNode) == 0 && !anyway && !tolerate {
		return nil
	}
	n := *f
	n.owned, n.settling, n.settlingDone = nil, nil, false
	n.preferredAffinity, n.preferredAnti, n.preferredNode = nil, nil, nil
	if anyway {
		n.spread, n.scheduleAnyway, n.spreadIdx = nil, nil, nil
		for i, g := range f.spread {
			if !f.scheduleAnyway[i] {
				n.spread = append(n.spread, g)
				n.scheduleAnyway = append(n.scheduleAnyway, false)
				n.spreadIdx = append(n.spreadIdx, f.spreadIdx[i])
			}
		}
	}
	if tolerate {
		n.tolerations = preferNoScheduleTolerated(f.tolerations)
		n.spread = f.twins.tolerating(n.spread, n.spreadIdx)
	}
	n.derive()
	return &n
}

func indexOf(bs []bool, b bool) int {
	for i, x := range bs {
		if x == b {
			return i
		}
	}
	return -1
}

// pnsRelax is when relax adds a toleration of PreferNoSchedule taints (Karpenter's last
// relaxation, when a NodePool it schedules with has such a taint).
type pnsRelax uint8

const (
	pnsNever pnsRelax = iota // no NodePool has such a taint
	// pnsUntolerated: when the pod tolerates no PreferNoSchedule taint yet (the default mode:
	// the step changes nothing else).
	pnsUntolerated
	// pnsUnlisted (Karpenter mode): when the pod lists no toleration equal to the one added
	// (Karpenter's test, Toleration.MatchToleration), so a pod that tolerates every taint
	// ({operator: Exists}) takes the step too, and its spreads change group
	// (karpenter_relax.go; difftest plan:920288).
	pnsUnlisted
)

// adds reports whether relax adds the toleration to a form with tolerations ts.
func (pns pnsRelax) adds(ts []corev1.Toleration) bool {
	switch pns {
	case pnsUntolerated:
		return !toleratesPreferNoSchedule(ts)
	case pnsUnlisted:
		return !listsPreferNoSchedule(ts)
	}
	return false
}

// listsPreferNoSchedule reports whether ts has the toleration Karpenter's relaxation adds.
func listsPreferNoSchedule(ts []corev1.Toleration) bool {
	want := corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule}
	for i := range ts {
		if ts[i].MatchToleration(&want) {
			return true
		}
	}
	return false
}

func toleratesPreferNoSchedule(ts []corev1.Toleration) bool {
	for _, t := range ts {
		if t.Operator == corev1.TolerationOpExists && t.Key == "" && (t.Effect == corev1.TaintEffectPreferNoSchedule || t.Effect == "") {
			return true
		}
	}
	return false
}

// PodRequests is the pod's effective request as Solve counts it (see podRequests): what a
// host shows as a node's requested resources.
func PodRequests(pod *corev1.Pod) corev1.ResourceList { return podRequests(pod) }

// podRequests is the pod's effective request (init containers, sidecars, overhead and
// pod-level resources as Kubernetes computes them) plus one `pods`.
//
// Manifests read from files are not defaulted by an API server, so a container resource with
// a limit and no request is requested at its limit, as the API server would default it.
func podRequests(pod *corev1.Pod) corev1.ResourceList {
	if needsRequestDefaults(pod) {
		pod = withDefaultRequests(pod)
	}
	var rl corev1.ResourceList
	if len(pod.Spec.InitContainers) == 0 && pod.Spec.Overhead == nil && pod.Spec.Resources == nil {
		// The common case, without component-helpers' allocations: the sum of the containers.
		rl = corev1.ResourceList{}
		for i := range pod.Spec.Containers {
			for name, q := range pod.Spec.Containers[i].Resources.Requests {
				sum, ok := rl[name]
				if !ok {
					rl[name] = q.DeepCopy()
					continue
				}
				sum.Add(q)
				rl[name] = sum
			}
		}
	} else {
		rl = resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	}
	rl[corev1.ResourcePods] = *resourceOne()
	return rl
}

func needsRequestDefaults(pod *corev1.Pod) bool {
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			for name := range cs[i].Resources.Limits {
				if _, ok := cs[i].Resources.Requests[name]; !ok {
					return true
				}
			}
		}
	}
	return false
}

// withDefaultRequests returns a copy of pod whose containers request their limits where they
// set no request.
func withDefaultRequests(pod *corev1.Pod) *corev1.Pod {
	pod = pod.DeepCopy()
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			for name, q := range cs[i].Resources.Limits {
				if _, ok := cs[i].Resources.Requests[name]; !ok {
					if cs[i].Resources.Requests == nil {
						cs[i].Resources.Requests = corev1.ResourceList{}
					}
					cs[i].Resources.Requests[name] = q.DeepCopy()
				}
			}
		}
	}
	return pod
}

// nodeRequirementsForPod builds the node-side parts of a pod's first form. It returns an
// error naming the field for constraints Karpenter refuses.
//
// DaemonSet pods (daemon set) may select the labels Karpenter sets itself, such as
// karpenter.sh/initialized. merge keeps a required term that conflicts with the node
// selector, merged with it as Karpenter's requirements read them (DoesNotExist on the key).
func nodeRequirementsForPod(pod *corev1.Pod, ignorePreferences, daemon, merge bool) (sel requirements.Requirements, terms, preferred []requirements.Requirements, err error) {
	if !daemon {
		keys := make([]string, 0, len(pod.Spec.NodeSelector))
		for k := range pod.Spec.NodeSelector {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the first restricted key in a stable order names the error
		for _, k := range keys {
			if e := checkPodLabelKey(k); e != nil {
				return nil, nil, nil, fmt.Errorf("spec.nodeSelector[%s]: %v", k, e)
			}
		}
	}
	sel = requirements.FromLabels(pod.Spec.NodeSelector)
	aff := pod.Spec.Affinity
	if aff == nil || aff.NodeAffinity == nil {
		return sel, nil, nil, nil
	}
	na := aff.NodeAffinity
	if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		for i, term := range r.NodeSelectorTerms {
			path := fmt.Sprintf("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]", i)
			reqs, e := termRequirements(term, path, daemon)
			if e != nil {
				return nil, nil, nil, e
			}
			if !merge && !sel.HasIntersection(reqs) {
				// No node matches both the term and the node selector: the term can never
				// be met (merged, the requirements would read the conflict as DoesNotExist).
				continue
			}
			terms = append(terms, reqs)
		}
		if len(terms) == 0 && len(r.NodeSelectorTerms) > 0 {
			return nil, nil, nil, errNoTermMatches
		}
	}
	// Preferred terms are validated even when preferences are ignored, as Karpenter does.
	prefs := na.PreferredDuringSchedulingIgnoredDuringExecution
	idx := make([]int, len(prefs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return prefs[idx[a]].Weight > prefs[idx[b]].Weight })
	for _, i := range idx {
		path := fmt.Sprintf("spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d].preference", i)
		reqs, e := termRequirements(prefs[i].Preference, path, daemon)
		if e != nil {
			return nil, nil, nil, e
		}
		if !ignorePreferences {
			preferred = append(preferred, reqs)
		}
	}
	return sel, terms, preferred, nil
}

// errNoTermMatches: every required node-affinity term conflicts with the node selector
// (difftest default plan:830064: nodeSelector team=pool-2 with a term team DoesNotExist was
// placed on a node without the label).
var errNoTermMatches = errors.New("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: every term conflicts with spec.nodeSelector, no node can match both")

func termRequirements(term corev1.NodeSelectorTerm, path string, daemon bool) (requirements.Requirements, error) {
	if len(term.MatchFields) > 0 && !daemon {
		return nil, fmt.Errorf("%s.matchFields: not supported by Karpenter", path)
	}
	for i, e := range term.MatchExpressions {
		if daemon {
			break
		}
		if err := checkPodLabelKey(e.Key); err != nil {
			return nil, fmt.Errorf("%s.matchExpressions[%d].key: %v", path, i, err)
		}
	}
	reqs, err := requirements.FromCoreNodeSelectorRequirements(term.MatchExpressions...)
	if err != nil {
		return nil, fmt.Errorf("%s.matchExpressions: %v", path, err)
	}
	return reqs, nil
}

// checkPodLabelKey rejects requirements on labels Karpenter sets itself (hostname, the
// karpenter.sh domain except the well-known keys in it).
func checkPodLabelKey(key string) error {
	k := v1.NormalizeLabelKey(key)
	if v1.IsRestrictedLabel(k) {
		return fmt.Errorf("label %q is restricted (set by Karpenter or the kubelet, not selectable for provisioning)", key)
	}
	return nil
}

// hostPort is one host port a pod binds.
type hostPort struct {
	ip       string
	port     int32
	protocol corev1.Protocol
	owner    string // namespace/name of the pod
}

func hostPortsOf(pod *corev1.Pod) []hostPort {
	var out []hostPort
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.HostPort == 0 {
				continue
			}
			proto := p.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			ip := p.HostIP
			if ip == "" {
				ip = "0.0.0.0"
			}
			out = append(out, hostPort{ip: ip, port: p.HostPort, protocol: proto, owner: pod.Namespace + "/" + pod.Name})
		}
	}
	return out
}

func (a hostPort) conflicts(b hostPort) bool {
	if a.owner == b.owner || a.port != b.port || a.protocol != b.protocol {
		return false
	}
	return a.ip == b.ip || unspecifiedIP(a.ip) || unspecifiedIP(b.ip)
}

func unspecifiedIP(ip string) bool {
	parsed := net.ParseIP(ip)
	return parsed == nil || parsed.IsUnspecified()
}

func portsConflict(have, want []hostPort) bool {
	for _, w := range want {
		for _, h := range have {
			if w.conflicts(h) {
				return true
			}
		}
	}
	return false
}

// hasDRAClaims reports whether the pod uses Dynamic Resource Allocation, which Karpenter
// ignores by default.
func hasDRAClaims(pod *corev1.Pod) bool {
	if len(pod.Spec.ResourceClaims) > 0 {
		return true
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range cs {
			if len(c.Resources.Claims) > 0 {
				return true
			}
		}
	}
	return false
}
