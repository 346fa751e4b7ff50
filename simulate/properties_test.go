package simulate_test

import (
	"flag"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/simulate"
	"github.com/nodeplan/nodeplan/verify"
)

// drawInput draws a cluster (1-2 NodePools with their own disruption settings, 1-3
// Deployments whose pods a new node can always take, PodDisruptionBudgets) and a timeline
// of scale, addPods, deletePods, interrupt and apply events over 1-2 hours, with offerings of
// limited capacity.
func drawInput(t *rapid.T) simulate.Input {
	types := fake.SchedulableInstanceTypesGenerator(4).Draw(t, "types")
	var docs []any
	pools := rapid.IntRange(1, 2).Draw(t, "pools")
	var poolNames []string
	for i := range pools {
		name := fmt.Sprintf("pool-%d", i)
		poolNames = append(poolNames, name)
		docs = append(docs, drawNodePool(t, name))
	}
	deployments := rapid.IntRange(1, 3).Draw(t, "deployments")
	var apps []string
	for i := range deployments {
		app := fmt.Sprintf("app-%d", i)
		apps = append(apps, app)
		pod := fake.PodsGeneratorWith(1, app, fake.SchedulablePodSettings()).Filter(func(ps []*corev1.Pod) bool { return len(ps) == 1 }).Draw(t, app+"/template")[0]
		pod.Labels["app"] = app
		replicas := int32(rapid.IntRange(0, 6).Draw(t, app+"/replicas"))
		docs = append(docs, &appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: "default"},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: pod.Labels}, Spec: pod.Spec}},
		})
		if rapid.Bool().Draw(t, app+"/pdb") {
			docs = append(docs, fake.PDB(app, "default", map[string]string{"app": app}, rapid.IntRange(0, 2).Draw(t, app+"/maxUnavailable")))
		}
	}
	var manifests []string
	for _, d := range docs {
		b, err := yaml.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		manifests = append(manifests, string(b))
	}
	set, err := manifest.Parse([]byte(strings.Join(manifests, "---\n")), "cluster.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(manifests, "---\n"))
	}
	snap := snapshotOf(t, set, types, fake.WellKnownLabels())
	tl := drawTimeline(t, apps, poolNames)
	s := simulate.DefaultSettings()
	s.Verify = false // the properties verify every step themselves
	s.ValidationDelay = time.Duration(rapid.SampledFrom([]int{1, 15}).Draw(t, "validationDelay")) * time.Second
	if rapid.Bool().Draw(t, "limitedCapacity") {
		s.OfferingCapacity = map[string]int{}
		for _, it := range types[:2] {
			for _, o := range it.Offerings {
				s.OfferingCapacity[fake.OfferingKey(it, o)] = rapid.IntRange(0, 2).Draw(t, "capacity/"+fake.OfferingKey(it, o))
			}
		}
	}
	return simulate.Input{Snapshot: snap, Workloads: set.Workloads, Start: t0, Timeline: tl, Settings: s}
}

func drawNodePool(t *rapid.T, name string) *v1.NodePool {
	b := fake.NodePool(name)
	if cts := rapid.SampledFrom([][]string{{v1.CapacityTypeOnDemand}, {v1.CapacityTypeSpot}, {v1.CapacityTypeSpot, v1.CapacityTypeOnDemand}}).Draw(t, name+"/capacityTypes"); len(cts) < 2 {
		b = b.Requirement(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, cts...)
	}
	d := v1.Disruption{
		ConsolidateAfter:    v1.MustParseNillableDuration(rapid.SampledFrom([]string{"0s", "30s", "5m", "Never"}).Draw(t, name+"/consolidateAfter")),
		ConsolidationPolicy: v1.ConsolidationPolicy(rapid.SampledFrom([]string{"WhenEmptyOrUnderutilized", "WhenEmpty"}).Draw(t, name+"/policy")),
		Budgets:             []v1.Budget{{Nodes: rapid.SampledFrom([]string{"10%", "1", "2", "100%"}).Draw(t, name+"/budget")}},
	}
	if rapid.Bool().Draw(t, name+"/scheduledBudget") {
		d.Budgets = append(d.Budgets, v1.Budget{Nodes: "0", Schedule: ptr("*/20 * * * *"), Duration: &metav1.Duration{Duration: 5 * time.Minute}})
	}
	np := b.Disruption(d).Obj()
	np.Spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration(rapid.SampledFrom([]string{"720h", "40m", "90m"}).Draw(t, name+"/expireAfter"))
	if rapid.Bool().Draw(t, name+"/terminationGracePeriod") {
		np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 5 * time.Minute}
	}
	np.TypeMeta = metav1.TypeMeta{APIVersion: v1.APIVersion, Kind: v1.KindNodePool}
	return np
}

