package catalog

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/ec2capacity"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// ec2Data is /work/shared/data/ec2-instance-types.json, gzipped (1.7 MB -> 47 KB). See
// data/README.md for provenance and format.
//
//go:embed data/ec2-instance-types.json.gz
var ec2Data []byte

// EC2DataFile returns the embedded instance-type data file (data/ec2-instance-types.json,
// gzipped; format in data/README.md), a fresh copy, for test fakes that describe the same
// types from it (package awstest) without a path into the source tree.
func EC2DataFile() []byte { return bytes.Clone(ec2Data) }

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
	Network              *ec2FileNetwork    `json:"network"`
}

type ec2FileNetwork struct {
	MaximumNetworkInterfaces  int64 `json:"maximumNetworkInterfaces"`
	IPv4AddressesPerInterface int64 `json:"ipv4AddressesPerInterface"`
	DefaultNetworkCardIndex   int64 `json:"defaultNetworkCardIndex"`
	NetworkCards              []struct {
		NetworkCardIndex         int64 `json:"networkCardIndex"`
		MaximumNetworkInterfaces int64 `json:"maximumNetworkInterfaces"`
	} `json:"networkCards"`
}

// ec2Entry is one parsed type; its maps are never handed out, only copies.
type ec2Entry struct {
	name  string
	facts ec2capacity.InstanceType
	// requirements are the type's labels, region, zones and capacity types, with every
	// undefined catalog key DoesNotExist.
	requirements requirements.Requirements
	price        float64
}

type ec2Catalog struct {
	entries   []ec2Entry
	skipped   []string
	labelKeys []string
	// offeringReqs are one per zone and capacity type (spot, then on-demand).
	offeringReqs []requirements.Requirements
	zoneReq      *requirements.Requirement
	capTypeReq   *requirements.Requirement
}

// windowsOS is the os requirement of types booting a Windows AMI family, windowsBuilds the
// node.kubernetes.io/windows-build of each family.
var (
	windowsOS     = requirements.MustNew(v1.LabelOS, requirements.In, "windows")
	windowsBuilds = map[ec2capacity.Family]*requirements.Requirement{
		ec2capacity.Windows2019: requirements.MustNew(v1.LabelWindowsBuild, requirements.In, "10.0.17763"),
		ec2capacity.Windows2022: requirements.MustNew(v1.LabelWindowsBuild, requirements.In, "10.0.20348"),
		ec2capacity.Windows2025: requirements.MustNew(v1.LabelWindowsBuild, requirements.In, "10.0.26100"),
	}
)

// ec2CapacityTypes are the capacity types of the embedded catalog's offerings.
var ec2CapacityTypes = []string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand}

var loadEC2 = sync.OnceValues(loadEC2Uncached)

// loadEC2Uncached gunzips, decodes and builds the embedded catalog.
func loadEC2Uncached() (*ec2Catalog, error) {
	f, err := decodeEC2()
	if err != nil {
		return nil, err
	}
	return buildEC2(f)
}

func decodeEC2() (*ec2File, error) {
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
	return &f, nil
}

func buildEC2(f *ec2File) (*ec2Catalog, error) {
	c := &ec2Catalog{
		zoneReq:    requirements.MustNew(v1.LabelTopologyZone, requirements.In, ec2Zones...),
		capTypeReq: requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, ec2CapacityTypes...),
	}
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
		for _, ct := range ec2CapacityTypes {
			c.offeringReqs = append(c.offeringReqs, requirements.NewRequirements(
				requirements.MustNew(v1.LabelTopologyZone, requirements.In, z),
				requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, ct),
			))
		}
	}

	for i, t := range f.InstanceTypes {
		price, ok := t.OnDemandPricePerHour[EC2Region]
		if !ok || t.Network == nil {
			c.skipped = append(c.skipped, t.Name)
			continue
		}
		facts, err := ec2Facts(t)
		if err != nil {
			return nil, fmt.Errorf("embedded EC2 catalog: instanceTypes[%d] (%s): %w", i, t.Name, err)
		}
		reqs := requirements.FromLabels(t.Labels)
		reqs.Add(
			requirements.MustNew(v1.LabelInstanceType, requirements.In, t.Name),
			requirements.MustNew(v1.LabelTopologyRegion, requirements.In, EC2Region),
			c.zoneReq, c.capTypeReq,
		)
		fillUndefined(reqs, c.labelKeys)
		c.entries = append(c.entries, ec2Entry{name: t.Name, facts: facts, requirements: reqs, price: price})
	}
	sort.Strings(c.skipped)
	return c, nil
}

