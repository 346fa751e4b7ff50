package scheduling

import (
	"slices"
)

// Karpenter's provisioner creates a round's NodeClaims one at a time, in its scheduler's
// order (fewest pods first), and refuses to create one when its NodePool's usage already
// exceeds a limit: its nodes and NodeClaims, each one node and its capacity, the NodeClaims
// created before it in the round included, at the type each launched. Its scheduler counts
// no node for a round's own NodeClaims (an instance type's capacity has no "nodes"), so a
// round can open more NodeClaims than limits.nodes leaves; creation stops one past the
// limit (usage equal to the limit still creates one). A refused NodeClaim's pods stay
// pending, for the next round.

// claimChange is what the last pod that reached the open NodeClaims did to them: joined c
// (prev was c's predecessor in the list before it moved up) or opened it (joined false).
// Karpenter sorts its NodeClaims by pod count before each pod tries them, and not after
// the last one, so it creates a joined c where it stood before, and a new one last.
type claimChange struct {
	c      *claim
	prev   *claim
	joined bool
}

// creationOrder are the round's NodeClaims in the order Karpenter's provisioner creates
// them: its scheduler's list as the last pod left it.
func (s *solver) creationOrder() []*claim {
	if s.karpenter && !s.korderOff {
		return slices.Clone(s.korder)
	}
	var order []*claim
	x := s.lastChange.c
	if x != nil && s.lastChange.joined && s.lastChange.prev == nil {
		order = append(order, x)
	}
	for c := s.head; c != nil; c = c.next {
		if c == x {
			continue
		}
		order = append(order, c)
		if x != nil && s.lastChange.joined && c == s.lastChange.prev {
			order = append(order, x)
		}
	}
	if x != nil && !s.lastChange.joined {
		order = append(order, x)
	}
	return order
}

// creation is what a NodePool has left under its limits while its round's NodeClaims are
// created: nodes (when limits.nodes is set) and each limited resource.
type creation struct {
	nodes int64
	left  vec
}

// createClaims creates the round's NodeClaims (creationOrder) as Karpenter's provisioner does, and drops each one whose NodePool's usage already exceeds a limit: its
// pods fail with ReasonNodePoolLimit and go back to the queue. It returns how many pods it
// took back.
func (s *solver) createClaims(errs map[*podData]podFailure) int {
	limited := false
	for _, t := range s.templates {
		limited = limited || t.hasLimits
	}
	if !limited {
		return 0
	}
	usage := s.roundStartUsage()
	var refused []*claim
	for _, c := range s.creationOrder() {
		t := c.t
		if !t.hasLimits {
			continue
		}
		u := usage[t]
		if cause, exceeded := s.exceededCause(t, u); exceeded {
			s.boundByLimits()
			for _, p := range c.pods {
				errs[p] = singleFailure(cause)
			}
			refused = append(refused, c)
			continue
		}
		u.nodes--
		if l, ok := cheapestLaunch(t, c.reqs, c.types, anyType); ok {
			u.left.sub(t.types[l.i].capacity)
		}
	}
	took := 0
	for _, c := range refused {
		took += len(c.pods)
		s.dropClaim(c)
	}
	return took
}

// roundStartUsage is, per limited NodePool, what its limits left before the round's
// NodeClaims: t.remaining with their pessimistic counts given back.
func (s *solver) roundStartUsage() map[*template]*creation {
	usage := map[*template]*creation{}
	for _, t := range s.templates {
		if t.hasLimits {
			usage[t] = &creation{nodes: t.nodesLeft, left: t.remaining.clone()}
		}
	}
	for c := s.head; c != nil; c = c.next {
		if u := usage[c.t]; u != nil && c.counted != nil {
			u.left.add(c.counted)
		}
	}
	return usage
}

// exceededCause is the limit of t that usage u already exceeds, if any.
func (s *solver) exceededCause(t *template, u *creation) (Cause, bool) {
	if t.nodesLimited && u.nodes < 0 {
		return Cause{Code: ReasonNodePoolLimit, NodePool: t.name, Resource: "nodes"}, true
	}
	for r, lim := range t.limited {
		if lim && u.left[r] < 0 {
			return Cause{Code: ReasonNodePoolLimit, NodePool: t.name, Resource: string(s.res.names[r])}, true
		}
	}
	return Cause{}, false
}

// dropClaim takes c, refused at creation, out of the Solve: off the chain and the claims,
// its pessimistic count given back to its NodePool, and the counts its pods made in every
// domain it could launch in undone (Karpenter's next round sees no such NodeClaim; the
// spread counts it deferred to the launch are never made).
func (s *solver) dropClaim(c *claim) {
	if s.lastOfCount[c.count] == c {
		if c.prev != nil && c.prev.count == c.count {
			s.lastOfCount[c.count] = c.prev
		} else {
			delete(s.lastOfCount, c.count)
		}
	}
	s.unlink(c)
	s.korderDrop(c)
	s.claims = slices.DeleteFunc(s.claims, func(x *claim) bool { return x == c })
	if c.counted != nil {
		c.t.remaining.add(c.counted)
		c.counted = nil
	}
	for _, oc := range c.open {
		s.topo.settleCount(oc, "")
	}
	for _, m := range c.made {
		s.topo.unmake(m)
	}
	c.open, c.deferred, c.made = nil, nil, nil
}

// madeCount is a count a pod made in domain v of g on a NodeClaim whose domain was decided
// (Karpenter mode); unborn: g was then not yet made this round (karpenter_relax.go).
type madeCount struct {
	g      *topologyGroup
	v      string
	unborn bool
}

// unmake undoes m: in what the round had counted in g before its birth (lost) when g was
// born since, else in g's counts.
func (t *topology) unmake(m madeCount) {
	g := m.g
	if l := g.lost; m.unborn && g.unborn == nil && l != nil {
		l.total--
		if g.hostname {
			l.occupiedClaims -= t.uncountHostIn(l.hostCounts, m.v)
		} else {
			l.counts[m.v]--
		}
		return
	}
	g.total--
	if g.hostname {
		g.occupiedClaims -= t.uncountHostIn(g.hostCounts, m.v)
	} else {
		g.counts[m.v]--
	}
}

// uncountHostIn takes one pod off the host named name in hostCounts, and returns 1 when
// that empties a NodeClaim's host (occupiedClaims), else 0.
func (t *topology) uncountHostIn(hostCounts []int32, name string) int {
	h := t.hostID(name)
	if int(h) >= len(hostCounts) || hostCounts[h] == 0 {
		return 0
	}
	hostCounts[h]--
	if hostCounts[h] == 0 && t.claimHosts[h] {
		return 1
	}
	return 0
}
