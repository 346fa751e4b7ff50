// Package podspec checks the parts of a pod spec that nodeplan plans with against the rules
// the API server enforces (a pod breaking them never exists in a cluster): resource names and
// quantities, topology spread constraints, tolerations and affinity terms. It returns the
// first violation with its field path; it never changes the spec and checks nothing nodeplan
// does not read (images, probes, volumes' sources).
package podspec

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/nodeplan/nodeplan/internal/quantity"
)

// FieldError is a violation at a field path.
type FieldError = quantity.FieldError

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Check returns the first violation in spec, whose path is field (e.g. "spec" or
// "spec.template.spec"), or nil.
func Check(field string, spec *corev1.PodSpec) error {
	if err := checkResources(field, spec); err != nil {
		return err
	}
	if len(spec.TopologySpreadConstraints) > 0 {
		if err := checkSpread(field+".topologySpreadConstraints", spec.TopologySpreadConstraints); err != nil {
			return err
		}
	}
	if len(spec.Tolerations) > 0 {
		if err := checkTolerations(field+".tolerations", spec.Tolerations); err != nil {
			return err
		}
	}
	if spec.Affinity == nil {
		return nil
	}
	return checkAffinity(field+".affinity", spec.Affinity)
}

// CheckName checks an object name as the API server does for pods and workloads: a DNS-1123
// subdomain of at most 253 characters.
func CheckName(name string) error {
	if isDNS1123Subdomain(name) {
		return nil
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return fmt.Errorf("%q is not a valid name: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

// CheckNamespace checks a namespace name: a DNS-1123 label of at most 63 characters.
func CheckNamespace(ns string) error {
	if len(ns) <= 63 && isDNS1123Label(ns) {
		return nil
	}
	if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
		return fmt.Errorf("%q is not a valid namespace: %s", ns, strings.Join(msgs, "; "))
	}
	return nil
}

// standardContainerResource reports whether an unprefixed resource name may appear in a
// container's resources (the API's standard container resources).
func standardContainerResource(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		return true
	}
	return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
}

// checkResourceName checks a container resource name: a standard one (cpu, memory,
// ephemeral-storage, hugepages-*) or a domain-prefixed qualified name (example.com/gpu).
func checkResourceName(name corev1.ResourceName) error {
	if !strings.Contains(string(name), "/") {
		if !standardContainerResource(name) {
			return fmt.Errorf("%q is not a resource name (want cpu, memory, ephemeral-storage, hugepages-<size> or a domain-prefixed name)", name)
		}
		return nil
	}
	if msgs := validation.IsQualifiedName(string(name)); len(msgs) > 0 {
		return fmt.Errorf("%q is not a resource name: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

// checkList checks the names and quantities of rl; for the first problem in name order it
// returns field (a bad name) or field.name (a bad quantity).
func checkList(field string, rl corev1.ResourceList) error {
	bad := false // the common case, all valid, needs no sorting
	for name, q := range rl {
		if checkResourceName(name) != nil || quantity.Check(name, q) != nil {
			bad = true
			break
		}
	}
	if !bad {
		return nil
	}
	for _, name := range sortedNames(rl) {
		if err := checkResourceName(name); err != nil {
			return &FieldError{Field: field, Err: err}
		}
		if err := quantity.Check(name, rl[name]); err != nil {
			return &FieldError{Field: field + "." + string(name), Err: err}
		}
	}
	return nil
}

// checkResources checks the resources of every container, init container and ephemeral
// container, the overhead and the pod-level resources.
func checkResources(field string, spec *corev1.PodSpec) error {
	// Paths are built only for an error: every pod of a Solve takes this check.
	check := func(kind string, i int, r corev1.ResourceRequirements) error {
		if checkList("", r.Requests) == nil && checkList("", r.Limits) == nil {
			return nil
		}
		path := field
		if kind != "" {
			path = fmt.Sprintf("%s.%s[%d]", field, kind, i)
		}
		return first(errors.Join(checkList(path+".resources.requests", r.Requests), checkList(path+".resources.limits", r.Limits)))
	}
	for i := range spec.InitContainers {
		if err := check("initContainers", i, spec.InitContainers[i].Resources); err != nil {
			return err
		}
	}
	for i := range spec.Containers {
		if err := check("containers", i, spec.Containers[i].Resources); err != nil {
			return err
		}
	}
	for i := range spec.EphemeralContainers {
		if err := check("ephemeralContainers", i, spec.EphemeralContainers[i].Resources); err != nil {
			return err
		}
	}
	if checkList("", spec.Overhead) != nil {
		return checkList(field+".overhead", spec.Overhead)
	}
	if spec.Resources != nil {
		return check("", 0, *spec.Resources)
	}
	return nil
}

// first is the first FieldError of a joined error.
func first(err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe
	}
	return err
}

func checkSpread(field string, cs []corev1.TopologySpreadConstraint) error {
	// Two constraints on the same key and whenUnsatisfiable are left alone, though the API
	// server refuses them: generated inputs (hack/difftest) and Karpenter accept them.
	for i, c := range cs {
		f := lazyPath(field, i)
		if c.MaxSkew <= 0 {
			return fieldErr(f()+".maxSkew", "%d: must be greater than zero", c.MaxSkew)
		}
		if err := checkTopologyKeyAt(f, ".topologyKey", c.TopologyKey); err != nil {
			return err
		}
		switch c.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			return fieldErr(f()+".whenUnsatisfiable", "%q: want DoNotSchedule or ScheduleAnyway", c.WhenUnsatisfiable)
		}
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				return fieldErr(f()+".minDomains", "%d: must be greater than zero", *c.MinDomains)
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				return fieldErr(f()+".minDomains", "only allowed with whenUnsatisfiable DoNotSchedule")
			}
		}
		for _, p := range []struct {
			name   string
			policy *corev1.NodeInclusionPolicy
		}{{"nodeAffinityPolicy", c.NodeAffinityPolicy}, {"nodeTaintsPolicy", c.NodeTaintsPolicy}} {
			if p.policy != nil && *p.policy != corev1.NodeInclusionPolicyHonor && *p.policy != corev1.NodeInclusionPolicyIgnore {
				return fieldErr(f()+"."+p.name, "%q: want Honor or Ignore", *p.policy)
			}
		}
	}
	return nil
}

// lazyPath is field[i], built when called (only for an error).
func lazyPath(field string, i int) func() string {
	return func() string { return fmt.Sprintf("%s[%d]", field, i) }
}

// checkTopologyKeyAt is checkTopologyKey at path() + suffix, the path built only for an error.
func checkTopologyKeyAt(path func() string, suffix, key string) error {
	if key != "" && commonTopologyKeys[key] {
		return nil
	}
	return checkTopologyKey(path()+suffix, key)
}

func checkTopologyKey(field, key string) error {
	if key == "" {
		return fieldErr(field, "is required")
	}
	if commonTopologyKeys[key] {
		return nil
	}
	if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
		return fieldErr(field, "%q: %s", key, strings.Join(msgs, "; "))
	}
	return nil
}