func ptr[T any](v T) *T { return &v }

func drawTimeline(t *rapid.T, apps, pools []string) *simulate.Timeline {
	tl := &simulate.Timeline{Duration: time.Duration(rapid.IntRange(1, 2).Draw(t, "hours")) * time.Hour}
	n := rapid.IntRange(0, 8).Draw(t, "events")
	for i := range n {
		label := fmt.Sprintf("event-%d", i)
		ev := simulate.TimelineEvent{At: time.Duration(rapid.IntRange(0, int(tl.Duration/time.Minute)).Draw(t, label+"/minute")) * time.Minute,
			Source: "day.yaml: " + label}
		app := rapid.SampledFrom(apps).Draw(t, label+"/app")
		count := int32(rapid.IntRange(1, 3).Draw(t, label+"/count"))
		switch rapid.SampledFrom([]string{"scale", "scale", "addPods", "deletePods", "interrupt", "apply"}).Draw(t, label+"/action") {
		case "scale":
			ev.Scale = &simulate.Scale{Name: app, Replicas: int32(rapid.IntRange(0, 8).Draw(t, label+"/replicas"))}
		case "addPods":
			ev.AddPods = &simulate.PodSelection{Owner: &simulate.Owner{Kind: "Deployment", Name: app}, Count: &count}
		case "deletePods":
			ev.DeletePods = &simulate.PodSelection{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}, Count: &count}
		case "interrupt":
			ev.Interrupt = &simulate.Interrupt{Count: &count}
		case "apply":
			np := drawNodePool(t, rapid.SampledFrom(pools).Draw(t, label+"/pool"))
			b, err := yaml.Marshal(np)
			if err != nil {
				t.Fatal(err)
			}
			set, err := manifest.Parse(b, label)
			if err != nil {
				t.Fatal(err)
			}
			ev.Apply = &simulate.Apply{Objects: set}
		}
		tl.Events = append(tl.Events, ev)
	}
	return tl
}

// checker holds every step of a run to the rules the simulation promises.
type checker struct {
	t     *rapid.T
	in    simulate.Input
	steps int
	// machines: node name -> when its billing started (and its price).
	machines map[string]machine
	spent    float64
	plans    map[time.Time][]*disruption.Result // every step's Plan, by time
}

type machine struct {
	since time.Time
	price float64
}

func newChecker(t *rapid.T, in simulate.Input) *checker {
	c := &checker{t: t, in: in, machines: map[string]machine{}, plans: map[time.Time][]*disruption.Result{}}
	for _, n := range in.Snapshot.Nodes() {
		p, _ := in.Snapshot.NodePrice(n.Name())
		c.machines[n.Name()] = machine{since: in.Start, price: p}
	}
	return c
}

