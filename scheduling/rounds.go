package scheduling

// Karpenter's later provisioning rounds for NodePool limits. Within one Solve Karpenter counts
// a new NodeClaim against its NodePool's limits at the largest capacity among its options;
// once the NodeClaim has launched, its next round counts the type that launched, and places
// pods the first round refused for the limit. nodeplan promises the outcome over the rounds,
// so after a round in which limits refused a pod, each NodeClaim of a limited NodePool is
// recounted at its launch choice (the cheapest option) and keeps only the options no larger
// than that (so the recount holds whichever option launches), and the unplaced pods get
// another round. Rounds end when one places nothing; that round's narrowing is undone.

// roundUndo restores what a recount changed.
type roundUndo struct {
	claims    []claimTypes
	remaining map[*template]vec
}

type claimTypes struct {
	c       *claim
	types   bitset
	counted vec
}

func (u *roundUndo) apply() {
	for _, ct := range u.claims {
		ct.c.keepTypes(ct.types, func(*templateType) bool { return true })
		ct.c.counted = ct.counted
	}
	for t, r := range u.remaining {
		t.remaining = r
	}
}

// laterRound recounts the NodeClaims of limited NodePools when limits refused a pod in the
// round that just ended, and returns the pods to try again (nil when there is no reason to).
func (s *solver) laterRound(pods []*podData, errs map[*podData]podFailure) ([]*podData, *roundUndo) {
	if !s.limitRefused || len(errs) == 0 || s.opts.SingleRound {
		return nil, nil
	}
	u := &roundUndo{remaining: map[*template]vec{}}
	grew := false
	for _, c := range s.claims {
		t := c.t
		if c.counted == nil || !anyTrue(t.limited) {
			continue
		}
		l, ok := cheapestLaunch(t, c.reqs, c.types, func(int) bool { return true })
		if !ok {
			continue
		}
		launched := t.types[l.i].capacity
		if _, saved := u.remaining[t]; !saved {
			u.remaining[t] = t.remaining.clone()
		}
		u.claims = append(u.claims, claimTypes{c: c, types: c.types, counted: c.counted})
		counted := launched.clone()
		for r, lim := range t.limited {
			if lim && counted[r] < c.counted[r] {
				t.remaining[r] += c.counted[r] - counted[r]
				grew = true
			}
		}
		c.counted = counted
		c.keepTypes(c.types, func(tt *templateType) bool {
			for r, lim := range t.limited {
				if lim && tt.capacity[r] > launched[r] {
					return false
				}
			}
			return true
		})
	}
	if !grew {
		u.apply()
		return nil, nil
	}
	var queue []*podData
	for _, p := range pods {
		if _, failed := errs[p]; failed && p.invalid == nil {
			queue = append(queue, p)
		}
	}
	return queue, u
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}
