package requirements

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Requirements is a set of requirements keyed by label key. An undefined key means
// "anything" (Get returns Exists). The map is exported for cheap iteration, but callers must
// go through Add to combine requirements on one key.
type Requirements map[string]*Requirement

// KeySet is a set of label keys, e.g. the well-known labels of a catalog.
type KeySet map[string]bool

// NewRequirements builds a set from requirements, intersecting those on the same key.
func NewRequirements(rs ...*Requirement) Requirements { panic("unimplemented") }

// FromNodeSelectorRequirements builds a set from API requirements (keeping minValues). The
// error names the offending index, key and operator.
func FromNodeSelectorRequirements(rs ...v1.NodeSelectorRequirementWithMinValues) (Requirements, error) {
	panic("unimplemented")
}

// FromCoreNodeSelectorRequirements builds a set from Kubernetes NodeSelectorRequirements.
func FromCoreNodeSelectorRequirements(rs ...corev1.NodeSelectorRequirement) (Requirements, error) {
	panic("unimplemented")
}

// FromLabels builds a set with one In requirement per label (keys normalised).
func FromLabels(labels map[string]string) Requirements { panic("unimplemented") }

// ForPod returns the requirements a pod places on its node: its nodeSelector, its first
// required node-affinity term, and its heaviest preferred node-affinity term (treated as
// required until relaxed). ForPodStrict leaves the preferred term out. The error names the
// pod's field (e.g. spec.affinity.nodeAffinity...matchExpressions[1]) for an invalid
// operator or value, and rejects matchFields.
func ForPod(pod *corev1.Pod) (Requirements, error) { panic("unimplemented") }

// ForPodStrict is ForPod without the preferred term.
func ForPodStrict(pod *corev1.Pod) (Requirements, error) { panic("unimplemented") }

// Add intersects each requirement into the set (in place).
func (rs Requirements) Add(reqs ...*Requirement) { panic("unimplemented") }

// Union returns a new set holding rs intersected with every requirement of o.
func (rs Requirements) Union(o Requirements) Requirements { panic("unimplemented") }

// Copy returns a shallow copy (requirements are immutable, so this is a full copy).
func (rs Requirements) Copy() Requirements { panic("unimplemented") }

// Has reports whether key is defined.
func (rs Requirements) Has(key string) bool { panic("unimplemented") }

// Get returns the requirement for key, or Exists when the key is undefined.
func (rs Requirements) Get(key string) *Requirement { panic("unimplemented") }

// Keys returns the defined keys, sorted.
func (rs Requirements) Keys() []string { panic("unimplemented") }

// Compatible reports (as an error explaining why not) whether a node with requirements rs
// can satisfy incoming: for every incoming key not in allowUndefined, rs must define it
// unless the incoming operator is NotIn or DoesNotExist; then Intersects must hold. A nil
// allowUndefined is strict. Errors name the key, with a typo hint for an undefined key
// (`label "zone" does not have known values (typo of "topology.kubernetes.io/zone"?)`).
func (rs Requirements) Compatible(incoming Requirements, allowUndefined KeySet) error {
	panic("unimplemented")
}

// IsCompatible is Compatible as a boolean; it does not allocate on success or failure.
func (rs Requirements) IsCompatible(incoming Requirements, allowUndefined KeySet) bool {
	panic("unimplemented")
}

// Intersects returns an error naming the first key (in sorted order) defined on both sides
// whose requirements share no value, unless both sides are negative (NotIn or DoesNotExist).
func (rs Requirements) Intersects(incoming Requirements) error { panic("unimplemented") }

// HasIntersection is Intersects as an allocation-free boolean.
func (rs Requirements) HasIntersection(incoming Requirements) bool { panic("unimplemented") }

// Labels returns the single-valued requirements (In with exactly one value) as labels.
func (rs Requirements) Labels() map[string]string { panic("unimplemented") }

// NodeSelectorRequirements serialises the set, sorted by key.
func (rs Requirements) NodeSelectorRequirements() []v1.NodeSelectorRequirementWithMinValues {
	panic("unimplemented")
}

// String renders the set deterministically (sorted by key), hiding kubernetes.io/hostname.
func (rs Requirements) String() string { panic("unimplemented") }
