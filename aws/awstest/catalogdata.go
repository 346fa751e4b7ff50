package awstest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplan/nodeplan/aws/catalog"
)

// dataFile is the format of nodeplan's instance-type data (catalog/data/README.md).
type dataFile struct {
	InstanceTypes []DataType `json:"instanceTypes"`
}

// DataType is one type of the data file: its labels, Karpenter's published allocatable
// resources, prices and network limits.
type DataType struct {
	Name                 string             `json:"name"`
	Labels               map[string]string  `json:"labels"`
	Resources            map[string]string  `json:"resources"`
	OnDemandPricePerHour map[string]float64 `json:"onDemandPricePerHour"`
	Network              *struct {
		MaximumNetworkInterfaces  int32 `json:"maximumNetworkInterfaces"`
		IPv4AddressesPerInterface int32 `json:"ipv4AddressesPerInterface"`
		DefaultNetworkCardIndex   int32 `json:"defaultNetworkCardIndex"`
		NetworkCards              []struct {
			NetworkCardIndex         int32 `json:"networkCardIndex"`
			MaximumNetworkInterfaces int32 `json:"maximumNetworkInterfaces"`
		} `json:"networkCards"`
		Hypervisor string `json:"hypervisor"`
		BareMetal  bool   `json:"bareMetal"`
	} `json:"network"`
}

// DataTypes are the types of nodeplan's embedded instance-type data file (the catalog's,
// catalog.EC2DataFile), for filling an EC2 with real types.
func DataTypes() ([]DataType, error) {
	return parseDataFile(catalog.EC2DataFile(), "the embedded catalog data file")
}

// ReadDataFile reads another data file of that format (gzipped when its name ends in .gz).
func ReadDataFile(path string) ([]DataType, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseDataFile(raw, path)
}

// parseDataFile decodes a data file, gunzipping it when it is gzipped; name names it in errors.
func parseDataFile(raw []byte, name string) ([]DataType, error) {
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) { // the gzip magic number
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	var f dataFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f.InstanceTypes, nil
}

// upper turns a label value back into an API-style name ("radeon-pro-v520" ->
// "RADEON PRO V520"); Karpenter's labels are the lower-kebab form of the API's names.
func upper(s string) string { return strings.ToUpper(strings.ReplaceAll(s, "-", " ")) }

func atoi32(s string) int32 {
	n, _ := strconv.ParseInt(s, 10, 32)
	return int32(n)
}

