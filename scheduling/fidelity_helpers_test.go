package scheduling_test

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// fidelityIn is a fidelity test's snapshot and options.
type fidelityIn struct {
	snap *cluster.Snapshot
	opts scheduling.Options
}

// fidelityInput reads manifests and a catalog, as the CLI does: pending pods to place,
// nodes with their bound pods, every NodePool on the whole catalog.
func fidelityInput(t *testing.T, manifests, instanceTypes string, packing scheduling.Packing) *fidelityIn {
	t.Helper()
	set, err := manifest.Parse([]byte(manifests), "input.yaml")
	require.NoError(t, err)
	types, wellKnown, err := catalog.Parse([]byte(instanceTypes), "instance-types.yaml")
	require.NoError(t, err)
	its := map[string]cloudprovider.InstanceTypes{}
	for _, np := range set.NodePools {
		its[np.Name] = types
	}
	objs := set.Objects
	objs.InstanceTypes, objs.WellKnownLabels = its, wellKnown
	snap, err := cluster.New(objs)
	require.NoError(t, err)
	for _, n := range snap.NotPlanned() {
		require.NotEqual(t, cluster.NotPlannedNodeNotInInput, n.Reason, "pod %s is bound to an unknown node", n.Pod.Name)
	}
	return &fidelityIn{snap: snap, opts: scheduling.Options{Packing: packing}}
}

// solve is mustSolve over the fidelity input.
func (in *fidelityIn) solve(t *testing.T) *scheduling.Result {
	t.Helper()
	return mustSolve(t, in.snap, in.opts)
}

// launchedPod is a pod of the plan as launched (or already running) with its node's labels.
type launchedPod struct {
	pod   *corev1.Pod
	node  *corev1.Node
	claim *scheduling.NodeClaim
}

// launchedLabels are the labels a NodeClaim's node has when it launches on its reported
// instance type and offering.
func launchedLabels(c *scheduling.NodeClaim) map[string]string {
	out := map[string]string{corev1.LabelHostname: c.Hostname}
	for k, v := range c.Requirements.Labels() {
		out[k] = v
	}
	for k, v := range c.InstanceType.Requirements.Labels() {
		out[k] = v
	}
	for k, v := range c.Offering.Requirements.Labels() {
		out[k] = v
	}
	for k, v := range c.Labels {
		out[k] = v
	}
	return out
}

// asLaunched lists every pod of the plan as launched: running pods on their nodes, pods
// placed on existing nodes, pods on new NodeClaims (as nodes with their launched labels).
func asLaunched(in *fidelityIn, res *scheduling.Result) []launchedPod {
	var out []launchedPod
	byName := map[string]*corev1.Node{}
	for _, n := range in.snap.Nodes() {
		if n.Node == nil {
			continue
		}
		byName[n.Node.Name] = n.Node
		for _, p := range n.Pods {
			out = append(out, launchedPod{pod: p, node: n.Node})
		}
	}
	for _, b := range res.Bindings {
		out = append(out, launchedPod{pod: b.Pod, node: byName[b.To]})
	}
	for _, c := range res.NewNodeClaims {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: c.Hostname, Labels: launchedLabels(c)}, Spec: corev1.NodeSpec{Taints: c.Taints}}
		for _, p := range c.Pods {
			out = append(out, launchedPod{pod: p, node: node, claim: c})
		}
	}
	return out
}

// spreadViolations checks every DoNotSchedule topology spread constraint of every placed pod
// on the plan as launched: the pod's domain may hold at most maxSkew more counted pods than
// the emptiest of domains (the key's domains the pod's own node selector allows). Counted
// are the pods of the pod's namespace its selector matches on nodes passing its node filter
// (nodeAffinityPolicy Honor: the pod's required node affinity). It returns one line per
// broken constraint.
func spreadViolations(t *testing.T, in *fidelityIn, res *scheduling.Result, domains []string) []string {
	t.Helper()
	all := asLaunched(in, res)
	var out []string
	for _, lp := range all {
		if lp.claim == nil && !placedOnExisting(res, lp.pod) {
			continue
		}
		for _, c := range lp.pod.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				continue
			}
			sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
			require.NoError(t, err)
			filter := nodeaffinity.GetRequiredNodeAffinity(lp.pod)
			honor := c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor
			counts := map[string]int{}
			for _, d := range domains {
				if v, ok := lp.pod.Spec.NodeSelector[c.TopologyKey]; !ok || v == d {
					counts[d] = 0
				}
			}
			for _, o := range all {
				d, ok := o.node.Labels[c.TopologyKey]
				if !ok || o.pod.Namespace != lp.pod.Namespace || !sel.Matches(labels.Set(o.pod.Labels)) {
					continue
				}
				if honor {
					if match, _ := filter.Match(o.node); !match {
						continue
					}
				}
				if _, eligible := counts[d]; eligible {
					counts[d]++
				}
			}
			lowest := -1
			for _, n := range counts {
				if lowest < 0 || n < lowest {
					lowest = n
				}
			}
			mine := lp.node.Labels[c.TopologyKey]
			if counts[mine]-lowest > int(c.MaxSkew) {
				out = append(out, lp.pod.Name+" in "+mine+": "+countsText(counts))
			}
		}
	}
	sort.Strings(out)
	return out
}

