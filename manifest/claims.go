package manifest

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/quantity"
)

// checkClaimSpec rejects a PersistentVolumeClaim spec the API server refuses: no access mode,
// or no positive spec.resources.requests.storage (its claim validation requires both). A
// StatefulSet's volumeClaimTemplates are not validated with the StatefulSet, but the
// controller's PersistentVolumeClaims made from them are refused and it never creates a pod,
// so a template is held to the same rule, with why in the error.
func checkClaimSpec(field string, spec *corev1.PersistentVolumeClaimSpec, why string) error {
	if len(spec.AccessModes) == 0 {
		return &quantity.FieldError{Field: field + ".accessModes", Err: errors.New("at least one access mode is required" + why)}
	}
	storage, ok := spec.Resources.Requests[corev1.ResourceStorage]
	if !ok {
		return &quantity.FieldError{Field: field + ".resources.requests.storage", Err: errors.New("is required" + why)}
	}
	if storage.Sign() <= 0 {
		return &quantity.FieldError{Field: field + ".resources.requests.storage", Err: fmt.Errorf("%s: must be greater than zero%s", storage.String(), why)}
	}
	return nil
}

// statefulSetClaimsWhy is why a StatefulSet with a template the API server refuses is bad input.
const statefulSetClaimsWhy = " (the API server refuses the PersistentVolumeClaims made from this template, so the StatefulSet never creates a pod)"

// checkClaimTemplates checks a StatefulSet's volumeClaimTemplates.
func checkClaimTemplates(templates []corev1.PersistentVolumeClaim) error {
	for i := range templates {
		if err := checkClaimSpec(fmt.Sprintf("spec.volumeClaimTemplates[%d].spec", i), &templates[i].Spec, statefulSetClaimsWhy); err != nil {
			return err
		}
	}
	return nil
}

// checkEphemeralClaims checks the claim templates of a pod spec's ephemeral volumes (the API
// server validates them with the pod).
func checkEphemeralClaims(path string, spec *corev1.PodSpec) error {
	for i, v := range spec.Volumes {
		if v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil {
			if err := checkClaimSpec(fmt.Sprintf("%s.volumes[%d].ephemeral.volumeClaimTemplate.spec", path, i), &v.Ephemeral.VolumeClaimTemplate.Spec, ""); err != nil {
				return err
			}
		}
	}
	return nil
}
