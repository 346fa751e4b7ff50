package scheduling

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// Solve's first stage for the pods: each pod's data, its scheduling form and its topology
// groups.

// preparePods computes per-pod data and, when placing, builds the topology groups of every
// pod; otherwise a pod's form is its node requirements and tolerations alone (nodeForm).
func (s *solver) preparePods(placing bool) ([]*podData, error) {
	pods := make([]*podData, 0, len(s.pending))
	data := make([]podData, len(s.pending)) // one allocation for the Solve's pods
	for i, pod := range s.pending {
		k := preparedKey{pod: pod, specChecked: i >= len(s.toPlace), placing: placing, ignore: s.opts.PreferencePolicy == PreferencesIgnore,
			softTaintsTolerated: s.opts.softTaintsTolerated}
		if s.prepared(k, &data[i]) {
			pods = append(pods, &data[i])
			continue
		}
		p := &data[i]
		*p = podData{pod: pod, key: pod.Namespace + "/" + pod.Name}
		requests := func() corev1.ResourceList { return s.requestsOf(i) }
		p.requests = s.podVecOf(pod, func() vec { return s.pendingVec(i) })
		p.cpu = p.requests[0]
		p.mem = p.requests[1]
		p.ports = hostPortsOf(pod)
		var volumeReason string
		p.volumeAlternatives, p.volumes, volumeReason = s.volumes.podVolumes(pod)
		if kind := daemonOrNodeOwner(pod); kind != "" {
			p.invalid = detailCause(ReasonNotProvisionable, fmt.Sprintf("pod is owned by a %s: Karpenter does not provision for it (DaemonSet overhead is counted on every node instead)", kind))
		} else if hasDRAClaims(pod) {
			p.invalid = detailCause(ReasonNotProvisionable, "pod uses Dynamic Resource Allocation (resource claims), which Karpenter does not provision for")
		} else if volumeReason != "" {
			p.invalid = detailCause(ReasonVolumeUnresolved, volumeReason)
		} else if r := s.refusal(pod, requests, i >= len(s.toPlace)); r.spec != "" {
			p.invalid = detailCause(ReasonInvalidPodSpec, r.spec)
		} else if r.requirements != "" {
			p.invalid = detailCause(ReasonNotProvisionable, r.requirements)
		} else if !placing {
			if f, err := nodeForm(pod); err != nil {
				p.invalid = detailCause(ReasonInvalidPodSpec, fmt.Sprintf("pod %s: %v", p.key, err))
			} else {
				p.form = f
			}
		} else if f, err := s.formFor(pod); err != nil {
			p.invalid = detailCause(ReasonInvalidPodSpec, fmt.Sprintf("pod %s: %v", p.key, err))
		} else {
			p.form = f
			p.inverse = s.inverseGroups(pod)
		}
		s.remember(k, p)
		pods = append(pods, p)
	}
	s.pendingRequests = nil // read only here: 13 MB of maps at 20,000 pods
	if !placing {
		return pods, nil
	}
	// Inverse anti-affinity groups of bound pods, before selection is computed.
	if b := s.base; b != nil {
		for _, i := range b.inverse {
			if !s.gone.has(i) {
				for _, bp := range b.recs[i].inverse {
					s.inverseGroups(bp)
				}
			}
		}
	} else {
		for _, f := range s.recs {
			for _, bp := range f.inverse {
				s.inverseGroups(bp)
			}
		}
	}
	for _, f := range s.leftRecs {
		for _, bp := range f.inverse {
			s.inverseGroups(bp)
		}
	}
	for _, p := range pods {
		p.selectedBy, p.blockedBy = s.topo.selecting(p.pod)
	}
	s.topo.markCollapses(pods)
	return pods, nil
}

// daemonOrNodeOwner is "DaemonSet" or "Node" when one owns pod (Karpenter provisions for
// neither), else "".
func daemonOrNodeOwner(pod *corev1.Pod) string {
	switch {
	case cluster.IsDaemonSetPod(pod):
		return "DaemonSet"
	case cluster.OwnedBy(pod, "Node"):
		return "Node"
	}
	return ""
}

// refusedRequirements are pod requirements Karpenter refuses to provision for: requiring
// that no NodePool owns the node, or a capacity type that does not exist.
func refusedRequirements(pod *corev1.Pod) string {
	reqs, err := requirements.ForPodStrict(pod)
	if err != nil {
		return ""
	}
	if r, ok := reqs[v1.NodePoolLabelKey]; ok && r.Operator() == requirements.DoesNotExist {
		return "pod requires " + v1.NodePoolLabelKey + " DoesNotExist: it is not for Karpenter to provision"
	}
	if r, ok := reqs[v1.CapacityTypeLabelKey]; ok && r.Operator() == requirements.In {
		known := false
		for _, v := range v1.WellKnownValuesForRequirements[v1.CapacityTypeLabelKey] {
			known = known || r.Has(v)
		}
		if !known {
			return fmt.Sprintf("pod requires %s %s: none of on-demand, spot or reserved", v1.CapacityTypeLabelKey, r)
		}
	}
	return ""
}

func (s *solver) inverseGroups(pod *corev1.Pod) []*topologyGroup {
	a := pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return nil
	}
	var out []*topologyGroup
	for i, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		g, err := s.topo.affinityGroup(inverseRule{}, pod, term, termPath{"spec.affinity.podAntiAffinity", ".requiredDuringSchedulingIgnoredDuringExecution", i, ""})
		if err == nil {
			out = append(out, g)
		}
	}
	return out
}

