package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/internal/quantity"
	"github.com/nodeplan/nodeplan/requirements"
)

// File is the instance-type catalog file format (YAML or JSON) read by
// `nodeplan --instance-types FILE`.
type File struct {
	InstanceTypes []FileInstanceType `json:"instanceTypes"`
}

// FileInstanceType is one instance type of a catalog file.
type FileInstanceType struct {
	// Name is the node.kubernetes.io/instance-type value (required, unique).
	Name string `json:"name"`
	// Labels are the type's single-valued labels (arch, os, family, ...).
	Labels map[string]string `json:"labels,omitempty"`
	// Capacity is allocatable unless Overhead is given (quantities as strings or numbers).
	Capacity map[string]json.RawMessage `json:"capacity"`
	// Overhead, when given, is subtracted from Capacity to give allocatable.
	Overhead map[string]json.RawMessage `json:"overhead,omitempty"`
	// Offerings give the type's zones and capacity types (at least one).
	Offerings []FileOffering `json:"offerings"`
}

// FileOffering is one offering of a catalog-file instance type.
type FileOffering struct {
	Zone         string `json:"zone"`
	CapacityType string `json:"capacityType"`
	// Price is in dollars per hour (required, a finite number >= 0).
	Price json.RawMessage `json:"price"`
	// Available defaults to true (for reserved offerings: to reservationCapacity > 0).
	Available *bool `json:"available,omitempty"`
	// ReservationID is required for, and only allowed on, reserved offerings.
	ReservationID string `json:"reservationID,omitempty"`
	// ReservationCapacity (>= 0) is required for, and only allowed on, reserved offerings.
	ReservationCapacity *int `json:"reservationCapacity,omitempty"`
}

// ParseFile reads and parses a catalog file (see Parse), naming it by its path.
func ParseFile(path string) (cloudprovider.InstanceTypes, requirements.KeySet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return Parse(data, path)
}

// Parse decodes an instance-type catalog file (YAML or JSON) strictly — unknown or duplicate
// fields are errors — and validates it. Every error names source, the instance type (index
// and name) and the field; all problems found are reported, joined.
//
// For each type: Capacity is the file's capacity; when overhead is given it becomes
// Overhead.KubeReserved, so Allocatable() = capacity - overhead, otherwise capacity is the
// allocatable and Overhead is nil. Requirements are the labels (In), DoesNotExist for the
// label keys other types of the file carry, node.kubernetes.io/instance-type In [name],
// topology.kubernetes.io/zone In (the offerings' zones) and karpenter.sh/capacity-type In (the
// offerings' capacity types). Each offering's Requirements are zone In [zone], capacity-type
// In [capacityType] and, for reserved offerings, karpenter.k8s.aws/capacity-reservation-id In [id] (cloudprovider.ReservationIDLabel).
//
// The returned KeySet is v1.WellKnownLabels plus every label key appearing on any type.
func Parse(data []byte, source string) (cloudprovider.InstanceTypes, requirements.KeySet, error) {
	// Valid JSON has no number YAML reads otherwise than written (TestYAMLNumbersOfJSONAreAsWritten):
	// a JSON catalog skips building its YAML tree, half of the parse of a 240 KB catalog.
	if !json.Valid(data) {
		if err := yamlNumberError(data, source); err != nil {
			return nil, nil, err
		}
	}
	var f File
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", source, err)
	}
	if len(f.InstanceTypes) == 0 {
		return nil, nil, fmt.Errorf("%s: instanceTypes: no instance types", source)
	}
	p := &fileParser{source: source}
	keys := map[string]bool{}
	for _, t := range f.InstanceTypes {
		for k := range t.Labels {
			keys[v1.NormalizeLabelKey(k)] = true
		}
	}
	labelKeys := make([]string, 0, len(keys))
	for k := range keys {
		labelKeys = append(labelKeys, k)
	}
	sort.Strings(labelKeys)

	seen := map[string]int{}
	var out cloudprovider.InstanceTypes
	for i := range f.InstanceTypes {
		t := &f.InstanceTypes[i]
		p.entry, p.name = fmt.Sprintf("instanceTypes[%d]", i), t.Name
		if t.Name == "" {
			p.errorf("name", "is required")
		} else if first, dup := seen[t.Name]; dup {
			p.errorf("name", "duplicate of instanceTypes[%d]", first)
		} else {
			seen[t.Name] = i
			for _, msg := range validation.IsValidLabelValue(t.Name) {
				p.errorf("name", "%q is not a valid label value: %s", t.Name, msg)
			}
		}
		if it := p.instanceType(t, labelKeys); it != nil {
			out = append(out, it)
		}
	}
	if len(p.errs) > 0 {
		return nil, nil, errors.Join(p.errs...)
	}
	ks := coreWellKnown()
	for _, k := range labelKeys {
		ks[k] = true
	}
	return out, ks, nil
}

