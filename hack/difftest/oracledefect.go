package main

import (
	"cmp"
	"slices"
)

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

// oracleCatalog is the catalog karpenter-disrupt is given for in, or nil when it is in's own:
// for a disrupt input, every type's offerings with the cheapest available one first. The
// oracle's fake cloud provider launches a NodeClaim (one the provisioner creates before the
// disruption passes, or a replacement) on the first compatible available offering as listed,
// where a real cloud launches the cheapest (EC2 Fleet's lowest-price and price-capacity-optimized
// strategies) and nodeplan assumes it does. Listed as generated, disrupt:998637's provisioned
// NodeClaim took c6g-4x8's first offering, on-demand in zone a at $0.1119/h, not its spot
// offering in zone c at $0.0359/h; a zone-a volume's pod then had a place on it, so Karpenter
// blocked node-02's drift, which it replaces once the catalog lists the spot offering first.
// Offerings of one price keep their order, so the oracle's ties stay as they were.
func oracleCatalog(in *input) map[string]any {
	if in.Kind != "disrupt" || in.Catalog == nil {
		return nil
	}
	c := deepCopy(in.Catalog)
	types, _ := c["instanceTypes"].([]any)
	for _, t := range types {
		m, _ := t.(map[string]any)
		offs, _ := m["offerings"].([]any)
		slices.SortStableFunc(offs, func(a, b any) int {
			return cmp.Or(cmpBool(!offerAvailable(a), !offerAvailable(b)), cmp.Compare(offerPrice(a), offerPrice(b)))
		})
	}
	return c
}

func offerAvailable(o any) bool {
	m, _ := o.(map[string]any)
	avail, listed := m["available"].(bool)
	return !listed || avail
}

func offerPrice(o any) float64 {
	m, _ := o.(map[string]any)
	p, _ := m["price"].(float64)
	return p
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
