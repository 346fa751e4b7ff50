package manifest

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// MaxExpandedPods caps the pods the workloads of a Set may expand into, all together.
const MaxExpandedPods = 100000

// maxExpandedPods is MaxExpandedPods, lowered by the fuzz test.
var maxExpandedPods = MaxExpandedPods

// Workload is a Deployment, ReplicaSet, StatefulSet or Job of the input.
type Workload struct {
	// Kind is Deployment, ReplicaSet, StatefulSet or Job.
	Kind      string
	Namespace string
	Name      string
	UID       types.UID
	// Selector is the workload's spec.selector (nil for a Job that lets Kubernetes make
	// one): the pods it counts as its own, e.g. for default spread constraints.
	Selector *metav1.LabelSelector
	// Template is the workload's pod template.
	Template *corev1.PodTemplateSpec
	// Replicas is the number of pods the workload runs: spec.replicas (default 1), or for a
	// Job its parallelism (default 1) capped by its completions, 0 when suspended.
	Replicas int32
	// firstIndex is the first pod's index (a StatefulSet's spec.ordinals.start; else 0).
	firstIndex int32
	// Controller is the workload's own controller, e.g. the Deployment of a ReplicaSet.
	Controller *metav1.OwnerReference
	// Object is the decoded object: *appsv1.Deployment, *appsv1.ReplicaSet,
	// *appsv1.StatefulSet or *batchv1.Job.
	Object runtime.Object
	Source Source

	// Pods are the pending pods the workload was expanded into (in Set.Pods too). Empty when
	// its pods are in the input already (Expanded is then false), or when it is a ReplicaSet
	// represented by its Deployment.
	Pods     []*corev1.Pod
	Expanded bool

	// claimTemplates are a StatefulSet's volumeClaimTemplates.
	claimTemplates []corev1.PersistentVolumeClaim
	// serviceName is a StatefulSet's spec.serviceName.
	serviceName string
}

// Ref names the workload.
func (w *Workload) Ref() ObjectRef {
	return ObjectRef{Kind: w.Kind, Namespace: w.Namespace, Name: w.Name}
}

// key identifies an object of a namespace.
type key struct{ kind, namespace, name string }

// podTemplateHashLabel is the label a Deployment puts on its ReplicaSets' pods.
const podTemplateHashLabel = "pod-template-hash"

// rebuild derives Pods and PersistentVolumeClaims from the given pods and claims and the
// workloads, and checks that no two pods share a name or a UID.
func (s *Set) rebuild() error {
	s.init()
	for ref := range s.derived {
		delete(s.Sources, ref)
	}
	s.derived = map[ObjectRef]bool{}
	s.owners = map[*corev1.Pod]*Workload{}
	present, covered := s.materialized()

	var errs []error
	pods := make([]*corev1.Pod, 0, len(s.slots))
	pvcs := append([]*corev1.PersistentVolumeClaim(nil), s.givenPVCs...)
	uids := map[types.UID]ObjectRef{}
	expanded := 0
	addPod := func(p *corev1.Pod, src Source, derived bool) {
		ref := ObjectRef{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}
		if derived {
			if prev, ok := s.Sources[ref]; ok {
				errs = append(errs, &Error{Source: src, Object: ref.String(),
					Err: fmt.Errorf("the pod this workload makes is defined twice: first at %s", prev)})
				return
			}
			s.Sources[ref] = src
			s.derived[ref] = true
		}
		if other, ok := uids[p.UID]; ok && other != ref {
			errs = append(errs, &Error{Source: s.Sources[ref], Object: ref.String(), Field: "metadata.uid",
				Err: fmt.Errorf("UID %q is also the UID of %s (%s)", p.UID, other, s.Sources[other])})
		}
		uids[p.UID] = ref
		pods = append(pods, p)
	}
	for _, sl := range s.slots {
		if sl.pod != nil {
			addPod(sl.pod, Source{}, false)
			continue
		}
		w := sl.workload
		w.Pods, w.Expanded = nil, false
		if present[w.key()] || covered[w.key()] {
			continue
		}
		if expanded += int(w.Replicas); expanded > s.expansionCap() {
			errs = append(errs, &Error{Source: w.Source, Object: w.Ref().String(),
				Err: &LimitError{Limit: LimitPods, Max: int64(s.expansionCap()), Kind: expandedPods}})
			break
		}
		newPods, claims := w.expand()
		w.Pods, w.Expanded = newPods, true
		for _, p := range newPods {
			s.owners[p] = w
			addPod(p, w.Source, true)
		}
		for _, c := range claims {
			ref := ObjectRef{Kind: "PersistentVolumeClaim", Namespace: c.Namespace, Name: c.Name}
			if _, ok := s.Sources[ref]; ok {
				continue // given, or made by a pod of another replica: keep the first
			}
			s.Sources[ref] = w.Source
			s.derived[ref] = true
			pvcs = append(pvcs, c)
		}
	}
	s.Pods = pods
	s.PersistentVolumeClaims = bindClaims(pvcs, s.PersistentVolumes)
	s.expireV1beta1Claims()
	daemons, from := daemonSetsFromPods(s.givenDaemonSets, pods)
	s.DaemonSets = append(append([]*appsv1.DaemonSet(nil), s.givenDaemonSets...), daemons...)
	warnings := append([]Warning(nil), s.givenWarnings()...)
	given := len(warnings)
	for i, ds := range daemons {
		ref := ObjectRef{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name}
		s.Sources[ref] = s.Sources[ObjectRef{Kind: "Pod", Namespace: from[i].Namespace, Name: from[i].Name}]
		s.derived[ref] = true
		if missing := nodesWithoutDaemon(ds, s.Nodes, pods); len(missing) > 0 {
			warnings = append(warnings, Warning{Source: s.Sources[ref], Object: ref.String(), Message: missingDaemonMessage(missing)})
		}
	}
	s.Warnings, s.derivedWarnings = warnings, len(warnings)-given
	if len(errs) > 0 {
		return joinErrors(errs)
	}
	return nil
}

