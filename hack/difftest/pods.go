package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Pod-spec pieces shared by the plan and disrupt generators.

var cpuChoices = []int{100, 250, 500, 750, 1000, 1500, 2000, 3000, 4000}
var memChoices = []int{128, 256, 512, 1024, 2048, 3072, 4096, 8192}

func container(name string, cpu, mem int) map[string]any {
	return map[string]any{"name": name, "image": "registry.example/app:1",
		"resources": map[string]any{"requests": map[string]any{"cpu": fmt.Sprintf("%dm", cpu), "memory": fmt.Sprintf("%dMi", mem)}}}
}

func selector(app string) map[string]any {
	return map[string]any{"matchLabels": map[string]any{"app": app}}
}

// constraints adds random scheduling constraints to a pod spec and returns the feature tags it
// used. app is the pod's own app label; others are apps it may refer to.
func constraints(r *rand.Rand, spec map[string]any, app string, others []string, pools []*pool, zones []string) []string {
	var feats []string
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	other := func() string {
		if len(others) == 0 || r.IntN(3) == 0 {
			return app
		}
		return pick(others)
	}
	var tainted []*pool
	for _, p := range pools {
		if p.Taint {
			tainted = append(tainted, p)
		}
	}
	if r.IntN(7) == 0 {
		ns := map[string]any{}
		switch r.IntN(5) {
		case 0:
			ns["example.com/family"] = pick([]string{"c", "m", "r"})
		case 1:
			ns["karpenter.sh/capacity-type"] = pick([]string{"spot", "on-demand"})
		case 2:
			ns["topology.kubernetes.io/zone"] = pick(zones)
		case 3:
			ns["kubernetes.io/arch"] = pick([]string{"amd64", "arm64"})
		case 4:
			ns["team"] = pools[r.IntN(len(pools))].Name
		}
		spec["nodeSelector"] = ns
		feats = append(feats, "nodeSelector")
	}
	aff := map[string]any{}
	if r.IntN(7) == 0 {
		terms := []any{map[string]any{"matchExpressions": []any{nodeExpr(r, zones)}}}
		if r.IntN(3) == 0 {
			terms = append(terms, map[string]any{"matchExpressions": []any{nodeExpr(r, zones)}})
			feats = append(feats, "nodeAffinity-OR")
		}
		aff["nodeAffinity"] = map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{"nodeSelectorTerms": terms}}
		feats = append(feats, "nodeAffinity-required")
	}
	if r.IntN(7) == 0 {
		na, _ := aff["nodeAffinity"].(map[string]any)
		if na == nil {
			na = map[string]any{}
			aff["nodeAffinity"] = na
		}
		na["preferredDuringSchedulingIgnoredDuringExecution"] = []any{map[string]any{"weight": 1 + r.IntN(100),
			"preference": map[string]any{"matchExpressions": []any{nodeExpr(r, zones)}}}}
		feats = append(feats, "nodeAffinity-preferred")
	}
	topo := func() (string, string) {
		if r.IntN(2) == 0 {
			return "kubernetes.io/hostname", "host"
		}
		return "topology.kubernetes.io/zone", "zone"
	}
	if r.IntN(7) == 0 {
		key, k := topo()
		term := map[string]any{"topologyKey": key, "labelSelector": selector(other())}
		if r.IntN(3) == 0 {
			aff["podAntiAffinity"] = map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{"weight": 50, "podAffinityTerm": term}}}
			feats = append(feats, "antiAffinity-preferred-"+k)
		} else {
			aff["podAntiAffinity"] = map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{term}}
			feats = append(feats, "antiAffinity-required-"+k)
		}
	}
	if r.IntN(9) == 0 {
		key, k := topo()
		term := map[string]any{"topologyKey": key, "labelSelector": selector(other())}
		if r.IntN(3) == 0 {
			aff["podAffinity"] = map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{"weight": 50, "podAffinityTerm": term}}}
			feats = append(feats, "affinity-preferred-"+k)
		} else {
			aff["podAffinity"] = map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{term}}
			feats = append(feats, "affinity-required-"+k)
		}
	}
	if len(aff) > 0 {
		spec["affinity"] = aff
	}
	if r.IntN(3) == 0 {
		var tscs []any
		seen := map[string]bool{}
		for range 1 + r.IntN(2) {
			key, k := "topology.kubernetes.io/zone", "zone"
			switch r.IntN(6) {
			case 0, 1:
				key, k = "kubernetes.io/hostname", "host"
			case 2:
				key, k = "karpenter.sh/capacity-type", "capacity-type"
			}
			tsc := map[string]any{"topologyKey": key, "maxSkew": 1 + r.IntN(2), "labelSelector": selector(app)}
			if r.IntN(8) == 0 {
				tsc["labelSelector"] = selector(other())
			}
			mode := "DoNotSchedule"
			if r.IntN(10) < 3 {
				mode = "ScheduleAnyway"
			} else if r.IntN(6) == 0 {
				tsc["minDomains"] = 2 + r.IntN(3)
				k += "-minDomains"
			}
			tsc["whenUnsatisfiable"] = mode
			if seen[key+mode] {
				continue // the API server rejects a second constraint with the same key and mode
			}
			seen[key+mode] = true
			tscs = append(tscs, tsc)
			feats = append(feats, "spread-"+k+"-"+mode)
		}
		spec["topologySpreadConstraints"] = tscs
	}
	var tols []any
	if len(tainted) > 0 && r.IntN(2) == 0 {
		if r.IntN(4) == 0 {
			tols = append(tols, map[string]any{"key": "team", "operator": "Exists"})
		} else {
			tols = append(tols, map[string]any{"key": "team", "operator": "Equal", "value": tainted[r.IntN(len(tainted))].Name, "effect": "NoSchedule"})
		}
		feats = append(feats, "tolerations")
	}
	if tols != nil {
		spec["tolerations"] = tols
	}
	if r.IntN(12) == 0 {
		cs := spec["containers"].([]any)
		cs[0].(map[string]any)["ports"] = []any{map[string]any{"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}}
		feats = append(feats, "hostPort")
	}
	return feats
}

func nodeExpr(r *rand.Rand, zones []string) map[string]any {
	switch r.IntN(4) {
	case 0:
		return req("topology.kubernetes.io/zone", "In", zones[r.IntN(len(zones))])
	case 1:
		return req("example.com/family", "NotIn", []string{"c", "m", "r"}[r.IntN(3)])
	case 2:
		return req("example.com/cpu", "Gt", []string{"2", "4", "8"}[r.IntN(3)])
	default:
		return req("karpenter.sh/capacity-type", "In", []string{"spot", "on-demand"}[r.IntN(2)])
	}
}

func podDoc(name, app string, spec map[string]any, extraMeta map[string]any) map[string]any {
	meta := map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"app": app}}
	for k, v := range extraMeta {
		meta[k] = v
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
}

func uniq(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}
