package scheduling_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// repackTypes: a small and a medium type at $0.05 per cpu, and a large type at $0.075 per
// cpu (as the newest generations' largest types are dearer per vCPU), in three zones.
const repackTypes = `
instanceTypes:
- name: s-2x8
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "2", memory: 8Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.10}
  - {zone: zone-b, capacityType: on-demand, price: 0.10}
  - {zone: zone-c, capacityType: on-demand, price: 0.10}
- name: m-8x32
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.40}
  - {zone: zone-b, capacityType: on-demand, price: 0.40}
  - {zone: zone-c, capacityType: on-demand, price: 0.40}
- name: x-32x128
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
  capacity: {cpu: "32", memory: 128Gi, pods: "110"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 2.40}
  - {zone: zone-b, capacityType: on-demand, price: 2.40}
  - {zone: zone-c, capacityType: on-demand, price: 2.40}
`

// appDeployment is a Deployment of app=NAME pods of the given cpu and 1Gi, with the given pod
// spec lines.
func appDeployment(name string, replicas int, cpu, spec string) string {
	return strings.ReplaceAll(webDeployment(name, replicas, cpu, spec), "app: web", "app: "+name)
}

// TestRepackCutsThePrice: the default packing's repair packs the pods that no constraint
// ties to their NodeClaim again, into cheaper NodeClaims (README, "What Solve does").
func TestRepackCutsThePrice(t *testing.T) {
	type claimShape struct {
		instanceType string
		pods         int
	}
	cases := []struct {
		name      string
		manifests string
		opts      scheduling.Options
		want      []claimShape // in order
		price     float64
		karpenter float64 // Karpenter mode's price
		check     func(t *testing.T, in *fidelityIn, res *scheduling.Result)
	}{{
		// The first pass fills one NodeClaim until no type can take more: twenty pods on the
		// large type. The repair packs them five by five on the medium type.
		name:      "free pods leave the dear large type",
		manifests: fidelityPool + appDeployment("free", 20, "1500m", ""),
		want:      []claimShape{{"m-8x32", 5}, {"m-8x32", 5}, {"m-8x32", 5}, {"m-8x32", 5}},
		price:     1.60, karpenter: 2.40,
	}, {
		name:      "SkipRepack keeps the first pass",
		manifests: fidelityPool + appDeployment("free", 20, "1500m", ""),
		opts:      scheduling.Options{SkipRepack: true},
		want:      []claimShape{{"x-32x128", 20}},
		price:     2.40, karpenter: 2.40,
	}, {
		// A NodeClaim counts against the limit at its largest option, as Karpenter counts it:
		// four medium NodeClaims (each could launch the large type) would take 128 cpu.
		name:      "a repair beyond the NodePool's limits is not made",
		manifests: limitedPool("40") + appDeployment("free", 20, "1500m", ""),
		want:      []claimShape{{"x-32x128", 20}},
		price:     2.40, karpenter: 2.40,
	}, {
		// The spread pods are pinned to their zones; the repair moves them only between
		// NodeClaims of the same zone, and the free pods wherever they pack best.
		name: "zone-spread pods stay in their zone",
		manifests: fidelityPool + appDeployment("free", 10, "1500m", "") +
			appDeployment("spread", 12, "1500m", strings.ReplaceAll(zoneSpreadWeb, "app: web", "app: spread")),
		want:  []claimShape{{"m-8x32", 5}, {"m-8x32", 5}, {"s-2x8", 1}, {"s-2x8", 1}, {"m-8x32", 5}, {"m-8x32", 5}},
		price: 1.80, karpenter: 3.20,
		check: func(t *testing.T, in *fidelityIn, res *scheduling.Result) {
			assert.Equal(t, map[string]int{"zone-a": 4, "zone-b": 4, "zone-c": 4},
				launchedCounts(in, res, "spread-", "topology.kubernetes.io/zone"))
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := fidelityInput(t, tc.manifests, repackTypes, scheduling.PackingCostAware)
			in.opts.SkipRepack = tc.opts.SkipRepack
			res := in.solve(t)
			require.Empty(t, res.PodErrors)
			var got []claimShape
			for _, c := range res.NewNodeClaims {
				got = append(got, claimShape{c.InstanceType.Name, len(c.Pods)})
			}
			assert.Equal(t, tc.want, got)
			assert.InDelta(t, tc.price, res.Price(), 1e-9)
			if tc.check != nil {
				tc.check(t, in, res)
			}
			in.opts.Packing = scheduling.PackingKarpenter
			karp, err := scheduling.Solve(in.snap, in.opts)
			require.NoError(t, err)
			assert.InDelta(t, tc.karpenter, karp.Price(), 1e-9, "Karpenter mode")
		})
	}
}

