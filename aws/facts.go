package aws

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/aws/ec2capacity"
)

// Label keys of Karpenter's AWS provider.
const (
	labelDomain              = "karpenter.k8s.aws/"
	LabelInstanceCPU         = labelDomain + "instance-cpu"
	LabelInstanceMemory      = labelDomain + "instance-memory"
	LabelInstanceCategory    = labelDomain + "instance-category"
	LabelInstanceGeneration  = labelDomain + "instance-generation"
	LabelInstanceFamily      = labelDomain + "instance-family"
	LabelInstanceSize        = labelDomain + "instance-size"
	LabelCapabilityFlex      = labelDomain + "instance-capability-flex"
	LabelCPUManufacturer     = labelDomain + "instance-cpu-manufacturer"
	LabelCPUClockSpeedMHz    = labelDomain + "instance-cpu-sustained-clock-speed-mhz"
	LabelEBSBandwidth        = labelDomain + "instance-ebs-bandwidth"
	LabelNetworkBandwidth    = labelDomain + "instance-network-bandwidth"
	LabelLocalNVMe           = labelDomain + "instance-local-nvme"
	LabelHypervisor          = labelDomain + "instance-hypervisor"
	LabelEncryptionInTransit = labelDomain + "instance-encryption-in-transit-supported"
	LabelGPUName             = labelDomain + "instance-gpu-name"
	LabelGPUManufacturer     = labelDomain + "instance-gpu-manufacturer"
	LabelGPUCount            = labelDomain + "instance-gpu-count"
	LabelGPUMemory           = labelDomain + "instance-gpu-memory"
	LabelAcceleratorName     = labelDomain + "instance-accelerator-name"
	LabelAcceleratorMaker    = labelDomain + "instance-accelerator-manufacturer"
	LabelAcceleratorCount    = labelDomain + "instance-accelerator-count"
	LabelNodeClass           = labelDomain + "ec2nodeclass"
	LabelInstanceTenancy     = labelDomain + "instance-tenancy"
	LabelNitroSandbox        = labelDomain + "nitro-sandbox"
	LabelReservationType     = labelDomain + "capacity-reservation-type"
	LabelZoneID              = "topology.k8s.aws/zone-id"
)

// Extended resources of Karpenter's AWS provider.
const (
	ResourceNVIDIAGPU   corev1.ResourceName = "nvidia.com/gpu"
	ResourceAMDGPU      corev1.ResourceName = "amd.com/gpu"
	ResourceHabanaGaudi corev1.ResourceName = "habana.ai/gaudi"
	ResourceNeuron      corev1.ResourceName = "aws.amazon.com/neuron"
	ResourceNeuronCore  corev1.ResourceName = "aws.amazon.com/neuroncore"
	ResourceEFA         corev1.ResourceName = "vpc.amazonaws.com/efa"
	ResourcePodENI      corev1.ResourceName = "vpc.amazonaws.com/pod-eni"
)

// loadEmbedded reads what DescribeInstanceTypes does not answer and Karpenter compiles into
// its binary (on-demand prices, network bandwidth, branch-ENI limits) from the embedded
// catalog's tables, the one copy nodeplan keeps. A failure leaves them empty.
var loadEmbedded = sync.OnceValue(func() *catalog.EC2Tables {
	t, err := catalog.LoadEC2Tables()
	if err != nil {
		return &catalog.EC2Tables{}
	}
	return t
})

// kebab is Karpenter's label form of a name: lower case, spaces as dashes.
func kebab(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "-")
}

