package scheduling

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/internal/lp"
)

// packer packs one NodePool's movable and free pods again (packing_repack.go says which
// and why). Pods with the same requests (and counted by the same hostname spreads) are one
// shape, so filling a NodeClaim costs one step per shape, not per pod. A shape's worth is
// its requests at the row prices of the cheapest fractional mix of the NodePool's types
// that covers the pods (the bound's program for this NodePool alone): a dollar of any
// resource weighs the same, and a type's worth per dollar says how close to that mix it is.
type packer struct {
	s       *solver
	t       *template
	buckets []*repackBucket
	w       []float64 // row prices per resource
	free    []*shape  // the free pods by shape, largest first
	room    vec
	filled  []packed // scratch for fill
}

// shape is pods with the same requests (and hostname spreads).
type shape struct {
	req   vec
	worth float64
	// spreads are the hostname spreads that count the pods: they may not join a NodeClaim
	// whose fixed pods declare one.
	spreads []*topologyGroup
	pods    []*podData
	next    int // pods[next:] are still to pack
}

func (sh *shape) left() int { return len(sh.pods) - sh.next }

// packed is n pods of one shape.
type packed struct {
	sh *shape
	n  int
}

// fixedClaim is a claim of the bucket with pods that stay: its fixed pods, then what the
// repair adds, with their requests (base).
type fixedClaim struct {
	c        *claim
	pods     []*podData
	base     vec
	declared []*topologyGroup
}

// repackTemplate packs the movable and free pods of one NodePool's buckets again and
// returns the buckets whose plans replace their claims (none when the greedy packing
// stays: nothing to move, not cheaper, or beyond a limit). When no pod may change buckets,
// each bucket is its own problem and keeps its new packing only when that is cheaper;
// otherwise the NodePool's buckets keep theirs together, when it is cheaper in total.
func (s *solver) repackTemplate(buckets []*repackBucket) []*repackBucket {
	pk, before, after := s.planRepack(buckets)
	if pk == nil || !cheaper(after, before) {
		return nil
	}
	if len(pk.free) == 0 {
		pk.buckets = slices.DeleteFunc(pk.buckets, func(b *repackBucket) bool { return !cheaper(b.after, b.before) })
	}
	for _, b := range pk.buckets {
		b.fitTypes(s)
	}
	if !s.withinLimits(pk.t, pk.buckets) {
		return nil
	}
	return pk.buckets
}

// cheaper reports whether after is below before by more than rounding.
func cheaper(after, before float64) bool { return after < before*(1-1e-9) }

// planRepack packs the buckets' movable and free pods again, setting the plans of the
// buckets it can repack (pk.buckets); it returns the price of their claims before and
// after (nil when there is nothing to repack).
func (s *solver) planRepack(buckets []*repackBucket) (pk *packer, before, after float64) {
	t := buckets[0].t
	var valid []*repackBucket
	for _, b := range buckets {
		if b.prepare() {
			valid = append(valid, b)
		}
	}
	if len(valid) == 0 {
		return nil, 0, 0
	}
	pk = &packer{s: s, t: t, buckets: valid, room: make(vec, len(s.res.names))}
	if !pk.split() {
		return nil, 0, 0
	}
	if pk.w = pk.rowPrices(); pk.w == nil {
		return nil, 0, 0
	}
	for _, sh := range pk.free {
		sh.worth = pk.worth(sh.req)
	}
	largestFirst := func(a, b *shape) int { return cmp.Compare(b.worth, a.worth) }
	slices.SortStableFunc(pk.free, largestFirst)
	for _, b := range valid {
		for _, sh := range b.local {
			sh.worth = pk.worth(sh.req)
		}
		slices.SortStableFunc(b.local, largestFirst)
		b.active = append(slices.Clone(b.local), pk.free...)
		b.ladder = pk.buildLadder(b)
	}
	if !pk.pack() {
		return nil, 0, 0
	}
	for _, b := range valid {
		for _, c := range b.claims {
			b.before += pk.cheapest(b, c.requests, c.ports)
		}
		for i := range b.plans {
			pl := &b.plans[i]
			pl.requests = make(vec, len(s.res.names))
			for _, p := range pl.pods {
				pl.requests.add(p.requests)
				pl.ports = append(pl.ports, p.ports...)
			}
			b.after += pk.cheapest(b, pl.requests, pl.ports)
		}
		before, after = before+b.before, after+b.after
	}
	return pk, before, after
}

