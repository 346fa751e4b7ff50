package fake

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// Label keys the fake instance types carry besides the well-known ones (as in Karpenter's
// fake provider).
const (
	// LabelInstanceSize is "large" for types with more than 4 CPUs and 8Gi memory, else "small".
	LabelInstanceSize = "size"
	// ExoticInstanceLabelKey is "optional" on large types.
	ExoticInstanceLabelKey = "special"
	// IntegerInstanceLabelKey is the type's CPU count.
	IntegerInstanceLabelKey = "integer"
)

// Zones of the default offerings.
const (
	TestZone1 = "test-zone-1"
	TestZone2 = "test-zone-2"
	TestZone3 = "test-zone-3"
)

// WellKnownLabels returns v1.WellKnownLabels plus the fake types' own keys (size, special,
// integer), as a fresh set.
func WellKnownLabels() requirements.KeySet {
	ks := requirements.KeySet{LabelInstanceSize: true, ExoticInstanceLabelKey: true, IntegerInstanceLabelKey: true}
	for k, ok := range v1.WellKnownLabels {
		if ok {
			ks[k] = true
		}
	}
	return ks
}

// InstanceTypeOptions configure NewInstanceType; zero fields take Karpenter's fake defaults.
type InstanceTypeOptions struct {
	// Name defaults to "default-instance-type".
	Name string
	// Architecture defaults to amd64.
	Architecture string
	// OperatingSystems default to linux, windows and darwin.
	OperatingSystems []string
	// Resources default to cpu 4, memory 4Gi, pods 5 (missing cpu/memory/pods are filled in).
	Resources corev1.ResourceList
	// Offerings default to spot in test-zone-1/2 and on-demand in test-zone-1/2/3, available,
	// priced by Price.
	Offerings cloudprovider.Offerings
	// Overhead defaults to kubeReserved 100m CPU and 10Mi memory.
	Overhead *cloudprovider.InstanceTypeOverhead
	// Labels are extra single-valued labels added to the requirements.
	Labels map[string]string
}

// Price is the fake pricing: 0.1 per CPU + 0.1 per GB (10^9 bytes) of memory, +1 for each
// resource that is not cpu, memory, pods or ephemeral-storage (vendor GPUs and the like).
func Price(resources corev1.ResourceList) float64 {
	// Sum in name order: float addition is not associative, and map order is random.
	names := make([]string, 0, len(resources))
	for name := range resources {
		names = append(names, string(name))
	}
	sort.Strings(names)
	price := 0.0
	for _, n := range names {
		name := corev1.ResourceName(n)
		q := resources[name]
		switch name {
		case corev1.ResourceCPU:
			price += 0.1 * float64(q.MilliValue()) / 1000
		case corev1.ResourceMemory:
			price += 0.1 * float64(q.Value()) / 1e9
		case corev1.ResourcePods, corev1.ResourceEphemeralStorage:
		default:
			price++
		}
	}
	return price
}

