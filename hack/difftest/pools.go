package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// pool is a generated NodePool; the same model answers which types and offerings it allows.
type pool struct {
	Name          string
	Weight        int // 0: none
	CapacityTypes []string
	Families      []string // nil: any
	GenGt         int      // 0: none
	CPULt         int      // 0: none
	Arch          string   // "": any
	Zones         []string // nil: any
	Taint         bool     // team=<name>:NoSchedule
	StartupTaint  bool
	Labels        map[string]string
	LimitCPU      int // 0: none
	LimitNodes    int // 0: none
	LimitMemGi    int // 0: none

	// shapes beyond the base generator (shapes.go)
	ExcludeFamily string         // example.com/family NotIn [it]
	GPU           int            // -1: example.com/gpu-name DoesNotExist, 1: Exists, 0: either
	GPUTaint      bool           // nvidia.com/gpu=true:NoSchedule
	PreferTaint   bool           // example.com/spare=true:PreferNoSchedule
	MinValues     map[string]int // key -> minValues on that key's requirement
	ExtraReqs     []any          // requirements that restrict no type (Exists, vacuous Lt)
	NoExecute     bool           // dedicated=<name>:NoExecute (moreshapes.go)

	// disruption
	Policy           string
	ConsolidateAfter string
	ExpireAfter      string
	Budgets          []any
	Hash             string
	TGP              string // terminationGracePeriod; "": none
}

func (p *pool) allowsType(t *instanceType) bool {
	if p.Families != nil && !slices.Contains(p.Families, t.Family) {
		return false
	}
	if p.GenGt > 0 && t.Gen <= p.GenGt {
		return false
	}
	if p.CPULt > 0 && t.CPU >= p.CPULt {
		return false
	}
	if p.Arch != "" && t.Arch != p.Arch {
		return false
	}
	if p.ExcludeFamily == t.Family || (p.GPU < 0 && t.GPUs > 0) || (p.GPU > 0 && t.GPUs == 0) {
		return false
	}
	return true
}

func (p *pool) allowsOffer(o offer) bool {
	return slices.Contains(p.CapacityTypes, o.CapacityType) && (p.Zones == nil || slices.Contains(p.Zones, o.Zone))
}

func genPool(r *rand.Rand, i int, types []*instanceType) *pool {
	p := &pool{Name: fmt.Sprintf("pool-%d", i), Hash: fmt.Sprint(1000 + i)}
	if r.IntN(5) < 3 {
		p.Weight = 1 + r.IntN(100)
	}
	p.CapacityTypes = [][]string{{"on-demand"}, {"spot"}, {"spot", "on-demand"}}[r.IntN(3)]
	if r.IntN(2) == 0 {
		for _, f := range families {
			if r.IntN(2) == 0 {
				p.Families = append(p.Families, f.name)
			}
		}
		if len(p.Families) == 0 {
			p.Families = []string{families[r.IntN(len(families))].name}
		}
	}
	if r.IntN(5) == 0 {
		p.GenGt = 5
	}
	if r.IntN(5) == 0 {
		p.CPULt = []int{9, 17}[r.IntN(2)]
	}
	if r.IntN(4) == 0 {
		p.Arch = "amd64"
	}
	if r.IntN(7) == 0 {
		p.Zones = []string{allZones[0], allZones[1+r.IntN(2)]}
	}
	p.Taint = i > 0 && r.IntN(3) == 0
	p.StartupTaint = r.IntN(10) == 0
	if p.Taint || r.IntN(3) == 0 {
		p.Labels = map[string]string{"team": p.Name}
	}
	if r.IntN(4) == 0 {
		p.LimitCPU = 8 + 4*r.IntN(12)
	}
	if r.IntN(6) == 0 {
		p.LimitNodes = 1 + r.IntN(4)
	}
	p.Policy = []string{"WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilized", "WhenEmpty"}[r.IntN(3)]
	p.ConsolidateAfter = []string{"0s", "0s", "30s", "10m", "1h", "Never"}[r.IntN(6)]
	p.ExpireAfter = []string{"720h", "Never", "24h", "168h"}[r.IntN(4)]
	switch r.IntN(7) {
	case 0:
		p.Budgets = []any{map[string]any{"nodes": "10%"}}
	case 1:
		p.Budgets = []any{map[string]any{"nodes": "100%"}}
	case 2:
		p.Budgets = []any{map[string]any{"nodes": fmt.Sprint(r.IntN(3))}}
	case 3:
		p.Budgets = []any{map[string]any{"nodes": "50%", "reasons": []any{"Drifted", "Underutilized"}}, map[string]any{"nodes": "1", "reasons": []any{"Empty"}}}
	case 4:
		p.Budgets = []any{map[string]any{"nodes": "0", "schedule": "@daily", "duration": "10h"}, map[string]any{"nodes": "100%"}}
	case 5:
		p.Budgets = []any{map[string]any{"nodes": "0", "reasons": []any{"Underutilized"}}, map[string]any{"nodes": "100%"}}
	}
	// A pool that allows nothing in the catalog is uninteresting; widen it.
	if !slices.ContainsFunc(types, p.allowsType) {
		p.Families, p.GenGt, p.CPULt, p.Arch = nil, 0, 0, ""
	}
	return p
}