// prepare computes the bucket's offerings and types; false leaves the bucket alone: its
// types include reserved offerings (their counts are decided at the launch), or a claim
// kept types its requirements do not explain.
func (b *repackBucket) prepare() bool {
	t := b.t
	b.info = t.offerings(b.reqs)
	if b.info.offers != nil {
		return false
	}
	b.types = t.all.clone()
	t.narrowTypes(b.types, b.reqs.Keys(), b.reqs)
	for _, c := range b.claims {
		for i, w := range c.types {
			if w&^b.types[i] != 0 {
				return false
			}
		}
	}
	return true
}

// split sorts the buckets' pods into free shapes, each bucket's local shapes and its fixed
// claims' pods; it reports whether any pod may move.
func (pk *packer) split() bool {
	freeByKey := map[string]*shape{}
	moving := false
	for _, b := range pk.buckets {
		localByKey := map[string]*shape{}
		for _, c := range b.claims {
			var fixed []*podData
			for _, p := range c.pods {
				switch {
				case free(p, pk.buckets):
					pk.free = addToShape(pk.free, freeByKey, vecKey(p.requests), p, nil)
				case movable(p, b.reqs):
					spreads := hostSpreads(p)
					b.local = addToShape(b.local, localByKey, vecKey(p.requests)+pk.s.groupsKey(spreads), p, spreads)
				default:
					fixed = append(fixed, p)
					continue
				}
				moving = true
			}
			if len(fixed) == 0 {
				continue
			}
			fc := &fixedClaim{c: c, pods: fixed, base: make(vec, len(pk.s.res.names)), declared: declaredSpreads(fixed)}
			for _, p := range fixed {
				fc.base.add(p.requests)
			}
			b.fixed = append(b.fixed, fc)
		}
	}
	return moving
}

func addToShape(shapes []*shape, byKey map[string]*shape, key string, p *podData, spreads []*topologyGroup) []*shape {
	sh, ok := byKey[key]
	if !ok {
		sh = &shape{req: p.requests, spreads: spreads}
		byKey[key] = sh
		shapes = append(shapes, sh)
	}
	sh.pods = append(sh.pods, p)
	return shapes
}

