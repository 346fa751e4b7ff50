package main

// oraclePVMatches says whether nodeplan matches one of the oracle runs once every
// PersistentVolume loses its nodeAffinity. karpenter-disrupt serves Karpenter from
// controller-runtime's fake client, which keys a cluster-scoped object by the namespace it
// is asked with; Karpenter's volume topology asks for a pod's PersistentVolume with the pod's
// namespace, so there the Get fails, and the pod is scheduled without its volume's zone (a
// real API server ignores that namespace, and karpenter-plan's client does the same). When
// that is the whole difference, the divergence is the oracle's, not nodeplan's.
func (cfg *config) oraclePVMatches(in *input, oracle []result) bool {
	return cfg.disruptMatchesWith(in, oracle, "nopvaff", withoutPVNodeAffinity)
}

// withoutPVNodeAffinity is in with spec.nodeAffinity dropped from every PersistentVolume.
func withoutPVNodeAffinity(in *input) (*input, bool) {
	c := in.clone()
	changed := false
	for _, d := range c.Docs {
		if d["kind"] == "PersistentVolume" {
			changed = deletePath(d, []any{"spec", "nodeAffinity"}) || changed
		}
	}
	return c, changed
}
