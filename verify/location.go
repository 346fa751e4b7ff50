package verify

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// location is one node of the final placement: an existing node (or in-flight NodeClaim)
// or a new NodeClaim as launched.
type location struct {
	name   string
	claim  int // index of the new NodeClaim, -1 for an existing node
	node   *cluster.Node
	nc     *scheduling.NodeClaim
	pool   string
	labels map[string]string
	// taints are the taints that keep pods away now (startup and ephemeral taints of
	// uninitialized nodes are left out).
	taints []corev1.Taint
	alloc  corev1.ResourceList
	// bound are the pods already there that stay; placed the pods the plan puts there.
	bound, placed []*corev1.Pod
	marked        bool
	// left: a node the snapshot is leaving (cluster.Snapshot.Leaving), marked too; its pods
	// that stay count where they run, and none may be planned again.
	left bool
	// bindsNow: an initialized Node not being deleted, which takes pods now: the pods placed
	// there bind before those of NodeClaims that have not launched or nodes not initialized.
	bindsNow bool
	// launched is false for a claim without instance type or offering (its labels are then
	// only its requirements' and no resource check is possible).
	launched bool
	k8s      *corev1.Node // a Node with the labels, taints and name, for the k8s helpers
}

func (l *location) violation(code ViolationCode) Violation {
	v := newViolation(code)
	v.Claim = l.claim
	v.NodePool = l.pool
	if l.claim < 0 {
		v.Node = l.name
	}
	return v
}

// pods are the bound and placed pods.
func (l *location) pods() []*corev1.Pod {
	return append(append(make([]*corev1.Pod, 0, len(l.bound)+len(l.placed)), l.bound...), l.placed...)
}

func (l *location) finish() {
	l.labels = withAliases(l.labels)
	l.k8s = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: l.name, Labels: l.labels}, Spec: corev1.NodeSpec{Taints: l.taints}}
}

// isMarked: the node is being deleted (marked by the snapshot's Deleting fork, by a
// deletionTimestamp of its Node, or its NodeClaim terminating: Karpenter deletes a node's
// NodeClaim first, and takes such a node for marked in provisioning and disruption alike).
func isMarked(n *cluster.Node) bool {
	return n.MarkedDeleting() || (n.Node != nil && n.Node.DeletionTimestamp != nil) || terminating(n)
}

// knownEphemeral are the taints a not yet initialized node sheds on its own.
func knownEphemeral(t corev1.Taint) bool {
	switch {
	case t.Key == corev1.TaintNodeNotReady && hardTaint(t),
		t.Key == corev1.TaintNodeUnreachable && t.Effect == corev1.TaintEffectNoSchedule,
		t.Key == "node.cloudprovider.kubernetes.io/uninitialized" && t.Effect == corev1.TaintEffectNoSchedule,
		t.Key == v1.UnregisteredTaintKey && t.Effect == corev1.TaintEffectNoExecute,
		strings.HasPrefix(t.Key, "readiness.k8s.io/"):
		return true
	}
	return false
}

func sameTaint(a, b corev1.Taint) bool {
	return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect
}

// firstTypesByName maps each instance type name of snap to its first definition, NodePools
// taken in name order.
func firstTypesByName(snap *cluster.Snapshot) map[string]*cloudprovider.InstanceType {
	types := snap.InstanceTypes()
	out := map[string]*cloudprovider.InstanceType{}
	for _, pool := range slices.Sorted(maps.Keys(types)) {
		for _, it := range types[pool] {
			if it != nil && out[it.Name] == nil {
				out[it.Name] = it
			}
		}
	}
	return out
}

