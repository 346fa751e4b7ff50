package catalog

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// ec2Data is /work/shared/data/ec2-instance-types.json, gzipped (1.7 MB -> 47 KB). See
// data/README.md for provenance and format.
//
//go:embed data/ec2-instance-types.json.gz
var ec2Data []byte

// EC2Region is the region the embedded catalog's prices refer to.
const EC2Region = "us-east-1"

// ec2Zones are the zones the embedded catalog offers every type in.
var ec2Zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// EC2Zones returns the zones of the embedded catalog's offerings: us-east-1a, -b and -c.
func EC2Zones() []string { return append([]string(nil), ec2Zones...) }

type ec2File struct {
	Region        string        `json:"region"`
	InstanceTypes []ec2FileType `json:"instanceTypes"`
}

type ec2FileType struct {
	Name                 string             `json:"name"`
	Labels               map[string]string  `json:"labels"`
	Resources            map[string]string  `json:"resources"`
	OnDemandPricePerHour map[string]float64 `json:"onDemandPricePerHour"`
}

// ec2Entry is one parsed type; its maps are never handed out, only copies.
type ec2Entry struct {
	name         string
	requirements requirements.Requirements
	capacity     corev1.ResourceList
	price        float64
}

type ec2Catalog struct {
	entries      []ec2Entry
	skipped      []string
	labelKeys    []string
	offeringReqs []requirements.Requirements // one per zone, on-demand
}

var loadEC2 = sync.OnceValues(loadEC2Uncached)

// loadEC2Uncached gunzips, decodes and builds the embedded catalog.
func loadEC2Uncached() (*ec2Catalog, error) {
	zr, err := gzip.NewReader(bytes.NewReader(ec2Data))
	if err != nil {
		return nil, fmt.Errorf("embedded EC2 catalog: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("embedded EC2 catalog: %w", err)
	}
	var f ec2File
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("embedded EC2 catalog: %w", err)
	}
	return buildEC2(&f)
}

func buildEC2(f *ec2File) (*ec2Catalog, error) {
	c := &ec2Catalog{}
	keySet := map[string]bool{}
	for _, t := range f.InstanceTypes {
		for k := range t.Labels {
			keySet[v1.NormalizeLabelKey(k)] = true
		}
	}
	for k := range keySet {
		c.labelKeys = append(c.labelKeys, k)
	}
	sort.Strings(c.labelKeys)

	for _, z := range ec2Zones {
		c.offeringReqs = append(c.offeringReqs, requirements.NewRequirements(
			requirements.MustNew(v1.LabelTopologyZone, requirements.In, z),
			requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeOnDemand),
		))
	}

	for i, t := range f.InstanceTypes {
		price, ok := t.OnDemandPricePerHour[EC2Region]
		if !ok {
			c.skipped = append(c.skipped, t.Name)
			continue
		}
		capacity := corev1.ResourceList{}
		for name, s := range t.Resources {
			q, err := resource.ParseQuantity(s)
			if err != nil {
				return nil, fmt.Errorf("embedded EC2 catalog: instanceTypes[%d] (%s): resources.%s: %w", i, t.Name, name, err)
			}
			capacity[corev1.ResourceName(name)] = q
		}
		reqs := requirements.FromLabels(t.Labels)
		reqs.Add(
			requirements.MustNew(v1.LabelInstanceType, requirements.In, t.Name),
			requirements.MustNew(v1.LabelTopologyZone, requirements.In, ec2Zones...),
			requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeOnDemand),
			requirements.MustNew(v1.LabelTopologyRegion, requirements.In, EC2Region),
		)
		fillUndefined(reqs, c.labelKeys)
		c.entries = append(c.entries, ec2Entry{name: t.Name, requirements: reqs, capacity: capacity, price: price})
	}
	sort.Strings(c.skipped)
	return c, nil
}

// EC2 returns the embedded EC2 catalog: one instance type per type of
// ec2-instance-types.json that has a us-east-1 on-demand price (see EC2Skipped for the
// others), in the file's order.
//
// Capacity holds the file's resources, which are already ALLOCATABLE values (AL2023, default
// max pods, kube-reserved and eviction thresholds subtracted), so Overhead is nil and
// Allocatable() equals Capacity. Requirements are every label of the type (In), DoesNotExist
// for the catalog's label keys the type lacks, node.kubernetes.io/instance-type In [name],
// topology.kubernetes.io/zone In [us-east-1a us-east-1b us-east-1c], karpenter.sh/capacity-type
// In [on-demand] and topology.kubernetes.io/region In [us-east-1]. Offerings are on-demand in
// the three zones at the type's price, all available.
//
// The file is decoded once; every call returns fresh InstanceType, Offering, Requirements
// maps and ResourceLists, so callers may modify what they get. Only the *requirements.
// Requirement values inside the maps are shared between calls, and they are immutable.
func EC2() (cloudprovider.InstanceTypes, error) {
	c, err := loadEC2()
	if err != nil {
		return nil, err
	}
	out := make(cloudprovider.InstanceTypes, 0, len(c.entries))
	for _, e := range c.entries {
		capacity := make(corev1.ResourceList, len(e.capacity))
		for name, q := range e.capacity {
			capacity[name] = q.DeepCopy()
		}
		ofs := make(cloudprovider.Offerings, 0, len(c.offeringReqs))
		for _, r := range c.offeringReqs {
			ofs = append(ofs, &cloudprovider.Offering{Requirements: r.Copy(), Price: e.price, Available: true})
		}
		out = append(out, &cloudprovider.InstanceType{
			Name:         e.name,
			Requirements: e.requirements.Copy(),
			Offerings:    ofs,
			Capacity:     capacity,
		})
	}
	return out, nil
}

// EC2Skipped returns, sorted, the names of the catalog's types that EC2 leaves out because
// they have no us-east-1 price.
func EC2Skipped() ([]string, error) {
	c, err := loadEC2()
	if err != nil {
		return nil, err
	}
	return append([]string(nil), c.skipped...), nil
}

// EC2WellKnownLabels returns v1.WellKnownLabels plus every label key appearing in the
// embedded catalog (karpenter.k8s.aws/instance-*, ...). It returns a fresh set on every call
// (and just v1.WellKnownLabels if the catalog cannot be loaded, which EC2 reports).
func EC2WellKnownLabels() requirements.KeySet {
	ks := coreWellKnown()
	if c, err := loadEC2(); err == nil {
		for _, k := range c.labelKeys {
			ks[k] = true
		}
	}
	return ks
}

// coreWellKnown is a fresh copy of v1.WellKnownLabels.
func coreWellKnown() requirements.KeySet {
	ks := make(requirements.KeySet, len(v1.WellKnownLabels)+32)
	for k, ok := range v1.WellKnownLabels {
		if ok {
			ks[k] = true
		}
	}
	// Reserved offerings carry the reservation ID, which pods may select.
	ks[cloudprovider.ReservationIDLabel] = true
	return ks
}

// fillUndefined gives a type DoesNotExist for every catalog label key and every well-known
// label it does not define (karpenter.sh/nodepool aside, which the NodePool sets), so that a
// pod or NodePool constraining such a key never matches a type that has no value for it.
func fillUndefined(reqs requirements.Requirements, catalogKeys []string) {
	keys := append([]string(nil), catalogKeys...)
	for k := range v1.WellKnownLabels {
		if k != v1.NodePoolLabelKey {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if !reqs.Has(k) {
			reqs.Add(requirements.MustNew(k, requirements.DoesNotExist))
		}
	}
}