// TestPackingNearTheBound: on generic workloads of 500 pods (internal/genworkload, the
// embedded EC2 catalog) the default packing costs at most 1.10 times the lower bound (issue
// #19's target) and never more than Karpenter mode. NODEPLAN_PACKING_TABLE="sizes/seeds"
// (e.g. 500,2000,10000/1,2,3,7,42) prints the table for other sizes and seeds instead.
func TestPackingNearTheBound(t *testing.T) {
	sizes, seeds := []int{500}, []int{1, 2, 3, 7, 42}
	table := packingTableSpec(t)
	if table != nil {
		sizes, seeds = table[0], table[1]
		fmt.Println("| pods | seed | bound $/h | first pass $/h | price/bound | default $/h | nodes | price/bound | Karpenter mode $/h | price/bound |")
	}
	for _, n := range sizes {
		for _, seed := range seeds {
			snap := genericSnapshot(t, n, uint64(seed))
			res := mustSolve(t, snap, scheduling.Options{})
			require.Empty(t, res.PodErrors)
			bound, err := scheduling.LowerBound(snap, scheduling.Options{})
			require.NoError(t, err)
			karp, err := scheduling.Solve(snap, scheduling.Options{Packing: scheduling.PackingKarpenter})
			require.NoError(t, err)
			ratio := res.Price() / bound.PerHour
			if table != nil {
				first := mustSolve(t, snap, scheduling.Options{SkipRepack: true})
				fmt.Printf("| %d | %d | %.2f | %.2f | %.3f | %.2f | %d | %.3f | %.2f | %.3f |\n", n, seed, bound.PerHour,
					first.Price(), first.Price()/bound.PerHour, res.Price(), len(res.NewNodeClaims), ratio, karp.Price(), karp.Price()/bound.PerHour)
			}
			assert.LessOrEqual(t, ratio, 1.10, "%d pods, seed %d: $%.2f/h, bound $%.2f/h", n, seed, res.Price(), bound.PerHour)
			if len(karp.PodErrors) == 0 {
				assert.LessOrEqual(t, res.Price(), karp.Price()+1e-9, "%d pods, seed %d: dearer than Karpenter mode", n, seed)
			}
		}
	}
}

// packingTableSpec reads NODEPLAN_PACKING_TABLE ("sizes/seeds"): nil when unset.
func packingTableSpec(t *testing.T) [][]int {
	spec := os.Getenv("NODEPLAN_PACKING_TABLE")
	if spec == "" {
		return nil
	}
	parts := strings.SplitN(spec, "/", 2)
	require.Len(t, parts, 2, "NODEPLAN_PACKING_TABLE=sizes/seeds")
	var out [][]int
	for _, part := range parts {
		var xs []int
		for _, f := range strings.Split(part, ",") {
			x, err := strconv.Atoi(f)
			require.NoError(t, err, "NODEPLAN_PACKING_TABLE")
			xs = append(xs, x)
		}
		out = append(out, xs)
	}
	return out
}

// TestPropRepackNeverDearer: the default packing's repair places the same pods as its
// first pass alone (Options.SkipRepack), binds the same pods to the same existing nodes,
// costs no more, and holds every constraint (mustSolve verifies both results). A second try
// of the default (unpinned.go, paid_joins.go, strictReserved) replaces the repaired plan
// only with one that leaves out fewer pods, or as many for no more, and holds every
// constraint too.
func TestPropRepackNeverDearer(t *testing.T) {
	changed := 0
	rapid.Check(t, repackNeverDearer(&changed))
	t.Logf("the repair changed %d plans", changed)
}

