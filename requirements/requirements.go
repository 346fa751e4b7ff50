package requirements

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Requirements is a set of requirements keyed by label key. An undefined key means
// "anything" (Get returns Exists). The map is exported for cheap iteration, but callers must
// go through Add to combine requirements on one key.
type Requirements map[string]*Requirement

// KeySet is a set of label keys, e.g. the well-known labels of a catalog.
type KeySet map[string]bool

// AllowUndefinedWellKnownLabels returns a new KeySet of v1.WellKnownLabels plus extra keys
// (a catalog's own well-known labels), for Compatible's allowUndefined: this is Karpenter's
// AllowUndefinedWellKnownLabels option.
func AllowUndefinedWellKnownLabels(extra ...string) KeySet {
	ks := make(KeySet, len(v1.WellKnownLabels)+len(extra))
	for k := range v1.WellKnownLabels {
		ks[k] = true
	}
	for _, k := range extra {
		ks[k] = true
	}
	return ks
}

// NewRequirements builds a set from requirements, intersecting those on the same key.
// Nil requirements are skipped.
func NewRequirements(rs ...*Requirement) Requirements {
	out := make(Requirements, len(rs))
	out.Add(rs...)
	return out
}

// FromNodeSelectorRequirements builds a set from API requirements (keeping minValues). The
// error names the offending index, key and operator.
//
// A nil or zero MinValues means none; a negative one is an error. The API's 1..50 range and
// "minValues ≤ number of In values" are left to API validation, so that any requirement this
// package produces (e.g. In [a] minValues 2 after an intersection) round-trips.
func FromNodeSelectorRequirements(rs ...v1.NodeSelectorRequirementWithMinValues) (Requirements, error) {
	out := make(Requirements, len(rs))
	for i, nsr := range rs {
		r, ferr := build(nsr.Key, string(nsr.Operator), nsr.Values)
		if ferr != nil {
			return nil, fmt.Errorf("requirements[%d] (key %q, operator %q): %s", i, nsr.Key, nsr.Operator, ferr.msg)
		}
		if nsr.MinValues != nil {
			if *nsr.MinValues < 0 {
				return nil, fmt.Errorf("requirements[%d] (key %q, operator %q): minValues must not be negative, got %d", i, nsr.Key, nsr.Operator, *nsr.MinValues)
			}
			r.minValues = *nsr.MinValues
		}
		out.Add(r)
	}
	return out, nil
}

// FromCoreNodeSelectorRequirements builds a set from Kubernetes NodeSelectorRequirements.
func FromCoreNodeSelectorRequirements(rs ...corev1.NodeSelectorRequirement) (Requirements, error) {
	out := make(Requirements, len(rs))
	for i, nsr := range rs {
		r, ferr := build(nsr.Key, string(nsr.Operator), nsr.Values)
		if ferr != nil {
			return nil, fmt.Errorf("requirements[%d] (key %q, operator %q): %s", i, nsr.Key, nsr.Operator, ferr.msg)
		}
		out.Add(r)
	}
	return out, nil
}

// FromLabels builds a set with one In requirement per label (keys normalised).
func FromLabels(labels map[string]string) Requirements {
	out := make(Requirements, len(labels))
	for k, v := range labels {
		out.Add(&Requirement{Key: v1.NormalizeLabelKey(k), values: []string{v}})
	}
	return out
}

// Field paths of a pod's node affinity, for error messages.
const (
	pathRequired  = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
	pathPreferred = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
)

// ForPod returns the requirements a pod places on its node: its nodeSelector, its first
// required node-affinity term, and its heaviest preferred node-affinity term (treated as
// required until relaxed). ForPodStrict leaves the preferred term out. The error names the
// pod's field (e.g. spec.affinity.nodeAffinity...matchExpressions[1]) for an invalid
// operator or value, and rejects matchFields.
//
// Every required and preferred term is validated, not only the ones used, so that a pod is
// either valid as a whole or rejected up front (later required terms are reached through
// preference relaxation). Of preferred terms of equal weight the first wins. A nil pod has
// no requirements. Restricted label keys (kubernetes.io/hostname, karpenter.sh/...) are not
// rejected here: that is the scheduler's decision (see v1.IsRestrictedLabel).
func ForPod(pod *corev1.Pod) (Requirements, error) { return forPod(pod, true) }

// ForPodStrict is ForPod without the preferred term.
func ForPodStrict(pod *corev1.Pod) (Requirements, error) { return forPod(pod, false) }