// parseName splits "m7i-flex.large" into family m7i-flex, size large, category m and
// generation 7 ("u-6tb1" has category u, generation 1: the -6tb infix is skipped).
func parseName(name string) (family, size, category, generation string) {
	family, size, _ = strings.Cut(name, ".")
	i := strings.IndexFunc(family, func(r rune) bool { return !unicode.IsLetter(r) })
	if i < 0 {
		return family, size, family, ""
	}
	category = family[:i]
	rest := family[i:]
	if strings.HasPrefix(rest, "-") {
		if j := strings.Index(rest, "tb"); j > 0 {
			rest = rest[j+2:]
		}
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsDigit(r) })
	if end < 0 {
		end = len(rest)
	}
	return family, size, category, rest[:end]
}

// facts turns one DescribeInstanceTypes entry into the facts ec2capacity computes with and
// the type's labels (every single-valued karpenter.k8s.aws/* label, arch, os, type).
func facts(info ec2types.InstanceTypeInfo) (ec2capacity.InstanceType, map[string]string) {
	name := string(info.InstanceType)
	table := loadEmbedded()
	it := ec2capacity.InstanceType{Name: name, Extended: corev1.ResourceList{}}
	labels := map[string]string{v1.LabelInstanceType: name, v1.LabelOS: "linux"}
	if info.VCpuInfo != nil {
		it.VCPUs = int64(sdkaws.ToInt32(info.VCpuInfo.DefaultVCpus))
		labels[LabelInstanceCPU] = strconv.FormatInt(it.VCPUs, 10)
	}
	if info.MemoryInfo != nil {
		it.MemoryMiB = sdkaws.ToInt64(info.MemoryInfo.SizeInMiB)
		labels[LabelInstanceMemory] = strconv.FormatInt(it.MemoryMiB, 10)
	}
	if p := info.ProcessorInfo; p != nil {
		if len(p.SupportedArchitectures) > 0 {
			switch p.SupportedArchitectures[0] {
			case ec2types.ArchitectureTypeArm64:
				it.Arm64 = true
				labels[v1.LabelArch] = v1.ArchitectureArm64
			case ec2types.ArchitectureTypeX8664:
				labels[v1.LabelArch] = v1.ArchitectureAmd64
			}
		}
		if p.Manufacturer != nil {
			labels[LabelCPUManufacturer] = kebab(*p.Manufacturer)
		}
		if p.SustainedClockSpeedInGhz != nil {
			labels[LabelCPUClockSpeedMHz] = strconv.FormatInt(int64(math.Round(*p.SustainedClockSpeedInGhz*1000)), 10)
		}
	}
	family, size, category, generation := parseName(name)
	labels[LabelInstanceFamily], labels[LabelInstanceSize], labels[LabelInstanceCategory] = family, size, category
	if generation != "" {
		labels[LabelInstanceGeneration] = generation
	}
	labels[LabelCapabilityFlex] = strconv.FormatBool(strings.Contains(family, "-flex"))
	labels[LabelHypervisor] = string(info.Hypervisor)
	labels[LabelNitroSandbox] = strconv.FormatBool(info.NitroEnclavesSupport == ec2types.NitroEnclavesSupportSupported)
	if n := info.NetworkInfo; n != nil {
		it.IPv4PerENI = int64(sdkaws.ToInt32(n.Ipv4AddressesPerInterface))
		it.ENIs = int64(sdkaws.ToInt32(n.MaximumNetworkInterfaces))
		def := sdkaws.ToInt32(n.DefaultNetworkCardIndex)
		for _, card := range n.NetworkCards {
			if sdkaws.ToInt32(card.NetworkCardIndex) == def {
				it.ENIs = int64(sdkaws.ToInt32(card.MaximumNetworkInterfaces))
			}
		}
		labels[LabelEncryptionInTransit] = strconv.FormatBool(sdkaws.ToBool(n.EncryptionInTransitSupported))
		if n.EfaInfo != nil && sdkaws.ToInt32(n.EfaInfo.MaximumEfaInterfaces) > 0 {
			it.Extended[ResourceEFA] = *resource.NewQuantity(int64(*n.EfaInfo.MaximumEfaInterfaces), resource.DecimalSI)
		}
	}
	if bw, ok := table.NetworkBandwidth[name]; ok {
		labels[LabelNetworkBandwidth] = bw
	}
	if q, ok := table.PodENIs[name]; ok {
		it.Extended[ResourcePodENI] = q.DeepCopy()
	}
	if e := info.EbsInfo; e != nil && e.EbsOptimizedSupport == ec2types.EbsOptimizedSupportDefault && e.EbsOptimizedInfo != nil && e.EbsOptimizedInfo.MaximumBandwidthInMbps != nil {
		labels[LabelEBSBandwidth] = strconv.FormatInt(int64(*e.EbsOptimizedInfo.MaximumBandwidthInMbps), 10)
	}
	if s := info.InstanceStorageInfo; s != nil && s.TotalSizeInGB != nil {
		it.InstanceStoreGB = *s.TotalSizeInGB
		if s.NvmeSupport != ec2types.EphemeralNvmeSupportUnsupported {
			labels[LabelLocalNVMe] = strconv.FormatInt(*s.TotalSizeInGB, 10)
		}
	}
	gpuFacts(info, it.Extended, labels)
	return it, labels
}