func (c *checker) observe(st *simulate.Step) {
	t := c.t
	c.steps++
	// Each decision is what the engines answer on the step's view, and holds to verify.
	if st.Solve != nil {
		again, err := scheduling.Solve(st.View, c.in.Settings.Scheduling)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, st.Solve) {
			t.Fatalf("%s %s: the step's Solve is not Solve's answer on its view", st.Time, st.Kind)
		}
		if vs := verify.Solve(st.View, c.in.Settings.Scheduling, st.Solve); len(vs) > 0 {
			t.Fatalf("%s: Solve: %v", st.Time, vs)
		}
	}
	if st.Plan != nil {
		opts := c.in.Settings.Disruption
		opts.Consolidated = st.Consolidated
		again, err := disruption.Plan(st.View, st.Time, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, st.Plan) {
			t.Fatalf("%s %s: the step's Plan is not Plan's answer on its view", st.Time, st.Kind)
		}
		if vs := verify.Plan(st.View, st.Time, opts, st.Plan); len(vs) > 0 {
			t.Fatalf("%s: Plan: %v", st.Time, vs)
		}
		for _, cmd := range st.Carried {
			if !slices.ContainsFunc(st.Plan.Commands, func(p disruption.Command) bool {
				return p.Reason == cmd.Reason && slices.Equal(p.Candidates, cmd.Candidates)
			}) {
				t.Fatalf("%s: carried %s %v, which the step's Plan did not decide", st.Time, cmd.Reason, cmd.Candidates)
			}
		}
	} else if len(st.Carried) > 0 {
		decided, ok := c.plans[st.DecidedAt]
		if st.Kind != simulate.StepValidation || !ok {
			t.Fatalf("%s %s: commands carried without a Plan", st.Time, st.Kind)
		}
		for _, cmd := range st.Carried {
			if !slices.ContainsFunc(decided, func(res *disruption.Result) bool {
				return slices.ContainsFunc(res.Commands, func(p disruption.Command) bool {
					return p.Reason == cmd.Reason && slices.Equal(p.Candidates, cmd.Candidates)
				})
			}) {
				t.Fatalf("%s: carried %s %v, which the Plan at %s did not decide", st.Time, cmd.Reason, cmd.Candidates, st.DecidedAt)
			}
		}
	}
	if st.Plan != nil {
		c.plans[st.Time] = append(c.plans[st.Time], st.Plan)
	}
	c.pods(st)
	c.budgets(st)
	c.pdbs(st)
	c.billing(st)
}

// pods: every pod is accounted for: After holds Before's pods, plus those added, less those
// removed and the DaemonSet or static pods a drain or termination took; each once.
func (c *checker) pods(st *simulate.Step) {
	want := map[string]bool{}
	for _, k := range podKeys(c.t, st.Before) {
		want[k] = true
	}
	for _, p := range st.Added {
		want[cluster.PodKey(p)] = true
	}
	for _, p := range st.Removed {
		delete(want, cluster.PodKey(p))
	}
	for _, p := range append(append([]*corev1.Pod(nil), st.Evicted...), st.Deleted...) {
		if !cluster.IsReschedulable(p) {
			delete(want, cluster.PodKey(p))
		}
	}
	got := podKeys(c.t, st.After)
	if len(got) != len(want) {
		c.t.Fatalf("%s %s: %d pods after the step, want %d", st.Time, st.Kind, len(got), len(want))
	}
	for _, k := range got {
		if !want[k] {
			c.t.Fatalf("%s %s: pod %s appeared", st.Time, st.Kind, k)
		}
	}
}

// podKeys are the keys of every pod of snap (pending, bound, not planned), each once.
func podKeys(t *rapid.T, snap *cluster.Snapshot) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p *corev1.Pod) {
		k := cluster.PodKey(p)
		if seen[k] {
			t.Fatalf("pod %s is held twice", k)
		}
		seen[k] = true
		out = append(out, k)
	}
	for _, p := range snap.Pending() {
		add(p)
	}
	for _, n := range snap.Nodes() {
		for _, p := range n.Pods {
			if p.Spec.NodeName != n.BindName() {
				t.Fatalf("pod %s on %s is bound to %q", cluster.PodKey(p), n.BindName(), p.Spec.NodeName)
			}
			add(p)
		}
	}
	for _, np := range snap.NotPlanned() {
		add(np.Pod)
	}
	return out
}

