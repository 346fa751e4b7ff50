package scheduling

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/requirements"
)

// template is a NodePool prepared for scheduling: its requirements, taints and an index of
// its instance types.
type template struct {
	// origin is the Cache's template this Solve's was copied from (forSolve); resIndexed
	// marks a Cache's template whose types' resource names the Cache's index holds.
	origin        *template
	resIndexed    bool
	nodePool      *v1.NodePool
	name          string
	reqs          requirements.Requirements // NodePool requirements ∩ template labels
	daemonReqs    requirements.Requirements // reqs + registered/initialized, for DaemonSets
	labels        map[string]string
	taints        []corev1.Taint
	startupTaints []corev1.Taint

	types        []*templateType // cheapest first under reqs
	byName       []int           // positions in types, by instance-type name
	all          bitset
	reqBits      map[string]bitset
	offerBits    map[string]*offerInfo
	offerKeys    []string // label keys that offerings define
	hasMinValues bool
	hasReserved  bool // some type has a reserved offering the requirements allow

	// limits: remaining resources (limited[i] false: unlimited) and remaining nodes (-1: none)
	remaining vec
	limited   []bool
	nodesLeft int64
	hasLimits bool
	// nodesLimited: limits.nodes is set. Karpenter mode counts it as Karpenter's scheduler
	// does: its nodes and the NodeClaims launched by earlier rounds take one each (nodesLeft
	// may go below zero), a NodeClaim of the round none, and the NodePool launches nothing
	// once nodesLeft is zero or less.
	nodesLimited bool
	// startTypes are the types the NodePool's limits left room for once the existing nodes
	// were counted (markStartTypes): the Solve can launch no other (its NodeClaims only take
	// room), so no node of another can be in a domain (domainsOfNodes).
	startTypes bitset
	// fitIndex orders the types by allocatable (template_fit.go), built per Solve on use.
	fitIndex *typeFit
}

// templateType is one instance type of a template.
type templateType struct {
	it          *cloudprovider.InstanceType
	alloc       vec // allocatable minus the DaemonSet overhead
	overhead    vec
	capacity    vec
	daemonPorts []hostPort
	price       float64
}

// reqID is a canonical text for a requirement (unlike String, it never abbreviates).
func reqID(r *requirements.Requirement) string { return string(appendReqID(nil, r)) }

// appendReqID appends reqID(r) to b: the indexes below look their keys up from a stack
// buffer, allocating only to remember a new one.
func appendReqID(b []byte, r *requirements.Requirement) []byte {
	b = append(b, r.Operator()...)
	for _, v := range r.Values() {
		b = append(b, 0)
		b = append(b, v...)
	}
	gte, hasGte, lte, hasLte := r.Bounds()
	if hasGte {
		b = append(b, "\x01>="...)
		b = strconv.AppendInt(b, gte, 10)
	}
	if hasLte {
		b = append(b, "\x01<="...)
		b = strconv.AppendInt(b, lte, 10)
	}
	return b
}

// appendReqIDOf appends reqID(reqs.Get(key)) without making Get's Exists for an undefined key.
func appendReqIDOf(b []byte, reqs requirements.Requirements, key string) []byte {
	if r, ok := reqs[v1.NormalizeLabelKey(key)]; ok {
		return appendReqID(b, r)
	}
	return append(b, requirements.Exists...)
}

func negative(r *requirements.Requirement) bool {
	op := r.Operator()
	return op == requirements.NotIn || op == requirements.DoesNotExist
}

// narrowTypes keeps in types those that intersect reqs on the changed keys and, when an
// offering key changed, have an available offering under reqs.
func (t *template) narrowTypes(types bitset, changed []string, reqs requirements.Requirements) {
	offers := false
	for _, k := range changed {
		types.andWith(t.typesFor(k, reqs[k]))
		offers = offers || t.isOfferKey(k)
	}
	if offers {
		types.andWith(t.offerings(reqs).bits)
	}
}

// isOfferKey reports whether offerings define key (zone, capacity type, ...).
func (t *template) isOfferKey(key string) bool {
	for _, k := range t.offerKeys {
		if k == key {
			return true
		}
	}
	return false
}

// typesFor returns the bitset of types whose requirement for key intersects r (a type that
// does not define key is compatible, as in Karpenter's Intersects).
func (t *template) typesFor(key string, r *requirements.Requirement) bitset {
	var buf [128]byte
	id := appendReqID(append(append(buf[:0], key...), 2), r)
	if b, ok := t.reqBits[string(id)]; ok {
		return b
	}
	b := newBitset(len(t.types))
	for i, tt := range t.types {
		tr, ok := tt.it.Requirements[key]
		if !ok || tr.Intersects(r) || (negative(tr) && negative(r)) {
			b.set(i)
		}
	}
	t.reqBits[string(id)] = b
	return b
}

