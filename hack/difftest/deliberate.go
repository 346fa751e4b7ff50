package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// deletingNodeMatches says whether nodeplan matches one of the oracle runs once every Node
// that has a deletionTimestamp but no NodeClaim in the input loses it: nodeplan deliberately
// reads such a Node as deleting, the oracle gives it a claim that is not (README, "deliberately
// does better"), so when that is the whole difference the divergence is deliberate.
func (cfg *config) deletingNodeMatches(in *input, oracle []result) bool {
	return cfg.disruptMatchesWith(in, oracle, "nodel", withoutClaimlessDeletions)
}

// mirrorAnnotationMatches says whether nodeplan matches one of the oracle runs once every pod
// with the kubernetes.io/config.mirror annotation but no Node owner loses the annotation:
// nodeplan deliberately reads such a pod as a mirror pod, Karpenter reads the owner alone
// (README, `TestIsReschedulable`).
func (cfg *config) mirrorAnnotationMatches(in *input, oracle []result) bool {
	return cfg.disruptMatchesWith(in, oracle, "nomirror", withoutOwnerlessMirrorAnnotations)
}

// deletingNodeAndMirrorMatches is deletingNodeMatches and mirrorAnnotationMatches at once: an
// input can meet both deliberate readings (disrupt seed 880215), and neither alone then
// accounts for the whole difference.
func (cfg *config) deletingNodeAndMirrorMatches(in *input, oracle []result) bool {
	return cfg.disruptMatchesWith(in, oracle, "nodelmirror", func(in *input) (*input, bool) {
		a, deleted := withoutClaimlessDeletions(in)
		b, mirrored := withoutOwnerlessMirrorAnnotations(a)
		return b, deleted && mirrored
	})
}

// disruptMatchesWith runs nodeplan on in changed by change (when it changes anything) and says
// whether that matches one of the oracle runs on in.
func (cfg *config) disruptMatchesWith(in *input, oracle []result, tag string, change func(*input) (*input, bool)) bool {
	return cfg.disruptMatchesRun(in, oracle, tag, change, cfg.npArgs)
}

// defaultPackingMatches says whether nodeplan matches one of the oracle runs with
// --packing Karpenter, on the input itself or read without the deliberate differences above:
// the default packing's own rules in disrupt's simulations (README's differences, such as a
// spread's minimum over the domains a node can be in, and its counting of an open NodeClaim
// where it launches) are then the whole difference. It names the input changes it needed
// ("" for none); ok is false when none is enough.
func (cfg *config) defaultPackingMatches(in *input, oracle []result) (changes string, ok bool) {
	if slices.Contains(cfg.npArgs, "--packing") {
		return "", false
	}
	args := append(cfg.npArgs[:len(cfg.npArgs):len(cfg.npArgs)], "--packing", "Karpenter")
	asIs := func(in *input) (*input, bool) { return in, true }
	both := func(in *input) (*input, bool) {
		a, deleted := withoutClaimlessDeletions(in)
		b, mirrored := withoutOwnerlessMirrorAnnotations(a)
		return b, deleted || mirrored
	}
	for _, c := range []struct {
		name   string
		change func(*input) (*input, bool)
	}{{"", asIs}, {"deleting-node", withoutClaimlessDeletions}, {"mirror-annotation", withoutOwnerlessMirrorAnnotations}, {"deleting-node+mirror-annotation", both}} {
		if cfg.disruptMatchesRun(in, oracle, "packing", c.change, args) {
			return c.name, true
		}
	}
	return "", false
}

// disruptMatchesRun is disruptMatchesWith with these nodeplan arguments.
func (cfg *config) disruptMatchesRun(in *input, oracle []result, tag string, change func(*input) (*input, bool), args []string) bool {
	c, changed := change(in)
	if !changed {
		return false
	}
	dir := filepath.Join(cfg.work, fmt.Sprintf("%s-%d-%s-%d", in.Kind, in.Seed, tag, time.Now().UnixNano()))
	if err := c.write(dir); err != nil {
		return false
	}
	res := run(cfg.nodeplan, append(c.args(dir), args...), cfg.timeout)
	if res.Exit != 0 {
		return false
	}
	o, err := parseDisrupt(res.Stdout)
	if err != nil {
		return false
	}
	np := summarizeDisrupt(o)
	for _, or := range oracle {
		oo, err := parseDisrupt(or.Stdout)
		if err != nil {
			continue
		}
		if compareDisrupt(np, summarizeDisrupt(oo)).Match {
			return true
		}
	}
	return false
}

// withoutOwnerlessMirrorAnnotations is in without the kubernetes.io/config.mirror annotation on
// the pods no Node owns.
func withoutOwnerlessMirrorAnnotations(in *input) (*input, bool) {
	c := in.clone()
	changed := false
	for _, d := range c.Docs {
		meta, _ := d["metadata"].(map[string]any)
		ann, _ := meta["annotations"].(map[string]any)
		if d["kind"] != "Pod" || ann["kubernetes.io/config.mirror"] == nil {
			continue
		}
		owned := false
		refs, _ := meta["ownerReferences"].([]any)
		for _, r := range refs {
			owned = owned || r.(map[string]any)["kind"] == "Node"
		}
		if !owned {
			delete(ann, "kubernetes.io/config.mirror")
			changed = true
		}
	}
	return c, changed
}

// claimedNodes are the Nodes the input's NodeClaims name in status.nodeName.
func claimedNodes(in *input) map[string]bool {
	claimed := map[string]bool{}
	for _, d := range in.Docs {
		if d["kind"] == "NodeClaim" {
			if st, ok := d["status"].(map[string]any); ok {
				if n, ok := st["nodeName"].(string); ok {
					claimed[n] = true
				}
			}
		}
	}
	return claimed
}

// withoutClaimlessDeletions is in with the deletionTimestamp (and finalizers) dropped from
// every Node that no NodeClaim of the input names. Such a Node's leftover
// karpenter.sh/disrupted taint becomes difftest.nodeplan/deleting (same effect): Karpenter
// leaves the taint on a Node with a deletionTimestamp (it lifts only the non-deleting ones'),
// so the Node stays closed to pods; with the deletion dropped alone nodeplan, like Karpenter,
// would lift it and send pods there (difftest disrupt:995193: node-08 took node-02's pod,
// multi-node [node-02 node-06] ->0 where Karpenter's ->1).
func withoutClaimlessDeletions(in *input) (*input, bool) {
	claimed := claimedNodes(in)
	c := in.clone()
	changed := false
	for _, d := range c.Docs {
		meta, _ := d["metadata"].(map[string]any)
		if d["kind"] != "Node" || meta == nil || meta["deletionTimestamp"] == nil {
			continue
		}
		if name, _ := meta["name"].(string); !claimed[name] {
			delete(meta, "deletionTimestamp")
			delete(meta, "finalizers")
			closeDisruptedTaint(d)
			changed = true
		}
	}
	return c, changed
}

// closeDisruptedTaint renames a Node document's karpenter.sh/disrupted taint to
// difftest.nodeplan/deleting, which no pod tolerates and neither tool lifts.
func closeDisruptedTaint(node map[string]any) {
	spec, _ := node["spec"].(map[string]any)
	taints, _ := spec["taints"].([]any)
	for _, t := range taints {
		if m, ok := t.(map[string]any); ok && m["key"] == "karpenter.sh/disrupted" {
			m["key"] = "difftest.nodeplan/deleting"
		}
	}
}