// coreResources are the resources ec2capacity computes; the file's other resources (GPUs,
// Neuron, EFA, pod ENIs) are taken as they are.
var coreResources = map[corev1.ResourceName]bool{
	corev1.ResourceCPU: true, corev1.ResourceMemory: true, corev1.ResourcePods: true, corev1.ResourceEphemeralStorage: true,
}

// ec2Facts reads the facts ec2capacity needs from a file entry: vCPUs, memory and
// architecture from its labels, ENI limits of the default network card, local NVMe size.
func ec2Facts(t ec2FileType) (ec2capacity.InstanceType, error) {
	it := ec2capacity.InstanceType{Name: t.Name, Arm64: t.Labels[v1.LabelArch] == v1.ArchitectureArm64, Extended: corev1.ResourceList{}}
	for _, l := range []struct {
		key      string
		into     *int64
		optional bool
	}{
		{"karpenter.k8s.aws/instance-cpu", &it.VCPUs, false},
		{"karpenter.k8s.aws/instance-memory", &it.MemoryMiB, false},
		{"karpenter.k8s.aws/instance-local-nvme", &it.InstanceStoreGB, true},
	} {
		s, ok := t.Labels[l.key]
		if !ok && l.optional {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return it, fmt.Errorf("labels.%s: %q is not an integer", l.key, s)
		}
		*l.into = n
	}
	n := t.Network
	it.IPv4PerENI = n.IPv4AddressesPerInterface
	it.ENIs = n.MaximumNetworkInterfaces
	for _, card := range n.NetworkCards {
		if card.NetworkCardIndex == n.DefaultNetworkCardIndex {
			it.ENIs = card.MaximumNetworkInterfaces
		}
	}
	for name, s := range t.Resources {
		if coreResources[corev1.ResourceName(name)] {
			continue
		}
		q, err := resource.ParseQuantity(s)
		if err != nil {
			return it, fmt.Errorf("resources.%s: %w", name, err)
		}
		it.Extended[corev1.ResourceName(name)] = q
	}
	return it, nil
}

// EC2Options choose how the embedded catalog's types are built.
type EC2Options struct {
	// NodeClass changes capacity and overhead (kubelet, block devices, AMI family). The zero
	// value is AL2023 with Karpenter's defaults, the values the data file publishes. A
	// NodeClass that names its family also gets the family's compatibility rules (AL2023
	// cannot boot a1.*; Windows families run amd64 only, with kubernetes.io/os=windows).
	NodeClass ec2capacity.NodeClass
	// Capacity are the controller-wide settings (--vm-memory-overhead-percent,
	// --reserved-enis); nil is ec2capacity.DefaultOptions.
	Capacity *ec2capacity.Options
	// Zones restricts the types to these zones (Karpenter offers a type only in the zones
	// where the NodeClass has a subnet): offerings elsewhere are unavailable and the types'
	// zone requirement holds only these. Zones the catalog lacks are ignored. Nil: all zones.
	Zones []string
	// SpotPrices replaces the spot estimates (see EC2): a type and zone without a price in
	// it has no available spot offering, as in Karpenter once its first spot-price update
	// succeeded. Nil keeps the estimates.
	SpotPrices SpotPrices
}

// EC2 returns the embedded EC2 catalog with Karpenter's default NodeClass settings (AL2023,
// no kubelet or block-device overrides); see BuildEC2.
func EC2() (cloudprovider.InstanceTypes, error) { return BuildEC2(EC2Options{}) }

