// Command rounds measures how fast consolidation brings a running cluster near the price of a
// from-scratch plan of its pods: it reads a cluster (nodeplan CLI input) and a catalog file,
// then repeats Plan → carry out Result.Batch (replacements launched on the fake cloud, each
// command applied with disruption.Apply, the pods it leaves pending provisioned) → the
// launched nodes join, initialized. Each round prints the cluster's price and its ratio to the
// from-scratch price (scheduling.Solve of the same pods on no nodes), the Plan's CPU time and
// its commands by method; it stops at -target or when a Plan starts nothing.
//
//	python3 ../shared/bench/cluster-workload 300 /tmp/cw300
//	go run ./hack/rounds -f /tmp/cw300/input.yaml --instance-types ../shared/scenarios/instance-types.yaml --now 2026-01-01T06:00:00Z
//	go run ./hack/rounds ... -repack   # with disruption.Options.Repack
//
// Nothing here is a Karpenter rule: the loop carries out every command at once and the nodes
// join at once, so a round is one Plan and the budgets are full again in the next.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/internal/cputime"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

func main() {
	input := flag.String("f", "", "the cluster: a nodeplan CLI input file or folder")
	types := flag.String("instance-types", "", "the catalog file of instance types every NodePool uses")
	nowFlag := flag.String("now", "", "RFC3339 time of the first round (each later one a minute on)")
	repack := flag.Bool("repack", false, "disruption.Options.Repack: consolidation moves Karpenter cannot make")
	target := flag.Float64("target", 1.05, "stop once the price is at most this times the from-scratch price")
	maxRounds := flag.Int("max-rounds", 50, "stop after this many rounds")
	check := flag.Bool("verify", true, "hold every Plan to verify.Plan")
	flag.Parse()
	if *input == "" || *types == "" || *nowFlag == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: rounds -f INPUT --instance-types FILE --now RFC3339 [-repack] [-target 1.05] [-max-rounds 50]")
		os.Exit(2)
	}
	now, err := time.Parse(time.RFC3339, *nowFlag)
	if err == nil {
		err = run(*input, *types, now, disruption.Options{Repack: *repack}, *target, *maxRounds, *check)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rounds:", err)
		os.Exit(1)
	}
}

func load(input, typesFile string) (*cluster.Snapshot, cloudprovider.InstanceTypes, error) {
	set, err := manifest.Load(input)
	if err != nil {
		return nil, nil, err
	}
	types, wellKnown, err := catalog.ParseFile(typesFile)
	if err != nil {
		return nil, nil, err
	}
	objs := set.Objects
	// cluster reads a Running pod without conditions as Ready, verify does not: give them the
	// Ready condition a kubectl dump has, so both count them healthy for their PDBs.
	for i, p := range objs.Pods {
		if p != nil && p.Status.Phase == corev1.PodRunning && len(p.Status.Conditions) == 0 {
			p = p.DeepCopy()
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			objs.Pods[i] = p
		}
	}
	objs.WellKnownLabels = wellKnown
	objs.InstanceTypes = map[string]cloudprovider.InstanceTypes{}
	for _, np := range objs.NodePools {
		objs.InstanceTypes[np.Name] = types
	}
	snap, err := cluster.New(objs)
	return snap, types, err
}

// fromScratch is the price of a Solve of snap's pods (pending, and every reschedulable pod of
// its nodes) on none of its nodes.
func fromScratch(snap *cluster.Snapshot, opts scheduling.Options) (float64, error) {
	var names []string
	var pods []*corev1.Pod
	for _, n := range snap.Nodes() {
		names = append(names, n.Name())
		for _, p := range n.Pods {
			if p != nil && cluster.IsReschedulable(p) {
				pods = append(pods, p)
			}
		}
	}
	res, err := scheduling.Solve(snap.Without(names...).WithMoving(pods...), opts)
	if err != nil {
		return 0, err
	}
	if len(res.PodErrors) > 0 {
		return 0, fmt.Errorf("from scratch, %d pods cannot be placed (%s: %s)", len(res.PodErrors), cluster.PodKey(res.PodErrors[0].Pod), res.PodErrors[0].Code)
	}
	return res.Price(), nil
}

func run(input, typesFile string, now time.Time, opts disruption.Options, target float64, maxRounds int, check bool) error {
	snap, types, err := load(input, typesFile)
	if err != nil {
		return err
	}
	scratch, err := fromScratch(snap, opts.Scheduling)
	if err != nil {
		return err
	}
	start, _ := snap.Price()
	fmt.Printf("%d nodes, $%.4f/h now, from scratch $%.4f/h (%.3f x)\n", len(snap.Nodes()), start, scratch, start/scratch)
	ctx, cloud, names := context.Background(), fake.NewCloudProvider(types), &fake.Names{}
	var cpu time.Duration
	for round := 1; round <= maxRounds; round++ {
		before := snap
		t0 := cputime.Now()
		res, err := disruption.Plan(snap, now, opts)
		took := cputime.Now() - t0
		cpu += took
		if err != nil {
			return err
		}
		if check {
			if vs := verify.Plan(snap, now, opts, res); len(vs) > 0 {
				return fmt.Errorf("round %d: the plan breaks %v", round, vs)
			}
		}
		if round == 1 {
			prices, err := disruption.PricesOf(snap, res, opts)
			if err != nil {
				return err
			}
			fmt.Printf("one round: $%.4f/h after every command of the first Plan (%.3f x), lower bound $%.4f/h\n", prices.After, prices.After/scratch, prices.LowerBound)
		}
		cmds, _ := res.Batch()
		if len(cmds) == 0 {
			fmt.Printf("round %d: no command (Plan %.0f ms CPU)\n", round, took.Seconds()*1000)
			break
		}
		var launched []*v1.NodeClaim
		for _, cmd := range cmds {
			repl, err := cloudprovider.LaunchAll(ctx, cloud, scheduling.NodeClaimsFor(snap, cmd.Replacements, names.Next))
			if err != nil {
				return err
			}
			if snap, err = disruption.Apply(snap, cmd, repl); err != nil {
				return err
			}
			launched = append(launched, repl...)
		}
		if len(snap.Pending()) > 0 {
			sres, err := scheduling.Solve(snap, opts.Scheduling)
			if err != nil {
				return err
			}
			more, err := cloudprovider.Launch(ctx, cloud, scheduling.NodeClaimsFor(snap, sres.NewNodeClaims, names.Next))
			if err != nil {
				return err
			}
			if snap, err = scheduling.Apply(snap, sres, more); err != nil {
				return err
			}
			launched = append(launched, more...)
		}
		if snap, err = snap.WithNodesFor(launched, now, true); err != nil {
			return err
		}
		snap = snap.WithPodsRunning(now).WithPodEvents(before, now)
		price, _ := snap.Price()
		fmt.Printf("round %d: $%.4f/h (%.3f x), %d nodes, %d pending; Plan %.0f ms CPU, %d of %d commands: %s\n", round, price, price/scratch,
			len(snap.Nodes()), len(snap.Pending()), took.Seconds()*1000, len(cmds), len(res.Commands), summary(cmds))
		if price <= target*scratch {
			fmt.Printf("reached %.2f x in %d rounds (Plan CPU %.2f s in all)\n", target, round, cpu.Seconds())
			return nil
		}
		now = now.Add(time.Minute)
	}
	fmt.Printf("did not reach %.2f x (Plan CPU %.2f s in all)\n", target, cpu.Seconds())
	return nil
}

// summary counts cmds by method and shape (candidates→replacements).
func summary(cmds []disruption.Command) string {
	count := map[string]int{}
	for _, c := range cmds {
		count[fmt.Sprintf("%s %d→%d", c.Method, len(c.Candidates), len(c.Replacements))]++
	}
	var out []string
	for k, n := range count {
		out = append(out, fmt.Sprintf("%d× %s", n, k))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
