package cluster_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// snapView is what a snapshot says, in a form two snapshots can be compared by: its nodes
// (Node and NodeClaim names, bound pods), pending and not-planned pods, the PDB reading of
// every pod, and its NodePools, instance types, DaemonSets and PDBs by name.
type snapView struct {
	Nodes, Pending, NotPlanned, PDBs          []string
	NodePools, InstanceTypes, DaemonSets, Obj []string
}

func viewOf(s *cluster.Snapshot) snapView {
	var v snapView
	var pods []*corev1.Pod
	for _, n := range s.Nodes() {
		node, claim := "-", "-"
		if n.Node != nil {
			node = n.Node.Name
		}
		if n.NodeClaim != nil {
			claim = n.NodeClaim.Name
		}
		v.Nodes = append(v.Nodes, fmt.Sprintf("%s/%s: %s", node, claim, strings.Join(keys(n.Pods), ",")))
		pods = append(pods, n.Pods...)
	}
	v.Pending = keys(s.Pending())
	pods = append(pods, s.Pending()...)
	for _, n := range s.NotPlanned() {
		v.NotPlanned = append(v.NotPlanned, fmt.Sprintf("%s %s", cluster.PodKey(n.Pod), n.Reason))
	}
	for _, p := range pods {
		pdb, allowed := s.PDBLimits().Allowance(p)
		name := "-"
		if pdb != nil {
			name = pdb.Name
		}
		v.PDBs = append(v.PDBs, fmt.Sprintf("%s %s %d %v", cluster.PodKey(p), name, allowed, s.PDBLimits().Blocks(p)))
	}
	slices.Sort(v.PDBs)
	for _, np := range s.NodePools() {
		v.NodePools = append(v.NodePools, np.Name+" "+np.Spec.Template.ObjectMeta.Labels["rev"])
	}
	for pool, types := range s.InstanceTypes() {
		v.InstanceTypes = append(v.InstanceTypes, fmt.Sprint(pool, len(types)))
	}
	slices.Sort(v.InstanceTypes)
	for _, ds := range s.DaemonSets() {
		v.DaemonSets = append(v.DaemonSets, ds.Namespace+"/"+ds.Name+" "+ds.Labels["rev"])
	}
	for _, pdb := range s.PodDisruptionBudgets() {
		v.Obj = append(v.Obj, pdb.Namespace+"/"+pdb.Name)
	}
	return v
}