type fileParser struct {
	source string
	entry  string // instanceTypes[i]
	name   string // its name
	errs   []error
	failed bool // the current type has an error
}

func (p *fileParser) errorf(field, format string, args ...any) {
	p.fail(field, fmt.Errorf(format, args...))
}

func (p *fileParser) fail(field string, err error) {
	p.failed = true
	p.errs = append(p.errs, &FieldError{Source: p.source, Entry: p.entry, InstanceType: p.name, Field: field, Err: err})
}

// quantities parses a resource map, reporting errors under field.
func (p *fileParser) quantities(field string, m map[string]json.RawMessage) corev1.ResourceList {
	out := corev1.ResourceList{}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		raw := strings.TrimSpace(string(m[n]))
		text := raw
		if strings.HasPrefix(raw, `"`) {
			if err := json.Unmarshal([]byte(raw), &text); err != nil {
				p.errorf(field+"."+n, "%v", err)
				continue
			}
		}
		if n == "" {
			p.errorf(field, "empty resource name")
			continue
		}
		q, err := resource.ParseQuantity(text)
		if err != nil {
			p.errorf(field+"."+n, "bad quantity %s: %v", raw, err)
			continue
		}
		if q.Sign() < 0 {
			p.errorf(field+"."+n, "negative quantity %s", raw)
			continue
		}
		if err := quantity.Check(corev1.ResourceName(n), q); err != nil {
			p.errorf(field+"."+n, "%v", err) // 1e30 cpu was 0 cpu
			continue
		}
		if err := checkNodeQuantity(corev1.ResourceName(n), q, field == "capacity"); err != nil {
			p.fail(field+"."+n, err)
			continue
		}
		out[corev1.ResourceName(n)] = q
	}
	return out
}

func (p *fileParser) instanceType(t *FileInstanceType, labelKeys []string) *cloudprovider.InstanceType {
	p.failed = false
	// labels
	labels := map[string]string{}
	lnames := make([]string, 0, len(t.Labels))
	for k := range t.Labels {
		lnames = append(lnames, k)
	}
	sort.Strings(lnames)
	for _, k := range lnames {
		v := t.Labels[k]
		field := "labels." + k
		nk := v1.NormalizeLabelKey(k)
		for _, msg := range validation.IsQualifiedName(k) {
			p.errorf(field, "invalid label key: %s", msg)
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			p.errorf(field, "invalid label value %q: %s", v, msg)
		}
		switch {
		case nk == v1.LabelTopologyZone || nk == v1.CapacityTypeLabelKey || nk == cloudprovider.ReservationIDLabel:
			p.errorf(field, "set by the offerings, not a label")
		case nk == v1.LabelInstanceType && v != t.Name:
			p.errorf(field, "%q differs from the name %q", v, t.Name)
		case v1.IsRestrictedLabel(nk):
			p.errorf(field, "restricted label")
		}
		if _, dup := labels[nk]; dup {
			p.errorf(field, "duplicate of its normalised key %s", nk)
		}
		labels[nk] = v
	}
	// capacity and overhead
	if len(t.Capacity) == 0 {
		p.errorf("capacity", "is required")
	}
	capacity := p.quantities("capacity", t.Capacity)
	var overhead *cloudprovider.InstanceTypeOverhead
	if t.Overhead != nil {
		oh := p.quantities("overhead", t.Overhead)
		for n, q := range oh {
			c, ok := capacity[n]
			if !ok {
				if _, given := t.Capacity[string(n)]; !given {
					p.errorf("overhead."+string(n), "not in capacity")
				}
				continue
			}
			if q.Cmp(c) > 0 {
				p.errorf("overhead."+string(n), "%s exceeds capacity %s", q.String(), c.String())
			}
		}
		overhead = &cloudprovider.InstanceTypeOverhead{KubeReserved: oh}
	}
	// offerings
	if len(t.Offerings) == 0 {
		p.errorf("offerings", "at least one offering is required")
	}
	var ofs cloudprovider.Offerings
	var zones, cts []string
	seen := map[[3]string]int{}
	for j := range t.Offerings {
		if o := p.offering(j, &t.Offerings[j], seen); o != nil {
			ofs = append(ofs, o)
			zones = append(zones, t.Offerings[j].Zone)
			cts = append(cts, t.Offerings[j].CapacityType)
		}
	}
	if p.failed {
		return nil
	}
	reqs := requirements.FromLabels(labels)
	reqs.Add(
		requirements.MustNew(v1.LabelInstanceType, requirements.In, t.Name),
		requirements.MustNew(v1.LabelTopologyZone, requirements.In, zones...),
		requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, cts...),
	)
	fillUndefined(reqs, labelKeys)
	return &cloudprovider.InstanceType{
		Name:         t.Name,
		Requirements: reqs,
		Offerings:    ofs,
		Capacity:     capacity,
		Overhead:     overhead,
	}
}