func (w *Workload) key() key { return key{w.Kind, w.Namespace, w.Name} }

// materialized says which workloads have their pods in the input (present) and which
// ReplicaSets are represented by a Deployment of the input (covered).
func (s *Set) materialized() (present, covered map[key]bool) {
	present, covered = map[key]bool{}, map[key]bool{}
	workloads := map[key]*Workload{}
	for _, w := range s.Workloads {
		workloads[w.key()] = w
	}
	for _, sl := range s.slots {
		p := sl.pod
		if p == nil {
			continue
		}
		ref := controllerOf(p)
		if ref == nil {
			continue
		}
		present[key{ref.Kind, p.Namespace, ref.Name}] = true
		if d := deploymentOfPod(p, ref); d != "" {
			present[key{"Deployment", p.Namespace, d}] = true
		}
	}
	for _, w := range s.Workloads {
		c := w.Controller
		if w.Kind != "ReplicaSet" || c == nil || c.Kind != "Deployment" {
			continue
		}
		d := key{"Deployment", w.Namespace, c.Name}
		if _, ok := workloads[d]; ok {
			covered[w.key()] = true
		}
		if present[w.key()] {
			present[d] = true
		}
	}
	return present, covered
}

// controllerOf is the pod's controller owner reference, or nil.
func controllerOf(p *corev1.Pod) *metav1.OwnerReference {
	for i := range p.OwnerReferences {
		if r := &p.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	return nil
}

// deploymentOfPod is the name of the Deployment whose ReplicaSet ref controls the pod, judged
// by the pod-template-hash suffix of the ReplicaSet's name; "" if none.
func deploymentOfPod(p *corev1.Pod, ref *metav1.OwnerReference) string {
	hash := p.Labels[podTemplateHashLabel]
	if ref.Kind != "ReplicaSet" || hash == "" {
		return ""
	}
	name, ok := strings.CutSuffix(ref.Name, "-"+hash)
	if !ok || name == "" {
		return ""
	}
	return name
}

// expand makes the pending pods of the workload and, for a StatefulSet, their claims.
func (w *Workload) expand() ([]*corev1.Pod, []*corev1.PersistentVolumeClaim) {
	return w.PodsAt(int(w.firstIndex), int(w.Replicas))
}

// Owns reports whether p is one of the workload's pods: in its namespace, controlled by it
// (a Deployment's pods by its ReplicaSet, named as nodeplan names it, after the Deployment,
// or as Kubernetes does, after the Deployment and the pods' pod-template-hash).
func (w *Workload) Owns(p *corev1.Pod) bool {
	ref := controllerOf(p)
	if ref == nil || p.Namespace != w.Namespace {
		return false
	}
	if w.Kind == "Deployment" {
		return ref.Kind == "ReplicaSet" && (ref.Name == w.Name || deploymentOfPod(p, ref) == w.Name)
	}
	return ref.Kind == w.Kind && ref.Name == w.Name
}

// PodsAt are the pending pods the workload's controller makes for the indexes first to
// first+n-1, named <workload>-<index> as a Set expands them (with, for a StatefulSet, the
// claims of its volumeClaimTemplates): what a simulation adds when the workload scales up.
func (w *Workload) PodsAt(first, n int) ([]*corev1.Pod, []*corev1.PersistentVolumeClaim) {
	if w.Template == nil || n <= 0 {
		return nil, nil
	}
	owner := metav1.OwnerReference{
		APIVersion:         "apps/v1",
		Kind:               w.Kind,
		Name:               w.Name,
		UID:                w.UID,
		Controller:         ptr(true),
		BlockOwnerDeletion: ptr(true),
	}
	switch w.Kind {
	case "Deployment":
		// A Deployment's pods belong to its ReplicaSet; nodeplan names it after the
		// Deployment.
		owner.Kind = "ReplicaSet"
		owner.UID = derivedUID(w.Namespace, "replicaset-"+w.Name)
	case "Job":
		owner.APIVersion = "batch/v1"
	}
	pods := make([]*corev1.Pod, 0, n)
	var claims []*corev1.PersistentVolumeClaim
	for i := range n {
		name := fmt.Sprintf("%s-%d", w.Name, first+i)
		p := &corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{
				Name:            name,
				Namespace:       w.Namespace,
				UID:             derivedUID(w.Namespace, name),
				Labels:          maps.Clone(w.Template.Labels),
				Annotations:     maps.Clone(w.Template.Annotations),
				OwnerReferences: []metav1.OwnerReference{*owner.DeepCopy()},
			},
			Spec:   *w.Template.Spec.DeepCopy(),
			Status: corev1.PodStatus{Phase: corev1.PodPending},
		}
		if w.Kind == "StatefulSet" {
			if p.Spec.Hostname == "" {
				p.Spec.Hostname = name
			}
			if p.Spec.Subdomain == "" {
				p.Spec.Subdomain = w.serviceName
			}
			for _, t := range w.claimTemplates {
				claim := claimFor(&t, name, w.Namespace)
				setClaimVolume(&p.Spec, t.Name, claim.Name)
				claims = append(claims, claim)
			}
		}
		pods = append(pods, p)
	}
	return pods, claims
}

