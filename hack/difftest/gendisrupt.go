package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

var disruptNow = time.Date(2026, 1, 2, 1, 0, 0, 0, time.UTC) // a Friday

// spotToSpotGate is the feature that makes both tools run with --spot-to-spot.
const spotToSpotGate = "spot-to-spot"

// disruptShape is what a disrupt seed exercises beyond the base shape, drawn up front.
type disruptShape struct {
	spotToSpot bool // the SpotToSpotConsolidation gate, spot-heavy pools, sometimes a large catalog
	manySmall  bool // many lightly used small nodes (multi-node consolidation)
	daemonSets int
	inFlight   int // NodeClaims without a Node yet
	typeGone   bool
	constrain  bool // bound pods with nodeSelector / spread / affinity that replacements must respect
}

func drawShape(r *rand.Rand) disruptShape {
	s := disruptShape{spotToSpot: r.IntN(4) == 0, manySmall: r.IntN(5) == 0, typeGone: r.IntN(6) == 0, constrain: r.IntN(3) == 0}
	if r.IntN(3) == 0 {
		s.daemonSets = 1 + r.IntN(2)
	}
	if r.IntN(5) == 0 {
		s.inFlight = 1 + r.IntN(2)
	}
	return s
}

// genDisrupt makes a `disrupt` input: NodePools with disruption settings, Nodes (some with
// explicit NodeClaims, drifted hashes, do-not-disrupt, deleting, uninitialized, NotReady),
// bound pods of ReplicaSets, PDBs (some with unhealthy or pending replicas) and pending pods;
// per seed also some of: the spot-to-spot gate, many small nodes, Balanced pools, scheduled
// and per-reason budgets, terminationGracePeriod, DaemonSets, constrained bound pods, timed
// do-not-disrupt, priorities, disrupted taints, in-flight NodeClaims, types no longer offered.
func genDisrupt(seed uint64) *input {
	r, in, types, zones := begin("disrupt", seed)
	in.Now = ts(disruptNow)
	shape := drawShape(r)
	if shape.spotToSpot {
		in.Features = append(in.Features, spotToSpotGate)
		if r.IntN(2) == 0 {
			// Single-node spot-to-spot wants at least 15 cheaper types.
			types = mergeCatalogs(types, genCatalog(r))
			in.Catalog = catalogDoc(types)
			zones = zonesOf(types)
			in.Features = append(in.Features, "large-catalog")
		}
	}
	dm := newDisruptMore(seed)
	dm.catalog(types)
	if dm.reserved {
		in.Catalog = catalogDoc(types)
	}
	var pools []*pool
	for i := range 1 + r.IntN(3) {
		p := genPool(r, i, types)
		p.LimitCPU, p.LimitNodes = 0, 0
		if r.IntN(8) == 0 {
			p.LimitCPU = 16 + 16*r.IntN(4)
			in.Features = append(in.Features, "limits")
		}
		if shape.spotToSpot && r.IntN(2) == 0 {
			p.CapacityTypes = []string{"spot"}
		}
		if r.IntN(6) == 0 {
			p.Policy = "Balanced"
		}
		if r.IntN(4) == 0 {
			p.Budgets = genBudgets(r)
			in.Features = append(in.Features, "budgets-windows")
		}
		if r.IntN(5) == 0 {
			p.TGP = []string{"30s", "1h", "24h"}[r.IntN(3)]
			in.Features = append(in.Features, "terminationGracePeriod")
		}
		dm.pool(p, pools)
		pools = append(pools, p)
		in.Docs = append(in.Docs, p.doc(true))
		in.Features = append(in.Features, "policy-"+p.Policy, "consolidateAfter-"+p.ConsolidateAfter, "expireAfter-"+p.ExpireAfter)
		if p.Budgets != nil {
			in.Features = append(in.Features, "budgets")
		}
	}
	nApps := 2 + r.IntN(5)
	apps := make([]string, nApps)
	for i := range apps {
		apps[i] = fmt.Sprintf("app-%d", i)
	}
	// Every pod has a UID, as in a real cluster: Karpenter breaks ties between pods of equal
	// requests and creation time by UID, and a loader that invents UIDs would decide them.
	owner := func(app string) map[string]any {
		return map[string]any{"uid": podUID(r), "ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
			"name": app + "-rs", "uid": "uid-" + app + "-rs", "controller": true}}}
	}
	dsSpecs := genDaemonSets(r, in, shape.daemonSets)
	unhealthy := map[string]bool{}
	nNodes := 2 + r.IntN(9)
	if shape.manySmall {
		nNodes = 8 + r.IntN(13)
		in.Features = append(in.Features, "many-small-nodes")
	}
	goneAt := -1
	if shape.typeGone {
		goneAt = r.IntN(nNodes)
	}
	for i := range nNodes {
		p := pools[r.IntN(len(pools))]
		drift := r.IntN(10) == 0
		t, o, ok := pickNode(r, p, types, drift)
		if shape.manySmall && ok && t.CPU > 4 {
			t, o, ok = pickNode(r, p, types, drift) // a second draw: small types more often
		}
		if !ok {
			continue
		}
		age := time.Duration(5+r.IntN(60*20)) * time.Minute
		if r.IntN(4) == 0 {
			age = time.Duration(5+r.IntN(60*24*40)) * time.Minute // old enough to expire
		}
		if i == goneAt {
			t, o = goneType(r, t, o)
			age = max(age, 2*time.Hour) // InstanceTypeNotFound is checked from 1 h on
			in.Features = append(in.Features, "type-not-offered")
		}
		n := &node{Name: fmt.Sprintf("node-%02d", i), Pool: p, Type: t, Offer: o, Created: disruptNow.Add(-age),
			Initialized: r.IntN(10) != 0, DoNotDisrupt: r.IntN(20) == 0, NotReady: r.IntN(30) == 0}
		if drift && !p.allowsType(t) || !p.allowsOffer(o) {
			in.Features = append(in.Features, "drift-requirements")
		}
		if r.IntN(3) == 0 {
			n.Claim, n.ClaimHash = true, p.Hash
			if r.IntN(3) == 0 {
				n.ClaimHash = fmt.Sprint(900 + i)
				in.Features = append(in.Features, "drift-hash")
			}
		}
		if r.IntN(30) == 0 {
			n.Deleting = true
			in.Features = append(in.Features, "deleting-node")
		}
		if r.IntN(25) == 0 {
			n.Disrupted = true
			in.Features = append(in.Features, "disrupted-taint")
		}
		for f, on := range map[string]bool{"uninitialized-node": !n.Initialized, "node-do-not-disrupt": n.DoNotDisrupt, "notready-node": n.NotReady} {
			if on {
				in.Features = append(in.Features, f)
			}
		}
		nd := n.doc()
		dm.node(nd, n)
		in.Docs = append(in.Docs, nd)
		if n.Claim {
			cd := n.claimDoc()
			dm.node(cd, n)
			in.Docs = append(in.Docs, cd)
		}
		cpu, mem := t.allocatable()
		for j, ds := range dsSpecs {
			if ds.runsOn(n) {
				cpu, mem = cpu-ds.CPU, mem-ds.Mem
				in.Docs = append(in.Docs, ds.pod(n, j, podUID(r)))
			}
		}
		fill := 0.05 + 0.9*r.Float64()
		if shape.manySmall {
			fill = 0.05 + 0.3*r.Float64()
		}
		k := r.IntN(7)
		if r.IntN(6) == 0 {
			k = 0
		}
		for j := range k {
			app := apps[r.IntN(len(apps))]
			meta := owner(app)
			meta["creationTimestamp"] = ts(n.Created)
			start := n.Created.Add(time.Minute)
			if r.IntN(25) == 0 {
				meta["annotations"] = map[string]any{"karpenter.sh/do-not-disrupt": "true"}
				in.Features = append(in.Features, "pod-do-not-disrupt")
			} else if r.IntN(15) == 0 {
				// A duration counts from the pod's start time: some still active, some elapsed.
				meta["annotations"] = map[string]any{"karpenter.sh/do-not-disrupt": []string{"10m", "3h", "30h", "later"}[r.IntN(4)]}
				in.Features = append(in.Features, "pod-do-not-disrupt-duration")
			}
			if r.IntN(25) == 0 {
				delete(meta, "ownerReferences")
				in.Features = append(in.Features, "pod-without-owner")
			}
			spec := map[string]any{"nodeName": n.Name, "containers": []any{container("app", max(10, int(float64(cpu)*fill)/k), max(16, int(float64(mem)*fill)/k))}}
			if r.IntN(10) == 0 {
				spec["affinity"] = map[string]any{"podAntiAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{
					map[string]any{"topologyKey": "kubernetes.io/hostname", "labelSelector": selector(app)}}}}
				in.Features = append(in.Features, "bound-antiAffinity")
			}
			if shape.constrain && r.IntN(3) == 0 {
				in.Features = append(in.Features, boundConstraint(r, spec, n, app)...)
			}
			if r.IntN(15) == 0 {
				spec["priority"] = []int{-100, 1000, 1000000000}[r.IntN(3)]
				in.Features = append(in.Features, "pod-priority")
			}
			if r.IntN(15) == 0 {
				ann, _ := meta["annotations"].(map[string]any)
				if ann == nil {
					ann = map[string]any{}
					meta["annotations"] = ann
				}
				ann["controller.kubernetes.io/pod-deletion-cost"] = fmt.Sprint([]int{-1000000000, 100, 1000000000}[r.IntN(3)])
				in.Features = append(in.Features, "pod-deletion-cost")
			}
			if p.Taint {
				spec["tolerations"] = []any{map[string]any{"key": "team", "operator": "Exists"}}
			}
			if n.Disrupted && r.IntN(3) == 0 {
				tols, _ := spec["tolerations"].([]any)
				spec["tolerations"] = append(tols, map[string]any{"key": "karpenter.sh/disrupted", "operator": "Exists"})
				in.Features = append(in.Features, "tolerates-disrupted")
			}
			ready := "True"
			if r.IntN(20) == 0 {
				ready = "False"
				unhealthy[app] = true
			}
			pd := podDoc(fmt.Sprintf("%s-p%d", n.Name, j), app, spec, meta)
			pd["status"] = map[string]any{"phase": "Running", "startTime": ts(start),
				"conditions": []any{map[string]any{"type": "Ready", "status": ready}}}
			in.Docs = append(in.Docs, pd)
		}
		in.Docs = append(in.Docs, dm.extraPods(n, apps, in.Docs)...)
	}
	// In-flight NodeClaims: launched, no Node yet.
	for i := range shape.inFlight {
		p := pools[r.IntN(len(pools))]
		t, o, ok := pickNode(r, p, types, false)
		if !ok {
			continue
		}
		n := &node{Name: fmt.Sprintf("inflight-%d", i), Pool: p, Type: t, Offer: o, InFlight: true, Claim: true, ClaimHash: p.Hash,
			Created: disruptNow.Add(-time.Duration(10+r.IntN(120)) * time.Second)}
		in.Docs = append(in.Docs, n.claimDoc())
		in.Features = append(in.Features, "inflight-claim")
	}
	// Pending pods (the provisioner nominates them before disruption runs).
	pendingApps := map[string]bool{}
	if r.IntN(5) < 2 {
		for j := range 1 + r.IntN(3) {
			app := apps[r.IntN(len(apps))]
			pendingApps[app] = true
			meta := owner(app)
			meta["creationTimestamp"] = ts(disruptNow.Add(-time.Duration(r.IntN(600)) * time.Second))
			cpu := cpuChoices[r.IntN(len(cpuChoices))]
			if r.IntN(4) == 0 {
				cpu = 64000 // fits nowhere
			}
			spec := map[string]any{"containers": []any{container("app", cpu, memChoices[r.IntN(len(memChoices))])}}
			if r.IntN(3) == 0 {
				constraints(r, spec, app, nil, pools, zones)
			}
			pd := podDoc(fmt.Sprintf("pending-%d", j), app, spec, meta)
			pd["status"] = map[string]any{"phase": "Pending", "conditions": []any{
				map[string]any{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}}}
			in.Docs = append(in.Docs, pd)
		}
		in.Features = append(in.Features, "pending-pods")
	}
	// PDBs.
	var pdbApps []string
	for _, app := range apps {
		if r.IntN(4) != 0 {
			continue
		}
		spec := map[string]any{"selector": selector(app)}
		switch r.IntN(6) {
		case 0:
			spec["maxUnavailable"] = r.IntN(2)
		case 1:
			spec["minAvailable"] = 1 + r.IntN(2)
		case 2:
			spec["maxUnavailable"] = "50%"
		case 3:
			spec["minAvailable"] = []string{"50%", "100%", "0%"}[r.IntN(3)]
			in.Features = append(in.Features, "pdb-percent")
		case 4:
			spec["maxUnavailable"] = []string{"0%", "10%", "100%"}[r.IntN(3)]
			in.Features = append(in.Features, "pdb-percent")
		default:
			spec["maxUnavailable"] = r.IntN(2)
			spec["unhealthyPodEvictionPolicy"] = "AlwaysAllow"
			in.Features = append(in.Features, "pdb-always-allow")
		}
		in.Docs = append(in.Docs, map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
			"metadata": map[string]any{"name": "pdb-" + app, "namespace": "default"}, "spec": spec})
		in.Features = append(in.Features, "pdb")
		pdbApps = append(pdbApps, app)
		if unhealthy[app] {
			in.Features = append(in.Features, "pdb-unhealthy")
		}
		if pendingApps[app] {
			in.Features = append(in.Features, "pdb-pending")
		}
	}
	in.Docs = append(in.Docs, dm.pdbs(pdbApps)...)
	dm.finish(in.Docs)
	in.Features = uniq(append(in.Features, dm.feats...))
	return in
}