func (p *fileParser) offering(j int, o *FileOffering, seen map[[3]string]int) *cloudprovider.Offering {
	field := fmt.Sprintf("offerings[%d]", j)
	ok := true
	fail := func(sub, format string, args ...any) {
		ok = false
		p.errorf(field+sub, format, args...)
	}
	if o.Zone == "" {
		fail(".zone", "is required")
	} else {
		for _, msg := range validation.IsValidLabelValue(o.Zone) {
			fail(".zone", "invalid zone %q: %s", o.Zone, msg)
		}
	}
	switch o.CapacityType {
	case "":
		fail(".capacityType", "is required")
	case v1.CapacityTypeOnDemand, v1.CapacityTypeSpot, v1.CapacityTypeReserved:
	default:
		fail(".capacityType", "unknown %q (want on-demand, spot or reserved)", o.CapacityType)
	}
	price := math.NaN()
	raw := strings.TrimSpace(string(o.Price))
	switch {
	case raw == "" || raw == "null":
		fail(".price", "is required")
	case raw[0] == '"':
		ok = false
		p.fail(field+".price", quotedPrice(raw))
	default:
		if v, err := parsePrice(raw, false); err != nil {
			ok = false
			p.fail(field+".price", err)
		} else {
			price = v
		}
	}
	reserved := o.CapacityType == v1.CapacityTypeReserved
	if reserved {
		if o.ReservationID == "" {
			fail(".reservationID", "is required for a reserved offering")
		} else {
			for _, msg := range validation.IsValidLabelValue(o.ReservationID) {
				fail(".reservationID", "invalid %q: %s", o.ReservationID, msg)
			}
		}
		if o.ReservationCapacity == nil {
			fail(".reservationCapacity", "is required for a reserved offering")
		} else if *o.ReservationCapacity < 0 {
			fail(".reservationCapacity", "must be >= 0, got %d", *o.ReservationCapacity)
		}
	} else {
		if o.ReservationID != "" {
			fail(".reservationID", "only allowed on a reserved offering")
		}
		if o.ReservationCapacity != nil {
			fail(".reservationCapacity", "only allowed on a reserved offering")
		}
	}
	key := [3]string{o.Zone, o.CapacityType, o.ReservationID}
	if first, dup := seen[key]; dup && ok {
		fail("", "duplicate of offerings[%d] (same zone, capacityType and reservationID)", first)
	} else if ok {
		seen[key] = j
	}
	if !ok {
		return nil
	}
	var off *cloudprovider.Offering
	if reserved {
		off = cloudprovider.NewReservedOffering(o.Zone, o.ReservationID, price, *o.ReservationCapacity)
	} else {
		off = cloudprovider.NewOffering(o.Zone, o.CapacityType, price, true)
	}
	if o.Available != nil {
		off.Available = *o.Available
	}
	return off
}