func checkTolerations(field string, ts []corev1.Toleration) error {
	for i, t := range ts {
		f := lazyPath(field, i)
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if t.Key == "" {
				return fieldErr(f()+".operator", "must be Exists when key is empty")
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				return fieldErr(f()+".value", "must be empty when operator is Exists")
			}
		default:
			return fieldErr(f()+".operator", "%q: want Equal or Exists", t.Operator)
		}
		switch t.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			return fieldErr(f()+".effect", "%q: want NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			return fieldErr(f()+".tolerationSeconds", "only allowed with effect NoExecute")
		}
	}
	return nil
}

func checkAffinity(field string, a *corev1.Affinity) error {
	if a == nil {
		return nil
	}
	if na := a.NodeAffinity; na != nil {
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			if t.Weight < 1 || t.Weight > 100 {
				return fieldErr(fmt.Sprintf("%s.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d].weight", field, i), "%d: must be 1 to 100", t.Weight)
			}
		}
	}
	for _, kind := range []struct {
		name string
		terms
	}{{"podAffinity", affinityTerms(a.PodAffinity)}, {"podAntiAffinity", antiAffinityTerms(a.PodAntiAffinity)}} {
		name, pa := kind.name, kind.terms
		for i, t := range pa.req {
			f := lazyPath(field+"."+name+".requiredDuringSchedulingIgnoredDuringExecution", i)
			if err := checkTopologyKeyAt(f, ".topologyKey", t.TopologyKey); err != nil {
				return err
			}
		}
		for i, t := range pa.pref {
			f := lazyPath(field+"."+name+".preferredDuringSchedulingIgnoredDuringExecution", i)
			if t.Weight < 1 || t.Weight > 100 {
				return fieldErr(f()+".weight", "%d: must be 1 to 100", t.Weight)
			}
			if err := checkTopologyKeyAt(f, ".podAffinityTerm.topologyKey", t.PodAffinityTerm.TopologyKey); err != nil {
				return err
			}
		}
	}
	return nil
}
