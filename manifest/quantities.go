package manifest

import (
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/internal/quantity"
)

// checkQuantities rejects resource quantities the API server would reject (negative ones)
// and those nodeplan cannot count exactly (beyond an int64 of millicores or bytes), naming
// the field: read as they were, 1e30 cpu became 0 and a pod fitted anywhere.
func (p *parser) checkQuantities(o *object) bool {
	var err error
	switch obj := o.meta.(type) {
	case *corev1.Pod:
		err = quantity.CheckPodSpec("spec", &obj.Spec)
	case *corev1.Node:
		err = errors.Join(quantity.CheckList("status.capacity", obj.Status.Capacity),
			quantity.CheckList("status.allocatable", obj.Status.Allocatable))
	case *v1.NodePool:
		err = quantity.CheckList("spec.limits", corev1.ResourceList(obj.Spec.Limits))
	case *v1.NodeClaim:
		err = errors.Join(quantity.CheckList("spec.resources.requests", obj.Spec.Resources.Requests),
			quantity.CheckList("status.capacity", obj.Status.Capacity),
			quantity.CheckList("status.allocatable", obj.Status.Allocatable))
	case *appsv1.DaemonSet:
		err = quantity.CheckPodSpec("spec.template.spec", &obj.Spec.Template.Spec)
	case *appsv1.Deployment:
		err = quantity.CheckPodSpec("spec.template.spec", &obj.Spec.Template.Spec)
	case *appsv1.ReplicaSet:
		err = quantity.CheckPodSpec("spec.template.spec", &obj.Spec.Template.Spec)
	case *appsv1.StatefulSet:
		err = quantity.CheckPodSpec("spec.template.spec", &obj.Spec.Template.Spec)
	case *batchv1.Job:
		err = quantity.CheckPodSpec("spec.template.spec", &obj.Spec.Template.Spec)
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
