package verify

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// usablePool is a NodePool that launches nodes for pods: not static, not deleting.
func usablePool(np *v1.NodePool) bool {
	return np != nil && np.Spec.Replicas == nil && np.DeletionTimestamp == nil
}

// checkLaunch checks a new NodeClaim's launch choice: a type of its NodePool and among its
// options, an available offering of that type, and a node whose labels satisfy the
// claim's and the NodePool's requirements.
func (w *world) checkLaunch(l *location) []Violation {
	c := l.nc
	var out []Violation
	np := w.pools[c.NodePool]
	if !usablePool(np) {
		out = append(out, l.violation(ClaimNodePoolUnknown))
	}
	if !l.launched {
		return append(out, l.violation(LaunchMissing))
	}
	it, o := c.InstanceType, c.Offering
	if !hasType(w.snap.InstanceTypes()[c.NodePool], it.Name) || !hasType(c.InstanceTypeOptions, it.Name) {
		v := l.violation(LaunchTypeNotAllowed)
		v.Key = it.Name
		out = append(out, v)
	}
	if !o.Available || !hasOffering(it.Offerings, o) {
		v := l.violation(LaunchOfferingUnavailable)
		v.Key = o.Zone() + "/" + o.CapacityType()
		out = append(out, v)
	}
	unmet := map[string]bool{}
	for _, pair := range [][2]requirements.Requirements{{c.Requirements, it.Requirements}, {c.Requirements, o.Requirements}, {it.Requirements, o.Requirements}} {
		if k, bad := disjointKey(pair[0], pair[1]); bad {
			unmet[k] = true
		}
	}
	node := requirements.FromLabels(l.labels)
	if k, bad := unmetKey(node, c.Requirements); bad {
		unmet[k] = true
	}
	for _, k := range sortedKeysOf(unmet) {
		v := l.violation(LaunchRequirements)
		v.Key = k
		out = append(out, v)
	}
	if np != nil {
		npReqs, err := requirements.FromNodeSelectorRequirements(np.Spec.Template.Spec.Requirements...)
		if err != nil {
			v := l.violation(LaunchNodePool)
			v.Key = "spec.template.spec.requirements"
			out = append(out, v)
		} else if k, bad := unmetKey(node, npReqs); bad {
			v := l.violation(LaunchNodePool)
			v.Key = k
			out = append(out, v)
		}
		for _, k := range sortedKeysOf(np.Spec.Template.ObjectMeta.Labels) {
			if l.labels[k] != np.Spec.Template.ObjectMeta.Labels[k] {
				v := l.violation(LaunchNodePool)
				v.Key = k
				out = append(out, v)
			}
		}
	}
	return out
}

func hasType(its cloudprovider.InstanceTypes, name string) bool {
	for _, it := range its {
		if it != nil && it.Name == name {
			return true
		}
	}
	return false
}

func hasOffering(ofs cloudprovider.Offerings, o *cloudprovider.Offering) bool {
	for _, x := range ofs {
		if x == o || (x != nil && x.Requirements.Equal(o.Requirements) && x.Price == o.Price && x.Available == o.Available) {
			return true
		}
	}
	return false
}

// disjointKey is the first key (sorted) defined on both sides whose values cannot meet.
func disjointKey(a, b requirements.Requirements) (string, bool) {
	for _, k := range a.Keys() {
		if !b.Has(k) {
			continue
		}
		one := requirements.NewRequirements(a.Get(k))
		if !one.HasIntersection(requirements.NewRequirements(b.Get(k))) {
			return k, true
		}
	}
	return "", false
}

// unmetKey is the first key (sorted) of reqs the node's labels do not satisfy (strictly: a
// label the node lacks satisfies only NotIn and DoesNotExist).
func unmetKey(node, reqs requirements.Requirements) (string, bool) {
	for _, k := range reqs.Keys() {
		if !node.IsCompatible(requirements.NewRequirements(reqs.Get(k)), nil) {
			return k, true
		}
	}
	return "", false
}

// checkLimits: for every NodePool that launches in this plan, its existing nodes (not
// being deleted) plus the launched types' capacity stay within spec.limits.
func (w *world) checkLimits() []Violation {
	var out []Violation
	for _, np := range w.snap.NodePools() {
		if np == nil || len(np.Spec.Limits) == 0 {
			continue
		}
		used, launched := w.poolUsage(np.Name)
		if launched == 0 {
			continue
		}
		names := make([]string, 0, len(np.Spec.Limits))
		for name := range np.Spec.Limits {
			names = append(names, string(name))
		}
		sort.Strings(names)
		for _, n := range names {
			name := corev1.ResourceName(n)
			limit, got := np.Spec.Limits[name], used[name]
			if got.Cmp(limit) > 0 {
				v := newViolation(NodePoolLimit)
				v.NodePool, v.Key = np.Name, n
				v.Got, v.Limit = amount(name, got), amount(name, limit)
				out = append(out, v)
			}
		}
	}
	return out
}

// poolUsage is what NodePool pool's nodes take of its limits as launched: the capacity of
// its existing nodes (not being deleted) and of the NodeClaims launched, one "nodes" each;
// launched counts those NodeClaims.
func (w *world) poolUsage(pool string) (used corev1.ResourceList, launched int) {
	used = corev1.ResourceList{}
	for _, l := range w.locs {
		if l.pool != pool {
			continue
		}
		switch {
		case l.claim >= 0:
			if !l.launched {
				continue
			}
			launched++
			addTo(used, l.nc.InstanceType.Capacity)
		case !l.marked:
			addTo(used, nodeCapacity(l))
		default:
			continue
		}
		addTo(used, corev1.ResourceList{"nodes": *resource.NewQuantity(1, resource.DecimalSI)})
	}
	return used, launched
}

// roomFor reports whether NodePool np's limits, with used taken, leave room for a node of
// instance type it.
func roomFor(np *v1.NodePool, used corev1.ResourceList, it *cloudprovider.InstanceType) bool {
	for name, limit := range np.Spec.Limits {
		got := used[name].DeepCopy()
		if name == "nodes" {
			got.Add(*resource.NewQuantity(1, resource.DecimalSI))
		} else if q, ok := it.Capacity[name]; ok {
			got.Add(q)
		}
		if got.Cmp(limit) > 0 {
			return false
		}
	}
	return true
}

// nodeCapacity is an existing node's capacity (the NodeClaim's until the Node reports it,
// else its allocatable).
func nodeCapacity(l *location) corev1.ResourceList {
	n := l.node
	if n.Node != nil && len(n.Node.Status.Capacity) > 0 {
		return n.Node.Status.Capacity
	}
	if n.NodeClaim != nil && len(n.NodeClaim.Status.Capacity) > 0 {
		return n.NodeClaim.Status.Capacity
	}
	return l.alloc
}
