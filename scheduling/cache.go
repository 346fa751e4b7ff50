package scheduling

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
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
}

// NewCache returns an empty Cache.
func NewCache() *Cache {
	return &Cache{requests: map[*corev1.Pod]corev1.ResourceList{}, labels: map[*corev1.Node]requirements.Requirements{}}
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

// nodeRequirements are a node's labels as requirements, with kubernetes.io/hostname defaulting
// to the node's name; remembered per Node when the solver has a cache.
func (s *solver) nodeRequirements(n *Node) requirements.Requirements {
	if s.cache != nil && n.Node != nil {
		if r, ok := s.cache.labels[n.Node]; ok {
			return r
		}
	}
	lbls := nodeLabels(n)
	withHost := make(map[string]string, len(lbls)+1)
	for k, v := range lbls {
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