func forPod(pod *corev1.Pod, preferred bool) (Requirements, error) {
	out := Requirements{}
	if pod == nil {
		return out, nil
	}
	for k, v := range pod.Spec.NodeSelector {
		out.Add(&Requirement{Key: v1.NormalizeLabelKey(k), values: []string{v}})
	}
	if pod.Spec.Affinity == nil || pod.Spec.Affinity.NodeAffinity == nil {
		return out, nil
	}
	na := pod.Spec.Affinity.NodeAffinity
	fail := func(err error) (Requirements, error) {
		return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if na.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for i, term := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			reqs, err := termRequirements(term, fmt.Sprintf("%s[%d]", pathRequired, i))
			if err != nil {
				return fail(err)
			}
			if i == 0 {
				out.Add(reqs...)
			}
		}
	}
	best, bestWeight := []*Requirement(nil), int32(0)
	for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		reqs, err := termRequirements(term.Preference, fmt.Sprintf("%s[%d].preference", pathPreferred, i))
		if err != nil {
			return fail(err)
		}
		if i == 0 || term.Weight > bestWeight {
			best, bestWeight = reqs, term.Weight
		}
	}
	if preferred {
		out.Add(best...)
	}
	return out, nil
}

// termRequirements parses one node selector term found at path.
func termRequirements(term corev1.NodeSelectorTerm, path string) ([]*Requirement, error) {
	if len(term.MatchFields) > 0 {
		return nil, fmt.Errorf("%s.matchFields: not supported", path)
	}
	out := make([]*Requirement, 0, len(term.MatchExpressions))
	for j, e := range term.MatchExpressions {
		r, ferr := build(e.Key, string(e.Operator), e.Values)
		if ferr != nil {
			return nil, fmt.Errorf("%s.matchExpressions[%d].%s: %s", path, j, ferr.field, ferr.msg)
		}
		out = append(out, r)
	}
	return out, nil
}

// Add intersects each requirement into the set (in place). Nil requirements are skipped.
func (rs Requirements) Add(reqs ...*Requirement) {
	for _, r := range reqs {
		if r == nil {
			continue
		}
		if existing, ok := rs[r.Key]; ok {
			rs[r.Key] = existing.Intersection(r)
		} else {
			rs[r.Key] = r
		}
	}
}

// Union returns a new set holding rs intersected with every requirement of o.
func (rs Requirements) Union(o Requirements) Requirements {
	out := rs.Copy()
	for _, r := range o {
		out.Add(r)
	}
	return out
}

// Copy returns a shallow copy (requirements are immutable, so this is a full copy).
func (rs Requirements) Copy() Requirements {
	out := make(Requirements, len(rs))
	for k, r := range rs {
		out[k] = r
	}
	return out
}

// Has reports whether key is defined (the key is normalised first).
func (rs Requirements) Has(key string) bool {
	_, ok := rs[v1.NormalizeLabelKey(key)]
	return ok
}

// Get returns the requirement for key, or Exists when the key is undefined (the key is
// normalised first).
func (rs Requirements) Get(key string) *Requirement {
	key = v1.NormalizeLabelKey(key)
	if r, ok := rs[key]; ok {
		return r
	}
	return &Requirement{Key: key, complement: true}
}