// budgets: the graceful commands a step carries out stay within their NodePools' budgets,
// counting the nodes already disrupting.
func (c *checker) budgets(st *simulate.Step) {
	if st.View == nil {
		return
	}
	type key struct{ pool, reason string }
	used := map[key]int{}
	for _, cmd := range st.Carried {
		if cmd.Reason.Forceful() {
			continue
		}
		for _, name := range cmd.Candidates {
			n := st.View.Find(name)
			used[key{n.Labels()[v1.NodePoolLabelKey], string(cmd.Reason)}]++
		}
	}
	for k, n := range used {
		np := st.View.NodePool(k.pool).DeepCopy()
		np.SetDefaults()
		counted, disrupting := 0, 0
		for _, node := range st.View.Nodes() {
			if node.Node == nil || node.Labels()[v1.NodePoolLabelKey] != k.pool || node.Node.Labels[v1.NodeInitializedLabelKey] != "true" || node.InstanceTerminating() {
				continue
			}
			counted++
			if node.Deleting() {
				disrupting++
			}
		}
		allowed, err := np.AllowedDisruptions(st.Time, counted, v1.DisruptionReason(k.reason))
		if err != nil {
			c.t.Fatal(err)
		}
		if disrupting+n > allowed {
			c.t.Fatalf("%s: NodePool %s %s: %d disrupting + %d carried > %d allowed", st.Time, k.pool, k.reason, disrupting, n, allowed)
		}
	}
}

// pdbs: no step evicts more pods a PodDisruptionBudget selects than it allows.
func (c *checker) pdbs(st *simulate.Step) {
	evicted := map[*policyv1.PodDisruptionBudget]int32{}
	allowed := map[*policyv1.PodDisruptionBudget]int32{}
	for _, p := range st.Evicted {
		if pdb, n := st.Before.PDBLimits().Allowance(p); pdb != nil {
			evicted[pdb]++
			allowed[pdb] = n
		}
		if st.Before.PDBLimits().Blocks(p) {
			c.t.Fatalf("%s: evicted %s, which a PodDisruptionBudget blocks", st.Time, cluster.PodKey(p))
		}
	}
	for pdb, n := range evicted {
		if n > allowed[pdb] {
			c.t.Fatalf("%s: %d evictions of PDB %s, which allows %d", st.Time, n, pdb.Name, allowed[pdb])
		}
	}
}

// billing follows each machine from its launch to its end, at its price.
func (c *checker) billing(st *simulate.Step) {
	for _, n := range st.After.Nodes() {
		if _, ok := c.machines[n.Name()]; !ok {
			p, _ := st.After.NodePrice(n.Name())
			c.machines[n.Name()] = machine{since: st.Time, price: p}
		}
	}
	for name, m := range c.machines {
		if st.After.Find(name) == nil {
			c.spent += m.price * st.Time.Sub(m.since).Hours()
			delete(c.machines, name)
		}
	}
}

func (c *checker) total(end time.Time) float64 {
	sum := c.spent
	for _, m := range c.machines {
		sum += m.price * end.Sub(m.since).Hours()
	}
	return sum
}

// TestPropSimulation: over random clusters and timelines, every step's decision is Solve's
// or Plan's answer on that step's cluster and holds to verify; every pod is accounted for at
// every step; no budget is exceeded and no PodDisruptionBudget broken; the spend is the
// integral of $/h (and each machine's price over its life); the same input gives the same
// trace. More runs: -rapid.checks=N.
func TestPropSimulation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t)
		c := newChecker(t, in)
		in.Observe = c.observe
		tr, err := simulate.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.total(tr.End); math.Abs(got-tr.Totals.Cost) > 1e-9*math.Max(1, got) {
			t.Fatalf("cost %v, the machines' lives at their prices %v", tr.Totals.Cost, got)
		}
		integral := 0.0
		for i, p := range tr.Series {
			until := tr.End
			if i+1 < len(tr.Series) {
				until = tr.Series[i+1].Time
			}
			integral += p.PricePerHour * until.Sub(p.Time).Hours()
		}
		if math.Abs(integral-tr.Totals.Cost) > 1e-9*math.Max(1, integral) {
			t.Fatalf("cost %v, integral of the series %v", tr.Totals.Cost, integral)
		}
		in.Observe = nil
		again, err := simulate.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(tr, again) {
			t.Fatal("the same input gave another trace")
		}
	})
}

