package verify

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Solve checks that res is a valid outcome of scheduling.Solve(snap, opts), with every new
// NodeClaim launched on its InstanceType and Offering. It returns nil when the plan is
// valid; see the package doc for what is and is not checked. It never modifies its
// arguments.
func Solve(snap *cluster.Snapshot, opts scheduling.Options, res *scheduling.Result) []Violation {
	if snap == nil || res == nil {
		return nil
	}
	w := newWorld(snap, opts)
	var out []Violation
	out = append(out, w.placeResult(res)...)
	for _, l := range w.locs {
		if len(l.placed) == 0 {
			continue
		}
		if l.claim >= 0 {
			out = append(out, w.checkLaunch(l)...)
		}
		out = append(out, w.checkFit(l)...)
	}
	out = append(out, w.checkSpread()...)
	out = append(out, w.checkPodAffinity()...)
	out = append(out, w.checkLimits()...)
	out = append(out, w.checkReservations()...)
	return out
}

// world is the final placement: every location with its pods, and what the checks look up.
type world struct {
	snap *cluster.Snapshot
	opts scheduling.Options
	// pods are the pods Solve was to place: the snapshot's pending, then moving pods.
	pods        []*corev1.Pod
	locs        []*location
	byName      map[string]*location
	typesByName map[string]*cloudprovider.InstanceType
	pools       map[string]*v1.NodePool
	where       map[*corev1.Pod]*location
	placed      []*corev1.Pod // pods the plan places, in result order
	namespaces  map[string]map[string]string
}

func newWorld(snap *cluster.Snapshot, opts scheduling.Options) *world {
	w := &world{snap: snap, opts: opts, pods: toPlace(snap), byName: map[string]*location{}, typesByName: firstTypesByName(snap),
		pools: map[string]*v1.NodePool{}, where: map[*corev1.Pod]*location{}}
	for _, np := range snap.NodePools() {
		if np != nil {
			w.pools[np.Name] = np
		}
	}
	for _, n := range snap.Nodes() {
		w.addExisting(n, nil)
	}
	// The nodes the snapshot is leaving take no pod, but their pods that stay still run
	// there: counted as a deleting node's (cluster.Snapshot.Leaving).
	toPlace := map[*corev1.Pod]bool{}
	for _, p := range w.pods {
		toPlace[p] = true
	}
	for _, n := range snap.Left() {
		w.addExisting(n, toPlace)
	}
	w.namespaces = namespaceLabels(snap.Namespaces(), w.pods, append(slices.Clip(snap.Nodes()), snap.Left()...))
	return w
}

// addExisting adds node n's location, unless it is neither Node nor NodeClaim or a location
// of its name is there already. When n is a node the snapshot is leaving (moving not nil),
// the location is marked, takes pods after nothing, and keeps only the pods not moving.
func (w *world) addExisting(n *cluster.Node, moving map[*corev1.Pod]bool) {
	if n == nil || (n.Node == nil && n.NodeClaim == nil) {
		return
	}
	l := existingLocation(n, w.typesByName, w.pools)
	if w.byName[l.name] != nil {
		return
	}
	if moving != nil {
		l.marked, l.left, l.bindsNow = true, true, false
		l.bound = slices.DeleteFunc(l.bound, func(p *corev1.Pod) bool { return moving[p] })
	}
	l.finish()
	w.byName[l.name] = l
	w.locs = append(w.locs, l)
}

// placeResult records where the result puts every pod and checks that each input pod is
// in exactly one place.
func (w *world) placeResult(res *scheduling.Result) []Violation {
	var out []Violation
	inputs := map[string]bool{}
	for _, p := range w.pods {
		if p != nil {
			inputs[key(p)] = true
		}
	}
	// Pods of nodes being deleted may be planned again.
	movable := map[string]*location{}
	for _, l := range w.locs {
		if !l.marked || l.left {
			continue
		}
		for _, p := range l.node.Pods {
			if p != nil && (!isTerminal(p) || mustMove(p)) {
				movable[key(p)] = l
			}
		}
	}
	seen := map[string]int{}
	accept := func(p *corev1.Pod, v Violation) bool {
		k := key(p)
		seen[k]++
		if seen[k] > 1 {
			v.Code, v.Pod = PodDuplicated, k
			out = append(out, v)
			return false
		}
		if !inputs[k] && movable[k] == nil {
			v.Code, v.Pod = PodUnknown, k
			out = append(out, v)
			return false
		}
		return true
	}
	move := func(p *corev1.Pod, to *location) {
		if from := movable[key(p)]; from != nil && !inputs[key(p)] {
			from.bound = removePod(from.bound, key(p))
		}
		to.placed = append(to.placed, p)
		w.where[p] = to
		w.placed = append(w.placed, p)
	}
	for i, c := range res.NewNodeClaims {
		if c == nil {
			continue
		}
		l := claimLocation(i, c)
		l.placed = nil
		w.locs = append(w.locs, l)
		if len(c.Pods) == 0 {
			out = append(out, l.violation(ClaimEmpty))
		}
		for _, p := range c.Pods {
			if p != nil && accept(p, l.violation("")) {
				move(p, l)
			}
		}
		l.finish()
	}
	var l *location
	for i, b := range res.Bindings {
		if i == 0 || b.To != res.Bindings[i-1].To { // the first pod bound to this node
			if l = w.byName[b.To]; l == nil {
				v := newViolation(NodeUnknown)
				v.Node = b.To
				out = append(out, v)
			} else if l.marked {
				out = append(out, l.violation(NodeDeleting))
			}
		}
		if l != nil && b.Pod != nil && accept(b.Pod, l.violation("")) {
			move(b.Pod, l)
		}
	}
	for _, pe := range res.PodErrors {
		if pe.Pod != nil && accept(pe.Pod, newViolation("")) {
			// A pod of a node being deleted that found no new home leaves anyway.
			if from := movable[key(pe.Pod)]; from != nil && !inputs[key(pe.Pod)] {
				from.bound = removePod(from.bound, key(pe.Pod))
			}
		}
	}
	for _, p := range w.pods {
		if p != nil && seen[key(p)] == 0 {
			v := newViolation(PodMissing)
			v.Pod = key(p)
			out = append(out, v)
		}
	}
	// Bound pods are where they are.
	for _, l := range w.locs {
		for _, p := range l.bound {
			w.where[p] = l
		}
	}
	return out
}

func removePod(ps []*corev1.Pod, k string) []*corev1.Pod {
	out := ps[:0:0]
	for _, p := range ps {
		if key(p) != k {
			out = append(out, p)
		}
	}
	return out
}

// toPlace are the pods a Solve of snap places: its pending, then its moving pods.
func toPlace(snap *cluster.Snapshot) []*corev1.Pod {
	return append(append([]*corev1.Pod(nil), snap.Pending()...), snap.Moving()...)
}