// pack is the new packing, each bucket's plans: the room each fixed claim's cheapest type
// leaves, then each fixed claim grown to the type that packs the most worth per dollar,
// then new claims sized so, each one's pattern repeated while its shapes last: first for
// the buckets' own movable pods, then for the free ones wherever they pack best. It reports
// false when some pod fits no type.
func (pk *packer) pack() bool {
	for _, b := range pk.buckets {
		for _, fc := range b.fixed {
			i := pk.cheapestIndex(b, fc.base, fc.c.ports)
			if i < 0 {
				return false
			}
			pk.fill(b, i, fc.base, fc.declared)
			fc.pods = pk.take(b, fc.pods, pk.filled, fc.base)
		}
	}
	type growing struct {
		b   *repackBucket
		fc  *fixedClaim
		eff float64
	}
	var grow []growing
	for _, b := range pk.buckets {
		for _, fc := range b.fixed {
			grow = append(grow, growing{b, fc, pk.worth(fc.base) / pk.cheapest(b, fc.base, fc.c.ports)})
		}
	}
	slices.SortStableFunc(grow, func(x, y growing) int { return cmp.Compare(x.eff, y.eff) })
	for _, g := range grow {
		if i, best := pk.choose(g.b, g.fc.base, g.fc.c.ports, g.fc.declared); i >= 0 {
			g.fc.pods = pk.take(g.b, g.fc.pods, best, g.fc.base)
		}
	}
	for _, b := range pk.buckets {
		for _, fc := range b.fixed {
			b.plans = append(b.plans, repackPlan{c: fc.c, pods: fc.pods})
		}
	}
	for _, b := range pk.buckets {
		for hasPods(b.local) {
			i, best := pk.choose(b, nil, nil, nil)
			if i < 0 {
				return false
			}
			pk.repeat(b, best)
		}
	}
	for hasPods(pk.free) {
		var to *repackBucket
		bi, bestEff := -1, 0.0
		var best []packed
		for _, b := range pk.buckets {
			if i, packs := pk.choose(b, nil, nil, nil); i >= 0 {
				if eff := pk.worthOf(packs) / pk.price(b, i); bi < 0 || eff > bestEff {
					to, bi, bestEff, best = b, i, eff, append(best[:0], packs...)
				}
			}
		}
		if to == nil {
			return false
		}
		pk.repeat(to, best)
	}
	return true
}

func hasPods(shapes []*shape) bool {
	for _, sh := range shapes {
		if sh.left() > 0 {
			return true
		}
	}
	return false
}

// repeat opens new claims in b with the pattern best while its shapes last.
func (pk *packer) repeat(b *repackBucket, best []packed) {
	reps := math.MaxInt
	for _, p := range best {
		reps = min(reps, p.sh.left()/p.n)
	}
	for range reps {
		b.plans = append(b.plans, repackPlan{pods: pk.take(b, nil, best, nil)})
	}
}

// fill packs b's active shapes in order, as many of each as fit, into the room type i
// leaves beside base (nil: none), skipping shapes a declared spread counts; pk.filled is
// what it packed. It returns the worth packed.
func (pk *packer) fill(b *repackBucket, i int, base vec, declared []*topologyGroup) float64 {
	copy(pk.room, pk.t.types[i].alloc)
	if base != nil {
		pk.room.sub(base)
	}
	pk.filled = pk.filled[:0]
	worth := 0.0
	for _, sh := range b.active {
		n := sh.left()
		if n == 0 || len(declared) > 0 && len(sh.spreads) > 0 && sharesGroup(declared, sh.spreads) {
			continue
		}
		for k, q := range sh.req {
			if q <= 0 {
				continue
			}
			r := pk.room[k]
			if r < q {
				n = 0 // mostly so once the type fills up: no division
				break
			}
			n = min(n, int(r/q))
		}
		if n <= 0 {
			continue
		}
		for k, q := range sh.req {
			pk.room[k] -= int64(n) * q
		}
		pk.filled = append(pk.filled, packed{sh, n})
		worth += float64(n) * sh.worth
	}
	return worth
}

// choose is the ladder type of b that, beside base (nil: an empty claim) with its host
// ports and declared spreads, packs the most worth per dollar, with what it packs; -1 when
// none packs a pod (for an empty claim, every type of b is tried before giving up).
func (pk *packer) choose(b *repackBucket, base vec, ports []hostPort, declared []*topologyGroup) (int, []packed) {
	baseWorth := 0.0
	if base != nil {
		baseWorth = pk.worth(base)
	}
	bi, bestEff := -1, 0.0
	var best []packed
	now := 0.0
	if base != nil {
		now, baseWorth = pk.cheapest(b, base, ports), 0
	}
	try := func(i int) {
		tt := pk.t.types[i]
		if base != nil && !base.fits(tt.alloc) || len(ports) > 0 && portsConflict(tt.daemonPorts, ports) {
			return
		}
		v := pk.fill(b, i, base, declared)
		if len(pk.filled) == 0 {
			return
		}
		if eff := (baseWorth + v) / max(pk.price(b, i)-now, 1e-12); bi < 0 || eff > bestEff {
			bi, bestEff = i, eff
			best = append(best[:0], pk.filled...)
		}
	}
	for _, i := range b.ladder {
		try(i)
	}
	if bi < 0 && base == nil {
		b.types.each(func(i int) bool {
			if !math.IsInf(pk.price(b, i), 1) {
				try(i)
			}
			return true
		})
	}
	return bi, best
}

