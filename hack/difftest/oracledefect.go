package main

// oracleDocs are the documents karpenter-disrupt is given for in: in's, plus, for every bound
// PersistentVolumeClaim, a copy of its PersistentVolume in the claim's namespace.
// karpenter-disrupt serves Karpenter from controller-runtime's fake client, which keys a
// cluster-scoped object by the namespace it is asked with, and Karpenter's volume topology asks
// for a pod's PersistentVolume with the pod's namespace (getPersistentVolumeRequirements): without
// the copy that Get fails and the oracle schedules the pod without its volume's zone, which a real
// API server (it ignores the namespace) and karpenter-plan's client never do. Everything else
// reads the volume without a namespace and finds the original. Plan inputs are given as they are.
func oracleDocs(in *input) []map[string]any {
	if in.Kind != "disrupt" {
		return in.Docs
	}
	pvs := map[string]map[string]any{}
	for _, d := range in.Docs {
		if d["kind"] == "PersistentVolume" {
			if meta, ok := d["metadata"].(map[string]any); ok {
				if name, ok := meta["name"].(string); ok {
					pvs[name] = d
				}
			}
		}
	}
	docs := in.Docs
	seen := map[[2]string]bool{}
	for _, d := range in.Docs {
		if d["kind"] != "PersistentVolumeClaim" {
			continue
		}
		meta, _ := d["metadata"].(map[string]any)
		spec, _ := d["spec"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		if ns == "" {
			ns = "default"
		}
		vol, _ := spec["volumeName"].(string)
		pv := pvs[vol]
		if pv == nil || seen[[2]string{ns, vol}] {
			continue
		}
		seen[[2]string{ns, vol}] = true
		c := deepCopy(pv)
		c["metadata"].(map[string]any)["namespace"] = ns
		docs = append(docs[:len(docs):len(docs)], c)
	}
	return docs
}