// gpuFacts adds GPU, Neuron and inference-accelerator resources and labels.
func gpuFacts(info ec2types.InstanceTypeInfo, extended corev1.ResourceList, labels map[string]string) {
	add := func(name corev1.ResourceName, n int64) {
		q := extended[name]
		q.Add(*resource.NewQuantity(n, resource.DecimalSI))
		extended[name] = q
	}
	if g := info.GpuInfo; g != nil {
		for _, d := range g.Gpus {
			switch sdkaws.ToString(d.Manufacturer) {
			case "NVIDIA":
				add(ResourceNVIDIAGPU, int64(sdkaws.ToInt32(d.Count)))
			case "AMD":
				add(ResourceAMDGPU, int64(sdkaws.ToInt32(d.Count)))
			case "Habana":
				add(ResourceHabanaGaudi, int64(sdkaws.ToInt32(d.Count)))
			}
		}
		if len(g.Gpus) == 1 {
			d := g.Gpus[0]
			labels[LabelGPUName] = kebab(sdkaws.ToString(d.Name))
			labels[LabelGPUManufacturer] = kebab(sdkaws.ToString(d.Manufacturer))
			labels[LabelGPUCount] = strconv.Itoa(int(sdkaws.ToInt32(d.Count)))
			if d.MemoryInfo != nil {
				labels[LabelGPUMemory] = strconv.Itoa(int(sdkaws.ToInt32(d.MemoryInfo.SizeInMiB)))
			}
		}
	}
	if a := info.InferenceAcceleratorInfo; a != nil && len(a.Accelerators) == 1 {
		d := a.Accelerators[0]
		labels[LabelAcceleratorName] = kebab(sdkaws.ToString(d.Name))
		labels[LabelAcceleratorMaker] = kebab(sdkaws.ToString(d.Manufacturer))
		labels[LabelAcceleratorCount] = strconv.Itoa(int(sdkaws.ToInt32(d.Count)))
	}
	if n := info.NeuronInfo; n != nil && len(n.NeuronDevices) > 0 {
		for _, d := range n.NeuronDevices {
			add(ResourceNeuron, int64(sdkaws.ToInt32(d.Count)))
		}
		d := n.NeuronDevices[0]
		if d.CoreInfo != nil {
			add(ResourceNeuronCore, int64(sdkaws.ToInt32(d.Count))*int64(sdkaws.ToInt32(d.CoreInfo.Count)))
		}
		if len(n.NeuronDevices) == 1 {
			labels[LabelAcceleratorName] = kebab(sdkaws.ToString(d.Name))
			labels[LabelAcceleratorMaker] = "aws"
			labels[LabelAcceleratorCount] = strconv.Itoa(int(sdkaws.ToInt32(d.Count)))
		}
	}
}