// NewInstanceType builds an instance type from opts (see InstanceTypeOptions for defaults).
// Its requirements define instance-type, arch, os (In the operating systems), zone and
// capacity type (the union of its offerings), size (large/small), integer (CPU count),
// special=optional for large types, the reservation IDs of reserved offerings, and
// opts.Labels.
func NewInstanceType(opts InstanceTypeOptions) *cloudprovider.InstanceType {
	if opts.Name == "" {
		opts.Name = "default-instance-type"
	}
	if opts.Architecture == "" {
		opts.Architecture = v1.ArchitectureAmd64
	}
	if len(opts.OperatingSystems) == 0 {
		opts.OperatingSystems = []string{"linux", "windows", "darwin"}
	}
	res := corev1.ResourceList{}
	for n, q := range opts.Resources {
		res[n] = q.DeepCopy()
	}
	for n, def := range map[corev1.ResourceName]string{corev1.ResourceCPU: "4", corev1.ResourceMemory: "4Gi", corev1.ResourcePods: "5"} {
		if _, ok := res[n]; !ok {
			res[n] = resource.MustParse(def)
		}
	}
	if len(opts.Offerings) == 0 {
		price := Price(res)
		opts.Offerings = cloudprovider.Offerings{
			cloudprovider.NewOffering(TestZone1, v1.CapacityTypeSpot, price, true),
			cloudprovider.NewOffering(TestZone2, v1.CapacityTypeSpot, price, true),
			cloudprovider.NewOffering(TestZone1, v1.CapacityTypeOnDemand, price, true),
			cloudprovider.NewOffering(TestZone2, v1.CapacityTypeOnDemand, price, true),
			cloudprovider.NewOffering(TestZone3, v1.CapacityTypeOnDemand, price, true),
		}
	}
	if opts.Overhead == nil {
		opts.Overhead = &cloudprovider.InstanceTypeOverhead{KubeReserved: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("100m"),
			corev1.ResourceMemory: resource.MustParse("10Mi"),
		}}
	}
	zones, cts, rids := set{}, set{}, set{}
	for _, o := range opts.Offerings {
		zones.add(o.Zone())
		cts.add(o.CapacityType())
		if id := o.ReservationID(); id != "" {
			rids.add(id)
		}
	}
	cpu, mem := res[corev1.ResourceCPU], res[corev1.ResourceMemory]
	size := "small"
	if cpu.Cmp(resource.MustParse("4")) > 0 && mem.Cmp(resource.MustParse("8Gi")) > 0 {
		size = "large"
	}
	reqs := requirements.FromLabels(opts.Labels)
	reqs.Add(
		requirements.MustNew(v1.LabelInstanceType, requirements.In, opts.Name),
		requirements.MustNew(v1.LabelArch, requirements.In, opts.Architecture),
		requirements.MustNew(v1.LabelOS, requirements.In, opts.OperatingSystems...),
		requirements.MustNew(v1.LabelTopologyZone, requirements.In, zones.list()...),
		requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, cts.list()...),
		requirements.MustNew(LabelInstanceSize, requirements.In, size),
		requirements.MustNew(IntegerInstanceLabelKey, requirements.In, fmt.Sprint(cpu.Value())),
	)
	if size == "large" {
		reqs.Add(requirements.MustNew(ExoticInstanceLabelKey, requirements.In, "optional"))
	} else {
		reqs.Add(requirements.MustNew(ExoticInstanceLabelKey, requirements.DoesNotExist))
	}
	if len(rids) > 0 {
		reqs.Add(requirements.MustNew(cloudprovider.ReservationIDLabel, requirements.In, rids.list()...))
	}
	return &cloudprovider.InstanceType{
		Name:         opts.Name,
		Requirements: reqs,
		Offerings:    opts.Offerings,
		Capacity:     res,
		Overhead:     opts.Overhead,
	}
}

// InstanceTypes returns n types named fake-it-0 .. fake-it-(n-1): type i has i+1 vCPU,
// 2(i+1) GiB memory and 10(i+1) pods, amd64, linux, label integer=i+1, and the default
// offerings (spot in test-zone-1/2, on-demand in test-zone-1/2/3) at the fake Price.
func InstanceTypes(n int) cloudprovider.InstanceTypes {
	out := make(cloudprovider.InstanceTypes, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, NewInstanceType(InstanceTypeOptions{
			Name:             fmt.Sprintf("fake-it-%d", i),
			OperatingSystems: []string{"linux"},
			Resources: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewQuantity(int64(i+1), resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(int64(2*(i+1))<<30, resource.BinarySI),
				corev1.ResourcePods:   *resource.NewQuantity(int64(10*(i+1)), resource.DecimalSI),
			},
		}))
	}
	return out
}

// InstanceTypesAssorted returns 1344 types: CPU {1,2,4,8,16,32,64} x memory
// {1,2,4,8,16,32,64,128} GiB x zone {test-zone-1,2,3} x {spot, on-demand} x {linux, windows}
// x {amd64, arm64}, each with exactly one offering, named
// "<cpu>-cpu-<mem>-mem-<arch>-<os>-<capacity type>-<zone>".
func InstanceTypesAssorted() cloudprovider.InstanceTypes {
	var out cloudprovider.InstanceTypes
	for _, cpu := range []int{1, 2, 4, 8, 16, 32, 64} {
		for _, mem := range []int{1, 2, 4, 8, 16, 32, 64, 128} {
			for _, zone := range []string{TestZone1, TestZone2, TestZone3} {
				for _, ct := range []string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand} {
					for _, os := range []string{"linux", "windows"} {
						for _, arch := range []string{v1.ArchitectureAmd64, v1.ArchitectureArm64} {
							res := corev1.ResourceList{
								corev1.ResourceCPU:    *resource.NewQuantity(int64(cpu), resource.DecimalSI),
								corev1.ResourceMemory: *resource.NewQuantity(int64(mem)<<30, resource.BinarySI),
							}
							out = append(out, NewInstanceType(InstanceTypeOptions{
								Name:             fmt.Sprintf("%d-cpu-%d-mem-%s-%s-%s-%s", cpu, mem, arch, os, ct, zone),
								Architecture:     arch,
								OperatingSystems: []string{os},
								Resources:        res,
								Offerings:        cloudprovider.Offerings{cloudprovider.NewOffering(zone, ct, Price(res), true)},
							}))
						}
					}
				}
			}
		}
	}
	return out
}

type set map[string]struct{}

func (s set) add(v string) { s[v] = struct{}{} }

func (s set) list() []string {
	out := make([]string, 0, len(s))
	for v := range s {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