// TestPropSkippingIsExact: skipping the batches and ticks on which nothing changed gives the
// trace that running Solve and Plan at every one gives.
func TestPropSkippingIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { skippingIsExact(t, drawInput(t)) })
}

// skippingIsExact holds in's trace to the one planning at every batch retry and tick gives.
func skippingIsExact(t *rapid.T, in simulate.Input) {
	tr, err := simulate.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Settings.EveryTick = true
	every, err := simulate.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr, every) {
		for i := range min(len(tr.Series), len(every.Series)) {
			if !reflect.DeepEqual(tr.Series[i], every.Series[i]) {
				t.Fatalf("point %d differs:\nskipping: %+v\nevery tick: %+v", i, tr.Series[i], every.Series[i])
			}
		}
		t.Fatalf("traces differ: %d and %d points; totals %+v and %+v", len(tr.Series), len(every.Series), tr.Totals, every.Totals)
	}
}

// TestSkippingIsExactWhenValidationStarts replays the draw (rapid seed 4514143311616518180,
// its first case) on which skipping differed from planning every tick: at +44m20s a full
// Plan decided two single-node consolidations, whose candidates' drains took app-0's
// PodDisruptionBudget room (maxUnavailable 1), so the pod of the draining node pool-1-3
// waited. At +44m30s the controller, busy validating, planned without consolidation: the
// pod's eviction was allowed. The skipping run did not plan there (the cluster had not
// changed) and evicted it only at the validation, 5 s later. A tick whose Plan would skip
// consolidation where the last one ran it (or the other way round) now plans.
func TestSkippingIsExactWhenValidationStarts(t *testing.T) {
	setFlag(t, "rapid.seed", "4514143311616518180")
	setFlag(t, "rapid.checks", "1")
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t)
		// The draw of the case; another means drawInput changed and the seed no longer
		// gives it.
		if len(in.Workloads) != 2 || in.Settings.ValidationDelay != 15*time.Second || in.Settings.OfferingCapacity == nil ||
			len(in.Snapshot.NodePools()) != 2 || in.Timeline.Duration != time.Hour || len(in.Timeline.Events) != 0 {
			t.Fatalf("the seed no longer draws the case (drawInput changed): find it again or build it by hand")
		}
		skippingIsExact(t, in)
	})
}

// setFlag sets a command-line flag for the test and restores it after.
func setFlag(t *testing.T, name, value string) {
	f := flag.Lookup(name)
	if f == nil {
		t.Fatalf("no flag %s", name)
	}
	old := f.Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(name, old) })
}

// TestSkippingIsExactWhenDrainStartsAtValidation replays a TestPropSkippingIsExact case
// (testdata/skipping-drain-at-validation.fail, ValidationDelay 1 s): at +15m10s two
// single-node consolidations without replacements are decided; validating them at +15m11s on
// the unchanged cluster, the skipping run carried them without a Plan and so without the
// Plan's drain step, which in the every-tick run evicts pool-1-4's app-0 pod at once and
// takes app-0's PodDisruptionBudget room. Skipping then decided pool-1-5 at +15m11s (room
// free) and carried it at +15m12s; planning every tick does not.
func TestSkippingIsExactWhenDrainStartsAtValidation(t *testing.T) {
	setFlag(t, "rapid.failfile", "testdata/skipping-drain-at-validation.fail")
	setFlag(t, "rapid.checks", "1") // the file's case, then one random one
	replays := 0
	rapid.Check(t, func(t *rapid.T) {
		in := drawInput(t)
		replays++
		// The draw of the case (the file's, replayed first); another means drawInput changed
		// and the file no longer gives it.
		if replays == 1 && (len(in.Workloads) != 3 || in.Settings.ValidationDelay != time.Second || len(in.Snapshot.NodePools()) != 2 ||
			in.Timeline.Duration != time.Hour || len(in.Timeline.Events) != 7) {
			t.Fatalf("the file no longer draws the case (drawInput changed): find it again or build it by hand")
		}
		skippingIsExact(t, in)
	})
}
