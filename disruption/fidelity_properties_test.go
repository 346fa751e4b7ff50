package disruption

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// drawBusyCluster is drawCluster with what makes a round interesting: pods of a few apps,
// PodDisruptionBudgets on some, do-not-disrupt pods, pending pods (some of a PDB's app),
// nodes already deleting and NodePools whose nodes have expired.
func drawBusyCluster(t *rapid.T) *fixture {
	apps := []string{"a0", "a1", "a2", "a3"}
	var pools []*v1.NodePool
	np := rapid.IntRange(1, 3).Draw(t, "pools")
	for i := 0; i < np; i++ {
		p := pool(fmt.Sprintf("p%d", i), budget(rapid.SampledFrom([]string{"0", "1", "2", "50%", "100%"}).Draw(t, "budget")))
		if rapid.IntRange(0, 3).Draw(t, "expiring") == 0 {
			p.Spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration("30m")
		}
		pools = append(pools, p)
	}
	pod := func(name string, isBound bool) *corev1.Pod {
		cpu := rapid.SampledFrom([]string{"100m", "500m", "1", "2", "3"}).Draw(t, "cpu")
		var p *corev1.Pod
		if isBound {
			p = bound(name, cpu)
		} else {
			p = pending(name, cpu)
		}
		p.Labels["app"] = rapid.SampledFrom(apps).Draw(t, "app")
		if isBound && rapid.IntRange(0, 7).Draw(t, "do-not-disrupt") == 0 {
			p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
		}
		return p
	}
	var nodes []*cluster.Node
	var deleting []string
	for i, nn := 0, rapid.IntRange(0, 10).Draw(t, "nodes"); i < nn; i++ {
		var pods []*corev1.Pod
		for j := rapid.IntRange(0, 4).Draw(t, "pods"); j > 0; j-- {
			pods = append(pods, pod(fmt.Sprintf("n%d-p%d", i, j), true))
		}
		n := testNode(fmt.Sprintf("node-%02d", i), fmt.Sprintf("p%d", rapid.IntRange(0, np-1).Draw(t, "pool")),
			rapid.SampledFrom([]string{"small", "medium", "large"}).Draw(t, "type"), "", pods...)
		if rapid.IntRange(0, 9).Draw(t, "deleting") == 0 {
			deleting = append(deleting, n.Name())
		}
		nodes = append(nodes, n)
	}
	in := input(pools, nodes...)
	in.Deleting = deleting
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "pending"); i < n; i++ {
		in.Pods = append(in.Pods, pod(fmt.Sprintf("pending-%d", i), false))
	}
	for _, app := range apps {
		var spec policyv1.PodDisruptionBudgetSpec
		switch rapid.IntRange(0, 5).Draw(t, "pdb") {
		case 0:
			v := intstr.FromInt32(int32(rapid.IntRange(0, 2).Draw(t, "maxUnavailable")))
			spec.MaxUnavailable = &v
		case 1:
			v := rapid.SampledFrom([]intstr.IntOrString{intstr.FromInt32(1), intstr.FromString("50%")}).Draw(t, "minAvailable")
			spec.MinAvailable = &v
		default:
			continue
		}
		spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
		in.PodDisruptionBudgets = append(in.PodDisruptionBudgets, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: "default"}, Spec: spec})
	}
	return in
}

