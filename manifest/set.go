package manifest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// Set is what a group of manifests holds, by kind, each slice in input order. Its Objects
// are what cluster.New builds a snapshot from (see Snapshot); the kinds a snapshot reads are
// listed there once:
//
//   - Pods are the pods given (pending or bound, as given) and, at the place of each Workload
//     in the input, the pending pods it expands into.
//   - DaemonSets are the DaemonSets given, followed by those only their pods are given of
//     (see daemonSetsFromPods), sorted by namespace and name.
//   - PersistentVolumeClaims are the claims given, followed by the claims the expanded
//     StatefulSet pods use (from volumeClaimTemplates) that the input does not give. A claim
//     whose spec.volumeName names a PersistentVolume of the input that is free or reserved
//     for it is bound to it, as the PV controller would bind it (a bound copy, with the
//     pv.kubernetes.io/bind-completed annotation and phase Bound).
//   - Namespaces are the Namespaces given (their labels resolve affinity terms'
//     namespaceSelectors), each with the kubernetes.io/metadata.name label.
//   - Leases are the coordination.k8s.io Leases (a node's heartbeat, renewed every few
//     seconds, tells when a dump was taken).
//   - Interruptions are the interruption messages of the input, parsed (see InterruptionKind).
//
// Every object's metadata.managedFields (the API server's record of who wrote which field)
// are checked as strictly as the rest and then dropped: nodeplan reads nothing of them. So
// are, once checked, these fields nodeplan reads nothing of (trim.go), a large part of a
// kubectl dump that would otherwise stay in memory through planning:
//   - of every container and init container (of Pods and of the pod templates of
//     Deployments, ReplicaSets, StatefulSets, DaemonSets and Jobs): image, command, args,
//     workingDir, env, envFrom, volumeMounts, volumeDevices, the three probes, lifecycle,
//     terminationMessagePath and -Policy, imagePullPolicy, securityContext, and its
//     resources.limits when every limit has a request (a limit only defaults a request);
//   - of a projected, configMap, secret or downwardAPI volume: everything but its kind;
//   - of a Pod's status: its conditions' messages, and of each container status everything
//     but its name, ready, started, restartCount and resources (allocatedResources included);
//   - of a Node's status: its images.
//
// The cloud's parts of Objects (InstanceTypes, WellKnownLabels, RepairPolicies,
// ProviderDrift) are never set by the manifests: the host fills them in.
type Set struct {
	cluster.Objects
	// NodeClasses are the EC2NodeClasses (karpenter.k8s.aws/v1, or v1beta1 converted),
	// defaulted and validated.
	NodeClasses []*awsv1.EC2NodeClass
	// Workloads are the Deployments, ReplicaSets, StatefulSets and Jobs, in input order.
	Workloads []*Workload
	// Skipped counts, by kind, the objects of kinds nodeplan does not plan with.
	Skipped map[string]int
	// Warnings are what was read otherwise than written: objects of an older API converted
	// as Karpenter converted them, in input order; then what is uncertain about the
	// DaemonSets derived from their pods.
	Warnings []Warning
	// Sources says where each object was defined (for a pod or claim made by a workload:
	// where the workload was defined).
	Sources map[ObjectRef]Source
	// InputBytes is how many bytes Load read from files and standard input.
	InputBytes int64

	// slots are the given pods and the workloads, in input order; Pods is derived from them.
	slots []slot
	// givenPVCs are the claims of the input; PersistentVolumeClaims is derived from them.
	givenPVCs []*corev1.PersistentVolumeClaim
	// givenDaemonSets are the DaemonSets of the input; DaemonSets is derived from them.
	givenDaemonSets []*appsv1.DaemonSet
	// derived are the Sources entries of pods and claims made by workloads.
	derived map[ObjectRef]bool
	// owners maps each expanded pod to its workload.
	owners map[*corev1.Pod]*Workload
	// v1beta1Claims are the NodeClaims converted from karpenter.sh/v1beta1, whose
	// expireAfter is their NodePool's.
	v1beta1Claims map[*v1.NodeClaim]bool
	// maxPods caps the expanded pods (0: maxExpandedPods).
	maxPods int
	// derivedWarnings is how many of the last Warnings rebuild added.
	derivedWarnings int
}

// givenWarnings are the Warnings of the objects read, without those rebuild derived.
func (s *Set) givenWarnings() []Warning {
	return s.Warnings[:len(s.Warnings)-s.derivedWarnings]
}

