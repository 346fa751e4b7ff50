package cluster

import (
	"slices"
	"sync"
)

// podNames is the set of namespace/names of the pods a snapshot holds pending, not planned or
// bound (its moving pods aside), which New and WithPods keep unique: what WithPods checks a
// new pod against and WithoutPods asks before looking for a pod. Forks share it: a base set,
// built on first use from the snapshot that started it, and the names added and removed
// since, kept short (a fork past maxNameDelta changes starts a new base, built from it when
// first asked). So a fork that adds or removes a pod costs O(1) names, not O(pods).
type podNames struct {
	base           *nameBase
	added, removed []podName // disjoint; removed ⊆ base
}

// maxNameDelta is how many names a podNames adds or removes before a fork starts a new
// base: the delta is scanned on every question and copied by every fork that changes pods.
const maxNameDelta = 64

type nameBase struct {
	once sync.Once
	from *Snapshot // whose pods the set is built from (nil once built)
	m    map[podName]struct{}
}

func (b *nameBase) set() map[podName]struct{} {
	b.once.Do(func() {
		s := b.from
		b.m = make(map[podName]struct{}, len(s.pending)+len(s.notPlanned)+8*len(s.nodes))
		for _, p := range s.pending {
			b.m[nameOf(p)] = struct{}{}
		}
		for _, n := range s.notPlanned {
			b.m[nameOf(n.Pod)] = struct{}{}
		}
		for _, n := range s.nodes {
			for _, p := range n.Pods {
				b.m[nameOf(p)] = struct{}{}
			}
		}
		b.from = nil
	})
	return b.m
}

// builtNames is a base already built: m (New's duplicate check built it).
func builtNames(m map[podName]struct{}) *nameBase {
	b := &nameBase{m: m}
	b.once.Do(func() {})
	return b
}

// namesOf is a podNames whose base is s's pods (built on first use).
func namesOf(s *Snapshot) *podNames { return &podNames{base: &nameBase{from: s}} }

// has reports whether the set holds k. A nil set (the zero Snapshot's) holds nothing.
func (n *podNames) has(k podName) bool {
	if n == nil {
		return false
	}
	if slices.Contains(n.added, k) {
		return true
	}
	if slices.Contains(n.removed, k) {
		return false
	}
	_, ok := n.base.set()[k]
	return ok
}

// with is the set for the fork of s (whose set n is) into c after the names removed left and
// added came: n itself when both are empty, a copy with a longer delta, or, past
// maxNameDelta changes, a new base built from c when first asked.
func (n *podNames) with(c *Snapshot, removed, added []podName) *podNames {
	switch {
	case len(removed)+len(added) == 0:
		return n
	case n == nil || len(n.added)+len(n.removed)+len(removed)+len(added) > maxNameDelta:
		return namesOf(c)
	}
	out := &podNames{added: slices.Clone(n.added), removed: slices.Clone(n.removed), base: n.base}
	for _, k := range removed {
		if i := slices.Index(out.added, k); i >= 0 {
			out.added = slices.Delete(out.added, i, i+1)
		} else {
			out.removed = append(out.removed, k)
		}
	}
	for _, k := range added {
		if i := slices.Index(out.removed, k); i >= 0 {
			out.removed = slices.Delete(out.removed, i, i+1)
		} else {
			out.added = append(out.added, k)
		}
	}
	return out
}