// InstanceTypeInfo rebuilds the DescribeInstanceTypes entry of a data-file type from its
// labels, resources and network limits; ok is false for types without network data.
func (t DataType) InstanceTypeInfo() (info ec2types.InstanceTypeInfo, ok bool) {
	if t.Network == nil {
		return info, false
	}
	l := t.Labels
	arch := ec2types.ArchitectureTypeX8664
	if l["kubernetes.io/arch"] == "arm64" {
		arch = ec2types.ArchitectureTypeArm64
	}
	mem, _ := strconv.ParseInt(l["karpenter.k8s.aws/instance-memory"], 10, 64)
	clock, _ := strconv.ParseFloat(l["karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz"], 64)
	n := t.Network
	info = ec2types.InstanceTypeInfo{
		InstanceType:                 ec2types.InstanceType(t.Name),
		CurrentGeneration:            sdkaws.Bool(true),
		SupportedUsageClasses:        []ec2types.UsageClassType{ec2types.UsageClassTypeOnDemand, ec2types.UsageClassTypeSpot},
		SupportedVirtualizationTypes: []ec2types.VirtualizationType{ec2types.VirtualizationTypeHvm},
		BareMetal:                    sdkaws.Bool(n.BareMetal),
		Hypervisor:                   ec2types.InstanceTypeHypervisor(l["karpenter.k8s.aws/instance-hypervisor"]),
		VCpuInfo:                     &ec2types.VCpuInfo{DefaultVCpus: sdkaws.Int32(atoi32(l["karpenter.k8s.aws/instance-cpu"]))},
		MemoryInfo:                   &ec2types.MemoryInfo{SizeInMiB: sdkaws.Int64(mem)},
		ProcessorInfo: &ec2types.ProcessorInfo{
			SupportedArchitectures:   []ec2types.ArchitectureType{arch},
			Manufacturer:             sdkaws.String(upper(l["karpenter.k8s.aws/instance-cpu-manufacturer"])),
			SustainedClockSpeedInGhz: sdkaws.Float64(clock / 1000),
		},
		NetworkInfo: &ec2types.NetworkInfo{
			MaximumNetworkInterfaces:     sdkaws.Int32(n.MaximumNetworkInterfaces),
			Ipv4AddressesPerInterface:    sdkaws.Int32(n.IPv4AddressesPerInterface),
			DefaultNetworkCardIndex:      sdkaws.Int32(n.DefaultNetworkCardIndex),
			EncryptionInTransitSupported: sdkaws.Bool(l["karpenter.k8s.aws/instance-encryption-in-transit-supported"] == "true"),
			MaximumNetworkCards:          sdkaws.Int32(int32(len(n.NetworkCards))),
		},
	}
	for _, c := range n.NetworkCards {
		info.NetworkInfo.NetworkCards = append(info.NetworkInfo.NetworkCards, ec2types.NetworkCardInfo{
			NetworkCardIndex: sdkaws.Int32(c.NetworkCardIndex), MaximumNetworkInterfaces: sdkaws.Int32(c.MaximumNetworkInterfaces),
		})
	}
	if efa, ok := t.Resources["vpc.amazonaws.com/efa"]; ok {
		info.NetworkInfo.EfaSupported = sdkaws.Bool(true)
		info.NetworkInfo.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: sdkaws.Int32(atoi32(efa))}
	}
	if bw, ok := l["karpenter.k8s.aws/instance-ebs-bandwidth"]; ok {
		info.EbsInfo = &ec2types.EbsInfo{EbsOptimizedSupport: ec2types.EbsOptimizedSupportDefault,
			EbsOptimizedInfo: &ec2types.EbsOptimizedInfo{MaximumBandwidthInMbps: sdkaws.Int32(atoi32(bw))}}
	}
	if gb, ok := l["karpenter.k8s.aws/instance-local-nvme"]; ok {
		size, _ := strconv.ParseInt(gb, 10, 64)
		info.InstanceStorageSupported = sdkaws.Bool(true)
		info.InstanceStorageInfo = &ec2types.InstanceStorageInfo{TotalSizeInGB: sdkaws.Int64(size), NvmeSupport: ec2types.EphemeralNvmeSupportRequired}
	}
	if name, ok := l["karpenter.k8s.aws/instance-gpu-name"]; ok {
		maker := l["karpenter.k8s.aws/instance-gpu-manufacturer"]
		if maker == "nvidia" || maker == "amd" {
			maker = strings.ToUpper(maker)
		}
		info.GpuInfo = &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{
			Name: sdkaws.String(upper(name)), Manufacturer: sdkaws.String(maker),
			Count:      sdkaws.Int32(atoi32(l["karpenter.k8s.aws/instance-gpu-count"])),
			MemoryInfo: &ec2types.GpuDeviceMemoryInfo{SizeInMiB: sdkaws.Int32(atoi32(l["karpenter.k8s.aws/instance-gpu-memory"]))},
		}}}
	}
	if name, ok := l["karpenter.k8s.aws/instance-accelerator-name"]; ok {
		count := atoi32(l["karpenter.k8s.aws/instance-accelerator-count"])
		if l["karpenter.k8s.aws/instance-accelerator-manufacturer"] == "aws" {
			cores := atoi32(t.Resources["aws.amazon.com/neuroncore"])
			info.NeuronInfo = &ec2types.NeuronInfo{NeuronDevices: []ec2types.NeuronDeviceInfo{{
				Name: sdkaws.String(upper(name)), Count: sdkaws.Int32(count),
				CoreInfo: &ec2types.NeuronDeviceCoreInfo{Count: sdkaws.Int32(cores / max(count, 1))},
			}}}
		} else {
			info.InferenceAcceleratorInfo = &ec2types.InferenceAcceleratorInfo{Accelerators: []ec2types.InferenceDeviceInfo{{
				Name: sdkaws.String(upper(name)), Manufacturer: sdkaws.String(upper(l["karpenter.k8s.aws/instance-accelerator-manufacturer"])), Count: sdkaws.Int32(count),
			}}}
		}
	}
	return info, true
}
