package verify_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/verify"
)

// planSettings keep disruption clusters simple enough to consolidate: few constraints.
var planSettings = fake.PodSettings{ZoneSelector: 0.1, Toleration: 0.3, HostnameAntiAffinity: 0.1, HostPort: 0.1,
	MaxCPUMillis: 1000, MaxMemoryMi: 2048}

// drawPlanWorld draws 1-2 NodePools (budgets, reasons, policies) over 1-4 instance types,
// 0-8 nodes of them (some old enough to expire, NotReady, marked for deletion or
// annotated do-not-disrupt) with up to 3 running pods each (some do-not-disrupt), 0-2
// PodDisruptionBudgets over the apps, 0-2 pending pods, sometimes node repair, and
// interruption events for some nodes.
func drawPlanWorld(t *rapid.T) (w *world, now time.Time) {
	now = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	types := fake.InstanceTypesGenerator(4).Draw(t, "instance-types")
	pools := fake.NodePoolsGenerator(2, fake.HostileNodePoolSettings()).Draw(t, "nodepools")
	w = &world{Objects: cluster.Objects{NodePools: pools, InstanceTypes: map[string]cloudprovider.InstanceTypes{}, WellKnownLabels: fake.WellKnownLabels()}}
	for _, np := range pools {
		w.InstanceTypes[np.Name] = types
		b := v1.Budget{Nodes: rapid.SampledFrom([]string{"0", "1", "2", "50%", "100%"}).Draw(t, np.Name+"/budget")}
		if rapid.IntRange(0, 3).Draw(t, np.Name+"/budget-reason?") == 0 {
			b.Reasons = []v1.DisruptionReason{rapid.SampledFrom([]v1.DisruptionReason{v1.DisruptionReasonEmpty,
				v1.DisruptionReasonDrifted, v1.DisruptionReasonUnderutilized}).Draw(t, np.Name+"/budget-reason")}
		}
		np.Spec.Disruption = v1.Disruption{ConsolidateAfter: v1.MustParseNillableDuration("0s"), Budgets: []v1.Budget{b},
			ConsolidationPolicy: rapid.SampledFrom([]v1.ConsolidationPolicy{v1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				v1.ConsolidationPolicyWhenEmpty}).Draw(t, np.Name+"/policy")}
	}
	apps := map[string]bool{}
	for i := rapid.IntRange(0, 8).Draw(t, "nodes"); i > 0; i-- {
		name := fmt.Sprintf("node-%d", i)
		np := rapid.SampledFrom(pools).Draw(t, name+"/nodepool")
		n := fake.NodeGenerator(name, np.Name, types).Draw(t, name)
		n.Spec.Taints = append(n.Spec.Taints, np.Spec.Template.Spec.Taints...)
		n.CreationTimestamp = metav1.NewTime(now.Add(-time.Duration(rapid.IntRange(1, 800).Draw(t, name+"/age-hours")) * time.Hour))
		n.Spec.ProviderID = "fake:///" + n.Labels[v1.LabelTopologyZone] + "/i-" + name
		if rapid.IntRange(0, 5).Draw(t, name+"/interrupted") == 5 {
			w.Interruptions = append(w.Interruptions, interruption.Event{
				Kind: rapid.SampledFrom([]interruption.Kind{interruption.SpotInterrupted, interruption.ScheduledChange,
					interruption.InstanceStopped, interruption.RebalanceRecommendation}).Draw(t, name+"/event"),
				ID: "ev-" + name, Time: now.Add(-time.Minute), InstanceIDs: []string{"i-" + name}})
		}
		w.Nodes = append(w.Nodes, n)
		switch rapid.IntRange(0, 7).Draw(t, name+"/state") {
		case 1:
			n.Status.Conditions[0].Status = corev1.ConditionFalse
		case 2:
			w.deleting = append(w.deleting, name)
		case 3:
			n.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
		}
		for _, p := range fake.PodsGeneratorWith(3, name+"-pod", planSettings).Draw(t, name+"/pods") {
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			start := metav1.NewTime(n.CreationTimestamp.Time)
			p.Status.StartTime = &start
			if rapid.IntRange(0, 7).Draw(t, p.Name+"/do-not-disrupt") == 0 {
				p.Annotations = map[string]string{v1.DoNotDisruptAnnotationKey: "true"}
			}
			apps[p.Labels["app"]] = true
			w.bind(name, p)
		}
	}
	for i := rapid.IntRange(0, 2).Draw(t, "pdbs"); i > 0; i-- {
		name := fmt.Sprintf("pdb-%d", i)
		app := rapid.SampledFrom([]string{"web", "db", "cache"}).Draw(t, name+"/app")
		v := intstr.FromInt32(int32(rapid.IntRange(0, 2).Draw(t, name+"/value")))
		pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}
		if rapid.Bool().Draw(t, name+"/min-available") {
			pdb.Spec.MinAvailable = &v
		} else {
			pdb.Spec.MaxUnavailable = &v
		}
		w.PodDisruptionBudgets = append(w.PodDisruptionBudgets, pdb)
	}
	w.Pods = fake.PodsGeneratorWith(2, "pending", planSettings).Draw(t, "pending")
	if rapid.Bool().Draw(t, "node-repair") {
		// NotReady nodes (their condition has no transition time: long ago) get repaired.
		w.RepairPolicies = []cloudprovider.RepairPolicy{{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: 600}}
	}
	return w, now
}

// TestPropPlanIsValid: Plan's result breaks no rule verify checks (accounting, budgets,
// PDBs, do-not-disrupt, replacements, destinations).
func TestPropPlanIsValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w, now := drawPlanWorld(t)
		snap := w.snap(t)
		res, err := disruption.Plan(snap, now, disruption.Options{})
		if err != nil {
			t.Fatalf("Plan: %v", err)
		}
		if vs := verify.Plan(snap, now, disruption.Options{}, res); len(vs) > 0 {
			s := ""
			for _, v := range vs {
				s += v.String() + "\n"
			}
			for _, c := range res.Commands {
				s += fmt.Sprintf("command %s %s %v (%d replacements)\n", c.Method, c.Reason, c.Candidates, len(c.Replacements))
			}
			t.Fatalf("%d violations:\n%s", len(vs), s)
		}
	})
}
