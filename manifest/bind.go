package manifest

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
)

// bindCompletedAnnotation is what the PV controller sets on a claim once it has bound it.
const bindCompletedAnnotation = "pv.kubernetes.io/bind-completed"

// bindClaims completes the bindings the PV controller would complete: a claim whose
// spec.volumeName names a PersistentVolume of the input that is free or reserved for it (its
// claimRef is empty or names the claim) is bound to it. Hand-written manifests pre-bind claims
// this way; Karpenter ignores such pods until the controller has set the bind-completed
// annotation, which a cluster does within seconds. Bound claims are copies: the claims given
// stay as they are.
func bindClaims(pvcs []*corev1.PersistentVolumeClaim, pvs []*corev1.PersistentVolume) []*corev1.PersistentVolumeClaim {
	byName := make(map[string]*corev1.PersistentVolume, len(pvs))
	for _, pv := range pvs {
		byName[pv.Name] = pv
	}
	out := make([]*corev1.PersistentVolumeClaim, len(pvcs))
	for i, c := range pvcs {
		out[i] = c
		pv, ok := byName[c.Spec.VolumeName]
		if !ok || c.Spec.VolumeName == "" || c.Annotations[bindCompletedAnnotation] != "" || !reservedFor(pv, c) {
			continue
		}
		bound := *c
		bound.Annotations = maps.Clone(c.Annotations)
		if bound.Annotations == nil {
			bound.Annotations = map[string]string{}
		}
		bound.Annotations[bindCompletedAnnotation] = "yes"
		bound.Status.Phase = corev1.ClaimBound
		out[i] = &bound
	}
	return out
}

// reservedFor reports whether the volume may be bound to the claim: it is not reserved for
// another claim.
func reservedFor(pv *corev1.PersistentVolume, c *corev1.PersistentVolumeClaim) bool {
	ref := pv.Spec.ClaimRef
	if ref == nil {
		return true
	}
	if ref.Name != c.Name || (ref.Namespace != "" && ref.Namespace != c.Namespace) {
		return false
	}
	return ref.UID == "" || ref.UID == c.UID
}
