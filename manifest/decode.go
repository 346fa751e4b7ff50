package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

// scheme knows the Kubernetes kinds nodeplan reads.
var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(corev1.AddToScheme(s))
	utilruntime.Must(appsv1.AddToScheme(s))
	utilruntime.Must(batchv1.AddToScheme(s))
	utilruntime.Must(policyv1.AddToScheme(s))
	utilruntime.Must(storagev1.AddToScheme(s))
	utilruntime.Must(coordinationv1.AddToScheme(s))
	utilruntime.Must(v1.AddToScheme(s))
	return s
}()

// codec decodes JSON strictly: unknown and duplicated fields are errors.
var codec = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
	kjson.SerializerOptions{Strict: true})

// Kind names.
const (
	kindNodePool     = v1.KindNodePool
	kindNodeClaim    = v1.KindNodeClaim
	kindEC2NodeClass = "EC2NodeClass"
)

// reader reads one kind.
type reader struct {
	apiVersion string
	namespaced bool
	read       func(p *parser, o *object) bool
}

// readers are the kinds nodeplan reads, with the one apiVersion it reads each in.
var readers = map[string]reader{
	kindNodePool:            {v1.APIVersion, false, readNodePool},
	kindNodeClaim:           {v1.APIVersion, false, readNodeClaim},
	kindEC2NodeClass:        {"karpenter.k8s.aws/v1", false, readNodeClass},
	"Pod":                   {"v1", true, typed(func() *corev1.Pod { return &corev1.Pod{} }, addPod)},
	"Node":                  {"v1", false, typed(func() *corev1.Node { return &corev1.Node{} }, func(s *Set, o *corev1.Node) { s.Nodes = append(s.Nodes, o) })},
	"PersistentVolumeClaim": {"v1", true, typed(func() *corev1.PersistentVolumeClaim { return &corev1.PersistentVolumeClaim{} }, func(s *Set, o *corev1.PersistentVolumeClaim) { s.givenPVCs = append(s.givenPVCs, o) })},
	"PersistentVolume":      {"v1", false, typed(func() *corev1.PersistentVolume { return &corev1.PersistentVolume{} }, func(s *Set, o *corev1.PersistentVolume) { s.PersistentVolumes = append(s.PersistentVolumes, o) })},
	"DaemonSet":             {"apps/v1", true, typed(func() *appsv1.DaemonSet { return &appsv1.DaemonSet{} }, func(s *Set, o *appsv1.DaemonSet) { s.givenDaemonSets = append(s.givenDaemonSets, o) })},
	"PodDisruptionBudget": {"policy/v1", true, typed(func() *policyv1.PodDisruptionBudget { return &policyv1.PodDisruptionBudget{} }, func(s *Set, o *policyv1.PodDisruptionBudget) {
		s.PodDisruptionBudgets = append(s.PodDisruptionBudgets, o)
	})},
	"StorageClass": {"storage.k8s.io/v1", false, typed(func() *storagev1.StorageClass { return &storagev1.StorageClass{} }, func(s *Set, o *storagev1.StorageClass) { s.StorageClasses = append(s.StorageClasses, o) })},
	"Namespace":    {"v1", false, typed(func() *corev1.Namespace { return &corev1.Namespace{} }, addNamespace)},
	"Lease":        {"coordination.k8s.io/v1", true, typed(func() *coordinationv1.Lease { return &coordinationv1.Lease{} }, func(s *Set, o *coordinationv1.Lease) { s.Leases = append(s.Leases, o) })},
	"CSINode":      {"storage.k8s.io/v1", false, typed(func() *storagev1.CSINode { return &storagev1.CSINode{} }, func(s *Set, o *storagev1.CSINode) { s.CSINodes = append(s.CSINodes, o) })},
	"Deployment":   {"apps/v1", true, readWorkload(func() *appsv1.Deployment { return &appsv1.Deployment{} }, deploymentWorkload)},
	"ReplicaSet":   {"apps/v1", true, readWorkload(func() *appsv1.ReplicaSet { return &appsv1.ReplicaSet{} }, replicaSetWorkload)},
	"StatefulSet":  {"apps/v1", true, readWorkload(func() *appsv1.StatefulSet { return &appsv1.StatefulSet{} }, statefulSetWorkload)},
	"Job":          {"batch/v1", true, readWorkload(func() *batchv1.Job { return &batchv1.Job{} }, jobWorkload)},
}