// offerInfo is, for one combination of the offering keys' requirements (zone, capacity
// type, ...), which types have an available compatible offering, the cheapest such offering
// per type, and the capacity types each type can launch with.
type offerInfo struct {
	bits          bitset
	cheapest      []*cloudprovider.Offering
	capacityTypes [][]string
	// offers are all available compatible offerings per type, cheapest first (kept only when
	// the type has reserved offerings, whose capacity is limited).
	offers [][]*cloudprovider.Offering
	// byPrice are the types with an offering in cheapestLaunch's order (launch.go), built
	// when first asked.
	byPrice []int32
	ordered bool
}

// offerings returns the offering index for reqs, computed once per distinct combination of
// the offering keys' requirements.
func (t *template) offerings(reqs requirements.Requirements) *offerInfo {
	var buf [128]byte
	id := buf[:0]
	for _, k := range t.offerKeys {
		id = append(appendReqIDOf(id, reqs, k), 3)
	}
	if info, ok := t.offerBits[string(id)]; ok {
		return info
	}
	info := &offerInfo{
		bits:          newBitset(len(t.types)),
		cheapest:      make([]*cloudprovider.Offering, len(t.types)),
		capacityTypes: make([][]string, len(t.types)),
	}
	for i, tt := range t.types {
		o := cheapestOffering(tt.it, reqs)
		if o == nil {
			continue
		}
		info.bits.set(i)
		info.cheapest[i] = o
		seen := map[string]bool{}
		var offers []*cloudprovider.Offering
		reserved := false
		for _, off := range tt.it.Offerings {
			if off.Available && !math.IsNaN(off.Price) && offeringCompatible(off, reqs) {
				offers = append(offers, off)
				if ct := off.CapacityType(); !seen[ct] {
					seen[ct] = true
					info.capacityTypes[i] = append(info.capacityTypes[i], ct)
				}
				reserved = reserved || off.CapacityType() == v1.CapacityTypeReserved
			}
		}
		if reserved {
			if info.offers == nil {
				info.offers = make([][]*cloudprovider.Offering, len(t.types))
			}
			sort.SliceStable(offers, func(a, b int) bool {
				if offers[a].Price != offers[b].Price {
					return offers[a].Price < offers[b].Price
				}
				return offeringLess(offers[a], offers[b])
			})
			info.offers[i] = offers
		}
	}
	t.offerBits[string(id)] = info
	return info
}

// offeringCompatible reports whether an offering can serve a node with requirements reqs
// (keys defined on both sides share a value, as Karpenter's Intersects).
func offeringCompatible(o *cloudprovider.Offering, reqs requirements.Requirements) bool {
	return reqs.HasIntersection(o.Requirements)
}

// cheapestOffering is the cheapest available offering of it compatible with reqs (ties:
// capacity type as a launch prefers it, then zone), or nil.
func cheapestOffering(it *cloudprovider.InstanceType, reqs requirements.Requirements) *cloudprovider.Offering {
	var best *cloudprovider.Offering
	for _, o := range it.Offerings {
		if !o.Available || math.IsNaN(o.Price) || !offeringCompatible(o, reqs) {
			continue
		}
		if best == nil || o.Price < best.Price || (o.Price == best.Price && offeringLess(o, best)) {
			best = o
		}
	}
	return best
}

// offeringLess breaks a price tie: spot before on-demand (a launch allowed both takes spot
// when it is no dearer), then zone.
func offeringLess(a, b *cloudprovider.Offering) bool {
	ca := cloudprovider.CapacityTypeRank(offeringValue(a, v1.CapacityTypeLabelKey))
	if cb := cloudprovider.CapacityTypeRank(offeringValue(b, v1.CapacityTypeLabelKey)); ca != cb {
		return ca < cb
	}
	return offeringValue(a, v1.LabelTopologyZone) < offeringValue(b, v1.LabelTopologyZone)
}

