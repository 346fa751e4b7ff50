package scheduling

import (
	"sort"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// Karpenter's later provisioning rounds. Within one Solve Karpenter counts a new NodeClaim
// against its NodePool's limits at the largest capacity among its options, and counts a pod
// on a NodeClaim still open over zones in every zone for anti-affinity and in none for
// affinity; once the NodeClaim has launched, its next round counts the type that launched in
// the zone it launched in, and places pods the first round refused. nodeplan promises the
// outcome over the rounds, so after a round that left pods unplaced, each NodeClaim with such
// open counts is settled in its launch choice's zone and capacity type (the cheapest
// option), and, when limits refused a pod, each NodeClaim of a limited NodePool is recounted
// at its launch choice and keeps only the options no larger than that (so the recount holds
// whichever option launches); then the unplaced pods get another round. Rounds end when one
// places nothing; that round's settling and narrowing are undone.

// roundUndo restores what a recount or a settlement changed.
type roundUndo struct {
	claims    []claimTypes
	remaining map[*template]vec
	settled   []settledClaim
}

// settledClaim is a NodeClaim before its settlement, and where its open counts went.
type settledClaim struct {
	c       *claim
	reqs    requirements.Requirements
	promise requirements.Requirements
	values  []string
	types   bitset
	open    []openCount
	to      []string // per open count, the domain it was moved to ("" for none)
}

type claimTypes struct {
	c       *claim
	types   bitset
	counted vec
	promise requirements.Requirements
}

func (u *roundUndo) apply(topo *topology) {
	for _, ct := range u.claims {
		ct.c.keepTypes(ct.types)
		ct.c.counted, ct.c.promise = ct.counted, ct.promise
	}
	for t, r := range u.remaining {
		t.remaining = r
	}
	for _, sc := range u.settled {
		c := sc.c
		c.reqs, c.promise, c.values, c.open = sc.reqs, sc.promise, sc.values, sc.open
		c.keepTypes(sc.types)
		for i, oc := range sc.open {
			topo.unsettleCount(oc, sc.to[i])
		}
	}
}

// laterRound settles the NodeClaims still open where (anti-)affinity counted their pods, and
// recounts the NodeClaims of limited NodePools when limits refused a pod in the round that
// just ended; it returns the pods to try again (nil when there is no reason to).
func (s *solver) laterRound(pods []*podData, errs map[*podData]podFailure) ([]*podData, *roundUndo) {
	if len(errs) == 0 || s.opts.SingleRound {
		return nil, nil
	}
	var queue []*podData
	for _, p := range pods {
		if _, failed := errs[p]; failed && p.invalid == nil {
			queue = append(queue, p)
		}
	}
	if len(queue) == 0 {
		return nil, nil
	}
	u := &roundUndo{remaining: map[*template]vec{}}
	settled := s.settleOpen(u)
	// Karpenter's next round finds the NodeClaims launched, where minValues no longer counts:
	// a pod whose requirements leave a NodeClaim too few types may join one whose cheapest
	// option meets them (claim.promiseMinValues). In the default's second try (solveBest's
	// limitMinValues) also in the round a limit refusal starts (difftest default plan:960246:
	// three app-2 pods of family r, whose one r type is fewer than minValues, stayed out when
	// a limit refusal started the next round; plan:960442 places one pod fewer so).
	minValues := refusedForMinValues(queue, errs) || s.claimMinValuesRefused
	s.limitRounds = s.limitRounds || s.limitRefused
	if s.limitRefused && minValues && s.minValuesFirst && !s.minValuesRound {
		// solveBest's minValuesFirst: the round a limit refusal starts is a minValues round
		// alone, before the recount narrows each NodeClaim to its launch choice, so a pod
		// minValues refused may still join a NodeClaim on a capacity reservation of a type
		// larger than that choice, as Karpenter launches one (claim.promiseMinValues;
		// difftest default plan:990272).
		s.minValuesRound = true
		return queue, u
	}
	if s.limitRefused {
		recount := &roundUndo{remaining: map[*template]vec{}}
		if s.recountLimited(recount) {
			u.claims, u.remaining = recount.claims, recount.remaining
			s.minValuesRound = s.minValuesRound || minValues && s.limitMinValues
			return queue, u
		}
		recount.apply(s.topo)
	}
	if minValues || s.reservedDeferred {
		// A pod held back for a reservation (strictReserved) is tried again as Karpenter's
		// next round tries it: on the NodeClaims launched, where minValues no longer counts.
		s.minValuesRound = true
		settled = true
	}
	if !settled {
		return nil, nil
	}
	return queue, u
}

// settleOpen settles, as Karpenter's next round sees them launched, the NodeClaims whose pods
// (anti-)affinity counted while they were open on the group's key: each is pinned to the zone,
// capacity type and domains of its cheapest launch option, and its pods are counted there
// only. It reports whether any was.
func (s *solver) settleOpen(u *roundUndo) bool {
	settled := false
	for _, c := range s.claims {
		if len(c.open) == 0 {
			continue
		}
		// Where it launches: a reservation other NodeClaims hold all of is not its (difftest
		// default plan:1008007: app-1's second NodeClaim, pinned here to the zone of a
		// one-instance reservation the first held, launched on it past its capacity, 2 > 1).
		l, ok := s.launchWithRoom(c)
		if !ok {
			continue
		}
		sc := settledClaim{c: c, reqs: c.reqs, promise: c.promise, values: append([]string(nil), c.values...), types: c.types, open: c.open, to: make([]string, len(c.open))}
		reqs := c.reqs.Copy()
		var pinned []string
		// pin settles key where the launch option goes, and returns that value ("": none).
		pin := func(key string) string {
			v, changed := s.topo.pinLaunched(reqs, key, l)
			if changed {
				pinned = append(pinned, key)
			}
			return v
		}
		// The next round sees the NodeClaim launched: in its zone, with its capacity type.
		pin(v1.LabelTopologyZone)
		pin(v1.CapacityTypeLabelKey)
		for i, oc := range c.open {
			v := pin(oc.g.key)
			s.topo.settleCount(oc, v)
			sc.to[i] = v
		}
		if len(pinned) > 0 {
			sort.Strings(pinned)
			types := c.types.clone()
			c.t.narrowTypes(types, pinned, reqs)
			if types.empty() || !s.keepsMinValues(c, types, reqs, anyType) {
				// Pinned, the NodeClaim would have fewer instance types than a minValues
				// asks and fail at its launch after its pods were counted there: its
				// cheapest option is promised to stay where the pin goes instead.
				extra := requirements.Requirements{}
				for _, k := range pinned {
					extra[k] = reqs[k]
				}
				c.promise = c.promise.Union(extra)
				c.setValues(s, c.countingReqs())
			} else {
				c.reqs = reqs
				c.setValues(s, c.reqs)
				c.keepTypes(types)
			}
		}
		c.open = nil
		u.settled = append(u.settled, sc)
		settled = true
	}
	return settled
}

// recountLimited recounts each NodeClaim of a limited NodePool at its launch choice, and
// reports whether that left any NodePool more room.
func (s *solver) recountLimited(u *roundUndo) bool {
	grew := false
	for _, c := range s.claims {
		t := c.t
		if c.counted == nil || !anyTrue(t.limited) {
			continue
		}
		l, ok := s.launchWithRoom(c)
		if !ok {
			continue
		}
		launched := t.types[l.i].capacity
		noLarger := func(tt *templateType) bool {
			for r, lim := range t.limited {
				if lim && tt.capacity[r] > launched[r] {
					return false
				}
			}
			return true
		}
		kept := newBitset(len(t.types))
		c.types.each(func(i int) bool {
			if noLarger(t.types[i]) {
				kept.set(i)
			}
			return true
		})
		var promise requirements.Requirements
		if !s.keepsMinValues(c, kept, c.reqs, anyType) {
			// Kept to fewer instance types than a minValues asks, the NodeClaim would fail
			// to launch after its pods were counted: it keeps its types, and its cheapest
			// option is promised to stay among those no larger than its launch choice, as
			// Karpenter's next round counts the node launched (difftest plan:550010).
			var names []string
			kept.each(func(i int) bool {
				names = append(names, t.types[i].it.Name)
				return true
			})
			promise = c.promise.Union(requirements.Requirements{
				v1.LabelInstanceType: requirements.MustNew(v1.LabelInstanceType, requirements.In, names...)})
			kept = c.types
		}
		if _, saved := u.remaining[t]; !saved {
			u.remaining[t] = t.remaining.clone()
		}
		u.claims = append(u.claims, claimTypes{c: c, types: c.types, counted: c.counted, promise: c.promise})
		if promise != nil {
			c.promise = promise
		}
		counted := launched.clone()
		for r, lim := range t.limited {
			if lim && counted[r] < c.counted[r] {
				t.remaining[r] += c.counted[r] - counted[r]
				grew = true
			}
		}
		c.counted = counted
		c.keepTypes(kept)
	}
	return grew
}

// refusedForMinValues reports whether a NodePool's minValues refused one of the pods.
func refusedForMinValues(queue []*podData, errs map[*podData]podFailure) bool {
	for _, p := range queue {
		for _, c := range errs[p].causes {
			if c.Code == ReasonMinValues {
				return true
			}
		}
	}
	return false
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}