// genBudgets draws 1–3 budgets: integers and percentages, some for some reasons only, some
// in a cron window (active or not at disruptNow, Friday 01:00 UTC).
func genBudgets(r *rand.Rand) []any {
	reasons := []string{"Drifted", "Underutilized", "Empty"}
	var out []any
	for range 1 + r.IntN(3) {
		b := map[string]any{"nodes": []string{"0", "1", "2", "20%", "34%", "0%", "100%"}[r.IntN(7)]}
		if r.IntN(2) == 0 {
			var rs []any
			for _, x := range reasons {
				if r.IntN(2) == 0 {
					rs = append(rs, x)
				}
			}
			if rs == nil {
				rs = []any{reasons[r.IntN(3)]}
			}
			b["reasons"] = rs
		}
		if r.IntN(3) == 0 {
			b["schedule"] = []string{"@daily", "30 0 * * *", "0 2 * * *", "0 * * * *", "@weekly", "0 1 * * 5", "0 9 * * 1-5"}[r.IntN(7)]
			b["duration"] = []string{"30m", "1h", "2h", "10h", "24h"}[r.IntN(5)]
		}
		out = append(out, b)
	}
	return out
}

// goneType gives a node a type the catalog no longer lists (or, half the time, the same type
// in an offering the catalog no longer has).
func goneType(r *rand.Rand, t *instanceType, o offer) (*instanceType, offer) {
	if r.IntN(2) == 0 {
		old := *t
		old.Name = fmt.Sprintf("%s%d-%dx%d", old.Family, 4, old.CPU, old.MemGi)
		old.Gen = 4
		return &old, o
	}
	for _, z := range allZones {
		for _, ct := range []string{"on-demand", "spot"} {
			if !slices.ContainsFunc(t.Offers, func(x offer) bool { return x.Zone == z && x.CapacityType == ct }) {
				return t, offer{Zone: z, CapacityType: ct, Price: o.Price, Available: true}
			}
		}
	}
	return t, o
}