// TestRoundProperties: over generated clusters, no command disrupts a node that the
// provisioner or an earlier command sends pods to, every pod a command displaces has a home
// once all commands are carried out, and budgets, PodDisruptionBudgets (pending pods
// counted) and do-not-disrupt hold.
func TestRoundProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawBusyCluster(t)
		res := planNothingLost(t, in)
		byName := map[string]*cluster.Node{}
		var all []*corev1.Pod
		for _, n := range in.Nodes {
			byName[n.Name()] = n
			all = append(all, n.Pods...)
		}
		all = append(all, in.Pods...)
		pdbs := cluster.NewPDBLimits(in.PodDisruptionBudgets, all)
		gone := map[string]bool{} // expired or in a command
		for _, name := range in.Deleting {
			gone[name] = true
		}
		for _, c := range res.Commands {
			if c.Reason == ReasonExpired {
				gone[c.Candidates[0]] = true
			}
		}

		// Nominations: the provisioner's destinations, then each command's.
		nominated := map[string]string{}
		for _, name := range destinations(replay(t, in, gone)) {
			nominated[name] = "the provisioner"
		}
		for i, c := range res.Commands {
			for _, name := range c.Candidates {
				if by := nominated[name]; by != "" && c.Reason != ReasonExpired {
					t.Fatalf("command %d (%s) disrupts %s, nominated by %s", i, c.Method, name, by)
				}
				gone[name] = true
			}
			for _, name := range c.Destinations {
				nominated[name] = fmt.Sprintf("command %d", i)
			}
		}

		// Every pod a graceful or eventual command displaces has a home when all commands are
		// carried out: on a node that stays or on a NodeClaim launched this round.
		var launched []*scheduling.NodeClaim
		displaced := map[*corev1.Pod]bool{}
		for _, c := range res.Commands {
			launched = append(launched, c.Replacements...)
			for _, name := range c.Candidates {
				if c.Reason == ReasonExpired {
					continue
				}
				for _, p := range byName[name].Pods {
					if cluster.IsReschedulable(p) {
						displaced[p] = true
					}
				}
			}
		}
		if len(displaced) > 0 {
			final := replay(t, in, gone, res.Provisioned, launched, nil)
			for _, e := range final.PodErrors {
				if displaced[e.Pod] {
					t.Fatalf("displaced pod %s has no home: %s\ncommands: %v", e.Pod.Name, e.Message(), cmdSummary(res))
				}
			}
			for _, c := range final.NewNodeClaims {
				for _, p := range c.Pods {
					if displaced[p] {
						t.Fatalf("displaced pod %s needs a NodeClaim no command launches\ncommands: %v", p.Name, cmdSummary(res))
					}
				}
			}
		}

		// Budgets, PDBs and do-not-disrupt.
		disrupting := map[string]int{}
		for _, name := range in.Deleting {
			disrupting[poolOf(byName[name])]++
		}
		count := map[string]int{}
		for _, n := range in.Nodes {
			count[poolOf(n)]++
		}
		for i, c := range res.Commands {
			for _, name := range c.Candidates {
				disrupting[poolOf(byName[name])]++
			}
			if c.Reason == ReasonExpired {
				continue
			}
			for _, np := range in.NodePools {
				d := np.DeepCopy()
				d.SetDefaults()
				allowed, _ := d.AllowedDisruptions(in.Now, count[np.Name], v1.DisruptionReason(c.Reason))
				if used := disrupting[np.Name]; used > allowed && touches(c, byName, np.Name) {
					t.Fatalf("command %d (%s): NodePool %s has %d nodes disrupting, its %s budget allows %d", i, c.Method, np.Name, used, c.Reason, allowed)
				}
			}
			for _, name := range c.Candidates {
				for _, p := range byName[name].Pods {
					if pdbs.Blocks(p) {
						t.Fatalf("command %d (%s) disrupts %s: a PodDisruptionBudget blocks pod %s", i, c.Method, name, p.Name)
					}
					if p.Annotations[v1.DoNotDisruptAnnotationKey] == "true" {
						t.Fatalf("command %d (%s) disrupts %s, whose pod %s has do-not-disrupt", i, c.Method, name, p.Name)
					}
				}
			}
		}
	})
}

func poolOf(n *cluster.Node) string { return n.Node.Labels[v1.NodePoolLabelKey] }

func touches(c Command, byName map[string]*cluster.Node, poolName string) bool {
	for _, name := range c.Candidates {
		if poolOf(byName[name]) == poolName {
			return true
		}
	}
	return false
}

// replay solves the pending pods and the pods of the gone nodes (marked for deletion) on the
// other nodes, with the given NodeClaims in flight (empty, not initialized); verify.Solve
// checks the result.
func replay(t tb, in *fixture, gone map[string]bool, inflight ...[]*scheduling.NodeClaim) *scheduling.Result {
	t.Helper()
	f := *in
	f.Deleting = nil
	for _, n := range in.Nodes {
		if gone[n.Name()] {
			f.Deleting = append(f.Deleting, n.Name())
		}
	}
	snap, err := f.snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var claims []*v1.NodeClaim
	for _, cs := range inflight {
		for _, c := range cs {
			name := fmt.Sprintf("inflight-%d", len(claims)+1)
			nc := &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
				v1.NodePoolLabelKey: c.NodePool, v1.LabelInstanceType: c.InstanceType.Name, v1.LabelHostname: name,
				v1.LabelTopologyZone: c.Offering.Zone(), v1.CapacityTypeLabelKey: c.Offering.CapacityType(),
			}}}
			nc.Status.Allocatable, nc.Status.Capacity = c.InstanceType.Allocatable(), c.InstanceType.Capacity
			claims = append(claims, nc)
		}
	}
	return solveVerified(t, snap.WithInFlight(claims...), scheduling.Options{})
}

func destinations(res *scheduling.Result) []string {
	var out []string
	for _, b := range res.Bindings {
		if len(out) == 0 || out[len(out)-1] != b.To {
			out = append(out, b.To)
		}
	}
	return out
}