// TestPropForksAgreeWithNew: a snapshot changed by a random sequence of forks and edits
// (pods added and removed, nodes removed, claims added and removed, NodePools, DaemonSets and
// PDBs added, replaced and removed) says exactly what New says over the same objects changed
// the same way, and New(s.Objects()) gives it back.
func TestPropForksAgreeWithNew(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		types := fake.InstanceTypes(3)
		apps := []string{"a", "b", "c"}
		podNamed := func(name string) *fake.PodBuilder {
			b := fake.Pod(name).Requests("100m", "64Mi").Label("app", rapid.SampledFrom(apps).Draw(t, name+"/app"))
			if rapid.Bool().Draw(t, name+"/other-namespace") {
				b.Namespace("other")
			}
			return b
		}
		model := cluster.Objects{NodePools: []*v1.NodePool{fake.NodePool("default").Obj()},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}}
		for i := range rapid.IntRange(0, 4).Draw(t, "nodes") {
			name := fmt.Sprint("node-", i)
			n, nc := fake.NodeAndClaim(name, "default", types[2], types[2].Offerings[0], t0)
			model.Nodes = append(model.Nodes, n)
			if rapid.Bool().Draw(t, name+"/claim") {
				model.NodeClaims = append(model.NodeClaims, nc)
			}
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "in-flight") {
			model.NodeClaims = append(model.NodeClaims, &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("flying-", i)}})
		}
		bindable := func(t *rapid.T, label string) string {
			var names []string
			for _, n := range model.Nodes {
				names = append(names, n.Name)
			}
			for _, nc := range model.NodeClaims {
				if nc.Status.ProviderID == "" { // in flight
					names = append(names, nc.Name)
				}
			}
			names = append(names, "", "", "gone-node")
			return rapid.SampledFrom(names).Draw(t, label)
		}
		for i := range rapid.IntRange(0, 12).Draw(t, "pods") {
			name := fmt.Sprint("p-", i)
			p := podNamed(name).NodeName(bindable(t, name+"/node")).Obj()
			if rapid.IntRange(0, 9).Draw(t, name+"/ready") > 2 && p.Spec.NodeName != "" {
				p.Status.Phase = corev1.PodRunning
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			}
			model.Pods = append(model.Pods, p)
		}
		model.PodDisruptionBudgets = []*policyv1.PodDisruptionBudget{fake.PDB("a", "default", map[string]string{"app": "a"}, 1)}
		snap, err := cluster.New(model)
		if err != nil {
			t.Fatal(err)
		}
		next := 0
		fresh := func(t *rapid.T) string { next++; return fmt.Sprint("new-", next) }
		podKeys := func() []*corev1.Pod { return model.Pods }
		var removed []*corev1.Pod // pods that went: their names may come again
		t.Repeat(map[string]func(*rapid.T){
			"WithPods": func(t *rapid.T) {
				name := fresh(t)
				p := podNamed(name).NodeName(bindable(t, name+"/node")).Obj()
				var err error
				if snap, err = snap.WithPods(p); err != nil {
					t.Fatal(err)
				}
				model.Pods = append(model.Pods, p)
			},
			"WithPods an existing name": func(t *rapid.T) {
				if len(podKeys()) == 0 {
					t.Skip("no pod")
				}
				old := rapid.SampledFrom(podKeys()).Draw(t, "pod")
				dup := fake.Pod(old.Name).Namespace(old.Namespace).Obj()
				if _, err := snap.WithPods(dup); err == nil {
					t.Fatalf("WithPods accepted a second %s", cluster.PodKey(dup))
				}
			},
			"WithoutPods": func(t *rapid.T) {
				if len(podKeys()) == 0 {
					t.Skip("no pod")
				}
				p := rapid.SampledFrom(podKeys()).Draw(t, "pod")
				arg := p
				if rapid.Bool().Draw(t, "by a copy elsewhere") {
					arg = fake.Pod(p.Name).Namespace(p.Namespace).NodeName(bindable(t, "claimed-node")).Obj()
				}
				snap = snap.WithoutPods(arg)
				model.Pods = slices.DeleteFunc(model.Pods, func(q *corev1.Pod) bool { return cluster.PodKey(q) == cluster.PodKey(p) })
				removed = append(removed, p)
			},
			"WithPods a name that went": func(t *rapid.T) {
				gone := slices.DeleteFunc(slices.Clone(removed), func(p *corev1.Pod) bool {
					return slices.ContainsFunc(model.Pods, func(q *corev1.Pod) bool { return cluster.PodKey(q) == cluster.PodKey(p) })
				})
				if len(gone) == 0 {
					t.Skip("no pod went")
				}
				p := rapid.SampledFrom(gone).Draw(t, "pod")
				var err error
				if snap, err = snap.WithPods(p); err != nil {
					t.Fatalf("WithPods of a pod that went: %v", err)
				}
				model.Pods = append(model.Pods, p)
			},
			"Without a node": func(t *rapid.T) {
				if len(snap.Nodes()) == 0 {
					t.Skip("no node")
				}
				n := rapid.SampledFrom(snap.Nodes()).Draw(t, "node")
				// A node gone from the cluster, not from a simulation: its pods go first, so
				// that the PDB reading counts them out (Without keeps its parent's reading).
				snap = snap.WithoutPods(n.Pods...).Without(n.BindName())
				model.Nodes = slices.DeleteFunc(model.Nodes, func(x *corev1.Node) bool { return x == n.Node })
				model.NodeClaims = slices.DeleteFunc(model.NodeClaims, func(x *v1.NodeClaim) bool { return x == n.NodeClaim })
				model.Pods = slices.DeleteFunc(model.Pods, func(p *corev1.Pod) bool { return slices.Contains(n.Pods, p) })
				removed = append(removed, n.Pods...)
			},
			"WithClaims in flight": func(t *rapid.T) {
				nc := &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: fresh(t)}}
				var err error
				if snap, err = snap.WithClaims(nc); err != nil {
					t.Fatal(err)
				}
				model.NodeClaims = append(model.NodeClaims, nc)
			},
			"WithoutClaims": func(t *rapid.T) {
				if len(model.NodeClaims) == 0 {
					t.Skip("no claim")
				}
				nc := rapid.SampledFrom(model.NodeClaims).Draw(t, "claim")
				snap = snap.WithoutClaims(nc.Name)
				model.NodeClaims = slices.DeleteFunc(model.NodeClaims, func(x *v1.NodeClaim) bool { return x == nc })
				if n := slices.IndexFunc(model.Nodes, func(x *corev1.Node) bool {
					return x.Name == nc.Name || x.Name == nc.Status.NodeName || (x.Spec.ProviderID != "" && x.Spec.ProviderID == nc.Status.ProviderID)
				}); n >= 0 {
					return // a paired claim: its Node stays with its pods
				}
				var freed []*corev1.Pod // pending again, after the pending ones
				model.Pods = slices.DeleteFunc(model.Pods, func(p *corev1.Pod) bool {
					if p.Spec.NodeName == nc.Name {
						c := *p
						c.Spec.NodeName = ""
						freed = append(freed, &c)
						return true
					}
					return false
				})
				slices.SortFunc(freed, cluster.ComparePods) // as the claim held them
				model.Pods = append(model.Pods, freed...)
			},
			"WithNodePools": func(t *rapid.T) {
				np := fake.NodePool(rapid.SampledFrom([]string{"default", "batch"}).Draw(t, "pool")).Label("rev", fresh(t)).Obj()
				var err error
				if snap, err = snap.WithNodePools(np); err != nil {
					t.Fatal(err)
				}
				model.NodePools = replaced(model.NodePools, np, func(x *v1.NodePool) bool { return x.Name == np.Name })
			},
			"WithoutNodePools": func(t *rapid.T) {
				name := rapid.SampledFrom([]string{"default", "batch"}).Draw(t, "pool")
				snap = snap.WithoutNodePools(name)
				model.NodePools = slices.DeleteFunc(slices.Clone(model.NodePools), func(x *v1.NodePool) bool { return x.Name == name })
				its := map[string]cloudprovider.InstanceTypes{}
				for k, v := range model.InstanceTypes {
					if k != name {
						its[k] = v
					}
				}
				model.InstanceTypes = its
			},
			"WithDaemonSets": func(t *rapid.T) {
				ds := fake.DaemonSet(rapid.SampledFrom([]string{"logs", "metrics"}).Draw(t, "daemonset"), fake.Pod("d").Requests("50m", "32Mi").Obj())
				ds.Labels = map[string]string{"rev": fresh(t)}
				var err error
				if snap, err = snap.WithDaemonSets(ds); err != nil {
					t.Fatal(err)
				}
				model.DaemonSets = replaced(model.DaemonSets, ds, func(x *appsv1.DaemonSet) bool { return x.Namespace == ds.Namespace && x.Name == ds.Name })
			},
			"WithoutDaemonSets": func(t *rapid.T) {
				name := rapid.SampledFrom([]string{"logs", "metrics"}).Draw(t, "daemonset")
				snap = snap.WithoutDaemonSets("default/" + name)
				model.DaemonSets = slices.DeleteFunc(slices.Clone(model.DaemonSets), func(x *appsv1.DaemonSet) bool { return x.Name == name })
			},
			"WithPodDisruptionBudgets": func(t *rapid.T) {
				app := rapid.SampledFrom(apps).Draw(t, "app")
				pdb := fake.PDB(app, rapid.SampledFrom([]string{"default", "other"}).Draw(t, "namespace"), map[string]string{"app": app}, rapid.IntRange(0, 2).Draw(t, "max-unavailable"))
				var err error
				if snap, err = snap.WithPodDisruptionBudgets(pdb); err != nil {
					t.Fatal(err)
				}
				model.PodDisruptionBudgets = replaced(model.PodDisruptionBudgets, pdb, func(x *policyv1.PodDisruptionBudget) bool { return x.Namespace == pdb.Namespace && x.Name == pdb.Name })
			},
			"WithoutPodDisruptionBudgets": func(t *rapid.T) {
				key := rapid.SampledFrom([]string{"default", "other"}).Draw(t, "namespace") + "/" + rapid.SampledFrom(apps).Draw(t, "app")
				snap = snap.WithoutPodDisruptionBudgets(key)
				model.PodDisruptionBudgets = slices.DeleteFunc(slices.Clone(model.PodDisruptionBudgets), func(x *policyv1.PodDisruptionBudget) bool { return x.Namespace+"/"+x.Name == key })
			},
			"": func(t *rapid.T) {
				want, err := cluster.New(model)
				if err != nil {
					t.Fatalf("New over the model: %v", err)
				}
				if got, want := viewOf(snap), viewOf(want); !equalViews(got, want) {
					t.Fatalf("the forks say\n%+v\nNew over the same objects says\n%+v", got, want)
				}
				again, err := cluster.New(snap.Objects())
				if err != nil {
					t.Fatalf("New(Objects()): %v", err)
				}
				if got, want := viewOf(again), viewOf(snap); !equalViews(got, want) {
					t.Fatalf("New(Objects()) says\n%+v\nthe snapshot says\n%+v", got, want)
				}
			},
		})
	})
}