// mergeCatalogs adds b's types whose names a lacks, sorted by name.
func mergeCatalogs(a, b []*instanceType) []*instanceType {
	out := slices.Clone(a)
	for _, t := range b {
		if !slices.ContainsFunc(out, func(x *instanceType) bool { return x.Name == t.Name }) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(x, y *instanceType) int { return cmpStr(x.Name, y.Name) })
	return out
}

// boundConstraint gives a bound pod a constraint its node satisfies, which its replacement
// must satisfy too: a nodeSelector or required node affinity on the node's zone, capacity type
// or family, a zone spread, or a preferred zonal anti-affinity.
func boundConstraint(r *rand.Rand, spec map[string]any, n *node, app string) []string {
	switch r.IntN(5) {
	case 0:
		key, val := []string{"topology.kubernetes.io/zone", "karpenter.sh/capacity-type", "example.com/family"}[r.IntN(3)], ""
		switch key {
		case "topology.kubernetes.io/zone":
			val = n.Offer.Zone
		case "karpenter.sh/capacity-type":
			val = n.Offer.CapacityType
		default:
			val = n.Type.Family
		}
		spec["nodeSelector"] = map[string]any{key: val}
		return []string{"bound-nodeSelector"}
	case 1:
		spec["affinity"] = map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
			"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{
				req("example.com/cpu", "Gt", fmt.Sprint(max(0, n.Type.CPU/2-1)))}}}}}}
		return []string{"bound-nodeAffinity"}
	case 2, 3:
		key := []string{"topology.kubernetes.io/zone", "kubernetes.io/hostname"}[r.IntN(2)]
		mode := []string{"DoNotSchedule", "ScheduleAnyway"}[r.IntN(2)]
		spec["topologySpreadConstraints"] = []any{map[string]any{"topologyKey": key, "maxSkew": 1 + r.IntN(2),
			"whenUnsatisfiable": mode, "labelSelector": selector(app)}}
		return []string{"bound-spread-" + mode}
	default:
		spec["affinity"] = map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{
			map[string]any{"weight": 50, "podAffinityTerm": map[string]any{"topologyKey": "topology.kubernetes.io/zone", "labelSelector": selector(app)}}}}}
		return []string{"bound-antiAffinity-preferred-zone"}
	}
}

