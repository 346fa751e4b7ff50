package main

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// node is a generated Node (and, when Claim is set, its NodeClaim).
type node struct {
	Name         string
	Pool         *pool
	Type         *instanceType
	Offer        offer
	Created      time.Time
	Initialized  bool
	DoNotDisrupt bool
	Deleting     bool
	NotReady     bool
	Claim        bool   // write an explicit NodeClaim
	ClaimHash    string // its nodepool-hash annotation
	InFlight     bool   // a NodeClaim without a Node yet
	Disrupted    bool   // carries karpenter.sh/disrupted:NoSchedule (a command that did not finish)
	UsedCPU      int    // millicores requested by bound pods
	UsedMem      int    // MiB
	UsedPods     int
}

// pickNode chooses a type and offering the pool allows; with drift it may pick a type the
// pool does not allow (RequirementsDrifted). Returns nil when nothing fits.
func pickNode(r *rand.Rand, p *pool, types []*instanceType, drift bool) (*instanceType, offer, bool) {
	var cands []*instanceType
	for _, t := range types {
		if drift || p.allowsType(t) {
			cands = append(cands, t)
		}
	}
	for range 10 {
		if len(cands) == 0 {
			break
		}
		t := cands[r.IntN(len(cands))]
		var offs []offer
		for _, o := range t.Offers {
			if drift || p.allowsOffer(o) {
				offs = append(offs, o)
			}
		}
		if len(offs) > 0 {
			return t, offs[r.IntN(len(offs))], true
		}
	}
	return nil, offer{}, false
}

func (n *node) labels() map[string]any {
	l := n.Type.labels()
	l["karpenter.sh/nodepool"] = n.Pool.Name
	l["node.kubernetes.io/instance-type"] = n.Type.Name
	l["topology.kubernetes.io/zone"] = n.Offer.Zone
	l["karpenter.sh/capacity-type"] = n.Offer.CapacityType
	l["kubernetes.io/hostname"] = n.Name
	l["karpenter.sh/registered"] = "true"
	if n.Initialized {
		l["karpenter.sh/initialized"] = "true"
	}
	for k, v := range n.Pool.Labels {
		l[k] = v
	}
	return l
}

func (n *node) resources() map[string]any {
	cpu, mem := n.Type.allocatable()
	return map[string]any{"cpu": fmt.Sprintf("%dm", cpu), "memory": fmt.Sprintf("%dMi", mem), "pods": fmt.Sprint(n.Type.Pods)}
}

func (n *node) providerID() string { return fmt.Sprintf("fake:///%s/%s", n.Offer.Zone, n.Name) }

func (n *node) doc() map[string]any {
	meta := map[string]any{"name": n.Name, "labels": n.labels(), "creationTimestamp": ts(n.Created)}
	if n.DoNotDisrupt {
		meta["annotations"] = map[string]any{"karpenter.sh/do-not-disrupt": "true"}
	}
	if n.Deleting {
		meta["deletionTimestamp"] = ts(n.Created.Add(time.Hour))
		meta["finalizers"] = []any{"karpenter.sh/termination"}
	}
	spec := map[string]any{"providerID": n.providerID()}
	var taints []any
	if n.Pool.Taint {
		taints = append(taints, n.Pool.taint())
	}
	if n.Pool.StartupTaint && !n.Initialized {
		taints = append(taints, map[string]any{"key": "example.com/agent-not-ready", "effect": "NoSchedule"})
	}
	if n.Disrupted {
		taints = append(taints, map[string]any{"key": "karpenter.sh/disrupted", "effect": "NoSchedule"})
	}
	if taints != nil {
		spec["taints"] = taints
	}
	ready := "True"
	if n.NotReady {
		ready = "False"
	}
	capacity := map[string]any{"cpu": fmt.Sprint(n.Type.CPU), "memory": fmt.Sprintf("%dGi", n.Type.MemGi), "pods": fmt.Sprint(n.Type.Pods)}
	return map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": meta, "spec": spec,
		"status": map[string]any{"capacity": capacity, "allocatable": n.resources(),
			"conditions": []any{map[string]any{"type": "Ready", "status": ready}}}}
}

// claimDoc is the node's NodeClaim (for an in-flight claim: one not yet registered).
func (n *node) claimDoc() map[string]any {
	labels := n.labels()
	delete(labels, "kubernetes.io/hostname")
	delete(labels, "karpenter.sh/registered")
	delete(labels, "karpenter.sh/initialized")
	meta := map[string]any{"name": n.Name, "labels": labels, "creationTimestamp": ts(n.Created)}
	if n.Deleting {
		// Karpenter deletes the NodeClaim first; a deleting Node without a claim is the other shape.
		meta["deletionTimestamp"] = ts(n.Created.Add(time.Hour))
		meta["finalizers"] = []any{"karpenter.sh/termination"}
	}
	if n.ClaimHash != "" {
		meta["annotations"] = map[string]any{"karpenter.sh/nodepool-hash": n.ClaimHash, "karpenter.sh/nodepool-hash-version": "v3"}
	}
	spec := map[string]any{
		"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
		"requirements": []any{
			req("node.kubernetes.io/instance-type", "In", n.Type.Name),
			req("topology.kubernetes.io/zone", "In", n.Offer.Zone),
			req("karpenter.sh/capacity-type", "In", n.Offer.CapacityType),
			req("karpenter.sh/nodepool", "In", n.Pool.Name),
		},
		"resources": map[string]any{"requests": map[string]any{"cpu": "100m"}},
	}
	if n.Pool.ExpireAfter != "" {
		spec["expireAfter"] = n.Pool.ExpireAfter
	}
	if n.Pool.TGP != "" {
		spec["terminationGracePeriod"] = n.Pool.TGP
	}
	if n.Pool.Taint {
		spec["taints"] = []any{n.Pool.taint()}
	}
	if n.Pool.StartupTaint {
		spec["startupTaints"] = []any{map[string]any{"key": "example.com/agent-not-ready", "effect": "NoSchedule"}}
	}
	status := map[string]any{"providerID": n.providerID(),
		"capacity":    map[string]any{"cpu": fmt.Sprint(n.Type.CPU), "memory": fmt.Sprintf("%dGi", n.Type.MemGi), "pods": fmt.Sprint(n.Type.Pods)},
		"allocatable": n.resources()}
	conds := []any{cond("Launched", n.Created)}
	if !n.InFlight {
		status["nodeName"] = n.Name
		conds = append(conds, cond("Registered", n.Created))
		if n.Initialized {
			conds = append(conds, cond("Initialized", n.Created))
		}
	}
	status["conditions"] = conds
	return map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": meta, "spec": spec, "status": status}
}

func cond(t string, at time.Time) map[string]any {
	return map[string]any{"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": ts(at)}
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }
