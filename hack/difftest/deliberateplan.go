package main

import (
	"fmt"
	"path/filepath"
	"time"
)

// startupTaintMatches says whether nodeplan's plan matches one of cfg.runs oracle runs on the
// input with the startup taints taken off every uninitialized managed Node that no NodeClaim
// of the input names: nodeplan deliberately reads such a Node as if its claim were there, so
// its NodePool's startup taints do not keep pods off it (README, "deliberately does better");
// the oracle reads it as unmanaged and the taint as a taint. When that is the whole
// difference the divergence is deliberate.
func (cfg *config) startupTaintMatches(in *input, np result) bool {
	c, changed := withoutClaimlessStartupTaints(in)
	if !changed {
		return false
	}
	dir := filepath.Join(cfg.work, fmt.Sprintf("%s-%d-nostartup-%d", in.Kind, in.Seed, time.Now().UnixNano()))
	if err := c.write(dir); err != nil {
		return false
	}
	w, err := loadWorld(dir)
	if err != nil {
		return false
	}
	o, err := parsePlan(np.Stdout)
	if err != nil {
		return false
	}
	sum, viol := summarizePlan(o, w.nodes), w.validatePlan(o)
	oracle := filepath.Join(cfg.oracleDir, "karpenter-"+in.Kind)
	for range max(1, cfg.runs) {
		or := run(oracle, c.args(dir), cfg.timeout)
		oo, err := parsePlan(or.Stdout)
		if or.Exit != 0 || err != nil {
			return false
		}
		if v := comparePlan(sum, summarizePlan(oo, w.nodes), viol, w.validatePlan(oo)); v.Match || v.Equivalent {
			return true
		}
	}
	return false
}

// withoutClaimlessStartupTaints is in without its NodePools' startup taints on the
// uninitialized Nodes that no NodeClaim names.
func withoutClaimlessStartupTaints(in *input) (*input, bool) {
	claimed := claimedNodes(in)
	startup := map[string]map[string]bool{} // pool -> taint keys
	for _, d := range in.Docs {
		if d["kind"] != "NodePool" {
			continue
		}
		name, _ := d["metadata"].(map[string]any)["name"].(string)
		spec, _ := d["spec"].(map[string]any)
		tmpl, _ := spec["template"].(map[string]any)
		tspec, _ := tmpl["spec"].(map[string]any)
		ts, _ := tspec["startupTaints"].([]any)
		for _, t := range ts {
			if startup[name] == nil {
				startup[name] = map[string]bool{}
			}
			key, _ := t.(map[string]any)["key"].(string)
			startup[name][key] = true
		}
	}
	c := in.clone()
	changed := false
	for _, d := range c.Docs {
		meta, _ := d["metadata"].(map[string]any)
		if d["kind"] != "Node" || meta == nil {
			continue
		}
		labels, _ := meta["labels"].(map[string]any)
		name, _ := meta["name"].(string)
		pool, _ := labels["karpenter.sh/nodepool"].(string)
		if claimed[name] || labels["karpenter.sh/initialized"] == "true" || startup[pool] == nil {
			continue
		}
		spec, _ := d["spec"].(map[string]any)
		ts, _ := spec["taints"].([]any)
		var kept []any
		for _, t := range ts {
			if key, _ := t.(map[string]any)["key"].(string); startup[pool][key] {
				changed = true
				continue
			}
			kept = append(kept, t)
		}
		if kept == nil {
			delete(spec, "taints")
		} else {
			spec["taints"] = kept
		}
	}
	return c, changed
}

// ignorePolicyMatches says whether nodeplan, run on the input with every spread constraint's
// `nodeAffinityPolicy: Ignore` dropped (Honor, the default), matches one of the oracle runs
// on the input as given: under Ignore nodeplan deliberately takes a spread's minimum over every
// domain, where Karpenter takes it over the pod's own (README, "deliberately does better"),
// and that is Honor's minimum. When that is the whole difference the divergence is deliberate.
func (cfg *config) ignorePolicyMatches(in *input, w *world, oracle []result) bool {
	c, changed := withoutIgnorePolicy(in)
	if !changed {
		return false
	}
	dir := filepath.Join(cfg.work, fmt.Sprintf("%s-%d-honor-%d", in.Kind, in.Seed, time.Now().UnixNano()))
	if err := c.write(dir); err != nil {
		return false
	}
	res := run(cfg.nodeplan, append(c.args(dir), cfg.npArgs...), cfg.timeout)
	o, err := parsePlan(res.Stdout)
	if res.Exit != 0 || err != nil {
		return false
	}
	return planMatchesAny(o, w, oracle)
}

// withoutIgnorePolicy is in without `nodeAffinityPolicy: Ignore` on any spread constraint of a
// pod or workload template.
func withoutIgnorePolicy(in *input) (*input, bool) {
	c := in.clone()
	changed := false
	for _, d := range c.Docs {
		spec, _ := d["spec"].(map[string]any)
		if t, ok := spec["template"].(map[string]any); ok && d["kind"] != "NodePool" {
			spec, _ = t["spec"].(map[string]any)
		}
		tscs, _ := spec["topologySpreadConstraints"].([]any)
		for _, t := range tscs {
			if m := t.(map[string]any); m["nodeAffinityPolicy"] == "Ignore" {
				delete(m, "nodeAffinityPolicy")
				changed = true
			}
		}
	}
	return c, changed
}