// replaced is a copy of list with x in place of the element same picks, or appended.
func replaced[T any](list []*T, x *T, same func(*T) bool) []*T {
	out := slices.Clone(list)
	if i := slices.IndexFunc(out, same); i >= 0 {
		out[i] = x
		return out
	}
	return append(out, x)
}

func equalViews(a, b snapView) bool { return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b) }

// TestWithoutFreesItsPodsNames: the pods of a node Without removed are no longer the
// snapshot's, so WithPods takes pods of their names again (a simulation moves them so).
func TestWithoutFreesItsPodsNames(t *testing.T) {
	n := node("n", "")
	web := fake.Pod("web").NodeName("n").Obj()
	s, err := cluster.New(cluster.Objects{Nodes: []*corev1.Node{n}, Pods: []*corev1.Pod{web, fake.Pod("db").Obj()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WithPods(fake.Pod("web").Obj()); err == nil {
		t.Fatal("WithPods took a second default/web")
	}
	moved, err := s.Without("n").WithPods(fake.Pod("web").Obj())
	if err != nil {
		t.Fatalf("WithPods after Without: %v", err)
	}
	if got := keys(moved.Pending()); !slices.Equal(got, []string{"default/db", "default/web"}) {
		t.Fatalf("pending %v", got)
	}
}
