package disruption

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// staticDrift is Karpenter's NodePoolDrifted: the NodeClaim was launched from a NodePool
// template that has changed since, in a field the NodePool hash covers (template labels and
// annotations, taints, startup taints, nodeClassRef, terminationGracePeriod, expireAfter —
// not requirements, which RequirementsDrifted judges, nor resources, limits, weight or the
// disruption block).
//
// Karpenter needs the hash annotation on the NodeClaim (stamped at launch): without it there
// is no NodePoolDrifted. With the annotations on both (a live cluster's objects) they decide:
// drifted when the versions are equal and the hashes differ; different versions cannot tell.
// A NodePool without its annotations (a manifest as written, which Karpenter would stamp with
// the hash of its current template) is compared field by field with what the NodeClaim
// carries, since Karpenter copies each hashed field into the NodeClaim it launches. nodeplan
// does not compute Karpenter's hash value itself. It returns the drift, or the zero Drift.
func staticDrift(pool *v1.NodePool, claim *v1.NodeClaim) Drift {
	if claim == nil {
		return Drift{}
	}
	ch, cv := claim.Annotations[v1.NodePoolHashAnnotationKey], claim.Annotations[v1.NodePoolHashVersionAnnotationKey]
	if ch == "" || cv == "" {
		return Drift{}
	}
	ph, pv := pool.Annotations[v1.NodePoolHashAnnotationKey], pool.Annotations[v1.NodePoolHashVersionAnnotationKey]
	if ph != "" || pv != "" {
		if ph != "" && pv != "" && ph != ch && pv == cv {
			return Drift{Reason: NodePoolDrifted}
		}
		return Drift{}
	}
	if f := templateChange(pool, claim); f != "" {
		return Drift{Reason: NodePoolDrifted, Field: "spec.template." + f}
	}
	return Drift{}
}

// templateChange names the first hashed template field whose value the NodeClaim does not
// carry ("" when none). Labels and annotations: each template entry must be on the NodeClaim
// (the NodeClaim has more of its own). Taints compare as sets. expireAfter is compared only
// when the NodeClaim states one.
func templateChange(pool *v1.NodePool, claim *v1.NodeClaim) string {
	t := pool.Spec.Template
	for _, k := range slices.Sorted(maps.Keys(t.ObjectMeta.Labels)) {
		if v, ok := claim.Labels[k]; !ok || v != t.ObjectMeta.Labels[k] {
			return "metadata.labels[" + k + "]"
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.ObjectMeta.Annotations)) {
		if v, ok := claim.Annotations[k]; !ok || v != t.ObjectMeta.Annotations[k] {
			return "metadata.annotations[" + k + "]"
		}
	}
	if !sameTaints(t.Spec.Taints, claim.Spec.Taints) {
		return "spec.taints"
	}
	if !sameTaints(t.Spec.StartupTaints, claim.Spec.StartupTaints) {
		return "spec.startupTaints"
	}
	if a, b := t.Spec.NodeClassRef, claim.Spec.NodeClassRef; a != nil && b != nil && *a != *b {
		return "spec.nodeClassRef"
	}
	if a, b := t.Spec.TerminationGracePeriod, claim.Spec.TerminationGracePeriod; (a == nil) != (b == nil) || (a != nil && a.Duration != b.Duration) {
		return "spec.terminationGracePeriod"
	}
	if a, b := t.Spec.ExpireAfter, claim.Spec.ExpireAfter; !b.IsZero() && a.String() != b.String() {
		return "spec.expireAfter"
	}
	return ""
}

// sameTaints compares taints as sets of key, value and effect.
func sameTaints(a, b []corev1.Taint) bool {
	set := func(ts []corev1.Taint) string {
		keys := make([]string, 0, len(ts))
		for _, t := range ts {
			keys = append(keys, fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect))
		}
		slices.Sort(keys)
		return strings.Join(slices.Compact(keys), ",")
	}
	return set(a) == set(b)
}

// providerDrift is the CloudProvider's IsDrifted answer the input carries for the node's
// NodeClaim (by NodeClaim name, else by node name), or "".
func (s *state) providerDrift(n *node) cloudprovider.DriftReason {
	if n.NodeClaim != nil {
		if r := s.snap.ProviderDrift()[n.NodeClaim.Name]; r != "" {
			return r
		}
	}
	return s.snap.ProviderDrift()[n.Name()]
}