// existingLocation builds the location of an existing node; types resolve the allocatable
// an uninitialized node does not report yet.
func existingLocation(n *cluster.Node, typesByName map[string]*cloudprovider.InstanceType, pools map[string]*v1.NodePool) *location {
	l := &location{name: n.Name(), claim: -1, node: n, marked: isMarked(n), launched: true}
	l.labels = map[string]string{}
	for k, v := range n.Labels() {
		l.labels[k] = v
	}
	if n.NodeClaim != nil {
		for k, v := range n.NodeClaim.Labels {
			if _, ok := l.labels[k]; !ok {
				l.labels[k] = v
			}
		}
	}
	if _, ok := l.labels[v1.LabelHostname]; !ok {
		l.labels[v1.LabelHostname] = l.name
	}
	l.pool = l.labels[v1.NodePoolLabelKey]
	_, managed := l.labels[v1.NodePoolLabelKey]
	initialized := !managed || (n.Node != nil && l.labels[v1.NodeInitializedLabelKey] == "true")
	l.bindsNow = initialized && n.Node != nil && !l.marked
	var taints, startup []corev1.Taint
	if n.Node != nil {
		taints = n.Node.Spec.Taints
	} else if n.NodeClaim != nil {
		taints = n.NodeClaim.Spec.Taints
	}
	if n.NodeClaim != nil {
		startup = n.NodeClaim.Spec.StartupTaints
	} else if np := pools[l.pool]; np != nil {
		startup = np.Spec.Template.Spec.StartupTaints // a Node given without its NodeClaim
	}
	for _, t := range taints {
		if !initialized && (knownEphemeral(t) || containsTaint(startup, t)) {
			continue
		}
		l.taints = append(l.taints, t)
	}
	l.alloc = corev1.ResourceList{}
	if n.Node != nil {
		addTo(l.alloc, n.Node.Status.Allocatable)
	}
	if !initialized {
		var fill []corev1.ResourceList
		if n.NodeClaim != nil {
			fill = append(fill, n.NodeClaim.Status.Allocatable)
		}
		if it := typesByName[l.labels[v1.LabelInstanceType]]; it != nil {
			fill = append(fill, it.Allocatable())
		}
		for _, rl := range fill {
			for name, q := range rl {
				if have, ok := l.alloc[name]; !ok || have.IsZero() {
					l.alloc[name] = q.DeepCopy()
				}
			}
		}
	}
	for _, p := range n.Pods {
		if p != nil && !isTerminal(p) {
			l.bound = append(l.bound, p)
		}
	}
	return l
}

func containsTaint(ts []corev1.Taint, t corev1.Taint) bool {
	for _, x := range ts {
		if sameTaint(x, t) {
			return true
		}
	}
	return false
}

// claimLocation builds the location of a new NodeClaim as launched on its InstanceType and
// Offering: its labels are the single values of its requirements narrowed by the type and
// the offering, its NodePool's, its resolved labels and its hostname.
func claimLocation(i int, c *scheduling.NodeClaim) *location {
	l := &location{name: c.Hostname, claim: i, nc: c, pool: c.NodePool, placed: c.Pods}
	if l.name == "" {
		l.name = "claim-" + strconv.Itoa(i)
	}
	merged := c.Requirements.Copy()
	if merged == nil {
		merged = requirements.Requirements{}
	}
	if c.InstanceType != nil && c.Offering != nil {
		l.launched = true
		merged.Add(requirementValues(c.InstanceType.Requirements)...)
		merged.Add(requirementValues(c.Offering.Requirements)...)
		l.alloc = c.InstanceType.Allocatable()
	}
	l.labels = merged.Labels()
	for k, v := range c.Labels {
		l.labels[k] = v
	}
	l.labels[v1.NodePoolLabelKey] = c.NodePool
	l.labels[v1.LabelHostname] = l.name
	l.taints = append(l.taints, c.Taints...)
	return l
}

// requirementValues lists the requirements in key order.
func requirementValues(rs requirements.Requirements) []*requirements.Requirement {
	out := make([]*requirements.Requirement, 0, len(rs))
	for _, k := range rs.Keys() {
		out = append(out, rs.Get(k))
	}
	return out
}
