package cluster

import (
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// The forks that add and remove pods. A host loop makes them on every change, so they cost
// in proportion to the change: the parent's lists are scanned (pointer and name compares, no
// allocation) and copied only where they change, the name index is shared (no node moves),
// and the PodDisruptionBudget reading is adjusted for the pods added and removed rather than
// read again over every pod.

// WithoutPods is the snapshot as if these pods (matched by namespace/name: pending, moving,
// bound or not planned) were gone. Nil pods and pods the snapshot does not hold are ignored.
// A pod is looked for where it says it is first (the node its spec.nodeName names, else the
// pending pods), so removing a bound pod costs that node's pods, not the snapshot's.
func (s *Snapshot) WithoutPods(pods ...*corev1.Pod) *Snapshot {
	c := *s
	c.moving, _ = dropPods(s.moving, newPodSet(pods), nil) // moving pods: few, and not in names
	var want []*corev1.Pod                                 // the given pods s holds otherwise
	for _, p := range pods {
		if p != nil && s.names.has(nameOf(p)) {
			want = append(want, p)
		}
	}
	if len(want) == 0 {
		return &c
	}
	targets := newPodSet(want)
	left := targets.len()           // names are unique in s: each is found once
	var removed, gone []*corev1.Pod // pending and bound (PDBs count them); every one
	copied := false
	dropOn := func(i int) {
		kept, out := dropPods(c.nodes[i].Pods, targets, nil)
		if len(out) == 0 {
			return
		}
		if !copied {
			c.nodes, copied = slices.Clone(s.nodes), true
		}
		e := *c.nodes[i]
		e.Pods = kept
		c.nodes[i] = &e
		removed, left = append(removed, out...), left-len(out)
	}
	for _, p := range want {
		if i, ok := s.byName()[p.Spec.NodeName]; ok && p.Spec.NodeName != "" && left > 0 {
			dropOn(i)
		}
	}
	if left > 0 {
		var out []*corev1.Pod
		c.pending, out = dropPods(s.pending, targets, nil)
		removed, left = append(removed, out...), left-len(out)
	}
	if left > 0 {
		if i := slices.IndexFunc(s.notPlanned, func(n NotPlanned) bool { return targets.has(n.Pod) }); i >= 0 {
			c.notPlanned = slices.DeleteFunc(slices.Clone(s.notPlanned), func(n NotPlanned) bool {
				if targets.has(n.Pod) {
					gone, left = append(gone, n.Pod), left-1
					return true
				}
				return false
			})
		}
	}
	for i := 0; left > 0 && i < len(c.nodes); i++ {
		dropOn(i)
	}
	gone = append(gone, removed...)
	c.names = s.names.with(&c, appendNames(make([]podName, 0, len(gone)), gone), nil)
	c.pdbs = s.pdbs.adjust(removed, nil)
	return &c
}

// dropPods is pods without those in gone (pods itself when none is, never modified) and
// removed with the dropped ones appended.
func dropPods(pods []*corev1.Pod, gone podSet, removed []*corev1.Pod) ([]*corev1.Pod, []*corev1.Pod) {
	first := slices.IndexFunc(pods, gone.has)
	if first < 0 {
		return pods, removed
	}
	out := make([]*corev1.Pod, first, len(pods)-1)
	copy(out, pods[:first])
	for _, p := range pods[first:] {
		if gone.has(p) {
			removed = append(removed, p)
		} else {
			out = append(out, p)
		}
	}
	return out, removed
}

// WithPods is the snapshot with these pods added: bound to their spec.nodeName, pending, or
// not planned, as New sorts them. A nil pod, or one whose namespace/name the snapshot (or an
// earlier pod of the call) already holds, is an *InvalidInputError.
func (s *Snapshot) WithPods(pods ...*corev1.Pod) (*Snapshot, error) {
	const op = "cluster.WithPods"
	if i := firstNil(pods); i >= 0 {
		return nil, nilObject(op, "Pod", fmt.Sprintf("pods[%d]", i))
	}
	added := newPodSet(pods)
	for _, p := range pods {
		if s.names.has(nameOf(p)) || slices.ContainsFunc(s.moving, sameName(p)) {
			return nil, invalid(op, InputDuplicate, "Pod", PodKey(p), "", "the snapshot already holds a pod of this namespace/name")
		}
	}
	if dup := added.repeated(); dup != nil {
		return nil, invalid(op, InputDuplicate, "Pod", PodKey(dup), "", "given twice")
	}
	c := *s
	// Full slice expressions: an append copies, never writing into the parent's array.
	c.pending = s.pending[:len(s.pending):len(s.pending)]
	c.notPlanned = s.notPlanned[:len(s.notPlanned):len(s.notPlanned)]
	nodesCopied := false
	edited := map[int]bool{}
	editOnce := func(i int) *Node {
		if !nodesCopied {
			c.nodes, nodesCopied = slices.Clone(s.nodes), true
		}
		if !edited[i] {
			edited[i] = true
			return c.edit(i)
		}
		return c.nodes[i]
	}
	counted := make([]*corev1.Pod, 0, len(pods))
	notPlanned := len(s.notPlanned)
	for _, p := range pods {
		if c.file(p, editOnce) {
			counted = append(counted, p)
		}
	}
	for i := range edited {
		sortPods(c.nodes[i].Pods)
	}
	if len(c.notPlanned) > notPlanned {
		c.notPlanned = mergeNotPlanned(s.notPlanned, c.notPlanned[notPlanned:])
	}
	c.names = s.names.with(&c, nil, appendNames(make([]podName, 0, len(pods)), pods))
	c.pdbs = s.pdbs.adjust(nil, counted)
	return &c, nil
}

// sameName is whether a pod has p's namespace/name.
func sameName(p *corev1.Pod) func(*corev1.Pod) bool {
	return func(q *corev1.Pod) bool { return q.Name == p.Name && q.Namespace == p.Namespace }
}

// mergeNotPlanned is sorted (sorted by namespace/name, as sortNotPlanned leaves it) with
// added merged in, in a new slice.
func mergeNotPlanned(sorted, added []NotPlanned) []NotPlanned {
	added = slices.Clone(added)
	sortNotPlanned(added)
	out := make([]NotPlanned, 0, len(sorted)+len(added))
	for len(sorted) > 0 && len(added) > 0 {
		if PodKey(added[0].Pod) < PodKey(sorted[0].Pod) {
			out, added = append(out, added[0]), added[1:]
		} else {
			out, sorted = append(out, sorted[0]), sorted[1:]
		}
	}
	return append(append(out, sorted...), added...)
}

// podSet is a set of pods by namespace/name. A fork names a few pods among thousands, so a
// short set is scanned rather than hashed.
type podSet struct {
	few  []podName
	many map[podName]bool
	// dup is a pod named like an earlier one of the set (nil: none).
	dup *corev1.Pod
}

const fewPods = 8

func newPodSet(pods []*corev1.Pod) podSet {
	var set podSet
	if len(pods) > fewPods {
		set.many = make(map[podName]bool, len(pods))
	}
	for _, p := range pods {
		if p == nil {
			continue
		}
		k := nameOf(p)
		if set.hasName(k) {
			if set.dup == nil {
				set.dup = p
			}
			continue
		}
		if set.many != nil {
			set.many[k] = true
		} else {
			set.few = append(set.few, k)
		}
	}
	return set
}

func (set podSet) hasName(k podName) bool {
	if set.many != nil {
		return set.many[k]
	}
	return slices.Contains(set.few, k)
}

// has reports whether p's namespace/name is in the set. Every fork calls it on every pod of
// the snapshot, so a short set compares names first (they tell pods apart, namespaces
// rarely do) without building a key.
func (set podSet) has(p *corev1.Pod) bool {
	if set.many != nil {
		return set.many[nameOf(p)]
	}
	for _, k := range set.few {
		if k.name == p.Name && k.namespace == p.Namespace {
			return true
		}
	}
	return false
}

func (set podSet) len() int { return len(set.few) + len(set.many) }

// repeated is a pod the set was given after another of its namespace/name, or nil.
func (set podSet) repeated() *corev1.Pod { return set.dup }

func sortNotPlanned(ns []NotPlanned) {
	sort.SliceStable(ns, func(i, j int) bool { return PodKey(ns[i].Pod) < PodKey(ns[j].Pod) })
}