// nodeForm is a pod's required node constraints alone: its node selector, its required
// node-affinity terms and its tolerations (no preferences, no topology).
func nodeForm(pod *corev1.Pod) (*podForm, error) {
	sel, terms, _, err := nodeRequirementsForPod(pod, true, false, false)
	if err != nil {
		return nil, err
	}
	f := &podForm{nodeSelector: sel, requiredTerms: terms, tolerations: pod.Spec.Tolerations}
	f.derive()
	return f, nil
}

// formFor builds a pod's unrelaxed scheduling form.
func (s *solver) formFor(pod *corev1.Pod) (*podForm, error) {
	ignore := s.opts.PreferencePolicy == PreferencesIgnore
	// Karpenter mode keeps a required term that conflicts with the node selector, merged
	// with it as DoesNotExist on the key, as Karpenter's requirements read it: the pod goes
	// to a node or NodePool without the label, where it can never bind.
	sel, terms, preferred, err := nodeRequirementsForPod(pod, ignore, false, s.karpenter)
	if err != nil {
		return nil, err
	}
	if !s.karpenter {
		terms = withoutContainedTerms(terms)
	}
	f := &podForm{nodeSelector: sel, requiredTerms: terms, preferredNode: preferred, tolerations: pod.Spec.Tolerations, mergeConflicts: s.karpenter}
	if s.opts.softTaintsTolerated && !s.karpenter && s.pns().adds(f.tolerations) {
		// The default's plan whose preferences cost more than Karpenter's, planned once more
		// with its pods tolerating PreferNoSchedule from the start (preferences.go).
		f.tolerations = preferNoScheduleTolerated(f.tolerations)
	}
	strictTerms := strictTermsOf(sel, terms)
	tscs := pod.Spec.TopologySpreadConstraints
	if len(tscs) == 0 && len(pod.Labels) > 0 {
		// A pod without labels has nothing to select its peers by: no default applies (as
		// kube-scheduler and Karpenter, whose deduced selector is then empty).
		for _, c := range s.opts.DefaultTopologySpreadConstraints {
			c := *c.DeepCopy()
			if c.LabelSelector == nil {
				c.LabelSelector = labelSelectorFor(pod.Labels)
			}
			tscs = append(tscs, c)
		}
	}
	for i, c := range tscs {
		anyway := c.WhenUnsatisfiable == corev1.ScheduleAnyway
		if anyway && ignore {
			continue
		}
		g, err := s.topo.spreadGroup(pod, c, strictTerms, pod.Spec.Tolerations, spreadPath(i))
		if err != nil {
			return nil, err
		}
		f.spread = append(f.spread, g)
		f.scheduleAnyway = append(f.scheduleAnyway, anyway)
		f.spreadIdx = append(f.spreadIdx, i)
	}
	if s.karpenter && len(f.spread) > 0 {
		if err := s.spreadTwins(pod, f, tscs); err != nil {
			return nil, err
		}
	}
	if a := pod.Spec.Affinity; a != nil {
		var err error
		if pa := a.PodAffinity; pa != nil {
			f.requiredAffinity, f.preferredAffinity, err = s.affinityGroups(affinityRule{}, pod, pa.RequiredDuringSchedulingIgnoredDuringExecution,
				pa.PreferredDuringSchedulingIgnoredDuringExecution, "spec.affinity.podAffinity", ignore)
			if err != nil {
				return nil, err
			}
		}
		if pa := a.PodAntiAffinity; pa != nil {
			f.requiredAnti, f.preferredAnti, err = s.affinityGroups(antiAffinityRule{}, pod, pa.RequiredDuringSchedulingIgnoredDuringExecution,
				pa.PreferredDuringSchedulingIgnoredDuringExecution, "spec.affinity.podAntiAffinity", ignore)
			if err != nil {
				return nil, err
			}
		}
	}
	f.derive()
	return f, nil
}

// spreadPath is the field path of a pod's i-th topology spread constraint.
func spreadPath(i int) termPath { return termPath{"spec.topologySpreadConstraints", "", i, ""} }

// affinityGroups interns the groups of a pod's required terms, and of its preferred terms
// heaviest first (none when preferences are ignored).
func (s *solver) affinityGroups(rule topologyRule, pod *corev1.Pod, required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, path string, ignore bool) (req, pref []*topologyGroup, err error) {
	for i, term := range required {
		g, err := s.topo.affinityGroup(rule, pod, term, termPath{path, ".requiredDuringSchedulingIgnoredDuringExecution", i, ""})
		if err != nil {
			return nil, nil, err
		}
		req = append(req, g)
	}
	if ignore {
		return req, nil, nil
	}
	for _, i := range byWeight(preferred) {
		g, err := s.topo.affinityGroup(rule, pod, preferred[i].PodAffinityTerm, termPath{path, ".preferredDuringSchedulingIgnoredDuringExecution", i, ".podAffinityTerm"})
		if err != nil {
			return nil, nil, err
		}
		pref = append(pref, g)
	}
	return req, pref, nil
}

func byWeight(terms []corev1.WeightedPodAffinityTerm) []int {
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return terms[idx[a]].Weight > terms[idx[b]].Weight })
	return idx
}