// claimFor is the claim a StatefulSet makes from template t for its pod podName.
func claimFor(t *corev1.PersistentVolumeClaim, podName, namespace string) *corev1.PersistentVolumeClaim {
	name := t.Name + "-" + podName
	return &corev1.PersistentVolumeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   namespace,
			UID:         derivedUID(namespace, "persistentvolumeclaim-"+name),
			Labels:      maps.Clone(t.Labels),
			Annotations: maps.Clone(t.Annotations),
		},
		Spec:   *t.Spec.DeepCopy(),
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}
}

// setClaimVolume makes the volume named volume of spec use the claim, as a StatefulSet does.
func setClaimVolume(spec *corev1.PodSpec, volume, claim string) {
	src := corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == volume {
			spec.Volumes[i].VolumeSource = src
			return
		}
	}
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: volume, VolumeSource: src})
}

// derivedUID is the UID of an object given without one: "uid-<namespace>/<name>".
func derivedUID(namespace, name string) types.UID {
	if namespace == "" {
		return types.UID("uid-" + name)
	}
	return types.UID("uid-" + namespace + "/" + name) // "/" never occurs in a namespace
}

func ptr[T any](v T) *T { return &v }

// sortErrors orders errors by message, for errors found by walking a map.
func sortErrors(errs []error) {
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
}

// expireV1beta1Claims gives each NodeClaim converted from karpenter.sh/v1beta1 the expireAfter
// of its NodePool, as Karpenter 1.0's webhook did (the CRD default when the NodePool is not
// in the input). The claims changed are copies.
func (s *Set) expireV1beta1Claims() {
	pools := map[string]*v1.NodePool{}
	for _, np := range s.NodePools {
		pools[np.Name] = np
	}
	for i, nc := range s.NodeClaims {
		np := pools[nc.Labels[v1.NodePoolLabelKey]]
		if !s.v1beta1Claims[nc] || np == nil || nc.Spec.ExpireAfter.String() == np.Spec.Template.Spec.ExpireAfter.String() {
			continue
		}
		c := nc.DeepCopy()
		c.Spec.ExpireAfter = np.Spec.Template.Spec.ExpireAfter
		s.NodeClaims[i] = c
		s.v1beta1Claims[c] = true
	}
}
