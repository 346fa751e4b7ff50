package ec2capacity

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// InstanceType holds the facts about an EC2 instance type that its node's resources depend on.
type InstanceType struct {
	Name string
	// VCPUs is the default vCPU count; MemoryMiB the EC2 memory size.
	VCPUs     int64
	MemoryMiB int64
	// Arm64 is true when the type's first supported architecture is arm64 (Graviton reserves
	// 64 MiB for CMA).
	Arm64 bool
	// ENIs is the number of network interfaces of the default network card, IPv4PerENI the
	// IPv4 addresses each can hold. Both 0 when unknown.
	ENIs, IPv4PerENI int64
	// InstanceStoreGB is the total local instance storage (0 for none).
	InstanceStoreGB int64
	// Extended are resources taken as they are (GPUs, Neuron, EFA, pod ENIs).
	Extended corev1.ResourceList
}

// Kubelet is the part of the kubelet configuration that changes a node's resources.
type Kubelet struct {
	MaxPods     *int32
	PodsPerCore *int32
	// Resource name -> quantity, as kubelet kubeReserved / systemReserved.
	KubeReserved   map[string]string
	SystemReserved map[string]string
	// Signal -> quantity or percentage; memory.available and nodefs.available count.
	EvictionHard map[string]string
}

// BlockDevice is a block device mapping of the NodeClass (only what sizes storage).
type BlockDevice struct {
	DeviceName string
	RootVolume bool
	// VolumeSize is nil when the mapping sets none (a snapshot's size).
	VolumeSize *resource.Quantity
}

// NodeClass is what an EC2NodeClass contributes.
type NodeClass struct {
	// Family defaults to AL2023 when empty.
	Family       Family
	Kubelet      Kubelet
	BlockDevices []BlockDevice
	// InstanceStoreRAID0 is instanceStorePolicy: RAID0 (local disks hold ephemeral storage).
	InstanceStoreRAID0 bool
}

// Options are the controller-wide settings of Karpenter's AWS provider.
type Options struct {
	// VMMemoryOverheadPercent is --vm-memory-overhead-percent (0.075).
	VMMemoryOverheadPercent float64
	// ReservedENIs is --reserved-enis (0).
	ReservedENIs int64
}

// DefaultOptions are Karpenter's defaults.
var DefaultOptions = Options{VMMemoryOverheadPercent: 0.075}

// Signals of evictionHard that reduce allocatable.
const (
	MemoryAvailable = "memory.available"
	NodeFSAvailable = "nodefs.available"
)

// Defaults of Karpenter's AWS provider.
const (
	// DefaultVolumeGiB is the default EBS volume (and the fallback ephemeral storage).
	DefaultVolumeGiB = 20
	// WindowsMaxPods is the max pods of families without ENI-limited density.
	WindowsMaxPods = 110
)

// Result is a node's resources: Capacity minus the three reservations is allocatable.
type Result struct {
	Capacity          corev1.ResourceList
	KubeReserved      corev1.ResourceList
	SystemReserved    corev1.ResourceList
	EvictionThreshold corev1.ResourceList
}

// Allocatable is Capacity minus kube-reserved, system-reserved and the eviction threshold,
// floored at zero, for the resources Capacity has.
func (r Result) Allocatable() corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range r.Capacity {
		a := q.DeepCopy()
		for _, rl := range []corev1.ResourceList{r.KubeReserved, r.SystemReserved, r.EvictionThreshold} {
			if v, ok := rl[name]; ok {
				a.Sub(v)
			}
		}
		if a.Sign() < 0 {
			a = *resource.NewQuantity(0, q.Format)
		}
		out[name] = a
	}
	return out
}

// ENILimitedPods is the VPC CNI's pod density: usable ENIs x (IPv4 per ENI - 1) + 2, where
// usable = ENIs of the default card - reserved ENIs; 0 when no ENI is usable.
func ENILimitedPods(it InstanceType, reservedENIs int64) int64 {
	usable := it.ENIs - reservedENIs
	if usable <= 0 || it.IPv4PerENI <= 0 {
		return 0
	}
	return usable*(it.IPv4PerENI-1) + 2
}