// daemonSet is a generated DaemonSet; its pods run on every node it selects and tolerates.
type daemonSet struct {
	Name      string
	CPU, Mem  int // millicores, MiB
	Arch      string
	Tolerates bool
}

func genDaemonSets(r *rand.Rand, in *input, n int) []*daemonSet {
	var out []*daemonSet
	for i := range n {
		ds := &daemonSet{Name: fmt.Sprintf("ds-%d", i), CPU: []int{50, 100, 200}[r.IntN(3)], Mem: []int{64, 128, 256}[r.IntN(3)], Tolerates: r.IntN(2) == 0}
		if r.IntN(4) == 0 {
			ds.Arch = "amd64"
		}
		in.Docs = append(in.Docs, map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet",
			"metadata": map[string]any{"name": ds.Name, "namespace": "default", "uid": "uid-" + ds.Name},
			"spec": map[string]any{"selector": selector(ds.Name), "template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": ds.Name}}, "spec": ds.podSpec()}}})
		in.Features = append(in.Features, "daemonset")
		out = append(out, ds)
	}
	return out
}

func (ds *daemonSet) podSpec() map[string]any {
	spec := map[string]any{"containers": []any{container("agent", ds.CPU, ds.Mem)}}
	if ds.Tolerates {
		spec["tolerations"] = []any{map[string]any{"operator": "Exists"}}
	}
	if ds.Arch != "" {
		spec["nodeSelector"] = map[string]any{"kubernetes.io/arch": ds.Arch}
	}
	return spec
}

func (ds *daemonSet) runsOn(n *node) bool {
	return (ds.Arch == "" || ds.Arch == n.Type.Arch) && (ds.Tolerates || !n.Pool.Taint)
}

func (ds *daemonSet) pod(n *node, j int, uid string) map[string]any {
	spec := ds.podSpec()
	spec["nodeName"] = n.Name
	meta := map[string]any{"uid": uid, "creationTimestamp": ts(n.Created), "ownerReferences": []any{map[string]any{"apiVersion": "apps/v1",
		"kind": "DaemonSet", "name": ds.Name, "uid": "uid-" + ds.Name, "controller": true}}}
	pd := podDoc(fmt.Sprintf("%s-ds%d", n.Name, j), ds.Name, spec, meta)
	pd["status"] = map[string]any{"phase": "Running", "startTime": ts(n.Created.Add(time.Minute)),
		"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	return pd
}

// podUID is a random UID in the API server's format.
func podUID(r *rand.Rand) string {
	a, b := r.Uint64(), r.Uint64()
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, a>>16&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}
