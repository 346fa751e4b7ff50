package scheduling

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// NodeClaimFor is the karpenter.sh/v1 NodeClaim named name that launches the planned claim c
// of NodePool pool (nil: a NodePool the caller does not know; the claim then has no
// nodeClassRef, expireAfter, terminationGracePeriod, annotations or owner): what
// CloudProvider.Create takes. Labels, taints and startup taints are the plan's, the
// requirements its narrowed requirements (incl. the instance-type options), the requests its
// pods' plus DaemonSet overhead. The claim shares maps and slices with c and pool.
func NodeClaimFor(c *NodeClaim, name string, pool *v1.NodePool) *v1.NodeClaim {
	nc := &v1.NodeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.APIVersion, Kind: v1.KindNodeClaim},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: c.Labels},
		Spec: v1.NodeClaimSpec{
			Taints:        c.Taints,
			StartupTaints: c.StartupTaints,
			Requirements:  c.Requirements.NodeSelectorRequirements(),
			Resources:     v1.ResourceRequirements{Requests: c.Requests},
		},
	}
	if pool != nil {
		t := &pool.Spec.Template
		nc.Spec.NodeClassRef = t.Spec.NodeClassRef
		nc.Spec.ExpireAfter = t.Spec.ExpireAfter
		nc.Spec.TerminationGracePeriod = t.Spec.TerminationGracePeriod
		if len(t.ObjectMeta.Annotations) > 0 {
			nc.Annotations = t.ObjectMeta.Annotations
		}
		nc.OwnerReferences = []metav1.OwnerReference{{APIVersion: v1.APIVersion, Kind: v1.KindNodePool, Name: pool.Name, UID: pool.UID}}
	}
	return nc
}

// NodeClaimsFor is NodeClaimFor of each planned claim (a Solve result's NewNodeClaims, a
// disruption command's Replacements), in order, named by name(its NodePool) and made with
// the snapshot's NodePool of that name: what cloudprovider.Launch creates. name is called
// once per claim, in order (fake.Names.Next is one). A nil snapshot knows no NodePool (see
// NodeClaimFor).
func NodeClaimsFor(snap *cluster.Snapshot, planned []*NodeClaim, name func(nodePool string) string) []*v1.NodeClaim {
	out := make([]*v1.NodeClaim, len(planned))
	for i, c := range planned {
		var pool *v1.NodePool
		if snap != nil {
			pool = snap.NodePool(c.NodePool)
		}
		out[i] = NodeClaimFor(c, name(c.NodePool), pool)
	}
	return out
}

// Apply is snap after res (a Solve of snap) was carried out: launched[i] is what
// CloudProvider.Create returned for res.NewNodeClaims[i] (nil: not launched, its pods stay
// where they were), added in flight with that claim's pods bound to it; the pods placed on
// existing nodes and in-flight claims (Bindings) are bound there. A bound pod is a shallow
// copy with spec.nodeName set to the node's BindName. The launched claims' Nodes register
// with cluster.Snapshot.WithNodesFor (a simulated cloud) or WithNodes (the Nodes a real
// cluster reports). Errors are *cluster.InvalidInputError: a nil snapshot or result, launched
// not aligned with res.NewNodeClaims (InputMismatch), a binding to a node the snapshot does
// not hold (InputNotFound), and Carry's.
func Apply(snap *cluster.Snapshot, res *Result, launched []*v1.NodeClaim) (*cluster.Snapshot, error) {
	const op = "scheduling.Apply"
	switch {
	case snap == nil:
		return nil, invalid(op, cluster.InputNil, "Snapshot", "", "", "nil snapshot")
	case res == nil:
		return nil, invalid(op, cluster.InputNil, "Result", "", "", "nil result")
	case len(launched) != len(res.NewNodeClaims):
		return nil, invalid(op, cluster.InputMismatch, "", "", "launched", "%d launched NodeClaims for %d planned", len(launched), len(res.NewNodeClaims))
	}
	moves := make([]cluster.Move, 0, len(res.Bindings))
	for _, b := range res.Bindings {
		n := snap.Find(b.To)
		if n == nil {
			return nil, invalid(op, cluster.InputNotFound, "Node", b.To, "", "pods are bound to it, but the snapshot does not hold it")
		}
		b.To = n.BindName()
		moves = append(moves, b)
	}
	return snap.Carry(launched, append(moves, ClaimMoves(res.NewNodeClaims)...), nil)
}

// ClaimMoves is a cluster.Move to claims[i] (Claim i) for every pod planned onto it, in
// order: with the launched claims, what cluster.Snapshot.Carry binds those pods to (Apply and
// disruption.Apply hand it a Solve's NewNodeClaims, a command's Replacements).
func ClaimMoves(claims []*NodeClaim) []cluster.Move {
	var moves []cluster.Move
	for i, c := range claims {
		if c == nil {
			continue // no planned claim: no pod goes to it
		}
		for _, pod := range c.Pods {
			moves = append(moves, cluster.Move{Pod: pod, From: pod.Spec.NodeName, Claim: i})
		}
	}
	return moves
}

// Launched is nc (NodeClaimFor of c) as a cloud that launches the plan's choice, c's
// InstanceType in its Offering, returns it: labelled with the single values of c's
// requirements narrowed by that type and offering, then nc's own labels; with the type's
// capacity and allocatable and a Launched=True condition. A copy: nc is not modified. With
// cluster.NodeFor it is the node the plan's pods run on (`plan -o yaml --launched`). Without
// an InstanceType or Offering (a claim that cannot launch) it is nc's copy unlaunched.
func Launched(c *NodeClaim, nc *v1.NodeClaim) *v1.NodeClaim {
	out := nc.DeepCopy()
	if c.InstanceType == nil || c.Offering == nil {
		return out
	}
	reqs := c.Requirements.Copy()
	if reqs == nil {
		reqs = requirements.Requirements{}
	}
	for _, r := range []requirements.Requirements{c.InstanceType.Requirements, c.Offering.Requirements} {
		for _, k := range r.Keys() {
			reqs.Add(r.Get(k))
		}
	}
	labels := reqs.Labels()
	for k, v := range nc.Labels {
		labels[k] = v
	}
	out.Labels = labels
	out.Status.Capacity = c.InstanceType.Capacity.DeepCopy()
	out.Status.Allocatable = c.InstanceType.Allocatable().DeepCopy()
	out.Status.Conditions = append(out.Status.Conditions, metav1.Condition{Type: v1.ConditionTypeLaunched, Status: metav1.ConditionTrue, Reason: v1.ConditionTypeLaunched})
	return out
}
