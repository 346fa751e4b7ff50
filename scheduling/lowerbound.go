package scheduling

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
)

// Bound is a price per hour below which no plan of the same pods can go: the cheapest
// fractional mix of instance-type offerings whose allocatable (after the overhead of the
// DaemonSets that would run there) covers the pods' requests of every resource — cpu,
// memory, pods, ephemeral storage, extended resources — where each pod counts only on the
// offerings its required constraints allow, and the room left on existing nodes and
// in-flight NodeClaims is free. It is a linear program's optimum (the "fluid" bound of
// bin packing, per compatibility class), certified by its dual, so it is a valid bound even
// when the program is cut short.
//
// What it ignores, each of which can only lower it: whole nodes (a fraction of a node may
// be bought, and one node's cpu may serve one class of pods while its memory serves another
// class that may also use it); topology spread, pod affinity and anti-affinity (hostname
// anti-affinity included, so a workload that needs one node per pod is bounded by its
// requests alone), host ports between pods and volume attach limits; preferences (preferred
// affinities, PreferNoSchedule taints); NodePool limits, weights, minValues and the
// instance-type cap. It keeps DaemonSet overhead per type, the room on each existing node (free
// rooms pooled among nodes the same pods may use) and each capacity reservation's count.
type Bound struct {
	// PerHour is the bound, in the offerings' price per hour.
	PerHour float64
	// Pods is the number of pods it counts.
	Pods int
	// LeftOut are the pods it does not count, in the order Solve takes them: pods Solve
	// refuses whatever the capacity (invalid specs, pods Karpenter does not provision for)
	// and pods that no offering of any NodePool can take (requirements, taints, requests
	// beyond every allowed type's allocatable; a capacity reservation's offerings alone do
	// not count). Such a pod may still fit an existing node; it adds nothing to the bound.
	LeftOut []*corev1.Pod
	// Mix is the fractional set of offerings the bound buys, dearest share first: where the
	// cheapest capacity for these pods lies (existing nodes cost nothing and are not listed).
	Mix []BoundShare
	// Classes, Columns and Rounds are the program's size: pod classes (pods with the same
	// usable offerings and existing nodes), candidate offerings and existing-node groups, and
	// the column-generation rounds it took.
	Classes, Columns, Rounds int
}

// BoundShare is one offering of a Bound's mix.
type BoundShare struct {
	NodePool     string
	InstanceType string
	Zone         string
	CapacityType string
	// Nodes is how many nodes of the offering the mix buys (a fraction).
	Nodes float64
	// PerHour is Nodes times the offering's price.
	PerHour float64
}

// Efficiency is the bound divided by price, the price of a plan of the same pods: 1 is a
// plan as cheap as the bound (no plan can be cheaper), 0.8 one that pays 25 % more. A plan
// that costs nothing has efficiency 1.
func (b *Bound) Efficiency(price float64) float64 {
	if price <= 0 || b.PerHour <= 0 {
		return 1
	}
	return b.PerHour / price
}

const opLowerBound = "scheduling.LowerBound"

// LowerBound is the Bound for the pods Solve(snap, opts) would place: the snapshot's pending
// pods, its moving pods and the reschedulable pods of its deleting nodes, against its
// NodePools' instance types and the room left on its other nodes. No Result of Solve that
// places these pods costs less than Bound.PerHour (NewNodeClaims at their offerings'
// prices; to compare with a result that left pods unplaced, bound the snapshot without
// them: snap.WithoutPods). It reads Solve's own preparation of the snapshot (which types and
// offerings a pod's requirements, tolerations and volumes allow, DaemonSet overhead per
// type), and like Solve it is pure and deterministic; its errors are Solve's.
//
// It costs a fraction of a Solve: one pass over the pods, then a linear program with a row
// per class and resource and a column per offering, solved by column generation.
func LowerBound(snap *cluster.Snapshot, opts Options) (*Bound, error) {
	return lowerBound(snap, opts, nil)
}

// LowerBound is scheduling.LowerBound reading (and filling) c's memory of pods and nodes:
// after a (*Cache).Solve of the same objects it skips most of its preparation, which is
// Solve's.
func (c *Cache) LowerBound(snap *cluster.Snapshot, opts Options) (*Bound, error) {
	return lowerBound(snap, opts, c)
}

func lowerBound(snap *cluster.Snapshot, opts Options, cache *Cache) (b *Bound, err error) {
	if snap == nil {
		return nil, invalid(opLowerBound, cluster.InputNil, "Snapshot", "", "", "nil snapshot")
	}
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, cluster.Internal(opLowerBound, r)
		}
	}()
	s, pods, err := prepare(snap, opts, cache, false)
	if err != nil {
		return nil, err
	}
	b = &Bound{}
	if s.noDynamicNodePools {
		for _, p := range pods {
			b.LeftOut = append(b.LeftOut, p.pod)
		}
		return b, nil
	}
	prog := s.boundProgram(pods)
	b.LeftOut, b.Pods = prog.leftOut, prog.pods
	b.Classes, b.Columns = len(prog.classes), len(prog.columns)
	if len(prog.classes) == 0 {
		return b, nil
	}
	sol := prog.solve()
	b.PerHour, b.Rounds = sol.bound, sol.rounds
	b.Mix = s.boundMix(prog, sol.nodes)
	return b, nil
}

// boundMix lists the offerings the program's solution buys.
func (s *solver) boundMix(prog *boundProgram, nodes []float64) []BoundShare {
	var out []BoundShare
	for j, n := range nodes {
		col := prog.columns[j]
		if n <= 0 || col.existing {
			continue
		}
		t := s.templates[col.template]
		o := t.types[col.typ].it.Offerings[col.offering]
		out = append(out, BoundShare{NodePool: t.name, InstanceType: t.types[col.typ].it.Name, Zone: o.Zone(),
			CapacityType: o.CapacityType(), Nodes: n, PerHour: n * col.price})
	}
	slices.SortStableFunc(out, func(a, b BoundShare) int {
		if c := cmp.Compare(b.PerHour, a.PerHour); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.NodePool, b.NodePool), cmp.Compare(a.InstanceType, b.InstanceType),
			cmp.Compare(a.Zone, b.Zone), cmp.Compare(a.CapacityType, b.CapacityType))
	})
	return out
}