// KubeReservedCPU is the default kube-reserved CPU in millicores for a node of the given
// millicores: 6% of the first core, 1% of the second, 0.5% of the third and fourth, 0.25% of
// the rest, each band truncated to whole millicores.
func KubeReservedCPU(milli int64) int64 {
	bands := []struct {
		from, to int64
		rate     float64
	}{{0, 1000, 0.06}, {1000, 2000, 0.01}, {2000, 4000, 0.005}, {4000, 1 << 31, 0.0025}}
	var total int64
	for _, b := range bands {
		if milli < b.from {
			continue
		}
		width := b.to - b.from
		if milli < b.to {
			width = milli - b.from
		}
		total += int64(float64(width) * b.rate)
	}
	return total
}

// Compute returns the type's resources under the NodeClass. It fails when the type has no
// ENI facts (pods cannot be known) or a kubelet value is not a quantity.
func Compute(it InstanceType, nc NodeClass, opts Options) (Result, error) {
	family := nc.Family
	if family == "" {
		family = AL2023
	}
	if !family.Known() {
		return Result{}, fmt.Errorf("unknown AMI family %q", family)
	}
	if it.ENIs <= 0 || it.IPv4PerENI <= 0 {
		return Result{}, fmt.Errorf("instance type %s: no ENI limits known", it.Name)
	}
	memory := memoryMiB(it, opts)
	storage := ephemeralStorage(it, family, nc)
	pods := maxPods(it, family, nc.Kubelet, opts)

	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(it.VCPUs, resource.DecimalSI),
		corev1.ResourceMemory:           mebibytes(memory),
		corev1.ResourceEphemeralStorage: storage,
		corev1.ResourcePods:             *resource.NewQuantity(pods, resource.DecimalSI),
	}
	for name, q := range it.Extended {
		if _, core := capacity[name]; !core {
			capacity[name] = q.DeepCopy()
		}
	}

	overheadPods := pods
	if family.eniLimitedMemoryOverhead() {
		overheadPods = ENILimitedPods(it, 0)
	}
	kube := corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(KubeReservedCPU(it.VCPUs*1000), resource.DecimalSI),
		corev1.ResourceMemory:           mebibytes(11*overheadPods + 255),
		corev1.ResourceEphemeralStorage: resource.MustParse("1Gi"),
	}
	var errs []error
	if err := assign(kube, nc.Kubelet.KubeReserved); err != nil {
		errs = append(errs, fmt.Errorf("kubeReserved: %w", err))
	}
	system := corev1.ResourceList{}
	if err := assign(system, nc.Kubelet.SystemReserved); err != nil {
		errs = append(errs, fmt.Errorf("systemReserved: %w", err))
	}
	eviction, err := evictionThreshold(capacity[corev1.ResourceMemory], storage, nc.Kubelet.EvictionHard)
	if err != nil {
		errs = append(errs, fmt.Errorf("evictionHard: %w", err))
	}
	if len(errs) > 0 {
		return Result{}, errors.Join(errs...)
	}
	return Result{Capacity: capacity, KubeReserved: kube, SystemReserved: system, EvictionThreshold: eviction}, nil
}

// memoryMiB is the memory the OS sees: less 64 MiB on Graviton, less the VM overhead
// (rounded up to whole MiB).
func memoryMiB(it InstanceType, opts Options) int64 {
	mib := it.MemoryMiB
	if it.Arm64 {
		mib -= 64
	}
	return mib - int64(math.Ceil(float64(mib)*opts.VMMemoryOverheadPercent))
}

// maxPods is kubelet maxPods, else the family's default (ENI-limited, or 110), then capped by
// podsPerCore x vCPUs where the family honours podsPerCore.
func maxPods(it InstanceType, family Family, k Kubelet, opts Options) int64 {
	var pods int64
	switch {
	case k.MaxPods != nil:
		pods = int64(*k.MaxPods)
	case family.eniLimitedPods():
		pods = ENILimitedPods(it, opts.ReservedENIs)
	default:
		pods = WindowsMaxPods
	}
	if k.PodsPerCore != nil && *k.PodsPerCore > 0 && family.podsPerCoreHonoured() {
		pods = min(pods, int64(*k.PodsPerCore)*it.VCPUs)
	}
	return pods
}

