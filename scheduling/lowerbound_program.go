package scheduling

import (
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// boundProgram is the bound's linear program before it is solved: pod classes with their
// demand, and the columns that can serve them.
type boundProgram struct {
	classes []boundClass
	columns []boundColumn
	// limits are the right-hand sides of the limit rows: 1 for a group of existing nodes (its
	// pooled room), a capacity reservation's count for its offerings.
	limits []float64
	// dims are the resource positions (in the solver's resourceIndex) some class requests.
	dims    []int
	pods    int
	leftOut []*corev1.Pod
}

// boundClass is the pods that may use the same offerings and existing nodes.
type boundClass struct {
	demand []float64 // per dim, the pods' requests summed
	// columns are the columns that may serve the class.
	columns []int
}

// boundColumn is one offering of a NodePool's instance type (the cheapest of those its classes
// may equally use), or a group of existing nodes that the same classes may use.
type boundColumn struct {
	template, typ, offering int
	existing                bool
	price                   float64
	capacity                []float64 // per dim: allocatable after DaemonSet overhead, or the room left
	classes                 []int32   // ascending
	limit                   int       // its limit row, or -1
}

// boundUse is what a pod's required constraints allow it: per template and instance type,
// the offerings (nil: none), and the existing nodes (before resources).
type boundUse struct {
	offers [][]bitset
	nodes  bitset
}

// boundFit is where a pod's requests (and host ports) fit: per template the instance types
// whose allocatable after DaemonSet overhead holds it, and the existing nodes with room.
type boundFit struct {
	types []bitset
	nodes bitset
}

// boundProgram sorts the pods into classes and builds the columns that serve them.
func (s *solver) boundProgram(pods []*podData) *boundProgram {
	prog := &boundProgram{}
	useIDs, fitIDs, fitContent, classIDs := map[string]int{}, map[string]int{}, map[string]int{}, map[[2]int]int{}
	var uses []*boundUse
	var fits []*boundFit
	type rawClass struct {
		use, fit int
		demand   vec
	}
	var raw []rawClass
	classOf := make([]int, len(pods))
	for i, p := range pods {
		classOf[i] = -1
		if p.invalid != nil || p.form == nil {
			continue
		}
		uk := s.boundUseKey(p)
		u, ok := useIDs[uk]
		if !ok {
			u = len(uses)
			useIDs[uk] = u
			uses = append(uses, s.boundUseOf(p))
		}
		fk := boundFitKey(p)
		f, ok := fitIDs[fk]
		if !ok {
			fit := s.boundFitOf(p)
			ck := fit.key()
			if f, ok = fitContent[ck]; !ok {
				f = len(fits)
				fitContent[ck] = f
				fits = append(fits, fit)
			}
			fitIDs[fk] = f
		}
		c, ok := classIDs[[2]int{u, f}]
		if !ok {
			c = len(raw)
			classIDs[[2]int{u, f}] = c
			raw = append(raw, rawClass{use: u, fit: f, demand: make(vec, len(s.res.names))})
		}
		raw[c].demand.add(p.requests)
		classOf[i] = c
	}

	// Which offerings each class may use; a class with no offering outside a capacity
	// reservation is left out (it could only be served by limited capacity).
	type slot struct{ t, i, o int }
	sigs := map[slot][]int32{}
	var slots []slot // in first-use order, sorted below
	unlimited := make([]bool, len(raw))
	for c, rc := range raw {
		u, f := uses[rc.use], fits[rc.fit]
		for t := range s.templates {
			for i, offers := range u.offers[t] {
				if offers == nil || !f.types[t].has(i) {
					continue
				}
				offerings := s.templates[t].types[i].it.Offerings
				offers.each(func(o int) bool {
					k := slot{t, i, o}
					if _, ok := sigs[k]; !ok {
						slots = append(slots, k)
					}
					sigs[k] = append(sigs[k], int32(c))
					unlimited[c] = unlimited[c] || offerings[o].CapacityType() != v1.CapacityTypeReserved
					return true
				})
			}
		}
	}
	newID := make([]int, len(raw))
	for c := range raw {
		newID[c] = -1
		if unlimited[c] {
			newID[c] = len(prog.classes)
			prog.classes = append(prog.classes, boundClass{})
		}
	}
	for i, p := range pods {
		if classOf[i] < 0 || newID[classOf[i]] < 0 {
			prog.leftOut = append(prog.leftOut, p.pod)
			continue
		}
		prog.pods++
	}
	if len(prog.classes) == 0 {
		return prog
	}
	total := make(vec, len(s.res.names))
	for c, rc := range raw {
		if newID[c] >= 0 {
			total.add(rc.demand)
		}
	}
	for r, x := range total {
		if x > 0 {
			prog.dims = append(prog.dims, r)
		}
	}
	for c, rc := range raw {
		if id := newID[c]; id >= 0 {
			prog.classes[id].demand = prog.project(rc.demand)
		}
	}
	remap := func(sig []int32) []int32 {
		out := make([]int32, 0, len(sig))
		for _, c := range sig {
			if id := newID[c]; id >= 0 {
				out = append(out, int32(id))
			}
		}
		return out
	}

	// Offerings: per instance type, offerings used by the same classes (and in the same
	// reservation, if any) are one column at the cheapest price.
	slices.SortFunc(slots, func(a, b slot) int {
		if a.t != b.t {
			return a.t - b.t
		}
		if a.i != b.i {
			return a.i - b.i
		}
		return a.o - b.o
	})
	reservations := map[string]int{}
	for start := 0; start < len(slots); {
		end := start
		for end < len(slots) && slots[end].t == slots[start].t && slots[end].i == slots[start].i {
			end++
		}
		t := s.templates[slots[start].t]
		tt := t.types[slots[start].i]
		byKey := map[string]int{}
		for _, sl := range slots[start:end] {
			sig := remap(sigs[sl])
			if len(sig) == 0 {
				continue
			}
			o := tt.it.Offerings[sl.o]
			reservation := ""
			if o.CapacityType() == v1.CapacityTypeReserved {
				reservation = offeringValue(o, cloudprovider.ReservationIDLabel)
			}
			key := sigKey(sig) + "\x00" + reservation
			if j, ok := byKey[key]; ok {
				best := tt.it.Offerings[prog.columns[j].offering]
				if o.Price < best.Price || (o.Price == best.Price && offeringLess(o, best)) {
					prog.columns[j].offering, prog.columns[j].price = sl.o, o.Price
				}
				continue
			}
			col := boundColumn{template: sl.t, typ: sl.i, offering: sl.o, price: o.Price, capacity: prog.project(tt.alloc), classes: sig, limit: -1}
			if reservation != "" {
				g, ok := reservations[reservation]
				if !ok {
					g = len(prog.limits)
					reservations[reservation] = g
					prog.limits = append(prog.limits, float64(max(s.reservations[reservation], 0)))
				}
				col.limit = g
			}
			byKey[key] = len(prog.columns)
			prog.columns = append(prog.columns, col)
		}
		start = end
	}

	// Existing nodes: the nodes the same classes may use pool their room in one column.
	nodeSigs := make([][]int32, len(s.existing))
	for c, rc := range raw {
		id := newID[c]
		if id < 0 {
			continue
		}
		on := uses[rc.use].nodes.clone()
		on.andWith(fits[rc.fit].nodes)
		on.each(func(e int) bool {
			nodeSigs[e] = append(nodeSigs[e], int32(id))
			return true
		})
	}
	groups := map[string]int{}
	for e, sig := range nodeSigs {
		if len(sig) == 0 {
			continue
		}
		room := prog.project(s.existing[e].available)
		for k := range room {
			room[k] = max(room[k], 0)
		}
		key := sigKey(sig)
		if j, ok := groups[key]; ok {
			for k, x := range room {
				prog.columns[j].capacity[k] += x
			}
			continue
		}
		groups[key] = len(prog.columns)
		prog.columns = append(prog.columns, boundColumn{existing: true, capacity: room, classes: sig, limit: len(prog.limits)})
		prog.limits = append(prog.limits, 1)
	}
	for j, col := range prog.columns {
		for _, c := range col.classes {
			prog.classes[c].columns = append(prog.classes[c].columns, j)
		}
	}
	return prog
}

// project is v on the program's dims, as floats.
func (prog *boundProgram) project(v vec) []float64 {
	out := make([]float64, len(prog.dims))
	for k, r := range prog.dims {
		out[k] = float64(v[r])
	}
	return out
}

// sigKey is a map key for a list of classes.
func sigKey(sig []int32) string {
	var b strings.Builder
	for _, c := range sig {
		b.WriteString(strconv.Itoa(int(c)))
		b.WriteByte(',')
	}
	return b.String()
}

// boundAlternatives are the node requirements a pod may be placed under: its node selector
// with each of its required node-affinity terms (Solve relaxes through them all), each with
// each of its volumes' topology alternatives.
func boundAlternatives(p *podData) []requirements.Requirements {
	f := p.form
	terms := f.requiredTerms
	if len(terms) == 0 {
		terms = []requirements.Requirements{{}}
	}
	var out []requirements.Requirements
	for _, term := range terms {
		reqs := f.nodeSelector.Union(term)
		if len(p.volumeAlternatives) == 0 {
			out = append(out, reqs)
			continue
		}
		for _, alt := range p.volumeAlternatives {
			out = append(out, reqs.Union(alt))
		}
	}
	return out
}

// boundUseKey identifies what boundUseOf computes for a pod: its requirement alternatives,
// its tolerations, and whether it moves from a live node (which nodes closed to moves refuse).
func (s *solver) boundUseKey(p *podData) string {
	var b strings.Builder
	for _, reqs := range boundAlternatives(p) {
		for _, k := range reqs.Keys() {
			b.WriteString(k)
			b.WriteByte(2)
			b.WriteString(reqID(reqs[k]))
			b.WriteByte(4)
		}
		b.WriteByte(5)
	}
	for _, t := range p.form.tolerations {
		b.WriteString(t.Key)
		b.WriteByte(2)
		b.WriteString(string(t.Operator))
		b.WriteByte(2)
		b.WriteString(t.Value)
		b.WriteByte(2)
		b.WriteString(string(t.Effect))
		b.WriteByte(4)
	}
	if s.movesFromLiveNode(p) {
		b.WriteByte(6)
	}
	return b.String()
}

// movesFromLiveNode reports a pod bound to a node that is not deleting (a moving pod of a
// simulation), which nodes closed to moves refuse.
func (s *solver) movesFromLiveNode(p *podData) bool {
	if p.pod.Spec.NodeName == "" {
		return false
	}
	if s.deleting == nil { // named at the first question: most Solves ask none
		s.deleting = map[string]bool{}
		for i := range s.nodes {
			if s.isDeleting(i) {
				s.deleting[s.recs[i].name] = true
			}
		}
	}
	return !s.deleting[p.pod.Spec.NodeName]
}

// boundUseOf is where a pod's required constraints allow it, resources aside: the
// offerings of each template's instance types and the existing nodes, as placement checks
// them (claim.check, existingNode.check) without topology and preferences (PreferNoSchedule
// taints are tolerated once Solve relaxes the pod).
func (s *solver) boundUseOf(p *podData) *boundUse {
	alts := boundAlternatives(p)
	u := &boundUse{offers: make([][]bitset, len(s.templates)), nodes: newBitset(len(s.existing))}
	for ti, t := range s.templates {
		if !tolerates(p.form.tolerations, schedulingTaints(t.taints)) {
			continue
		}
		for _, reqs := range alts {
			if !t.reqs.IsCompatible(reqs, s.wellKnown) {
				continue
			}
			merged := t.reqs.Union(reqs)
			types := t.all.clone()
			t.narrowTypes(types, reqs.Keys(), merged)
			types.each(func(i int) bool {
				for o, off := range t.types[i].it.Offerings {
					if off == nil || !off.Available || math.IsNaN(off.Price) || !offeringCompatible(off, merged) {
						continue
					}
					if u.offers[ti] == nil {
						u.offers[ti] = make([]bitset, len(t.types))
					}
					if u.offers[ti][i] == nil {
						u.offers[ti][i] = newBitset(len(t.types[i].it.Offerings))
					}
					u.offers[ti][i].set(o)
				}
				return true
			})
		}
	}
	moving := s.movesFromLiveNode(p)
	for e, n := range s.existing {
		if moving && n.closed {
			continue
		}
		if !tolerates(p.form.tolerations, schedulingTaints(n.taints)) {
			continue
		}
		for _, reqs := range alts {
			if n.reqs.IsCompatible(reqs, nil) {
				u.nodes.set(e)
				break
			}
		}
	}
	return u
}

// boundFitKey identifies what boundFitOf computes for a pod: its requests and host ports.
func boundFitKey(p *podData) string {
	var b strings.Builder
	for _, x := range p.requests {
		b.WriteString(strconv.FormatInt(x, 10))
		b.WriteByte(',')
	}
	for _, hp := range p.ports {
		b.WriteString(hp.ip)
		b.WriteByte('/')
		b.WriteString(strconv.Itoa(int(hp.port)))
		b.WriteByte('/')
		b.WriteString(string(hp.protocol))
		b.WriteByte(',')
	}
	return b.String()
}

// boundFitOf is where a pod's requests fit.
func (s *solver) boundFitOf(p *podData) *boundFit {
	f := &boundFit{types: make([]bitset, len(s.templates)), nodes: newBitset(len(s.existing))}
	for ti, t := range s.templates {
		f.types[ti] = newBitset(len(t.types))
		for i, tt := range t.types {
			if p.requests.fits(tt.alloc) && (len(p.ports) == 0 || !portsConflict(tt.daemonPorts, p.ports)) {
				f.types[ti].set(i)
			}
		}
	}
	for e, n := range s.existing {
		if p.requests.fits(n.available) && (len(p.ports) == 0 || !portsConflict(n.ports, p.ports)) {
			f.nodes.set(e)
		}
	}
	return f
}

// key is a map key for the fit's content.
func (f *boundFit) key() string {
	var b strings.Builder
	for _, bs := range append(f.types, f.nodes) {
		for _, w := range bs {
			b.WriteString(strconv.FormatUint(w, 36))
			b.WriteByte(',')
		}
		b.WriteByte(';')
	}
	return b.String()
}
