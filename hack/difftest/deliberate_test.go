package main

import "testing"

// TestWithoutClaimlessDeletionsKeepsTheNodeClosed: dropping a claimless Node's deletion keeps
// it closed to pods as Karpenter has it (disrupt:995193's node-08): its leftover
// karpenter.sh/disrupted taint is renamed, not lifted; a claimed Node is left as it is.
func TestWithoutClaimlessDeletionsKeepsTheNodeClosed(t *testing.T) {
	node := func(name string) map[string]any {
		return map[string]any{"kind": "Node",
			"metadata": map[string]any{"name": name, "deletionTimestamp": "2026-01-01T15:44:00Z", "finalizers": []any{"karpenter.sh/termination"}},
			"spec":     map[string]any{"taints": []any{map[string]any{"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}}}}
	}
	claim := map[string]any{"kind": "NodeClaim", "metadata": map[string]any{"name": "b"}, "status": map[string]any{"nodeName": "b"}}
	in := &input{Kind: "disrupt", Docs: []map[string]any{node("a"), node("b"), claim}}
	c, changed := withoutClaimlessDeletions(in)
	if !changed {
		t.Fatal("nothing changed")
	}
	a := c.Docs[0]
	if meta := a["metadata"].(map[string]any); meta["deletionTimestamp"] != nil || meta["finalizers"] != nil {
		t.Errorf("a keeps its deletion: %v", meta)
	}
	if key := a["spec"].(map[string]any)["taints"].([]any)[0].(map[string]any)["key"]; key != "difftest.nodeplan/deleting" {
		t.Errorf("a's taint is %v, want difftest.nodeplan/deleting", key)
	}
	b := c.Docs[1]
	if b["metadata"].(map[string]any)["deletionTimestamp"] == nil {
		t.Error("claimed b lost its deletion")
	}
	if key := b["spec"].(map[string]any)["taints"].([]any)[0].(map[string]any)["key"]; key != "karpenter.sh/disrupted" {
		t.Errorf("b's taint is %v, want karpenter.sh/disrupted", key)
	}
	if key := in.Docs[0]["spec"].(map[string]any)["taints"].([]any)[0].(map[string]any)["key"]; key != "karpenter.sh/disrupted" {
		t.Error("the input itself changed")
	}
}