// BuildEC2 returns the embedded EC2 catalog: one instance type per type of
// ec2-instance-types.json that has a us-east-1 on-demand price and ENI limits (see EC2Skipped
// for the others), in the file's order.
//
// Capacity and Overhead are computed by ec2capacity from the type's facts and the options'
// NodeClass, so that Allocatable() equals the file's published (Karpenter's) values for the
// default NodeClass. Requirements are every label of the type (In), DoesNotExist for the
// catalog's label keys the type lacks, node.kubernetes.io/instance-type In [name],
// topology.kubernetes.io/zone In [us-east-1a us-east-1b us-east-1c], karpenter.sh/capacity-type
// In [spot on-demand] and topology.kubernetes.io/region In [us-east-1].
//
// Offerings are spot and on-demand in each of the three zones (unavailable outside Zones). On-demand is at the type's
// price. Spot is at the on-demand price too unless SpotPrices are given: that is what
// Karpenter itself assumes until its first spot-price update succeeds (and forever in an
// isolated VPC), so these spot prices are estimates.
//
// Every call returns fresh InstanceType, Offering, Requirements maps and ResourceLists, so
// callers may modify what they get. Only the *requirements.Requirement values inside the maps
// are shared between calls, and they are immutable.
func BuildEC2(opts EC2Options) (cloudprovider.InstanceTypes, error) {
	c, err := loadEC2()
	if err != nil {
		return nil, err
	}
	nc := opts.NodeClass
	capOpts := ec2capacity.DefaultOptions
	if opts.Capacity != nil {
		capOpts = *opts.Capacity
	}
	zoneOK, zoneReq := c.zones(opts.Zones)
	out := make(cloudprovider.InstanceTypes, 0, len(c.entries))
	for _, e := range c.entries {
		if nc.Family.Windows() && e.facts.Arm64 {
			continue // Windows AMIs are amd64 only
		}
		res, err := ec2capacity.Compute(e.facts, nc, capOpts)
		if err != nil {
			return nil, fmt.Errorf("instance type %s: %w", e.name, err)
		}
		compatible := !(nc.Family == ec2capacity.AL2023 && strings.HasPrefix(e.name, "a1."))
		ofs := make(cloudprovider.Offerings, 0, len(c.offeringReqs))
		for _, r := range c.offeringReqs {
			o := &cloudprovider.Offering{Requirements: r.Copy(), Price: e.price, Available: compatible}
			if opts.SpotPrices != nil && o.CapacityType() == v1.CapacityTypeSpot {
				price, ok := opts.SpotPrices[e.name][o.Zone()]
				o.Price, o.Available = price, compatible && ok
			}
			o.Available = o.Available && zoneOK[o.Zone()]
			ofs = append(ofs, o)
		}
		reqs := e.requirements.Copy()
		reqs[v1.LabelTopologyZone] = zoneReq
		if build := windowsBuilds[nc.Family]; build != nil {
			reqs[v1.LabelOS], reqs[v1.LabelWindowsBuild] = windowsOS, build
		}
		out = append(out, &cloudprovider.InstanceType{
			Name:         e.name,
			Requirements: reqs,
			Offerings:    ofs,
			Capacity:     res.Capacity,
			Overhead: &cloudprovider.InstanceTypeOverhead{
				KubeReserved:      res.KubeReserved,
				SystemReserved:    res.SystemReserved,
				EvictionThreshold: res.EvictionThreshold,
			},
		})
	}
	return out, nil
}

// zones are the catalog zones of allowed (all when nil), as a set and as a requirement.
func (c *ec2Catalog) zones(allowed []string) (map[string]bool, *requirements.Requirement) {
	if allowed == nil {
		allowed = ec2Zones
	}
	ok := map[string]bool{}
	var kept []string
	for _, z := range ec2Zones {
		for _, a := range allowed {
			if a == z && !ok[z] {
				ok[z] = true
				kept = append(kept, z)
			}
		}
	}
	switch len(kept) {
	case len(ec2Zones):
		return ok, c.zoneReq
	case 0:
		return ok, requirements.MustNew(v1.LabelTopologyZone, requirements.DoesNotExist)
	}
	return ok, requirements.MustNew(v1.LabelTopologyZone, requirements.In, kept...)
}

// EC2Skipped returns, sorted, the names of the catalog's types that EC2 leaves out because
// they have no us-east-1 price (or no ENI limits).
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
