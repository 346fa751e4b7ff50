package verify

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
)

// pdbState is a PodDisruptionBudget with how many evictions it allows now.
type pdbState struct {
	pdb              *policyv1.PodDisruptionBudget
	sel              labels.Selector
	allowed          int
	healthy, desired int
}

// buildPDBs computes each budget's allowance: from its status when the snapshot carries
// one, else with the disruption controller's arithmetic over the pods the input knows,
// pending pods included (they are expected but not healthy).
func buildPDBs(snap *cluster.Snapshot) []*pdbState {
	var all []*corev1.Pod
	for _, n := range snap.Nodes() {
		if n != nil {
			all = append(all, n.Pods...)
		}
	}
	pending := map[*corev1.Pod]bool{}
	for _, p := range toPlace(snap) {
		if p != nil {
			all = append(all, p)
			pending[p] = true
		}
	}
	var out []*pdbState
	for _, pdb := range snap.PodDisruptionBudgets() {
		if pdb == nil {
			continue
		}
		s := &pdbState{pdb: pdb, sel: selector(pdb.Spec.Selector)}
		if st := pdb.Status; st.ObservedGeneration > 0 || st.ExpectedPods > 0 || st.CurrentHealthy > 0 ||
			st.DesiredHealthy > 0 || st.DisruptionsAllowed > 0 || len(st.Conditions) > 0 {
			s.allowed, s.healthy, s.desired = int(st.DisruptionsAllowed), int(st.CurrentHealthy), int(st.DesiredHealthy)
			out = append(out, s)
			continue
		}
		expected := 0
		for _, p := range all {
			if p == nil || p.Namespace != pdb.Namespace || isTerminal(p) || isTerminating(p) || !s.sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			expected++
			if !pending[p] && podReady(p) {
				s.healthy++
			}
		}
		switch {
		case pdb.Spec.MaxUnavailable != nil:
			mu, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, expected, true)
			if err != nil {
				mu = 0
			}
			s.desired = max(expected-mu, 0)
		case pdb.Spec.MinAvailable != nil:
			ma, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, expected, true)
			if err != nil {
				ma = expected
			}
			s.desired = ma
		}
		s.allowed = max(s.healthy-s.desired, 0)
		out = append(out, s)
	}
	return out
}

// podReady reads a pod's health as package cluster does (its Ready condition; without one,
// whether it is Running), so that a PDB's allowance is the one Plan was given: a dump or a
// generator that writes phase Running and no conditions has healthy pods on both sides.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return p.Status.Phase == corev1.PodRunning
}

// active pods are neither finished nor terminating.
func active(p *corev1.Pod) bool { return !isTerminal(p) && !isTerminating(p) }

// doNotDisrupt: the annotation is "true", or a positive duration not yet over since the
// pod started (a pod that has not started is protected). Other values are ignored.
func doNotDisrupt(p *corev1.Pod, now time.Time) bool {
	v, ok := p.Annotations[v1.DoNotDisruptAnnotationKey]
	if !ok {
		return false
	}
	if v == "true" {
		return true
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return false
	}
	if p.Status.StartTime == nil {
		return true
	}
	return now.Before(p.Status.StartTime.Add(d))
}

func toleratesDisrupted(p *corev1.Pod) bool {
	return tolerates(p.Spec.Tolerations, corev1.Taint{Key: v1.DisruptedTaintKey, Effect: corev1.TaintEffectNoSchedule})
}

// pdbBlocks: the pod is selected by more than one budget (Key lists them), or by one that
// allows no eviction (unless it lets unhealthy pods go and the pod is not ready).
func (p *planWorld) pdbBlocks(pod *corev1.Pod) (Violation, bool) {
	var matched []*pdbState
	for _, s := range p.pdbs {
		if s.pdb.Namespace == pod.Namespace && s.sel.Matches(labels.Set(pod.Labels)) {
			matched = append(matched, s)
		}
	}
	v := newViolation(PlanPDB)
	v.Pod = key(pod)
	switch {
	case len(matched) > 1:
		names := make([]string, 0, len(matched))
		for _, s := range matched {
			names = append(names, s.pdb.Namespace+"/"+s.pdb.Name)
		}
		v.Key = strings.Join(names, ",")
		return v, true
	case len(matched) == 1 && matched[0].allowed <= 0:
		s := matched[0]
		if pol := s.pdb.Spec.UnhealthyPodEvictionPolicy; pol != nil && *pol == policyv1.AlwaysAllow && !podReady(pod) {
			return v, false
		}
		v.Key = s.pdb.Namespace + "/" + s.pdb.Name
		v.Got, v.Limit = int64(s.healthy), int64(s.desired)
		return v, true
	}
	return v, false
}

// podsExempt: the command's pod-level blockers do not apply (forceful expiration; drift of
// a node with a terminationGracePeriod, which drains by force at the deadline).
func (p *planWorld) podsExempt(cmd disruption.Command, name string) bool {
	if cmd.Reason.Forceful() {
		return true
	}
	return cmd.Reason == disruption.ReasonDrifted && p.hasTGP(name)
}

func (p *planWorld) hasTGP(name string) bool {
	n := p.nodes[name]
	if n == nil {
		return false
	}
	if n.NodeClaim != nil {
		return n.NodeClaim.Spec.TerminationGracePeriod != nil
	}
	np := p.pools[poolOf(n)]
	return np != nil && np.Spec.Template.Spec.TerminationGracePeriod != nil
}

// blocked: the pod keeps its node under graceful disruption.
func (p *planWorld) blocked(pod *corev1.Pod) bool {
	if !active(pod) {
		return false
	}
	if doNotDisrupt(pod, p.now) {
		return true
	}
	if isMirror(pod) || toleratesDisrupted(pod) {
		return false
	}
	_, b := p.pdbBlocks(pod)
	return b
}

// blockers: no command but expiration disrupts a do-not-disrupt node; none but expiration
// and drift with a grace period evicts a do-not-disrupt pod or one a PDB protects.
func (p *planWorld) blockers(ci int, cmd disruption.Command) []Violation {
	var out []Violation
	for _, name := range cmd.Candidates {
		n := p.nodes[name]
		if n == nil || cmd.Reason.Forceful() {
			continue
		}
		if n.Node != nil && n.Node.Annotations[v1.DoNotDisruptAnnotationKey] == "true" {
			v := planViolation(PlanDoNotDisruptNode, ci, name)
			v.NodePool = poolOf(n)
			out = append(out, v)
		}
		if p.podsExempt(cmd, name) {
			continue
		}
		for _, pod := range n.Pods {
			if pod == nil || !active(pod) {
				continue
			}
			if doNotDisrupt(pod, p.now) {
				v := planViolation(PlanDoNotDisruptPod, ci, name)
				v.Pod, v.NodePool = key(pod), poolOf(n)
				out = append(out, v)
				continue
			}
			if isMirror(pod) || toleratesDisrupted(pod) {
				continue
			}
			if v, bad := p.pdbBlocks(pod); bad {
				v.Command, v.Node, v.NodePool = ci, name, poolOf(n)
				out = append(out, v)
			}
		}
	}
	return out
}
