package scheduling

import (
	"iter"
	"slices"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// nodeFacts is what every Solve reads of an existing node and its bound pods the same way,
// remembered per *cluster.Node in a Cache: snapshots share unchanged nodes and copy the ones
// they change, so disruption's many simulations over thousands of nodes read each once.
type nodeFacts struct {
	labels      map[string]string
	managed     bool // has a NodePool label
	initialized bool
	pool        string
	typeName    string
	// volumePods are the bound pods that are not terminal and have volumes.
	volumePods []*corev1.Pod
	ports      []hostPort
	namespaces []string        // of all its bound pods, terminal or not, each once
	daemons    map[string]bool // namespace/name of the DaemonSets with a pod here; nil if none
	// used is the pods' summed requests, valid while its length is the index's; nil when a
	// sum could saturate, where subtracting pod by pod gives a different result.
	used vec
	// alloc is allocatable as a vector (the Node's, else the claim's); also kept at the
	// index's length. Solves clone it.
	alloc vec
}

// nodeFacts are n's facts from the Cache, or without one from this Solve's own memo.
func (s *solver) nodeFacts(n *cluster.Node) *nodeFacts {
	if s.facts == nil {
		s.facts = map[*cluster.Node]*nodeFacts{}
	}
	if f, ok := s.facts[n]; ok {
		s.resizeFacts(f, n)
		return f
	}
	lbls := nodeLabels(n)
	f := &nodeFacts{labels: lbls, pool: lbls[v1.NodePoolLabelKey], typeName: lbls[v1.LabelInstanceType]}
	_, f.managed = lbls[v1.NodePoolLabelKey]
	f.initialized = !f.managed || lbls[v1.NodeInitializedLabelKey] == "true"
	for _, p := range n.Pods {
		if p != nil && !slices.Contains(f.namespaces, p.Namespace) {
			f.namespaces = append(f.namespaces, p.Namespace)
		}
	}
	for _, p := range livePods(n) {
		if len(p.Spec.Volumes) > 0 {
			f.volumePods = append(f.volumePods, p)
		}
		f.ports = append(f.ports, hostPortsOf(p)...)
		for _, o := range p.OwnerReferences {
			if o.Kind == "DaemonSet" {
				if f.daemons == nil {
					f.daemons = map[string]bool{}
				}
				f.daemons[p.Namespace+"/"+o.Name] = true
			}
		}
	}
	s.resizeFacts(f, n)
	s.facts[n] = f
	return f
}

// resizeFacts recomputes f's vectors when the resource index has grown since they were
// summed (a Cache's index grows as later Solves meet new resource names).
func (s *solver) resizeFacts(f *nodeFacts, n *cluster.Node) {
	if len(f.used) != len(s.res.names) {
		f.used = s.sumPods(n)
	}
	if len(f.alloc) != len(s.res.names) {
		f.alloc = s.res.vec(allocatable(n))
	}
}

// safeSum bounds the summed requests and the allocatable they are taken from, so that no
// step of either subtraction saturates and both give the same vector.
const safeSum = 1 << 61

// sumPods is the node's live pods' summed requests, or nil when a sum may reach safeSum or
// a request is negative.
func (s *solver) sumPods(n *cluster.Node) vec {
	sum := make(vec, len(s.res.names))
	for _, p := range livePods(n) {
		for i, x := range s.podVec(p) {
			if x < 0 || x >= safeSum-sum[i] {
				return nil
			}
			sum[i] += x
		}
	}
	return sum
}

// subPods takes the node's pods' requests off available, as subtracting each would.
func (s *solver) subPods(available vec, n *cluster.Node, f *nodeFacts) {
	if f.used != nil && len(f.used) == len(available) && withinSafeSum(available) {
		available.sub(f.used)
		return
	}
	for _, p := range livePods(n) {
		available.sub(s.podVec(p))
	}
}

func withinSafeSum(v vec) bool {
	for _, x := range v {
		if x >= safeSum || x <= -safeSum {
			return false
		}
	}
	return true
}

// livePods yields the node's bound pods that are not terminal.
func livePods(n *cluster.Node) iter.Seq2[int, *corev1.Pod] {
	return func(yield func(int, *corev1.Pod) bool) {
		for i, p := range n.Pods {
			if p != nil && !cluster.IsTerminal(p) && !yield(i, p) {
				return
			}
		}
	}
}

// allocatable is the Node's allocatable, else (none given, or no Node) the NodeClaim's.
func allocatable(n *cluster.Node) corev1.ResourceList {
	var alloc corev1.ResourceList
	if n.Node != nil {
		alloc = n.Node.Status.Allocatable
	}
	if len(alloc) == 0 && n.NodeClaim != nil {
		alloc = n.NodeClaim.Status.Allocatable
	}
	return alloc
}
