package scheduling

import (
	"encoding/binary"
	"slices"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// The default mode repairs the greedy packing once every pod is placed (Karpenter mode never
// does). The greedy fills each NodeClaim until no instance type can take more, so NodeClaims
// grow into the largest types, whose price per vCPU is the worst, and the last ones opened
// are left half empty. The repair works per NodePool on buckets of its NodeClaims, those
// with the same requirements (the hostname aside). It takes out the pods whose NodeClaim no
// constraint depends on and packs them again (packing_bins.go): first into the room the
// other NodeClaims leave on their cheapest type, then by growing those, then into new
// NodeClaims whose type packs the most worth per dollar at the row prices of the bound's
// program. A NodePool keeps the new packing only when it is cheaper and its limits hold.
//
// Which pods move, and why no constraint changes:
//   - a free pod (no topology group declares, counts or repels it, no host port, no volume,
//     node requirements every bucket of the NodePool meets) may go to any bucket;
//   - a movable pod stays in its bucket, so every label but the hostname is the same wherever
//     it goes: it binds no host port and has no volume; the groups it declares, and those
//     that repel it, are on keys the bucket pins to one domain; and so are the groups that
//     count it, except a hostname spread, which counts but never checks a pod that does not
//     declare it: such a pod never joins a NodeClaim whose fixed pods declare that spread, so
//     the declaring pods keep their skew whatever order the pods bind in;
//   - every other pod is fixed: it stays on its NodeClaim, which keeps its hostname.
//
// The NodeClaims' types are recomputed from the bucket's requirements, the pods' requests and
// host ports, as the greedy computes them.

// repackBucket is the NodeClaims of one template with the same requirements (the hostname
// aside) and the same loose keys, and what the repair computes for them.
type repackBucket struct {
	t      *template
	reqs   requirements.Requirements // without the hostname
	claims []*claim

	info   *offerInfo
	types  bitset // the types the requirements allow
	ladder []int  // the types new and growing NodeClaims are sized by (buildLadder)
	// local are the bucket's movable pods by shape; active are the shapes the bucket's
	// NodeClaims may take pods from (local, then the NodePool's free shapes) while any
	// pods are left, in the order fill takes them.
	local, active []*shape
	fixed         []*fixedClaim
	plans         []repackPlan
	// before and after are the price of the bucket's claims, each on its cheapest type,
	// before the repair and with its plans.
	before, after float64
}

// repack repairs the greedy packing NodePool by NodePool; each bucket's new NodeClaims take
// the places of those it emptied in Result.NewNodeClaims, the rest follow its last one.
func (s *solver) repack() {
	buckets := s.repackBuckets()
	gone := map[*claim]*repackBucket{}
	lastOf := map[*claim]*repackBucket{}
	for start := 0; start < len(buckets); {
		end := start + 1
		for end < len(buckets) && buckets[end].t == buckets[start].t {
			end++
		}
		for _, b := range s.repackTemplate(buckets[start:end]) {
			last := b.claims[len(b.claims)-1]
			emptied, opened := s.applyRepack(b)
			for _, c := range emptied {
				gone[c] = b
			}
			lastOf[last] = b
			b.claims = opened // from here on, the new claims still to place
		}
		start = end
	}
	if len(lastOf) == 0 {
		return
	}
	out := make([]*claim, 0, len(s.claims))
	for _, c := range s.claims {
		if b, emptied := gone[c]; !emptied {
			out = append(out, c)
		} else if len(b.claims) > 0 {
			out = append(out, b.claims[0])
			b.claims = b.claims[1:]
		}
		if b, ok := lastOf[c]; ok {
			out = append(out, b.claims...)
			b.claims = nil
		}
	}
	s.claims = out
}

// repackBuckets groups the NodeClaims the repair may touch, by template (in the order of the
// templates) and in each by the order of their first NodeClaim. It leaves out NodeClaims of
// NodePools with minValues (the repair does not count them), NodeClaims whose pods
// (anti-)affinity still counts in every domain they may launch in, and those BestEffort
// relaxed.
func (s *solver) repackBuckets() []*repackBucket {
	byHash := map[uint64][]*repackBucket{}
	var buckets []*repackBucket
	for _, c := range s.claims {
		t := c.t
		if t.hasMinValues || len(c.open) > 0 || c.relaxed || c.launched {
			continue
		}
		reqs := c.reqs.Copy()
		delete(reqs, v1.LabelHostname)
		h := reqs.Hash()
		var b *repackBucket
		for _, x := range byHash[h] {
			if x.t == t && x.reqs.Equal(reqs) && looseEqual(x.claims[0].loose, c.loose) {
				b = x
				break
			}
		}
		if b == nil {
			b = &repackBucket{t: t, reqs: reqs}
			byHash[h] = append(byHash[h], b)
			buckets = append(buckets, b)
		}
		b.claims = append(b.claims, c)
	}
	order := make(map[*template]int, len(s.templates))
	for i, t := range s.templates {
		order[t] = i
	}
	slices.SortStableFunc(buckets, func(a, b *repackBucket) int { return order[a.t] - order[b.t] })
	return buckets
}

func looseEqual(a, b map[string]*requirements.Requirement) bool {
	if len(a) != len(b) {
		return false
	}
	for k, r := range a {
		if o, ok := b[k]; !ok || !o.Equal(r) {
			return false
		}
	}
	return true
}

// free reports whether p may go to any NodeClaim of the buckets: nothing but its node
// requirements ties it to a node, and every bucket meets them.
func free(p *podData, buckets []*repackBucket) bool {
	if len(p.ports) > 0 || len(p.volumeAlternatives) > 0 || len(p.volumes) > 0 ||
		len(p.selectedBy) > 0 || len(p.blockedBy) > 0 || len(p.inverse) > 0 || len(p.form.owned) > 0 {
		return false
	}
	for _, b := range buckets {
		if !within(b.reqs, p.form.reqs) {
			return false
		}
	}
	return true
}

// within reports whether every node reqs allows meets need: each key of need is in reqs,
// with no value need does not allow.
func within(reqs, need requirements.Requirements) bool {
	for k, r := range need {
		have, ok := reqs[k]
		if !ok || !have.Intersection(r).Equal(have) {
			return false
		}
	}
	return true
}

// movable reports whether p may move between NodeClaims with requirements reqs (the
// hostname aside) without changing what a topology group allows (see the comment at the
// top of this file).
func movable(p *podData, reqs requirements.Requirements) bool {
	if len(p.ports) > 0 || len(p.volumeAlternatives) > 0 || len(p.volumes) > 0 {
		return false
	}
	pinned := func(g *topologyGroup) bool {
		if g.hostname {
			return false
		}
		r, ok := reqs[g.key]
		return ok && (singleValue(r) != "" || r.Operator() == requirements.DoesNotExist)
	}
	for _, gs := range [][]*topologyGroup{p.form.owned, p.inverse, p.blockedBy} {
		for _, g := range gs {
			if !pinned(g) {
				return false
			}
		}
	}
	for _, g := range p.selectedBy {
		if !pinned(g) && !(g.hostname && g.rule.countsDecided()) {
			return false
		}
	}
	return true
}

// hostSpreads are the hostname spreads that count p.
func hostSpreads(p *podData) []*topologyGroup {
	var out []*topologyGroup
	for _, g := range p.selectedBy {
		if g.hostname {
			out = append(out, g)
		}
	}
	return out
}

// declaredSpreads are the hostname groups pods declare.
func declaredSpreads(pods []*podData) []*topologyGroup {
	var out []*topologyGroup
	for _, p := range pods {
		for _, g := range p.form.owned {
			if g.hostname && !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

func sharesGroup(a, b []*topologyGroup) bool {
	for _, g := range b {
		if slices.Contains(a, g) {
			return true
		}
	}
	return false
}

// groupsKey names a list of groups by their positions in the topology.
func (s *solver) groupsKey(gs []*topologyGroup) string {
	if len(gs) == 0 {
		return ""
	}
	if s.groupIDs == nil {
		s.groupIDs = make(map[*topologyGroup]int, len(s.topo.ordered))
		for i, g := range s.topo.ordered {
			s.groupIDs[g] = i
		}
	}
	buf := make([]byte, 0, 4*len(gs))
	for _, g := range gs {
		buf = binary.AppendUvarint(buf, uint64(s.groupIDs[g]))
	}
	return string(buf)
}

// repackPlan is one NodeClaim of a bucket's new packing: a claim of the bucket (nil: a new
// one) with its pods, their requests and host ports, the types that hold them and, under
// limits, what it counts.
type repackPlan struct {
	c        *claim
	pods     []*podData
	requests vec
	ports    []hostPort
	types    bitset
	counted  vec
}

// applyRepack carries a bucket's new packing out: the bucket's claims with a plan take its
// pods, new claims open for the others; it returns the claims left empty and the new ones.
func (s *solver) applyRepack(b *repackBucket) (gone, fresh []*claim) {
	t := b.t
	keep := map[*claim]bool{}
	for i := range b.plans {
		pl := &b.plans[i]
		c := pl.c
		if c == nil {
			hostname := s.nextHostname()
			s.hostnameSeq++
			c = s.openClaim(t, hostname, b.types)
			c.reqs = b.reqs.Copy()
			c.reqs.Add(requirements.MustNew(v1.LabelHostname, requirements.In, hostname))
			c.setValues(s, c.reqs)
			c.loose = b.claims[0].loose
			fresh = append(fresh, c)
		}
		keep[c] = true
		c.pods, c.requests, c.ports = pl.pods, pl.requests, pl.ports
		c.keepTypes(pl.types)
		if t.hasLimits {
			c.counted = pl.counted
		}
	}
	for _, c := range b.claims {
		if !keep[c] {
			gone = append(gone, c)
		}
	}
	return gone, fresh
}

// fitTypes sets each plan's types: those of the bucket that hold its pods (from the
// template's index, as commit, unless the plan has host ports or s runs without indexes).
func (b *repackBucket) fitTypes(s *solver) {
	t := b.t
	fit := t.fit()
	for i := range b.plans {
		pl := &b.plans[i]
		pl.types = newBitset(len(t.types))
		if len(pl.ports) == 0 && !s.opts.withoutIndexes {
			copy(pl.types, b.types)
			if fit.fitting(pl.types, pl.requests) {
				continue
			}
			clear(pl.types)
		}
		b.types.each(func(j int) bool {
			tt := t.types[j]
			if pl.requests.fits(tt.alloc) && (len(pl.ports) == 0 || !portsConflict(tt.daemonPorts, pl.ports)) {
				pl.types.set(j)
			}
			return true
		})
	}
}

// withinLimits reports whether the buckets' new packing keeps their NodePool within its
// limits, counting each NodeClaim as Solve does, at the largest capacity among its options,
// against what the buckets' claims counted before; when it does, it takes that from the
// remaining limits.
func (s *solver) withinLimits(t *template, buckets []*repackBucket) bool {
	if !t.hasLimits {
		return true
	}
	remaining := t.remaining.clone()
	nodes := int64(0)
	for _, b := range buckets {
		nodes += int64(len(b.plans) - len(b.claims))
		for _, c := range b.claims {
			if c.counted == nil {
				return false
			}
			remaining.add(c.counted)
		}
		for i := range b.plans {
			pl := &b.plans[i]
			pl.counted = make(vec, len(s.res.names))
			pl.types.each(func(j int) bool {
				pl.counted.raise(t.types[j].capacity)
				return true
			})
			remaining.sub(pl.counted)
		}
	}
	if t.nodesLeft >= 0 && nodes > t.nodesLeft {
		s.boundByLimits()
		return false
	}
	for r, lim := range t.limited {
		if lim && remaining[r] < 0 {
			s.boundByLimits()
			return false
		}
	}
	t.remaining = remaining
	if t.nodesLeft >= 0 {
		t.nodesLeft -= nodes
	}
	return true
}