// Keys returns the defined keys, sorted.
func (rs Requirements) Keys() []string {
	keys := make([]string, 0, len(rs))
	for k := range rs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// negative reports whether a node without the label satisfies r: NotIn or DoesNotExist
// without integer bounds. A bounded NotIn (e.g. NotIn [5] ∩ Gt 1) is not negative, since
// Gt/Lt/Gte/Lte need the label to exist; Karpenter, which looks at Operator() only, treats it
// as negative.
func negative(r *Requirement) bool {
	return !r.hasBounds() && (r.complement == (len(r.values) > 0))
}

// compatible reports whether requirement ex (the receiver's) and in (incoming) can be
// satisfied together.
func compatible(ex, in *Requirement) bool {
	return (negative(ex) && negative(in)) || ex.Intersects(in)
}

// ConflictKind says why one key makes two requirement sets incompatible.
type ConflictKind int

const (
	// NoConflict: the sets are compatible.
	NoConflict ConflictKind = iota
	// Undefined: the receiver does not define the key, the incoming requirement needs the
	// label to exist and the key is not in allowUndefined.
	Undefined
	// Disjoint: both define the key and no value satisfies both (and they are not both
	// negative).
	Disjoint
)

// checkKey classifies incoming requirement in (on key) against rs.
func (rs Requirements) checkKey(key string, in *Requirement, allowUndefined KeySet) ConflictKind {
	ex, defined := rs[key]
	if !defined {
		if allowUndefined[key] || negative(in) {
			return NoConflict
		}
		return Undefined
	}
	if !compatible(ex, in) {
		return Disjoint
	}
	return NoConflict
}

// Conflict is the data of Compatible's error: the key that makes incoming incompatible with
// rs (the first in sorted order when several do) and why, or "" and NoConflict. It does not
// allocate.
func (rs Requirements) Conflict(incoming Requirements, allowUndefined KeySet) (string, ConflictKind) {
	failKey, kind := "", NoConflict
	for key, in := range incoming {
		if k := rs.checkKey(key, in, allowUndefined); k != NoConflict && (kind == NoConflict || key < failKey) {
			failKey, kind = key, k
		}
	}
	return failKey, kind
}

// Compatible reports (as an error explaining why not) whether a node with requirements rs
// can satisfy incoming: for every incoming key not in allowUndefined, rs must define it
// unless the incoming operator is NotIn or DoesNotExist; then Intersects must hold. A nil
// allowUndefined is strict. Errors name the key, with a typo hint for an undefined key
// (`label "zone" does not have known values (typo of "topology.kubernetes.io/zone"?)`).
//
// When several keys fail, the error names the first in sorted order (Conflict's key). An
// incoming NotIn with integer bounds is not negative (the label must exist to satisfy a
// bound).
func (rs Requirements) Compatible(incoming Requirements, allowUndefined KeySet) error {
	failKey, kind := rs.Conflict(incoming, allowUndefined)
	switch kind {
	case Undefined:
		return fmt.Errorf("label %q does not have known values%s", failKey, typoHint(failKey, rs, allowUndefined))
	case Disjoint:
		return disjointError(failKey, rs[failKey], incoming[failKey])
	}
	return nil
}

// disjointError explains that incoming requirement in cannot be met by ex.
func disjointError(key string, ex, in *Requirement) error {
	return fmt.Errorf("key %q: %s not in %s", key, in, ex)
}

// IsCompatible is Compatible as a boolean; it does not allocate on success or failure.
func (rs Requirements) IsCompatible(incoming Requirements, allowUndefined KeySet) bool {
	for key, in := range incoming {
		if rs.checkKey(key, in, allowUndefined) != NoConflict {
			return false
		}
	}
	return true
}

// Intersects returns an error naming the first key (in sorted order) defined on both sides
// whose requirements share no value, unless both sides are negative (NotIn or DoesNotExist).
func (rs Requirements) Intersects(incoming Requirements) error {
	failKey, found := "", false
	for key, in := range incoming {
		ex, ok := rs[key]
		if ok && !compatible(ex, in) && (!found || key < failKey) {
			failKey, found = key, true
		}
	}
	if found {
		return disjointError(failKey, rs[failKey], incoming[failKey])
	}
	return nil
}

// HasIntersection is Intersects as an allocation-free boolean.
func (rs Requirements) HasIntersection(incoming Requirements) bool {
	small, large, smallIsIncoming := incoming, rs, true
	if len(rs) < len(incoming) {
		small, large, smallIsIncoming = rs, incoming, false
	}
	for key, a := range small {
		b, ok := large[key]
		if !ok {
			continue
		}
		ex, in := b, a
		if !smallIsIncoming {
			ex, in = a, b
		}
		if !compatible(ex, in) {
			return false
		}
	}
	return true
}

// Labels returns the single-valued requirements (In with exactly one value) as labels.
func (rs Requirements) Labels() map[string]string {
	out := map[string]string{}
	for k, r := range rs {
		if !r.complement && len(r.values) == 1 {
			out[k] = r.values[0]
		}
	}
	return out
}

// HasMinValues reports whether some requirement has a minValues.
func (rs Requirements) HasMinValues() bool {
	for _, r := range rs {
		if r.minValues > 0 {
			return true
		}
	}
	return false
}

// Equal reports whether both sets define the same keys with Equal requirements. It does not
// allocate.
func (rs Requirements) Equal(o Requirements) bool {
	if len(rs) != len(o) {
		return false
	}
	for k, r := range rs {
		if !r.Equal(o[k]) {
			return false
		}
	}
	return true
}

// Hash is an order-independent digest of the set, combining each requirement's
// [Requirement.Hash]: Equal sets have equal hashes, and it is as stable as Requirement.Hash.
// It does not allocate.
func (rs Requirements) Hash() uint64 {
	var sum uint64
	for _, r := range rs {
		sum += mix64(r.Hash())
	}
	return mix64(sum ^ uint64(len(rs)))
}

// mix64 is the splitmix64 finaliser.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// NodeSelectorRequirements serialises the set, sorted by key.
func (rs Requirements) NodeSelectorRequirements() []v1.NodeSelectorRequirementWithMinValues {
	out := make([]v1.NodeSelectorRequirementWithMinValues, 0, len(rs))
	for _, k := range rs.Keys() {
		out = append(out, rs[k].NodeSelectorRequirements()...)
	}
	return out
}

// String renders the set deterministically (sorted by key), hiding kubernetes.io/hostname.
// Requirements are joined with ", ".
func (rs Requirements) String() string {
	parts := make([]string, 0, len(rs))
	for _, k := range rs.Keys() {
		if v1.RestrictedLabels[k] {
			continue
		}
		parts = append(parts, rs[k].String())
	}
	return strings.Join(parts, ", ")
}