// formerGroups are the API groups that served a kind nodeplan reads before its group did
// (group/kind): the same kind in an older version, an error like any unknown version, not
// another project's kind of the same name.
var formerGroups = map[string]bool{
	"extensions/Deployment": true,
	"extensions/DaemonSet":  true,
	"extensions/ReplicaSet": true,
}

// ReadKinds are the kinds nodeplan reads, sorted; every other kind is skipped.
func ReadKinds() []string {
	kinds := make([]string, 0, len(readers))
	for k := range readers {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return kinds
}

// parser reads the documents of one file into a Set.
type parser struct {
	set  *Set
	file string
	errs []error
	// limits cap the input; counts are the objects read of each kind, and stopped ends the
	// reading once a limit is passed.
	limits  Limits
	counts  map[string]int
	stopped bool
	// doc is the document being read, and whether its duplicate-key check ran.
	doc         document
	checkedDups bool
	// strictErr is the strict YAML parse's error for the current document (duplicate keys).
	strictErr error
	// generalOnly reads every document the general way, never from its plain JSON
	// (fast.go): the tests hold both ways to the same answers.
	generalOnly bool
	// strs shares the strings the typed decoder reads (decodeTypedShared).
	strs *stringTable
	// yaml decodes streamed items in one pass; decoded is the object it decoded, which
	// decode gives the object's reader (yamlitem.go).
	yaml    yamlTyped
	decoded kubeObject
}

// object is one object of a document.
type object struct {
	src  Source
	ref  ObjectRef
	m    map[string]any
	raw  []byte // the object's JSON
	meta metav1.Object
	// headerOnly: m holds only what headerOf reads, and raw is the object's plain JSON
	// (fast.go); fields() decodes the rest when an error needs it.
	headerOnly bool
	apiVersion string
}

// registeredAs reports whether the scheme knows into's type as apiVersion and kind.
func registeredAs(into runtime.Object, apiVersion, kind string) bool {
	gvks, _, err := scheme.ObjectKinds(into)
	if err != nil {
		return false
	}
	for _, gvk := range gvks {
		if gvk.Kind == kind && gvk.GroupVersion().String() == apiVersion {
			return true
		}
	}
	return false
}

// maxListDepth caps how deep lists may nest.
const maxListDepth = 8

func (p *parser) fail(src Source, ref ObjectRef, field string, err error) {
	e := &Error{Source: src, Field: field, Err: err}
	if ref.Kind != "" {
		e.Object = ref.String()
	}
	p.errs = append(p.errs, e)
}

// document reads one document; it never panics. given, when not nil, is the document's
// plain JSON (an object), and d.data may be nil.
func (p *parser) document(d document, given []byte) {
	src := Source{File: p.file, Document: d.index, Line: d.line, Item: d.item}
	p.doc, p.checkedDups = d, false
	defer func() {
		if r := recover(); r != nil {
			p.fail(src, ObjectRef{}, "", fmt.Errorf("cannot read this document: %v", r))
		}
	}()
	// Parse strictly (duplicate keys are errors) once; only when that fails parse again
	// leniently, so the error can name the object and is raised only for kinds nodeplan reads.
	p.strictErr = nil
	if given != nil {
		p.rawDocument(src, given) // fast.go
		return
	}
	if js, ok := plainDocument(d.data); ok && !p.generalOnly && p.rawDocument(src, js) {
		return // fast.go
	}
	js, plain := plainJSON(d.data)
	var err error
	if !plain {
		js, err = yaml.YAMLToJSONStrict(d.data)
	}
	if err != nil {
		p.strictErr = err
		js, err = yaml.YAMLToJSON(d.data)
	}
	if err != nil {
		p.fail(src, ObjectRef{}, "", errors.New(lineOffsetMessage(err.Error(), d.line)))
		return
	}
	var v any
	if err := utiljson.Unmarshal(js, &v); err != nil {
		p.fail(src, ObjectRef{}, "", err)
		return
	}
	if v == nil {
		return // an empty document
	}
	if m, ok := v.(map[string]any); ok {
		p.object(src, m, js, "", "", 0, false)
		return
	}
	p.value(src, v, "", "", 0)
}

// value reads an item of a list, or a document that is a list of objects.
func (p *parser) value(src Source, v any, apiVersion, kind string, depth int) {
	switch x := v.(type) {
	case map[string]any:
		p.object(src, x, nil, apiVersion, kind, depth, false)
	case []any:
		if depth >= maxListDepth {
			p.fail(src, ObjectRef{}, "", errors.New("lists nest too deep"))
			return
		}
		for i, it := range x {
			item := src
			item.Item = src.Item + "[" + strconv.Itoa(i) + "]"
			p.value(item, it, apiVersion, kind, depth+1)
		}
	case nil:
		// An empty item, as in "items: [~]": nothing to read.
	default:
		p.fail(src, ObjectRef{}, "", fmt.Errorf("expected an object with apiVersion and kind, got %s", jsonTypeName(v)))
	}
}

// object reads one object (or list) m; raw is its JSON when known.
// apiVersion and kind are the defaults a typed list gives its items. header says that m is
// only the header of the object whose plain JSON is raw (headerOf).
func (p *parser) object(src Source, m map[string]any, raw []byte, apiVersion, kind string, depth int, header bool) {
	if eventBridgeMessage(m) || sqsReceiveOutput(m) || m["kind"] == InterruptionKind {
		p.interruptionMessages(src, m, raw) // interruption.go
		return
	}
	ref := ObjectRef{}
	if md, ok := m["metadata"].(map[string]any); ok {
		ref.Name, _ = md["name"].(string)
		ref.Namespace, _ = md["namespace"].(string)
	}
	av, avErr := headerField(m, "apiVersion", apiVersion)
	k, kErr := headerField(m, "kind", kind)
	ref.Kind = k
	if kErr != nil {
		p.fail(src, ref, "kind", kErr)
		return
	}
	if avErr != nil {
		p.fail(src, ref, "apiVersion", avErr)
		return
	}
	if _, given := m["kind"]; !given || m["apiVersion"] == nil {
		// An item of a typed list: give it the list's apiVersion and kind.
		m["apiVersion"], m["kind"] = av, k
		raw = nil
	}
	older, converted := olderReader(av, strings.TrimSuffix(k, "List"))
	if err := v1.CheckAPIVersion(av, k, ref.Name); err != nil && !converted {
		// A karpenter.sh kind of an older API (v1beta1 NodePool, v1alpha5 Provisioner, ...).
		p.fail(src, ref, "", apiVersionMessage(err))
		return
	}
	if items, ok := m["items"]; ok && (k == "List" || strings.HasSuffix(k, "List")) {
		if raw, ok := items.(rawItems); ok {
			p.listRaw(src, ref, m, raw, av, depth)
			return
		}
		p.list(src, ref, m, items, av, depth)
		return
	}
	rd, ok := readers[k]
	if converted {
		rd, ok = older, true
	}
	if !ok {
		p.set.Skipped[k]++
		return
	}
	if g := apiGroup(av); g != apiGroup(rd.apiVersion) && !formerGroups[g+"/"+k] {
		// The same kind name in another API group (an OpenKruise StatefulSet, a Volcano Job)
		// is another kind: skipped and counted, like every kind nodeplan does not read.
		p.set.Skipped[k+"."+g]++
		return
	}
	switch {
	case !rd.namespaced:
		ref.Namespace = "" // cluster-scoped: a namespace given is ignored, as the API server does
	case ref.Namespace == "":
		ref.Namespace = metav1.NamespaceDefault
	}
	if err := checkAPIVersion(k, av, rd.apiVersion); err != nil {
		p.fail(src, ref, "", err)
		return
	}
	if !p.checkedDups {
		// Duplicated keys only matter in objects nodeplan reads.
		p.checkedDups = true
		if err := p.strictErr; err != nil {
			p.fail(src, ref, "", errors.New(lineOffsetMessage(err.Error(), p.doc.line)))
			return
		}
	}
	if raw == nil {
		var err error
		if raw, err = json.Marshal(m); err != nil {
			p.fail(src, ref, "", err)
			return
		}
	}
	o := &object{src: src, ref: ref, m: m, raw: raw, headerOnly: header, apiVersion: av}
	if !rd.read(p, o) {
		return
	}
	// The API server's record of who wrote which field, checked strictly like the rest and
	// read by nothing: a third of a kubectl dump's bytes.
	o.meta.SetManagedFields(nil)
	// Defaults every object of the set gets.
	if rd.namespaced && o.meta.GetNamespace() == "" {
		o.meta.SetNamespace(metav1.NamespaceDefault)
	}
	if !rd.namespaced {
		o.meta.SetNamespace("")
	}
	o.ref.Namespace = o.meta.GetNamespace()
	if o.meta.GetUID() == "" {
		if k == "Pod" {
			o.meta.SetUID(derivedUID(o.ref.Namespace, o.ref.Name))
		} else {
			o.meta.SetUID(derivedUID(o.ref.Namespace, strings.ToLower(k)+"-"+o.ref.Name))
		}
	}
	if prev, dup := p.set.Sources[o.ref]; dup {
		p.fail(src, o.ref, "", fmt.Errorf("defined twice: first at %s", prev))
		return
	}
	p.set.Sources[o.ref] = src
	p.add(k, o)
}

// add appends the decoded object to the set.
func (p *parser) add(kind string, o *object) {
	if !p.checkValidity(o) || !p.admit(kind, o.src, o.ref) {
		return
	}
	trim(o.meta)
	switch obj := o.meta.(type) {
	case *v1.NodePool:
		p.set.NodePools = append(p.set.NodePools, obj)
	case *v1.NodeClaim:
		p.set.NodeClaims = append(p.set.NodeClaims, obj)
	case *awsv1.EC2NodeClass:
		p.set.NodeClasses = append(p.set.NodeClasses, obj)
	default:
		if f, ok := adders[kind]; ok {
			f(p.set, o.meta)
		}
	}
}

// adders append objects of the Kubernetes kinds; filled by typed and readWorkload.
var adders = map[string]func(*Set, metav1.Object){}

// list reads the items of a List (or of a typed list such as PodList).
func (p *parser) list(src Source, ref ObjectRef, m map[string]any, items any, apiVersion string, depth int) {
	apiVersion, itemKind, ok := p.listHeader(src, ref, m, apiVersion, depth)
	if !ok {
		return
	}
	switch x := items.(type) {
	case nil:
	case []any:
		for i, it := range x {
			item := src
			item.Item = joinItem(src.Item, "items["+strconv.Itoa(i)+"]")
			p.value(item, it, apiVersion, itemKind, depth+1)
		}
	default:
		p.fail(src, ref, "items", fmt.Errorf("expected a list, got %s", jsonTypeName(items)))
	}
}

// listRaw is list for items given as JSON (fast.go).
func (p *parser) listRaw(src Source, ref ObjectRef, m map[string]any, items rawItems, apiVersion string, depth int) {
	if apiVersion, itemKind, ok := p.listHeader(src, ref, m, apiVersion, depth); ok {
		p.rawList(src, items, apiVersion, itemKind, depth)
	}
}

// listHeader checks a List's fields and depth, and gives the apiVersion and kind its items
// default to.
func (p *parser) listHeader(src Source, ref ObjectRef, m map[string]any, apiVersion string, depth int) (string, string, bool) {
	for _, f := range sortedKeys(m) {
		switch f {
		case "apiVersion", "kind", "metadata", "items":
		default:
			p.fail(src, ref, f, errors.New("unknown field"))
			return "", "", false
		}
	}
	if depth >= maxListDepth {
		p.fail(src, ref, "items", errors.New("lists nest too deep"))
		return "", "", false
	}
	itemKind := ""
	if ref.Kind != "List" {
		itemKind = strings.TrimSuffix(ref.Kind, "List")
	} else {
		apiVersion = ""
	}
	return apiVersion, itemKind, true
}

func joinItem(prefix, item string) string {
	if prefix == "" {
		return item
	}
	return prefix + "." + item
}

// headerField is the apiVersion or kind of an object: a non-empty string, or def when absent.
func headerField(m map[string]any, name, def string) (string, error) {
	v, ok := m[name]
	if !ok || v == nil {
		if def != "" {
			return def, nil
		}
		return "", fmt.Errorf("missing; every object needs apiVersion and kind")
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("expected a string, got %s", jsonTypeName(v))
	}
	if s == "" {
		if def != "" {
			return def, nil
		}
		return "", fmt.Errorf("must not be empty")
	}
	return s, nil
}

// checkAPIVersion reports an apiVersion nodeplan does not read kind in.
func checkAPIVersion(kind, apiVersion, want string) error {
	if apiVersion == want {
		return nil
	}
	switch kind {
	case kindNodePool, kindNodeClaim:
		// The objects that fail here failed v1.CheckAPIVersion already; this is the message
		// for an apiVersion that check lets through.
		return fmt.Errorf("apiVersion %q is not supported for %s; nodeplan reads %s", apiVersion, kind, want)
	case kindEC2NodeClass:
		return fmt.Errorf("apiVersion %q is not supported for %s; nodeplan reads %s (Karpenter v1): convert the object to it",
			apiVersion, kind, want)
	}
	return fmt.Errorf("apiVersion %q is not supported for %s; nodeplan reads %s as %s", apiVersion, kind, kind, want)
}

// decode decodes o's JSON strictly into into, and reports the errors as field errors of
// into's Go type.
func (p *parser) decode(o *object, into runtime.Object) bool {
	if d := p.decoded; d != nil && reflect.TypeOf(d) == reflect.TypeOf(into) {
		p.decoded = nil
		reflect.ValueOf(into).Elem().Set(reflect.ValueOf(d).Elem())
		return true
	}
	if o.headerOnly && registeredAs(into, o.apiVersion, o.ref.Kind) {
		// What codec.Decode does for an object of into's own kind, without first reading
		// the whole object again for its apiVersion and kind (known already).
		if p.strs == nil {
			p.strs = &stringTable{}
		}
		if decodeTypedShared(o.raw, into, p.strs) { // typed.go
			return true
		}
		reflect.ValueOf(into).Elem().SetZero()
		if errs, err := sigsjson.UnmarshalStrict(o.raw, into); err == nil && len(errs) == 0 {
			return true
		}
		reflect.ValueOf(into).Elem().SetZero()
	}
	_, _, err := codec.Decode(o.raw, nil, into)
	if err == nil {
		return true
	}
	if o.headerOnly {
		// Fail as the general path does, on the keys in its order.
		if _, _, err = codec.Decode(o.canonicalJSON(), nil, into); err == nil {
			return true
		}
	}
	if se, ok := runtime.AsStrictDecodingError(err); ok {
		for _, e := range se.Errors() {
			field, msg := splitStrictError(e.Error())
			p.fail(o.src, o.ref, field, errors.New(msg))
		}
		return false
	}
	if field, cause := locate(o.fields(), reflect.TypeOf(into).Elem(), ""); cause != nil {
		p.fail(o.src, o.ref, field, cause)
		return false
	}
	p.fail(o.src, o.ref, "", err)
	return false
}

// splitStrictError turns `unknown field "spec.foo"` into ("spec.foo", "unknown field").
func splitStrictError(msg string) (field, rest string) {
	for _, prefix := range []string{"unknown field ", "duplicate field "} {
		if q, ok := strings.CutPrefix(msg, prefix); ok {
			if f, err := strconv.Unquote(q); err == nil {
				return f, strings.TrimSpace(prefix)
			}
		}
	}
	return "", msg
}

// checkName reports an object without metadata.name.
func (p *parser) checkName(o *object) bool {
	if o.meta.GetName() != "" {
		return true
	}
	msg := "required"
	if o.meta.GetGenerateName() != "" {
		msg = "required (generateName is not supported: nodeplan needs a name to report)"
	}
	p.fail(o.src, o.ref, "metadata.name", errors.New(msg))
	return false
}

// kubeObject is an object of a Kubernetes kind, as the readers decode it.
type kubeObject interface {
	runtime.Object
	metav1.Object
}

// decodeNamed decodes o strictly into obj, which is o's object from then on, and holds it to
// a name; false when it failed (the error is recorded).
func (p *parser) decodeNamed(o *object, obj kubeObject) bool {
	if !p.decode(o, obj) {
		return false
	}
	o.meta = obj
	return p.checkName(o)
}

// typed is the reader of a Kubernetes kind decoded into T.
func typed[T kubeObject](newT func() T, add func(*Set, T)) func(*parser, *object) bool {
	kind := reflect.TypeOf(newT()).Elem().Name()
	adders[kind] = func(s *Set, o metav1.Object) { add(s, o.(T)) }
	return func(p *parser, o *object) bool { return p.decodeNamed(o, newT()) }
}

// addNamespace keeps a Namespace with the kubernetes.io/metadata.name label the API server
// gives every namespace (affinity terms' namespaceSelectors select on it).
func addNamespace(s *Set, ns *corev1.Namespace) {
	if ns.Labels[corev1.LabelMetadataName] != ns.Name {
		ns.Labels = maps.Clone(ns.Labels)
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[corev1.LabelMetadataName] = ns.Name
	}
	s.Namespaces = append(s.Namespaces, ns)
}

func addPod(s *Set, pod *corev1.Pod) {
	s.slots = append(s.slots, slot{pod: pod})
}

var (
	readNodePoolSpec = readValidated(func() *v1.NodePool { return &v1.NodePool{} })
	readNodeClaim    = readValidated(func() *v1.NodeClaim { return &v1.NodeClaim{} })
)

// readNodePool reads a NodePool and checks the kubelet block a v1beta1 conversion left in its
// annotation (awsv1.KubeletFor reads it when planning): an error there names the file.
func readNodePool(p *parser, o *object) bool {
	if !readNodePoolSpec(p, o) {
		return false
	}
	_, err := awsv1.KubeletFor(o.meta.(*v1.NodePool), nil)
	var ae *awsv1.KubeletAnnotationError
	switch {
	case err == nil:
		return true
	case errors.As(err, &ae):
		p.fail(o.src, o.ref, ae.Field, fmt.Errorf("not a kubelet configuration: %w", ae.Err))
		return false
	}
	return p.validate(o, err)
}

// validated is a Karpenter kind with the CRD's defaults and validation.
type validated interface {
	kubeObject
	SetDefaults()
	Validate() error
}

// readValidated is the reader of a Karpenter kind: decoded strictly, defaulted, validated.
func readValidated[T validated](newT func() T) func(*parser, *object) bool {
	return func(p *parser, o *object) bool {
		obj := newT()
		if !p.decodeNamed(o, obj) {
			return false
		}
		obj.SetDefaults()
		return p.validate(o, obj.Validate())
	}
}

// validate reports the error of a NodePool's or NodeClaim's Validate, one Error per field.
func (p *parser) validate(o *object, err error) bool {
	if err == nil {
		return true
	}
	var ve *v1.ValidationError
	if !errors.As(err, &ve) {
		p.fail(o.src, o.ref, "", err)
		return false
	}
	for _, fe := range ve.Errs {
		p.fail(o.src, o.ref, fe.Field, &detail{msg: fe.ErrorBody(), err: fe})
	}
	return false
}

// detail is an error shown as msg, wrapping err (whose own message repeats what the Error
// around it says already: the object, the field).
type detail struct {
	msg string
	err error
}

func (d *detail) Error() string { return d.msg }
func (d *detail) Unwrap() error { return d.err }

// apiVersionMessage keeps the hint of a *v1.APIVersionError, whose object the Error names.
func apiVersionMessage(err error) error {
	var ae *v1.APIVersionError
	if errors.As(err, &ae) {
		return &detail{msg: ae.Hint, err: err}
	}
	return err
}

// readWorkload is the reader of a workload kind decoded into T.
func readWorkload[T kubeObject](newT func() T, workload func(T) (*Workload, string, error)) func(*parser, *object) bool {
	kind := reflect.TypeOf(newT()).Elem().Name()
	adders[kind] = func(s *Set, o metav1.Object) {
		obj := o.(T)
		w, _, _ := workload(obj)
		w.Kind, w.Namespace, w.Name, w.UID, w.Object = kind, obj.GetNamespace(), obj.GetName(), obj.GetUID(), obj
		w.Source = s.Sources[ObjectRef{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}]
		w.Controller = metav1.GetControllerOfNoCopy(obj)
		s.Workloads = append(s.Workloads, w)
		s.slots = append(s.slots, slot{workload: w})
	}
	return func(p *parser, o *object) bool {
		obj := newT()
		if !p.decodeNamed(o, obj) {
			return false
		}
		if _, field, err := workload(obj); err != nil {
			p.fail(o.src, o.ref, field, err)
			return false
		}
		return true
	}
}

// replicas checks a replica count: default 1, never negative, at most MaxExpandedPods.
func replicas(n *int32, field string) (int32, string, error) {
	if n == nil {
		return 1, "", nil
	}
	if *n < 0 {
		return 0, field, fmt.Errorf("must not be negative, got %d", *n)
	}
	if int(*n) > maxExpandedPods {
		return 0, field, fmt.Errorf("%d is more than nodeplan expands (%d pods)", *n, maxExpandedPods)
	}
	return *n, "", nil
}

func deploymentWorkload(d *appsv1.Deployment) (*Workload, string, error) {
	n, field, err := replicas(d.Spec.Replicas, "spec.replicas")
	return &Workload{Selector: d.Spec.Selector, Template: &d.Spec.Template, Replicas: n}, field, err
}

func replicaSetWorkload(r *appsv1.ReplicaSet) (*Workload, string, error) {
	n, field, err := replicas(r.Spec.Replicas, "spec.replicas")
	return &Workload{Selector: r.Spec.Selector, Template: &r.Spec.Template, Replicas: n}, field, err
}

func statefulSetWorkload(s *appsv1.StatefulSet) (*Workload, string, error) {
	n, field, err := replicas(s.Spec.Replicas, "spec.replicas")
	for i, t := range s.Spec.VolumeClaimTemplates {
		if t.Name == "" && err == nil {
			field, err = fmt.Sprintf("spec.volumeClaimTemplates[%d].metadata.name", i), errors.New("required")
		}
	}
	w := &Workload{Selector: s.Spec.Selector, Template: &s.Spec.Template, Replicas: n,
		claimTemplates: s.Spec.VolumeClaimTemplates, serviceName: s.Spec.ServiceName}
	if s.Spec.Ordinals != nil {
		w.firstIndex = s.Spec.Ordinals.Start // pods are <name>-<start>, <name>-<start+1>, ...
	}
	return w, field, err
}

func jobWorkload(j *batchv1.Job) (*Workload, string, error) {
	n, field, err := replicas(j.Spec.Parallelism, "spec.parallelism")
	if err == nil && j.Spec.Completions != nil {
		if *j.Spec.Completions < 0 {
			field, err = "spec.completions", fmt.Errorf("must not be negative, got %d", *j.Spec.Completions)
		} else if *j.Spec.Completions < n {
			n = *j.Spec.Completions
		}
	}
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		n = 0
	}
	// A Job that has finished runs no more pods; one under way needs pods only for the
	// completions still missing.
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == "True" {
			n = 0
		}
	}
	if j.Spec.Completions != nil && n > 0 {
		if left := *j.Spec.Completions - j.Status.Succeeded; left < n {
			n = max(left, 0)
		}
	}
	return &Workload{Selector: j.Spec.Selector, Template: &j.Spec.Template, Replicas: n}, field, err
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonTypeName names the JSON type of a decoded value.
func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case int64, float64, json.Number:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// apiGroup is the group of an apiVersion ("" for the core group's "v1").
func apiGroup(apiVersion string) string {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}
