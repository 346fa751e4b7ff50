package manifest

import (
	"errors"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/internal/podspec"
	"github.com/nodeplan/nodeplan/internal/quantity"
)

// checkValidity rejects what the API server would reject in the objects nodeplan plans with
// — names that are not DNS-1123, pod specs with invalid resources, spread constraints,
// tolerations or affinity terms (internal/podspec), claims without access mode or storage
// request (claims.go) — and quantities nodeplan cannot count exactly (beyond an int64 of
// millicores or bytes: read as they were, 1e30 cpu became 0 and a pod fitted anywhere). The
// error names the field.
func (p *parser) checkValidity(o *object) bool {
	err := checkMeta(o)
	if err == nil {
		err = checkNullSpec(o)
	}
	if err == nil {
		err = checkObject(o.meta)
	}
	if err == nil {
		return true
	}
	var fe *quantity.FieldError
	if errors.As(err, &fe) { // the first field, as every error of a document names one
		p.fail(o.src, o.ref, fe.Field, fe.Err)
	} else {
		p.fail(o.src, o.ref, "", err)
	}
	return false
}

func checkMeta(o *object) error {
	switch o.meta.(type) {
	case *corev1.Pod, *appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.StatefulSet, *batchv1.Job,
		*appsv1.DaemonSet, *corev1.Node, *v1.NodePool, *v1.NodeClaim:
	default:
		return nil
	}
	if err := podspec.CheckName(o.meta.GetName()); err != nil {
		return &quantity.FieldError{Field: "metadata.name", Err: err}
	}
	if ns := o.meta.GetNamespace(); ns != "" {
		if err := podspec.CheckNamespace(ns); err != nil {
			return &quantity.FieldError{Field: "metadata.namespace", Err: err}
		}
	}
	return nil
}

func checkObject(obj any) error {
	switch obj := obj.(type) {
	case *corev1.Pod:
		return checkPodSpec("spec", &obj.Spec)
	case *corev1.Node:
		return errors.Join(quantity.CheckList("status.capacity", obj.Status.Capacity),
			quantity.CheckList("status.allocatable", obj.Status.Allocatable))
	case *corev1.PersistentVolumeClaim:
		return checkClaimSpec("spec", &obj.Spec, "")
	case *v1.NodePool:
		return quantity.CheckList("spec.limits", corev1.ResourceList(obj.Spec.Limits))
	case *v1.NodeClaim:
		return errors.Join(quantity.CheckList("spec.resources.requests", obj.Spec.Resources.Requests),
			quantity.CheckList("status.capacity", obj.Status.Capacity),
			quantity.CheckList("status.allocatable", obj.Status.Allocatable))
	case *appsv1.DaemonSet:
		return checkPodSpec("spec.template.spec", &obj.Spec.Template.Spec)
	case *appsv1.Deployment:
		return checkPodSpec("spec.template.spec", &obj.Spec.Template.Spec)
	case *appsv1.ReplicaSet:
		return checkPodSpec("spec.template.spec", &obj.Spec.Template.Spec)
	case *appsv1.StatefulSet:
		return errors.Join(checkPodSpec("spec.template.spec", &obj.Spec.Template.Spec), checkClaimTemplates(obj.Spec.VolumeClaimTemplates))
	case *batchv1.Job:
		return checkPodSpec("spec.template.spec", &obj.Spec.Template.Spec)
	}
	return nil
}

// checkPodSpec checks a pod spec (internal/podspec) and its ephemeral volumes' claims.
func checkPodSpec(path string, spec *corev1.PodSpec) error {
	return errors.Join(podspec.Check(path, spec), checkEphemeralClaims(path, spec))
}

// checkNullSpec rejects a pod (or pod template) written as `spec: null`, which the API
// server refuses: decoded as given it was a pod requesting nothing.
func checkNullSpec(o *object) error {
	path := []string{"spec"}
	switch o.meta.(type) {
	case *corev1.Pod:
	case *appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.StatefulSet, *batchv1.Job, *appsv1.DaemonSet:
		path = []string{"spec", "template", "spec"}
	default:
		return nil
	}
	if o.headerOnly {
		if null, _, at := rawNull(o.raw, path); null {
			return &quantity.FieldError{Field: strings.Join(path[:at+1], "."), Err: errors.New("must not be null")}
		}
		return nil
	}
	m := o.m
	for i, k := range path {
		v, ok := m[k]
		if !ok {
			return nil
		}
		if v == nil {
			return &quantity.FieldError{Field: strings.Join(path[:i+1], "."), Err: errors.New("must not be null")}
		}
		if m, ok = v.(map[string]any); !ok {
			return nil
		}
	}
	return nil
}
