package scheduling

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// Cache remembers what Solve derives from individual pods, nodes and NodePools (requests,
// labels as requirements, validation, prepared instance types, and each existing node with
// the room its pods and DaemonSets leave), so that a caller running many Solves over forks of
// one snapshot — as disruption's simulations do — computes them once: a Solve then costs
// the nodes it places pods on and the pods it places, plus one pass over the node list. It
// is keyed by object pointer: the objects must not change while a Cache holds them. A Cache
// changes no result, only speed. It is not safe for concurrent Solves; the zero value is not
// usable, call NewCache.
type Cache struct {
	// res is a grow-only resource index shared by the Solves using the cache, so vectors
	// computed in one Solve stay valid (or are recomputed when the index has grown).
	res *resourceIndex
	// indexedPods and indexedDaemonSets are the pending pods and DaemonSets whose resource
	// names res holds (nodes' and bound pods' are registered with their nodeFacts, templates'
	// when prepared).
	indexedPods       map[*corev1.Pod]bool
	indexedDaemonSets map[*appsv1.DaemonSet]bool
	// validTypes, validPods and validDaemonSets are what validate accepted.
	validTypes      map[*cloudprovider.InstanceType]bool
	validPods       map[*corev1.Pod]bool
	validDaemonSets map[*appsv1.DaemonSet]bool
	// podVecs are pods' requests as vectors, as long as the index was when each was
	// computed (podVec extends them).
	podVecs  map[*corev1.Pod]vec
	refusals map[refusalKey]refusal
	prepared map[preparedKey]*podData
	typeVecs map[*cloudprovider.InstanceType][2]vec // capacity, allocatable
	// templates are prepared NodePools (instance types filtered, priced, indexed), keyed
	// by the NodePool and the minValues policy; each entry also holds the exact
	// instance-type list it was prepared from, compared element by element on lookup.
	templates map[templateKey][]preparedTemplate
	// nodes are the facts of every node read (with its prototype for existing).
	nodes    *nodeStore
	existing *existingContext
	// base is the last node list Solves' snapshots were made from by Without, read once.
	base *baseNodes
	// roomBuf is the last Solve's free-room index storage, for the next Solve's.
	roomBuf []int64
}

type templateKey struct {
	nodePool *v1.NodePool
	policy   MinValuesPolicy
}

type preparedTemplate struct {
	types cloudprovider.InstanceTypes // a copy of the list the template was prepared from
	t     *template
	why   Cause
}

// sameTypes reports whether two instance-type lists hold the same types in the same order.
func sameTypes(a, b cloudprovider.InstanceTypes) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// template is newTemplate, remembered when the solver has a cache. Each Solve gets its own
// copy of the template (limits and instance-type vectors are per Solve); the requirement and
// offering indexes are shared, being pure functions of the template.
func (s *solver) template(np *v1.NodePool, types cloudprovider.InstanceTypes) (*template, Cause, error) {
	if s.cache == nil {
		return s.newTemplate(np, types)
	}
	key := templateKey{nodePool: np, policy: s.opts.MinValuesPolicy}
	for _, p := range s.cache.templates[key] {
		if !sameTypes(p.types, types) {
			continue
		}
		if p.t == nil {
			return nil, p.why, nil
		}
		return p.t.forSolve(), Cause{}, nil
	}
	t, why, err := s.newTemplate(np, types)
	if err != nil {
		return nil, Cause{}, err
	}
	s.cache.templates[key] = append(s.cache.templates[key],
		preparedTemplate{types: append(cloudprovider.InstanceTypes(nil), types...), t: t, why: why})
	if t == nil {
		return nil, why, nil
	}
	return t.forSolve(), Cause{}, nil
}

// forSolve copies the template with fresh per-Solve state.
func (t *template) forSolve() *template {
	c := *t
	c.origin, c.fitIndex = t, nil
	c.types = make([]*templateType, len(t.types))
	for i, tt := range t.types {
		c.types[i] = &templateType{it: tt.it, price: tt.price}
	}
	return &c
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{
		res:               newResourceIndex(),
		indexedPods:       map[*corev1.Pod]bool{},
		indexedDaemonSets: map[*appsv1.DaemonSet]bool{},
		validTypes:        map[*cloudprovider.InstanceType]bool{},
		validPods:         map[*corev1.Pod]bool{},
		validDaemonSets:   map[*appsv1.DaemonSet]bool{},
		podVecs:           map[*corev1.Pod]vec{},
		refusals:          map[refusalKey]refusal{},
		prepared:          map[preparedKey]*podData{},
		typeVecs:          map[*cloudprovider.InstanceType][2]vec{},
		templates:         map[templateKey][]preparedTemplate{},
		nodes:             newNodeStore(),
	}
}

