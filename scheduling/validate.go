package scheduling

import (
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/internal/podspec"
	"github.com/nodeplan/nodeplan/internal/quantity"
)

// validate rejects inputs Solve's contract calls invalid before anything reads them (the
// snapshot already refused nil objects, duplicate names, nameless instance types, nil
// offerings and negative prices): resource quantities of NodePools, instance types, nodes,
// bound pods and DaemonSets that are negative or do not fit an int64 in nodeplan's units
// (1e30 cpu read as 0, or wrapping negative, made pods fit where they do not). A pending
// pod's spec is its own problem: a PodError (see invalidPodSpec).
func (s *solver) validate() error {
	snap, cache := s.snap, s.cache
	for _, np := range snap.NodePools() {
		if np == nil {
			continue
		}
		if err := quantity.CheckList("spec.limits", corev1.ResourceList(np.Spec.Limits)); err != nil {
			return invalidField("NodePool", np.Name, err)
		}
	}
	types := snap.InstanceTypes()
	pools := make([]string, 0, len(types))
	for name := range types {
		pools = append(pools, name)
	}
	sort.Strings(pools)
	for _, pool := range pools {
		for _, it := range types[pool] {
			if it == nil || cache != nil && cache.validTypes[it] {
				continue // a nil entry is no type, as everywhere in cloudprovider
			}
			if err := checkInstanceType(it.Capacity, it.Overhead); err != nil {
				return invalidField("InstanceType", it.Name, err)
			}
			if cache != nil {
				cache.validTypes[it] = true
			}
		}
	}
	// Nodes are checked when first read (a node and its pod list never change: snapshots
	// copy the ones they change).
	if err := s.readNodes(); err != nil {
		return err
	}
	for _, ds := range snap.DaemonSets() {
		if ds == nil || cache != nil && cache.validDaemonSets[ds] {
			continue
		}
		if err := podspec.Check("spec.template.spec", &ds.Spec.Template.Spec); err != nil {
			return invalidField("DaemonSet", ds.Namespace+"/"+ds.Name, err)
		}
		if cache != nil {
			cache.validDaemonSets[ds] = true
		}
	}
	return nil
}

func checkInstanceType(capacity corev1.ResourceList, overhead interface{ Total() corev1.ResourceList }) error {
	if err := quantity.CheckList("capacity", capacity); err != nil {
		return err
	}
	return quantity.CheckList("overhead", overhead.Total())
}

// invalidPodSpec is why the API server would reject a pending pod (see internal/podspec),
// or why its resources cannot be counted (a total of its requests beyond an int64); "" if
// neither. specChecked: validate already accepted p.Spec (a bound pod rescheduled off a
// deleting node), so it is not checked again on every simulation. requests is called for the
// total only when the pod's total is not one container's requests (singleRequests): those
// passed the spec's check by the same rule, and `pods` is one.
func invalidPodSpec(p *corev1.Pod, requests func() corev1.ResourceList, specChecked bool) string {
	if err := podspec.CheckName(p.Name); err != nil {
		return "invalid pod: metadata.name: " + err.Error()
	}
	if err := podspec.CheckNamespace(p.Namespace); err != nil && p.Namespace != "" {
		return "invalid pod: metadata.namespace: " + err.Error()
	}
	if !specChecked {
		if err := podspec.Check("spec", &p.Spec); err != nil {
			return "invalid pod: " + err.Error()
		}
	}
	if _, single := singleRequests(p); single {
		return ""
	}
	if err := quantity.CheckList("requests", requests()); err != nil {
		return "the pod's total " + err.Error()
	}
	return ""
}

// checkNode checks a node's objects and its bound pods.
func checkNode(n *cluster.Node, cache *Cache) error {
	if n.Node != nil {
		if err := quantity.CheckList("status.allocatable", n.Node.Status.Allocatable); err != nil {
			return invalidField("Node", n.Node.Name, err)
		}
		if err := quantity.CheckList("status.capacity", n.Node.Status.Capacity); err != nil {
			return invalidField("Node", n.Node.Name, err)
		}
	}
	if n.NodeClaim != nil {
		if err := quantity.CheckList("status.allocatable", n.NodeClaim.Status.Allocatable); err != nil {
			return invalidField("NodeClaim", n.NodeClaim.Name, err)
		}
		if err := quantity.CheckList("status.capacity", n.NodeClaim.Status.Capacity); err != nil {
			return invalidField("NodeClaim", n.NodeClaim.Name, err)
		}
	}
	for _, p := range n.Pods {
		if p == nil || cache != nil && cache.validPods[p] {
			continue
		}
		if err := podspec.Check("spec", &p.Spec); err != nil {
			return invalidField("Pod", cluster.PodKey(p), err) // bound to n
		}
		if cache != nil {
			cache.validPods[p] = true
		}
	}
	return nil
}