// take moves the packed pods onto pods (adding their requests to base, unless nil) and
// drops the shapes left empty from b's active ones.
func (pk *packer) take(b *repackBucket, pods []*podData, counts []packed, base vec) []*podData {
	emptied := false
	for _, p := range counts {
		sh := p.sh
		pods = append(pods, sh.pods[sh.next:sh.next+p.n]...)
		sh.next += p.n
		if base != nil {
			for range p.n {
				base.add(sh.req)
			}
		}
		emptied = emptied || sh.left() == 0
	}
	if emptied {
		b.active = slices.DeleteFunc(b.active, func(sh *shape) bool { return sh.left() == 0 })
	}
	return pods
}

func (pk *packer) price(b *repackBucket, i int) float64 {
	if o := b.info.cheapest[i]; o != nil {
		return o.Price
	}
	return math.Inf(1)
}

func (pk *packer) worth(v vec) float64 {
	x := 0.0
	for k, q := range v {
		x += float64(q) * pk.w[k]
	}
	return x
}

func (pk *packer) worthOf(packs []packed) float64 {
	x := 0.0
	for _, p := range packs {
		x += float64(p.n) * p.sh.worth
	}
	return x
}

// cheapestIndex is the cheapest type of b that holds requests and host ports, as the
// NodeClaim's launch chooses it (-1: none). Types sit by their price under the NodePool's
// requirements, which is never above their price under the bucket's, so the scan stops
// once that reaches the best price found.
func (pk *packer) cheapestIndex(b *repackBucket, requests vec, ports []hostPort) int {
	best, bestPrice := -1, math.Inf(1)
	b.types.each(func(i int) bool {
		tt := pk.t.types[i]
		if tt.price >= bestPrice {
			return false
		}
		if p := pk.price(b, i); p < bestPrice && requests.fits(tt.alloc) && (len(ports) == 0 || !portsConflict(tt.daemonPorts, ports)) {
			best, bestPrice = i, p
		}
		return true
	})
	return best
}

// cheapest is the price of cheapestIndex (+Inf: none).
func (pk *packer) cheapest(b *repackBucket, requests vec, ports []hostPort) float64 {
	if i := pk.cheapestIndex(b, requests, ports); i >= 0 {
		return pk.price(b, i)
	}
	return math.Inf(1)
}