// podVec is the pod's requests as a vector, remembered when the solver has a cache.
func (s *solver) podVec(p *corev1.Pod) vec {
	return s.podVecOf(p, func() vec { return s.res.requestVec(p) })
}

// podVecOf is podVec, with compute computing the vector when it is not remembered.
// A remembered vector shorter than the index is extended with zeros: every name of the pod's
// requests was in the index before its vector was computed (the pod's requests are
// registered first: buildResourceIndex, newFacts), so the names added since are not the
// pod's. The Cache keeps no resource list per pod (a map each: 13 MB at 20,000 pods).
func (s *solver) podVecOf(p *corev1.Pod, compute func() vec) vec {
	if s.cache == nil {
		return compute()
	}
	v, ok := s.cache.podVecs[p]
	switch {
	case ok && len(v) == len(s.res.names):
		return v
	case ok && len(v) < len(s.res.names):
		v = append(append(make(vec, 0, len(s.res.names)), v...), make(vec, len(s.res.names)-len(v))...)
	default:
		v = compute()
	}
	s.cache.podVecs[p] = v
	return v
}

// typeVecs are an instance type's capacity and allocatable as vectors.
func (s *solver) typeVecs(it *cloudprovider.InstanceType) (capacity, alloc vec) {
	if s.cache != nil {
		if v, ok := s.cache.typeVecs[it]; ok && len(v[0]) == len(s.res.names) {
			return v[0], v[1]
		}
	}
	capacity, alloc = s.res.vec(it.Capacity), s.res.vec(it.Allocatable())
	if s.cache != nil {
		s.cache.typeVecs[it] = [2]vec{capacity, alloc}
	}
	return capacity, alloc
}

// refusal is why a pod can never be placed, whatever the cluster: its spec or its total
// requests (invalidPodSpec), else its requirements (refusedRequirements); "" for neither.
type refusal struct{ spec, requirements string }

type refusalKey struct {
	pod         *corev1.Pod
	specChecked bool
}

// refusal is the pod's refusal (see invalidPodSpec for specChecked and requests), remembered
// when the solver has a cache: a simulation reschedules the pods of every deleting node.
func (s *solver) refusal(p *corev1.Pod, requests func() corev1.ResourceList, specChecked bool) refusal {
	k := refusalKey{p, specChecked}
	if s.cache != nil {
		if r, ok := s.cache.refusals[k]; ok {
			return r
		}
	}
	r := refusal{spec: invalidPodSpec(p, requests, specChecked)}
	if r.spec == "" {
		r.requirements = refusedRequirements(p)
	}
	if s.cache != nil {
		s.cache.refusals[k] = r
	}
	return r
}

// preparedKey is what preparePods reads of a pod besides the pod: whether its spec was
// checked (a bound pod moving), whether the Solve places pods and whether it ignores
// preferences.
type preparedKey struct {
	pod                          *corev1.Pod
	specChecked, placing, ignore bool
	softTaintsTolerated          bool
}

// prepared copies into p the podData preparePods computed for the pod in an earlier Solve
// of the cache, when the pod's data is its own alone: no topology spread constraint (given,
// or defaulted: Options' defaults apply to pods with labels), no pod affinity or
// anti-affinity and no volumes, so that its form (immutable) holds no Solve's topology
// groups and nothing in it reads the snapshot's objects; it reports whether there was one.
// A simulation reschedules the pods of every deleting node: each is prepared once per Plan,
// not per simulation.
func (s *solver) prepared(k preparedKey, p *podData) bool {
	if s.cache == nil {
		return false
	}
	t, ok := s.cache.prepared[k]
	if !ok || len(t.requests) != len(s.res.names) {
		return false
	}
	*p = *t
	return true
}

// remember keeps a copy of p, just prepared (nothing of the Solve's topology in it yet), for
// prepared, when the pod's data is its own alone.
func (s *solver) remember(k preparedKey, p *podData) {
	if s.cache == nil || !ownDataOnly(k.pod, s.opts) {
		return
	}
	t := *p
	s.cache.prepared[k] = &t
}

// ownDataOnly reports whether preparePods computes the pod's data from the pod (and the
// Options) alone.
func ownDataOnly(p *corev1.Pod, opts Options) bool {
	a := p.Spec.Affinity
	return len(p.Spec.Volumes) == 0 && len(p.Spec.TopologySpreadConstraints) == 0 &&
		(len(opts.DefaultTopologySpreadConstraints) == 0 || len(p.Labels) == 0) &&
		(a == nil || a.PodAffinity == nil && a.PodAntiAffinity == nil)
}