// ephemeralStorage is, first that applies: the instance store under RAID0; the root-volume
// mapping's size; for Custom the last mapping's size (else 20Gi); the mapping of the family's
// ephemeral device; the family's default for that device; 20Gi.
func ephemeralStorage(it InstanceType, family Family, nc NodeClass) resource.Quantity {
	if nc.InstanceStoreRAID0 && it.InstanceStoreGB > 0 {
		return *resource.NewQuantity(it.InstanceStoreGB*1000*1000*1000, resource.DecimalSI)
	}
	device, defaultGiB := family.ephemeralDevice()
	if bdms := nc.BlockDevices; len(bdms) > 0 {
		for _, b := range bdms {
			if b.RootVolume {
				if b.VolumeSize != nil {
					return b.VolumeSize.DeepCopy()
				}
				break
			}
		}
		if family == Custom {
			if last := bdms[len(bdms)-1].VolumeSize; last != nil {
				return last.DeepCopy()
			}
			return gibibytes(DefaultVolumeGiB)
		}
		for _, b := range bdms {
			if b.DeviceName == device {
				if b.VolumeSize != nil {
					return b.VolumeSize.DeepCopy()
				}
				break
			}
		}
	}
	if defaultGiB > 0 {
		return gibibytes(defaultGiB)
	}
	return gibibytes(DefaultVolumeGiB)
}

// evictionThreshold is 100Mi of memory and 10% of ephemeral storage (rounded up to a byte),
// each replaced by evictionHard's memory.available / nodefs.available when set.
func evictionThreshold(memory, storage resource.Quantity, hard map[string]string) (corev1.ResourceList, error) {
	out := corev1.ResourceList{
		corev1.ResourceMemory:           resource.MustParse("100Mi"),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(int64(math.Ceil(float64(storage.Value())/100*10)), resource.DecimalSI),
	}
	for _, s := range []struct {
		signal string
		name   corev1.ResourceName
		of     resource.Quantity
	}{{MemoryAvailable, corev1.ResourceMemory, memory}, {NodeFSAvailable, corev1.ResourceEphemeralStorage, storage}} {
		v, ok := hard[s.signal]
		if !ok {
			continue
		}
		q, err := EvictionSignal(s.of, v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.signal, err)
		}
		out[s.name] = q
	}
	return out, nil
}

// EvictionSignal resolves an eviction threshold against a capacity: a percentage of it
// (rounded up to a whole unit; 100% disables the threshold, so it counts as 0), or an
// absolute quantity.
func EvictionSignal(capacity resource.Quantity, value string) (resource.Quantity, error) {
	if pct, ok := strings.CutSuffix(value, "%"); ok {
		p, err := strconv.ParseFloat(pct, 64)
		if err != nil || math.IsNaN(p) || p < 0 || p > 100 {
			return resource.Quantity{}, fmt.Errorf("%q is not a percentage between 0%% and 100%%", value)
		}
		if p == 100 {
			p = 0
		}
		return *resource.NewQuantity(int64(math.Ceil(capacity.AsApproximateFloat64()/100*p)), resource.DecimalSI), nil
	}
	q, err := resource.ParseQuantity(value)
	if err != nil {
		return resource.Quantity{}, fmt.Errorf("%q: %w", value, err)
	}
	return q, nil
}

// assign sets every name of values (quantities) in rl, in name order so errors are stable.
func assign(rl corev1.ResourceList, values map[string]string) error {
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	var errs []error
	for _, k := range names {
		q, err := resource.ParseQuantity(values[k])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q: %w", k, values[k], err))
			continue
		}
		rl[corev1.ResourceName(k)] = q
	}
	return errors.Join(errs...)
}

func mebibytes(n int64) resource.Quantity {
	return *resource.NewQuantity(n*1024*1024, resource.BinarySI)
}

func gibibytes(n int64) resource.Quantity {
	return *resource.NewQuantity(n*1024*1024*1024, resource.BinarySI)
}