// rowPrices are the row prices per resource (per unit) of the cheapest fractional mix of
// the buckets' types (each at its cheapest price in any bucket) that covers the requests of
// all their pods, or nil when the program fails. When the pods' mix of resources is close
// to a mix the types offer, the program is degenerate: one resource takes the whole price
// and the others none (Karpenter's benchmark: memory free, by 0.5 %), and a packing by
// such prices wastes what is free. So the prices are averaged over the program and one
// program per resource whose demand is raised by a tenth: a resource that binds under a
// small change of the mix keeps a share of the price.
func (pk *packer) rowPrices() []float64 {
	demand := make(vec, len(pk.s.res.names))
	types := newBitset(len(pk.t.types))
	for _, b := range pk.buckets {
		for _, c := range b.claims {
			demand.add(c.requests)
		}
		for i, w := range b.types {
			types[i] |= w
		}
	}
	var dims []int
	for k, q := range demand {
		if q > 0 {
			dims = append(dims, k)
		}
	}
	if len(dims) == 0 {
		return nil
	}
	type column struct {
		price float64
		rows  []int
		vals  []float64
	}
	var cols []column
	types.each(func(i int) bool {
		p := math.Inf(1)
		for _, b := range pk.buckets {
			p = min(p, pk.price(b, i))
		}
		if math.IsInf(p, 1) {
			return true
		}
		var col column
		for row, k := range dims {
			if a := pk.t.types[i].alloc[k]; a > 0 {
				col.rows, col.vals = append(col.rows, row), append(col.vals, float64(a)/float64(demand[k]))
			}
		}
		if len(col.rows) > 0 {
			col.price = p
			cols = append(cols, col)
		}
		return true
	})
	senses := make([]lp.Sense, len(dims))
	for i := range dims {
		senses[i] = lp.GreaterEq
	}
	duals := func(raised int) []float64 {
		rhs := make([]float64, len(dims))
		for i := range dims {
			rhs[i] = 1
		}
		if raised >= 0 {
			rhs[raised] = 1.1
		}
		prob, err := lp.New(senses, rhs)
		if err != nil {
			return nil
		}
		for _, c := range cols {
			_, _ = prob.AddColumn(c.price, c.rows, c.vals)
		}
		if prob.Solve() != lp.Optimal {
			return nil
		}
		y := make([]float64, len(dims))
		for row := range dims {
			y[row] = max(prob.Dual(row), 0)
		}
		return y
	}
	y := duals(-1)
	if y == nil {
		return nil
	}
	n := 1
	for raised := range dims {
		if yr := duals(raised); yr != nil {
			for row := range dims {
				y[row] += yr[row]
			}
			n++
		}
	}
	for row := range dims {
		y[row] /= float64(n)
	}
	w := make([]float64, len(pk.s.res.names))
	for row, k := range dims {
		w[k] = y[row] / float64(demand[k])
	}
	return w
}

// buildLadder keeps, per ratio class (the memory and other priced resources per cpu, in
// half-octaves) and size class (worth in half-octaves), the type of b with the most worth
// per dollar (ties: the cheaper, then the earlier): the sizes a NodeClaim is tried at.
func (pk *packer) buildLadder(b *repackBucket) []int {
	cpu, hasCPU := pk.s.res.pos[corev1.ResourceCPU]
	pods := pk.s.res.pos[corev1.ResourcePods]
	best := map[string]int{}
	var keys []string
	var sb strings.Builder
	b.types.each(func(i int) bool {
		p := pk.price(b, i)
		alloc := pk.t.types[i].alloc
		v := pk.worth(alloc)
		if math.IsInf(p, 1) || v <= 0 {
			return true
		}
		sb.Reset()
		sb.WriteString(strconv.Itoa(int(math.Floor(2 * math.Log2(v)))))
		for k, a := range alloc {
			if k == cpu || k == pods || pk.w[k] == 0 {
				continue
			}
			sb.WriteByte(' ')
			if !hasCPU || alloc[cpu] <= 0 || a <= 0 {
				sb.WriteString(strconv.FormatInt(min(a, 1), 10))
			} else {
				sb.WriteString(strconv.Itoa(int(math.Round(2 * math.Log2(float64(a)/float64(alloc[cpu]))))))
			}
		}
		key := sb.String()
		j, ok := best[key]
		if !ok {
			keys = append(keys, key)
			best[key] = i
			return true
		}
		ei, ej := v/p, pk.worth(pk.t.types[j].alloc)/pk.price(b, j)
		if ei > ej || ei == ej && p < pk.price(b, j) {
			best[key] = i
		}
		return true
	})
	out := make([]int, 0, len(keys))
	for _, k := range keys {
		out = append(out, best[k])
	}
	slices.Sort(out)
	return out
}

func vecKey(v vec) string {
	buf := make([]byte, 0, len(v)*8)
	for _, x := range v {
		for i := 0; i < 8; i++ {
			buf = append(buf, byte(uint64(x)>>(8*i)))
		}
	}
	return string(buf)
}
