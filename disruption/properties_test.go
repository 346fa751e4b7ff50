package disruption

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
)

// drawCluster draws 1-3 NodePools with random budgets and policies and up to 12 nodes with
// up to 4 pods each.
func drawCluster(t *rapid.T) *fixture {
	var pools []*v1.NodePool
	np := rapid.IntRange(1, 3).Draw(t, "pools")
	for i := 0; i < np; i++ {
		p := pool(fmt.Sprintf("p%d", i), budget(rapid.SampledFrom([]string{"0", "1", "2", "10%", "50%", "100%"}).Draw(t, "budget")))
		if rapid.Bool().Draw(t, "spot") {
			spotToo(p)
		}
		if rapid.IntRange(0, 4).Draw(t, "policy") == 0 {
			p.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmpty
		}
		pools = append(pools, p)
	}
	var nodes []*cluster.Node
	nn := rapid.IntRange(0, 12).Draw(t, "nodes")
	for i := 0; i < nn; i++ {
		var pods []*corev1.Pod
		for j := rapid.IntRange(0, 4).Draw(t, "pods"); j > 0; j-- {
			pods = append(pods, bound(fmt.Sprintf("n%d-p%d", i, j), rapid.SampledFrom([]string{"100m", "500m", "1", "2"}).Draw(t, "cpu")))
		}
		ct := v1.CapacityTypeOnDemand
		if rapid.IntRange(0, 3).Draw(t, "ct") == 0 {
			ct = v1.CapacityTypeSpot
		}
		nodes = append(nodes, testNode(fmt.Sprintf("node-%02d", i), fmt.Sprintf("p%d", rapid.IntRange(0, np-1).Draw(t, "pool")),
			rapid.SampledFrom([]string{"small", "medium", "large"}).Draw(t, "type"), ct, pods...))
	}
	in := input(pools, nodes...)
	in.Options.SpotToSpotConsolidation = rapid.Bool().Draw(t, "s2s")
	return in
}

func summary(r *Result) string {
	out := fmt.Sprint(cmdSummary(r))
	for _, c := range r.Commands {
		out += fmt.Sprintf(" %.6f", c.SavingsPerHour)
	}
	return out + fmt.Sprint(r.Blocked)
}

func TestProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawCluster(t)
		snapshot := deepCopyInput(in)
		res, err := plan(t, in)
		if err != nil {
			t.Fatal(err)
		}
		// input not mutated
		if !equality.Semantic.DeepEqual(snapshot.NodePools, in.NodePools) || !equality.Semantic.DeepEqual(nodesOf(snapshot), nodesOf(in)) {
			t.Fatal("Plan modified its input")
		}
		checkNothingLost(t, in, res)
		// consolidation never raises cost
		for _, c := range res.Commands {
			if c.Reason != ReasonUnderutilized {
				continue
			}
			if c.SavingsPerHour <= 0 {
				t.Fatalf("consolidation %v saves %v", c.Candidates, c.SavingsPerHour)
			}
		}
		// budgets per NodePool and reason
		poolOf := map[string]string{}
		count := map[string]int{}
		for _, n := range in.Nodes {
			poolOf[n.Name()] = n.Node.Labels[v1.NodePoolLabelKey]
			count[poolOf[n.Name()]]++
		}
		used := map[string]int{}
		for _, c := range res.Commands {
			if c.Reason == ReasonExpired {
				continue
			}
			for _, n := range c.Candidates {
				used[poolOf[n]+"/"+string(c.Reason)]++
			}
		}
		for _, np := range in.NodePools {
			d := np.DeepCopy()
			d.SetDefaults()
			for _, r := range []v1.DisruptionReason{v1.DisruptionReasonEmpty, v1.DisruptionReasonDrifted, v1.DisruptionReasonUnderutilized} {
				allowed, _ := d.AllowedDisruptions(in.Now, count[np.Name], r)
				if u := used[np.Name+"/"+string(r)]; u > allowed {
					t.Fatalf("NodePool %s: %d %s disruptions, budget allows %d", np.Name, u, r, allowed)
				}
			}
		}
		// deterministic, whatever the order of the nodes
		rev := deepCopyInput(in)
		for i, j := 0, len(rev.Nodes)-1; i < j; i, j = i+1, j-1 {
			rev.Nodes[i], rev.Nodes[j] = rev.Nodes[j], rev.Nodes[i]
		}
		res2, err := plan(t, rev)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := summary(res), summary(res2); a != b {
			t.Fatalf("not deterministic:\n%s\n%s", a, b)
		}
	})
}

func nodesOf(in *fixture) []any {
	var out []any
	for _, n := range in.Nodes {
		out = append(out, n.Node, n.NodeClaim, n.Pods)
	}
	return out
}

func deepCopyInput(in *fixture) *fixture {
	out := *in
	out.NodePools = nil
	for _, np := range in.NodePools {
		out.NodePools = append(out.NodePools, np.DeepCopy())
	}
	out.Nodes = nil
	for _, n := range in.Nodes {
		out.Nodes = append(out.Nodes, n.DeepCopy())
	}
	return &out
}

var _ = reflect.DeepEqual