// TestPropRepackNeverDearerFound replays the draws of TestPropRepackNeverDearer that once
// failed it (testdata/rapid-found/RepackNeverDearer-*.fail). In both the repair left the
// first pass as it was, and a second try of the default replaced the plan, as a second try
// may: the one of paid_joins.go placed pod-33, which the first pass left out for pool-2's
// node limit, at $5.60/h where the first pass cost $5.50/h (try-places-more), or left out
// the same 7 pods at $3.60/h where it cost $4.10/h, pod-09 refused for other reasons
// (try-other-reasons). The property held the second tries' plan to the first pass's pods:
// SolveRepairOnly now makes no second try (Options.repairOnly), and the second tries are
// held to the repaired plan by what keeps them (better).
func TestPropRepackNeverDearerFound(t *testing.T) {
	replayFound(t, "RepackNeverDearer", repackNeverDearer)
}

// repackNeverDearer is TestPropRepackNeverDearer's property on a scenario; changed counts
// the draws whose plan the repair changed.
func repackNeverDearer(changed *int) func(*rapid.T) {
	return func(t *rapid.T) {
		sc := scenarioGen().Draw(t, "scenario")
		if checkRepack(t, snapOf(t, sc.build()), true) {
			*changed++
		}
	}
}

// TestPropRepackNeverDearerGeneric is TestPropRepackNeverDearer on generic workloads
// (internal/genworkload: mixed shapes, zone and hostname spreads, two DaemonSets, the embedded
// catalog) of 10 to 120 pods, where the repair changes most plans. It holds the repair
// alone: the second tries would make it half as slow again.
func TestPropRepackNeverDearerGeneric(t *testing.T) {
	changed := 0
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(10, 120).Draw(t, "pods")
		if checkRepack(t, genericSnapshot(t, n, rapid.Uint64().Draw(t, "seed")), false) {
			changed++
		}
	})
	t.Logf("the repair changed %d plans", changed)
}

// checkRepack holds Solve of snap with and without the repair to TestPropRepackNeverDearer's
// property, the first pass and its repair alone (SolveRepairOnly: a second try may place
// other pods), and, with tries, the second tries but for starved.go's to the repaired plan
// (starved.go's have their own property: TestPropStarvedRetryPlacesMore); it reports
// whether the repair changed the plan.
func checkRepack(t *rapid.T, snap *cluster.Snapshot, tries bool) bool {
	first := mustSolve(t, snap, scheduling.Options{SkipRepack: true})
	res, err := scheduling.SolveRepairOnly(snap, scheduling.Options{})
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	if err := verifyErr(snap, scheduling.Options{}, res); err != nil {
		t.Fatalf("%v", err)
	}
	if res.Price() > first.Price()*(1+1e-9)+1e-9 {
		t.Fatalf("the repair costs $%.4f/h, its first pass $%.4f/h", res.Price(), first.Price())
	}
	if got, want := placedOnClaims(res), placedOnClaims(first); got != want {
		t.Fatalf("the repair placed other pods on new NodeClaims:\n%s\nfirst pass:\n%s", got, want)
	}
	strip := func(r *scheduling.Result) *scheduling.Result {
		return &scheduling.Result{Bindings: r.Bindings, PodErrors: r.PodErrors}
	}
	if got, want := render(strip(res)), render(strip(first)); got != want {
		t.Fatalf("the repair changed the bindings or pod errors:\n%s\nfirst pass:\n%s", got, want)
	}
	if !tries {
		return render(res) != render(first)
	}
	tried, err := scheduling.SolveUnguarded(snap, scheduling.Options{})
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	if err := verifyErr(snap, scheduling.Options{}, tried); err != nil {
		t.Fatalf("a second try: %v", err)
	}
	switch got, want := len(tried.PodErrors), len(res.PodErrors); {
	case got > want:
		t.Fatalf("a second try leaves out %d pods, the repaired plan %d", got, want)
	case got == want && tried.Price() > res.Price()*(1+1e-9)+1e-9:
		t.Fatalf("a second try, leaving out as many pods, costs $%.4f/h, the repaired plan $%.4f/h", tried.Price(), res.Price())
	}
	return render(res) != render(first)
}

// placedOnClaims lists the pods on new NodeClaims, sorted.
func placedOnClaims(res *scheduling.Result) string {
	var names []string
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			names = append(names, p.Namespace+"/"+p.Name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}