// offeringValue is the offering's single value for key (zone, capacity type), without the
// allocation of Requirements.Get.
func offeringValue(o *cloudprovider.Offering, key string) string {
	if r, ok := o.Requirements[key]; ok {
		if vs := r.Values(); len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

// poolRequirements are a NodePool's requirements and the labels of its nodes (its template's
// labels, the NodePool and NodeClass labels), the labels included in the requirements.
func poolRequirements(np *v1.NodePool) (requirements.Requirements, map[string]string, error) {
	reqs, err := requirements.FromNodeSelectorRequirements(np.Spec.Template.Spec.Requirements...)
	if err != nil {
		return nil, nil, invalid(opSolve, cluster.InputInvalid, "NodePool", np.Name, "spec.template.spec.requirements", "%w", err)
	}
	lbls := map[string]string{}
	for k, v := range np.Spec.Template.ObjectMeta.Labels {
		lbls[k] = v
	}
	lbls[v1.NodePoolLabelKey] = np.Name
	if ref := np.Spec.Template.Spec.NodeClassRef; ref != nil && ref.Group != "" && ref.Kind != "" {
		lbls[ref.Group+"/"+strings.ToLower(ref.Kind)] = ref.Name
	}
	return reqs.Union(requirements.FromLabels(lbls)), lbls, nil
}

// newTemplate prepares a NodePool. It returns nil (with a reason) when no instance type is
// left after the NodePool's own requirements.
func (s *solver) newTemplate(np *v1.NodePool, types cloudprovider.InstanceTypes) (*template, Cause, error) {
	reqs, lbls, err := poolRequirements(np)
	if err != nil {
		return nil, Cause{}, err
	}
	t := &template{
		nodePool:      np,
		name:          np.Name,
		reqs:          reqs,
		labels:        lbls,
		taints:        np.Spec.Template.Spec.Taints,
		startupTaints: np.Spec.Template.Spec.StartupTaints,
		reqBits:       map[string]bitset{},
		offerBits:     map[string]*offerInfo{},
		nodesLeft:     -1,
	}
	t.daemonReqs = reqs.Union(requirements.FromLabels(map[string]string{v1.NodeRegisteredLabelKey: "true", v1.NodeInitializedLabelKey: "true"}))
	for _, k := range reqs.Keys() {
		if reqs[k].MinValues() > 0 {
			t.hasMinValues = true
		}
	}
	offerKeys := map[string]bool{}
	unavailable := 0 // types the requirements allow that have no available offering
	for _, it := range types {
		if it == nil {
			continue
		}
		if !typeIntersects(it.Requirements, reqs) {
			continue
		}
		o := cheapestOffering(it, reqs)
		if o == nil {
			unavailable++
			continue
		}
		for _, off := range it.Offerings {
			for k := range off.Requirements {
				offerKeys[k] = true
			}
			t.hasReserved = t.hasReserved || off.CapacityType() == v1.CapacityTypeReserved && offeringCompatible(off, reqs)
		}
		t.types = append(t.types, &templateType{it: it, price: o.Price})
	}
	for k := range offerKeys {
		t.offerKeys = append(t.offerKeys, k)
	}
	sort.Strings(t.offerKeys)
	sort.SliceStable(t.types, func(i, j int) bool {
		if t.types[i].price != t.types[j].price {
			return t.types[i].price < t.types[j].price
		}
		return t.types[i].it.Name < t.types[j].it.Name
	})
	if len(t.types) == 0 {
		why := noTypesReason(np.Name, len(types), unavailable)
		if why.Code == ReasonRequirementsUnsatisfiable {
			why.Key = excludingKey(types, reqs)
		}
		return nil, why, nil
	}
	if t.hasMinValues && s.opts.MinValuesPolicy != MinValuesBestEffort {
		if key, have, want := t.minValuesShortfall(fullBitset(len(t.types)), reqs); key != "" {
			why := minValuesCause(key, want, have)
			why.NodePool = np.Name
			return nil, why, nil
		}
	}
	t.all = fullBitset(len(t.types))
	t.byName = make([]int, len(t.types))
	for i := range t.byName {
		t.byName[i] = i
	}
	sort.Slice(t.byName, func(a, b int) bool { return t.types[t.byName[a]].it.Name < t.types[t.byName[b]].it.Name })
	return t, Cause{}, nil
}

// excludingKey is the first key of reqs (sorted) on which no instance type of types
// intersects them, or "" when only their combination excludes every type.
func excludingKey(types cloudprovider.InstanceTypes, reqs requirements.Requirements) string {
	for _, k := range reqs.Keys() {
		one := requirements.Requirements{k: reqs[k]}
		if !slices.ContainsFunc(types, func(it *cloudprovider.InstanceType) bool { return it != nil && typeIntersects(it.Requirements, one) }) {
			return k
		}
	}
	return ""
}

// typeIntersects is Karpenter's Requirements.Intersects between an instance type and
// NodeClaim requirements: keys defined on both sides must share a value unless both are
// negative.
func typeIntersects(typeReqs, reqs requirements.Requirements) bool {
	return typeReqs.HasIntersection(reqs)
}

// minValuesShortfall checks every requirement with minValues against the types in set,
// walking them cheapest first. It returns the first key (sorted) that falls short.
func (t *template) minValuesShortfall(set bitset, reqs requirements.Requirements) (key string, have, want int) {
	for _, k := range reqs.Keys() {
		r := reqs[k]
		if r.MinValues() == 0 {
			continue
		}
		seen := map[string]bool{}
		set.each(func(i int) bool {
			for _, v := range typeValues(t.types[i].it, k, reqs) {
				if r.Has(v) {
					seen[v] = true
				}
			}
			return len(seen) < r.MinValues()
		})
		if len(seen) < r.MinValues() {
			return k, len(seen), r.MinValues()
		}
	}
	return "", 0, 0
}

// typeValues are the values an instance type offers for key: its requirement's values, or
// for offering keys (zone, capacity type) those of its available compatible offerings.
func typeValues(it *cloudprovider.InstanceType, key string, reqs requirements.Requirements) []string {
	var out []string
	fromOfferings := false
	for _, o := range it.Offerings {
		if or, ok := o.Requirements[key]; ok {
			fromOfferings = true
			if o.Available && offeringCompatible(o, reqs) {
				out = append(out, or.Values()...)
			}
		}
	}
	if fromOfferings {
		return out
	}
	if r, ok := it.Requirements[key]; ok && r.Operator() == requirements.In {
		return r.Values()
	}
	return nil
}
