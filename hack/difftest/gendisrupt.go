package main

import (
	"fmt"
	"time"
)

var disruptNow = time.Date(2026, 1, 2, 1, 0, 0, 0, time.UTC)

// genDisrupt makes a `disrupt` input: NodePools with disruption settings, Nodes (some with
// explicit NodeClaims, drifted hashes, do-not-disrupt, deleting, uninitialized, NotReady),
// bound pods of ReplicaSets, PDBs (some with unhealthy or pending replicas) and pending pods.
func genDisrupt(seed uint64) *input {
	r, in, types, zones := begin("disrupt", seed)
	in.Now = ts(disruptNow)
	var pools []*pool
	for i := range 1 + r.IntN(3) {
		p := genPool(r, i, types)
		p.LimitCPU, p.LimitNodes = 0, 0
		if r.IntN(8) == 0 {
			p.LimitCPU = 16 + 16*r.IntN(4)
			in.Features = append(in.Features, "limits")
		}
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
	owner := func(app string) map[string]any {
		return map[string]any{"ownerReferences": []any{map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet",
			"name": app + "-rs", "uid": "uid-" + app + "-rs", "controller": true}}}
	}
	unhealthy := map[string]bool{}
	nNodes := 2 + r.IntN(9)
	for i := range nNodes {
		p := pools[r.IntN(len(pools))]
		drift := r.IntN(10) == 0
		t, o, ok := pickNode(r, p, types, drift)
		if !ok {
			continue
		}
		age := time.Duration(5+r.IntN(60*20)) * time.Minute
		if r.IntN(4) == 0 {
			age = time.Duration(5+r.IntN(60*24*40)) * time.Minute // old enough to expire
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
		for f, on := range map[string]bool{"uninitialized-node": !n.Initialized, "node-do-not-disrupt": n.DoNotDisrupt, "notready-node": n.NotReady} {
			if on {
				in.Features = append(in.Features, f)
			}
		}
		in.Docs = append(in.Docs, n.doc())
		if n.Claim {
			in.Docs = append(in.Docs, n.claimDoc())
		}
		cpu, mem := t.allocatable()
		fill := 0.05 + 0.9*r.Float64()
		k := r.IntN(7)
		if r.IntN(6) == 0 {
			k = 0
		}
		for j := range k {
			app := apps[r.IntN(len(apps))]
			meta := owner(app)
			meta["creationTimestamp"] = ts(n.Created)
			if r.IntN(25) == 0 {
				meta["annotations"] = map[string]any{"karpenter.sh/do-not-disrupt": "true"}
				in.Features = append(in.Features, "pod-do-not-disrupt")
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
			if p.Taint {
				spec["tolerations"] = []any{map[string]any{"key": "team", "operator": "Exists"}}
			}
			ready := "True"
			if r.IntN(20) == 0 {
				ready = "False"
				unhealthy[app] = true
			}
			pd := podDoc(fmt.Sprintf("%s-p%d", n.Name, j), app, spec, meta)
			pd["status"] = map[string]any{"phase": "Running", "startTime": ts(n.Created.Add(time.Minute)),
				"conditions": []any{map[string]any{"type": "Ready", "status": ready}}}
			in.Docs = append(in.Docs, pd)
		}
	}
	// Pending pods (the provisioner nominates them before disruption runs).
	pendingApps := map[string]bool{}
	if r.IntN(3) == 0 {
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
	for _, app := range apps {
		if r.IntN(4) != 0 {
			continue
		}
		spec := map[string]any{"selector": selector(app)}
		switch r.IntN(3) {
		case 0:
			spec["maxUnavailable"] = r.IntN(2)
		case 1:
			spec["minAvailable"] = 1 + r.IntN(2)
		default:
			spec["maxUnavailable"] = "50%"
		}
		in.Docs = append(in.Docs, map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
			"metadata": map[string]any{"name": "pdb-" + app, "namespace": "default"}, "spec": spec})
		in.Features = append(in.Features, "pdb")
		if unhealthy[app] {
			in.Features = append(in.Features, "pdb-unhealthy")
		}
		if pendingApps[app] {
			in.Features = append(in.Features, "pdb-pending")
		}
	}
	in.Features = uniq(in.Features)
	return in
}