// Warning is something nodeplan read otherwise than it was written, naming where.
type Warning struct {
	Source Source
	// Object is the object concerned, e.g. `NodePool "default"`.
	Object  string
	Message string
}

// String is `source: object: message`.
func (w Warning) String() string {
	return (&Error{Source: w.Source, Object: w.Object, Err: errors.New(w.Message)}).Error()
}

// slot is a given pod or a workload.
type slot struct {
	pod      *corev1.Pod
	workload *Workload
}

// ObjectRef names an object.
type ObjectRef struct {
	Kind      string
	Namespace string
	Name      string
}

// String is the form errors use: `NodePool "default"`, `Pod "default/web"`.
func (r ObjectRef) String() string {
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + r.Name
	}
	if r.Name == "" {
		if strings.HasSuffix(r.Kind, "List") {
			return r.Kind
		}
		return r.Kind + " (unnamed)"
	}
	return r.Kind + " " + strconv.Quote(name)
}

// Source is where an object was read from.
type Source struct {
	// File is the path as given (or found in a given folder), or the source given to Parse.
	File string
	// Document is the 1-based index of the YAML document (or JSON value) in the file; 0 when
	// the error concerns the whole file.
	Document int
	// Line is the 1-based line the document starts at, 0 if unknown.
	Line int
	// Item is the path of the object inside a list document, such as "items[3]".
	Item string
}

// String is `file: document 2 (line 24): items[3]`.
func (s Source) String() string {
	var b strings.Builder
	b.WriteString(s.File)
	if s.Document > 0 {
		fmt.Fprintf(&b, ": document %d", s.Document)
		if s.Line > 0 {
			fmt.Fprintf(&b, " (line %d)", s.Line)
		}
	}
	if s.Item != "" {
		b.WriteString(": " + s.Item)
	}
	return b.String()
}

// Error is a problem with an input, naming where it is.
type Error struct {
	Source Source
	// Object is the object concerned, e.g. `Pod "default/web"`; empty when unknown.
	Object string
	// Field is the path of the field concerned, e.g. "spec.containers[0].resources"; empty
	// when unknown or when the error is about the whole object.
	Field string
	Err   error
}