func placedOnExisting(res *scheduling.Result, pod *corev1.Pod) bool {
	for _, b := range res.Bindings {
		if b.Pod == pod {
			return true
		}
	}
	return false
}

func countsText(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for _, k := range keys {
		s += k + "=" + strconv.Itoa(counts[k]) + " "
	}
	return s
}

// launchedCounts counts, per value of key on the launched node, the placed pods whose name
// starts with prefix.
func launchedCounts(in *fidelityIn, res *scheduling.Result, prefix, key string) map[string]int {
	out := map[string]int{}
	for _, lp := range asLaunched(in, res) {
		if lp.claim == nil && !placedOnExisting(res, lp.pod) {
			continue
		}
		if len(lp.pod.Name) >= len(prefix) && lp.pod.Name[:len(prefix)] == prefix {
			out[lp.node.Labels[key]]++
		}
	}
	return out
}

// nodePods are the pods a result binds to one node.
type nodePods struct {
	name string
	pods []*corev1.Pod
}

// byNode groups res.Bindings by node, in their order (sorted by node name).
func byNode(res *scheduling.Result) []nodePods {
	var out []nodePods
	for _, b := range res.Bindings {
		if len(out) == 0 || out[len(out)-1].name != b.To {
			out = append(out, nodePods{name: b.To})
		}
		out[len(out)-1].pods = append(out[len(out)-1].pods, b.Pod)
	}
	return out
}

// solveCase is the plan (mustSolve) of testdata/<dir>'s input and catalog under packing.
func solveCase(t *testing.T, dir string, packing scheduling.Packing) *scheduling.Result {
	t.Helper()
	manifests, types := testdataCase(t, dir)
	return fidelityInput(t, manifests, types, packing).solve(t)
}

// soleClaim is the one new NodeClaim of res, a plan that places every pod.
func soleClaim(t *testing.T, res *scheduling.Result) *scheduling.NodeClaim {
	t.Helper()
	require.Empty(t, res.PodErrors)
	require.Len(t, res.NewNodeClaims, 1)
	return res.NewNodeClaims[0]
}

// claimWant is what a test asks of a plan's one NodeClaim (zone "" and options 0: any).
type claimWant struct {
	pods         int
	instanceType string
	zone         string
	options      int
	price        float64
}

// assertSoleClaim checks that res places every pod on one new NodeClaim as w says, at w's
// price.
func assertSoleClaim(t *testing.T, res *scheduling.Result, w claimWant) {
	t.Helper()
	c := soleClaim(t, res)
	assert.Len(t, c.Pods, w.pods)
	assert.Equal(t, w.instanceType, c.InstanceType.Name)
	if w.zone != "" {
		assert.Equal(t, w.zone, c.Offering.Zone())
	}
	if w.options > 0 {
		assert.Len(t, c.InstanceTypeOptions, w.options)
	}
	assert.InDelta(t, w.price, res.Price(), 1e-9)
}

// podsPerZone counts the pods of res's new NodeClaims per zone they launch in.
func podsPerZone(res *scheduling.Result) map[string]int {
	out := map[string]int{}
	for _, c := range res.NewNodeClaims {
		out[c.Offering.Zone()] += len(c.Pods)
	}
	return out
}

// claimsOf are res's new NodeClaims that hold a pod whose name starts with prefix.
func claimsOf(res *scheduling.Result, prefix string) []*scheduling.NodeClaim {
	var out []*scheduling.NodeClaim
	for _, c := range res.NewNodeClaims {
		if slices.ContainsFunc(c.Pods, func(p *corev1.Pod) bool { return strings.HasPrefix(p.Name, prefix) }) {
			out = append(out, c)
		}
	}
	return out
}