func (p *pool) doc(withDisruption bool) map[string]any {
	reqs := []any{req("karpenter.sh/capacity-type", "In", p.CapacityTypes...)}
	if p.Families != nil {
		reqs = append(reqs, req("example.com/family", "In", p.Families...))
	}
	if p.GenGt > 0 {
		reqs = append(reqs, req("example.com/gen", "Gt", fmt.Sprint(p.GenGt)))
	}
	if p.CPULt > 0 {
		reqs = append(reqs, req("example.com/cpu", "Lt", fmt.Sprint(p.CPULt)))
	}
	if p.Arch != "" {
		reqs = append(reqs, req("kubernetes.io/arch", "In", p.Arch))
	}
	if p.Zones != nil {
		reqs = append(reqs, req("topology.kubernetes.io/zone", "In", p.Zones...))
	}
	if p.ExcludeFamily != "" {
		reqs = append(reqs, req("example.com/family", "NotIn", p.ExcludeFamily))
	}
	switch p.GPU {
	case -1:
		reqs = append(reqs, req("example.com/gpu-name", "DoesNotExist"))
	case 1:
		reqs = append(reqs, req("example.com/gpu-name", "Exists"))
	}
	reqs = append(reqs, p.ExtraReqs...)
	for _, rq := range reqs {
		m := rq.(map[string]any)
		if n := p.MinValues[m["key"].(string)]; n > 0 && m["operator"] != "DoesNotExist" {
			m["minValues"] = n
		}
	}
	tspec := map[string]any{
		"requirements": reqs,
		"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
	}
	var taints []any
	if p.Taint {
		taints = append(taints, p.taint())
	}
	if p.GPUTaint {
		taints = append(taints, map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"})
	}
	if p.PreferTaint {
		taints = append(taints, map[string]any{"key": "example.com/spare", "value": "true", "effect": "PreferNoSchedule"})
	}
	if p.NoExecute {
		taints = append(taints, p.noExecuteTaint())
	}
	if taints != nil {
		tspec["taints"] = taints
	}
	if p.StartupTaint {
		tspec["startupTaints"] = []any{map[string]any{"key": "example.com/agent-not-ready", "effect": "NoSchedule"}}
	}
	tmpl := map[string]any{"spec": tspec}
	if p.Labels != nil {
		tmpl["metadata"] = map[string]any{"labels": strMap(p.Labels)}
	}
	spec := map[string]any{"template": tmpl}
	if p.Weight > 0 {
		spec["weight"] = p.Weight
	}
	limits := map[string]any{}
	if p.LimitCPU > 0 {
		limits["cpu"] = fmt.Sprint(p.LimitCPU)
	}
	if p.LimitNodes > 0 {
		limits["nodes"] = fmt.Sprint(p.LimitNodes)
	}
	if p.LimitMemGi > 0 {
		limits["memory"] = fmt.Sprintf("%dGi", p.LimitMemGi)
	}
	if len(limits) > 0 {
		spec["limits"] = limits
	}
	meta := map[string]any{"name": p.Name}
	if withDisruption {
		tspec["expireAfter"] = p.ExpireAfter
		if p.TGP != "" {
			tspec["terminationGracePeriod"] = p.TGP
		}
		d := map[string]any{"consolidationPolicy": p.Policy, "consolidateAfter": p.ConsolidateAfter}
		if p.Budgets != nil {
			d["budgets"] = p.Budgets
		}
		spec["disruption"] = d
		meta["annotations"] = map[string]any{"karpenter.sh/nodepool-hash": p.Hash, "karpenter.sh/nodepool-hash-version": "v3"}
	} else {
		spec["disruption"] = map[string]any{"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s"}
	}
	return map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": meta, "spec": spec}
}

func (p *pool) taint() map[string]any {
	return map[string]any{"key": "team", "value": p.Name, "effect": "NoSchedule"}
}

func req(key, op string, values ...string) map[string]any {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return map[string]any{"key": key, "operator": op, "values": vs}
}

func strMap(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}