// Error is `source: object: field: message`, leaving out the parts that are unknown.
func (e *Error) Error() string {
	parts := make([]string, 0, 4)
	for _, p := range []string{e.Source.String(), e.Object, e.Field} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	msg := "<nil>"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return strings.Join(append(parts, msg), ": ")
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// NewSet returns an empty Set.
func NewSet() *Set {
	return &Set{
		Skipped:       map[string]int{},
		Sources:       map[ObjectRef]Source{},
		derived:       map[ObjectRef]bool{},
		owners:        map[*corev1.Pod]*Workload{},
		v1beta1Claims: map[*v1.NodeClaim]bool{},
	}
}

// Merge appends the objects of o after those of s, and expands the workloads again over the
// union (so that a workload whose pods are given in another file is not expanded twice).
// An object defined in both is an error naming both places; on error s is unchanged.
// Pods, PersistentVolumeClaims and DaemonSets are rebuilt from the inputs, so changes made to
// those slices since the last Load, Parse or Merge are lost.
func (s *Set) Merge(o *Set) error {
	if o == nil {
		return nil
	}
	s.init()
	var errs []error
	for ref, src := range o.Sources {
		if o.derived[ref] {
			continue
		}
		if prev, ok := s.Sources[ref]; ok && !s.derived[ref] {
			errs = append(errs, duplicateError(ref, prev, src))
		}
	}
	if len(errs) > 0 {
		sortErrors(errs)
		return joinErrors(errs)
	}
	m := &Set{
		Objects: cluster.Objects{
			NodePools:            slices.Concat(s.NodePools, o.NodePools),
			NodeClaims:           slices.Concat(s.NodeClaims, o.NodeClaims),
			Nodes:                slices.Concat(s.Nodes, o.Nodes),
			PodDisruptionBudgets: slices.Concat(s.PodDisruptionBudgets, o.PodDisruptionBudgets),
			PersistentVolumes:    slices.Concat(s.PersistentVolumes, o.PersistentVolumes),
			StorageClasses:       slices.Concat(s.StorageClasses, o.StorageClasses),
			CSINodes:             slices.Concat(s.CSINodes, o.CSINodes),
			Leases:               slices.Concat(s.Leases, o.Leases),
			Namespaces:           slices.Concat(s.Namespaces, o.Namespaces),
			Interruptions:        slices.Concat(s.Interruptions, o.Interruptions),
		},
		NodeClasses:     slices.Concat(s.NodeClasses, o.NodeClasses),
		givenDaemonSets: slices.Concat(s.givenDaemonSets, o.givenDaemonSets),
		Skipped:         maps.Clone(s.Skipped),
		Sources:         map[ObjectRef]Source{},
		givenPVCs:       slices.Concat(s.givenPVCs, o.givenPVCs),
		derived:         map[ObjectRef]bool{},
		owners:          map[*corev1.Pod]*Workload{},
		Warnings:        slices.Concat(s.givenWarnings(), o.givenWarnings()),
		v1beta1Claims:   map[*v1.NodeClaim]bool{},
		maxPods:         s.maxPods,
		InputBytes:      s.InputBytes + o.InputBytes,
	}
	for _, x := range []*Set{s, o} {
		maps.Copy(m.v1beta1Claims, x.v1beta1Claims)
	}
	// The merge expands copies of the workloads, so that s and o stay as they are.
	copies := make(map[*Workload]*Workload, len(s.Workloads)+len(o.Workloads))
	for _, w := range slices.Concat(s.Workloads, o.Workloads) {
		c := *w
		copies[w] = &c
		m.Workloads = append(m.Workloads, &c)
	}
	for _, sl := range slices.Concat(s.slots, o.slots) {
		if sl.workload != nil {
			sl.workload = copies[sl.workload]
		}
		m.slots = append(m.slots, sl)
	}
	for k, n := range o.Skipped {
		m.Skipped[k] += n
	}
	for _, x := range []*Set{s, o} {
		for ref, src := range x.Sources {
			if !x.derived[ref] {
				m.Sources[ref] = src
			}
		}
	}
	if err := m.rebuild(); err != nil {
		return err
	}
	*s = *m
	return nil
}

// init makes a zero Set usable.
func (s *Set) init() {
	if s.Skipped == nil {
		s.Skipped = map[string]int{}
	}
	if s.Sources == nil {
		s.Sources = map[ObjectRef]Source{}
	}
	if s.derived == nil {
		s.derived = map[ObjectRef]bool{}
	}
	if s.owners == nil {
		s.owners = map[*corev1.Pod]*Workload{}
	}
	if s.v1beta1Claims == nil {
		s.v1beta1Claims = map[*v1.NodeClaim]bool{}
	}
}

// SkippedTotal is the number of objects skipped.
func (s *Set) SkippedTotal() int {
	n := 0
	for _, c := range s.Skipped {
		n += c
	}
	return n
}

// SourceOf says where the object of that kind, namespace and name was defined, or "" when it
// is not in the set.
func (s *Set) SourceOf(kind, namespace, name string) string {
	src, ok := s.Sources[ObjectRef{Kind: kind, Namespace: namespace, Name: name}]
	if !ok {
		return ""
	}
	return src.String()
}

// WorkloadOf is the workload that controls the pod: the one it was expanded from, or for a
// given pod, the workload of the input its controller owner reference names (for a pod of a
// ReplicaSet that is not in the input, the Deployment that ReplicaSet belongs to). Nil if none.
func (s *Set) WorkloadOf(pod *corev1.Pod) *Workload {
	if w, ok := s.owners[pod]; ok {
		return w
	}
	ref := controllerOf(pod)
	if ref == nil {
		return nil
	}
	if w := s.workload(ref.Kind, pod.Namespace, ref.Name); w != nil {
		return w
	}
	if d := deploymentOfPod(pod, ref); d != "" {
		return s.workload("Deployment", pod.Namespace, d)
	}
	return nil
}

func (s *Set) workload(kind, namespace, name string) *Workload {
	for _, w := range s.Workloads {
		if w.Kind == kind && w.Namespace == namespace && w.Name == name {
			return w
		}
	}
	return nil
}

func duplicateError(ref ObjectRef, first, again Source) error {
	return &Error{Source: again, Object: ref.String(),
		Err: fmt.Errorf("defined twice: first at %s", first)}
}

// maxErrors caps the errors reported at once.
const maxErrors = 50

// joinErrors joins errs, at most maxErrors of them.
func joinErrors(errs []error) error {
	if len(errs) > maxErrors {
		n := len(errs) - maxErrors
		errs = append(errs[:maxErrors:maxErrors], fmt.Errorf("... and %d more errors", n))
	}
	return errors.Join(errs...)
}
