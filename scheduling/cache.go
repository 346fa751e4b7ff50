package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// Cache remembers what Solve derives from individual pods and nodes (their requests, their
// labels as requirements), so that a caller running many Solves over the same objects — as
// disruption's simulations do — computes them once. It is keyed by object pointer: the
// objects must not change while a Cache holds them. A Cache changes no result, only speed.
// It is not safe for concurrent Solves; the zero value is not usable, call NewCache.
type Cache struct {
	requests map[*corev1.Pod]corev1.ResourceList
	labels   map[*corev1.Node]requirements.Requirements
	// res is a grow-only resource index shared by the Solves using the cache, so vectors
	// computed in one Solve stay valid (or are recomputed when the index has grown).
	res      *resourceIndex
	indexed  map[any]bool // objects whose resource names res holds
	valid    map[any]bool // objects validate accepted
	podVecs  map[*corev1.Pod]vec
	typeVecs map[*cloudprovider.InstanceType][2]vec // capacity, allocatable
	// templates are prepared NodePools (instance types filtered, priced, indexed), keyed
	// by the NodePool and the minValues policy; each entry also holds the exact
	// instance-type list it was prepared from, compared element by element on lookup.
	templates map[templateKey][]preparedTemplate
	nodeFacts map[*cluster.Node]*nodeFacts
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
	c.types = make([]*templateType, len(t.types))
	for i, tt := range t.types {
		c.types[i] = &templateType{it: tt.it, price: tt.price}
	}
	return &c
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{
		requests:  map[*corev1.Pod]corev1.ResourceList{},
		labels:    map[*corev1.Node]requirements.Requirements{},
		res:       newResourceIndex(),
		indexed:   map[any]bool{},
		valid:     map[any]bool{},
		podVecs:   map[*corev1.Pod]vec{},
		typeVecs:  map[*cloudprovider.InstanceType][2]vec{},
		templates: map[templateKey][]preparedTemplate{},
		nodeFacts: map[*cluster.Node]*nodeFacts{},
	}
}

// allocatableOf keys an instance type's allocatable list in Cache.indexed.
type allocatableOf struct{ it *cloudprovider.InstanceType }

// index registers the resource names of rl (owned by key) unless the cache already did.
func (s *solver) index(key any, rl func() corev1.ResourceList) {
	if s.cache == nil {
		s.res.addAll(rl())
		return
	}
	if s.cache.indexed[key] {
		return
	}
	s.res.addAll(rl())
	s.cache.indexed[key] = true
}

// podVec is the pod's requests as a vector, remembered when the solver has a cache.
func (s *solver) podVec(p *corev1.Pod) vec {
	if s.cache == nil {
		return s.res.vec(podRequests(p))
	}
	if v, ok := s.cache.podVecs[p]; ok && len(v) == len(s.res.names) {
		return v
	}
	v := s.res.vec(s.podRequests(p))
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

// podRequests is podRequests(p), remembered when the solver has a cache.
func (s *solver) podRequests(p *corev1.Pod) corev1.ResourceList {
	if s.cache == nil {
		return podRequests(p)
	}
	if rl, ok := s.cache.requests[p]; ok {
		return rl
	}
	rl := podRequests(p)
	s.cache.requests[p] = rl
	return rl
}

// nodeRequirements are a node's labels as requirements (a deprecated alias only where its
// stable label is missing), with kubernetes.io/hostname defaulting to the node's name; remembered per Node when the solver has a cache.
func (s *solver) nodeRequirements(n *cluster.Node) requirements.Requirements {
	if s.cache != nil && n.Node != nil {
		if r, ok := s.cache.labels[n.Node]; ok {
			return r
		}
	}
	lbls := nodeLabels(n)
	withHost := make(map[string]string, len(lbls)+1)
	for k, v := range lbls {
		// A deprecated alias beside its stable label is ignored: kube-scheduler (and verify)
		// read the stable one, and folding both would put a node whose two disagree in no
		// zone at all, uncounted by the spreads that count it.
		if stable, alias := v1.NormalizedLabels[k]; alias {
			if _, both := lbls[stable]; both {
				continue
			}
		}
		withHost[k] = v
	}
	if withHost[v1.LabelHostname] == "" {
		withHost[v1.LabelHostname] = n.Name()
	}
	r := requirements.FromLabels(withHost)
	if s.cache != nil && n.Node != nil {
		s.cache.labels[n.Node] = r
	}
	return r
}
