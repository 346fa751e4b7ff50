package ec2capacity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

var (
	m5large   = InstanceType{Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, ENIs: 3, IPv4PerENI: 10}
	m6glarge  = InstanceType{Name: "m6g.large", VCPUs: 2, MemoryMiB: 8192, Arm64: true, ENIs: 3, IPv4PerENI: 10}
	c5adlarge = InstanceType{Name: "c5ad.large", VCPUs: 2, MemoryMiB: 4096, ENIs: 3, IPv4PerENI: 10, InstanceStoreGB: 75}
)

func ptr[T any](v T) *T { return &v }

func qty(s string) *resource.Quantity { q := resource.MustParse(s); return &q }

func TestENILimitedPods(t *testing.T) {
	for _, c := range []struct {
		enis, ips, reserved, want int64
	}{{3, 10, 0, 29}, {2, 2, 0, 4}, {2, 4, 0, 8}, {15, 50, 0, 737}, {3, 10, 1, 20}, {1, 10, 1, 0}, {0, 0, 0, 0}} {
		assert.Equal(t, c.want, ENILimitedPods(InstanceType{ENIs: c.enis, IPv4PerENI: c.ips}, c.reserved), "%+v", c)
	}
}

func TestKubeReservedCPU(t *testing.T) {
	for vcpus, want := range map[int64]int64{1: 60, 2: 70, 4: 80, 8: 90, 16: 110, 32: 150, 48: 190, 64: 230, 96: 310, 192: 550} {
		assert.Equal(t, want, KubeReservedCPU(vcpus*1000), "%d vCPUs", vcpus)
	}
}

// TestCompute covers each NodeClass setting against Karpenter's arithmetic (expected values
// worked out by hand from karpenter-aws.md §2.2-2.3).
func TestCompute(t *testing.T) {
	for _, c := range []struct {
		name string
		it   InstanceType
		nc   NodeClass
		// allocatable (or capacity, for cap*) values to check
		alloc map[corev1.ResourceName]string
		cap   map[corev1.ResourceName]string
	}{
		{"defaults: Karpenter's m5.large", m5large, NodeClass{},
			map[corev1.ResourceName]string{"cpu": "1930m", "memory": "6903Mi", "pods": "29", "ephemeral-storage": "17Gi"},
			map[corev1.ResourceName]string{"cpu": "2", "memory": "7577Mi", "pods": "29", "ephemeral-storage": "20Gi"}},
		{"arm64 loses 64Mi before the VM overhead", m6glarge, NodeClass{},
			map[corev1.ResourceName]string{"memory": "6844Mi"}, map[corev1.ResourceName]string{"memory": "7518Mi"}},
		// maxPods lowers pods but not kube-reserved memory (AL2023 counts ENI pods).
		{"maxPods 8", m5large, NodeClass{Kubelet: Kubelet{MaxPods: ptr[int32](8)}},
			map[corev1.ResourceName]string{"pods": "8", "memory": "6903Mi"}, nil},
		{"maxPods above the ENI limit", m5large, NodeClass{Kubelet: Kubelet{MaxPods: ptr[int32](110)}},
			map[corev1.ResourceName]string{"pods": "110", "memory": "6903Mi"}, nil},
		{"podsPerCore caps pods", m5large, NodeClass{Kubelet: Kubelet{PodsPerCore: ptr[int32](5)}},
			map[corev1.ResourceName]string{"pods": "10"}, nil},
		{"podsPerCore above the limit changes nothing", m5large, NodeClass{Kubelet: Kubelet{PodsPerCore: ptr[int32](50)}},
			map[corev1.ResourceName]string{"pods": "29"}, nil},
		{"podsPerCore 0 is unset", m5large, NodeClass{Kubelet: Kubelet{PodsPerCore: ptr[int32](0)}},
			map[corev1.ResourceName]string{"pods": "29"}, nil},
		{"Bottlerocket ignores podsPerCore, counts resolved pods in kube-reserved", m5large,
			NodeClass{Family: Bottlerocket, Kubelet: Kubelet{MaxPods: ptr[int32](8), PodsPerCore: ptr[int32](1)}},
			// 7577 - (11*8+255) - 100 = 7134
			map[corev1.ResourceName]string{"pods": "8", "memory": "7134Mi", "ephemeral-storage": "17Gi"}, nil},
		{"kubeReserved replaces the defaults it names", m5large,
			NodeClass{Kubelet: Kubelet{KubeReserved: map[string]string{"cpu": "200m", "memory": "1Gi"}}},
			map[corev1.ResourceName]string{"cpu": "1800m", "memory": "6453Mi", "ephemeral-storage": "17Gi"}, nil},
		{"systemReserved adds", m5large,
			NodeClass{Kubelet: Kubelet{SystemReserved: map[string]string{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi"}}},
			map[corev1.ResourceName]string{"cpu": "1830m", "memory": "6803Mi", "ephemeral-storage": "16Gi"}, nil},
		{"evictionHard absolute", m5large,
			NodeClass{Kubelet: Kubelet{EvictionHard: map[string]string{MemoryAvailable: "500Mi", NodeFSAvailable: "1Gi"}}},
			map[corev1.ResourceName]string{"memory": "6503Mi", "ephemeral-storage": "18Gi"}, nil},
		{"evictionHard percentage of capacity, rounded up", m5large,
			NodeClass{Kubelet: Kubelet{EvictionHard: map[string]string{MemoryAvailable: "5%", NodeFSAvailable: "100%"}}},
			// 7577Mi = 7945060352 bytes; 5% = 397253017.6, rounded up; minus kube-reserved 574Mi
			map[corev1.ResourceName]string{"memory": "6945924710", "ephemeral-storage": "19Gi"}, nil},
		{"evictionHard other signals change nothing", m5large,
			NodeClass{Kubelet: Kubelet{EvictionHard: map[string]string{"imagefs.available": "50%"}}},
			map[corev1.ResourceName]string{"memory": "6903Mi", "ephemeral-storage": "17Gi"}, nil},
		{"root volume 100Gi", m5large,
			NodeClass{BlockDevices: []BlockDevice{{DeviceName: "/dev/xvda", RootVolume: true, VolumeSize: qty("100Gi")}}},
			// 100Gi - 1Gi - 10Gi
			map[corev1.ResourceName]string{"ephemeral-storage": "89Gi"}, map[corev1.ResourceName]string{"ephemeral-storage": "100Gi"}},
		{"the family's device without rootVolume", m5large,
			NodeClass{BlockDevices: []BlockDevice{{DeviceName: "/dev/xvdz", VolumeSize: qty("500Gi")}, {DeviceName: "/dev/xvda", VolumeSize: qty("50Gi")}}},
			nil, map[corev1.ResourceName]string{"ephemeral-storage": "50Gi"}},
		{"another device only: the family default", m5large,
			NodeClass{BlockDevices: []BlockDevice{{DeviceName: "/dev/xvdz", VolumeSize: qty("500Gi")}}},
			nil, map[corev1.ResourceName]string{"ephemeral-storage": "20Gi"}},
		{"Custom: the last mapping", m5large,
			NodeClass{Family: Custom, BlockDevices: []BlockDevice{{DeviceName: "/dev/xvda", VolumeSize: qty("30Gi")}, {DeviceName: "/dev/xvdb", VolumeSize: qty("40Gi")}}},
			nil, map[corev1.ResourceName]string{"ephemeral-storage": "40Gi"}},
		{"Bottlerocket: the data volume /dev/xvdb", m5large,
			NodeClass{Family: Bottlerocket, BlockDevices: []BlockDevice{{DeviceName: "/dev/xvda", VolumeSize: qty("4Gi")}, {DeviceName: "/dev/xvdb", VolumeSize: qty("60Gi")}}},
			nil, map[corev1.ResourceName]string{"ephemeral-storage": "60Gi"}},
		{"RAID0 instance store", c5adlarge, NodeClass{InstanceStoreRAID0: true},
			nil, map[corev1.ResourceName]string{"ephemeral-storage": "75G"}},
		{"RAID0 without instance store: root volume", m5large, NodeClass{InstanceStoreRAID0: true},
			nil, map[corev1.ResourceName]string{"ephemeral-storage": "20Gi"}},
		{"Windows: 110 pods, 50Gi, kube-reserved for 110 pods", m5large, NodeClass{Family: Windows2022},
			// 7577 - (11*110+255) - 100 = 6012; 50Gi - 1Gi - 5Gi = 44Gi
			map[corev1.ResourceName]string{"pods": "110", "memory": "6012Mi", "ephemeral-storage": "44Gi"}, nil},
		{"AL2 as AL2023", m5large, NodeClass{Family: AL2},
			map[corev1.ResourceName]string{"cpu": "1930m", "memory": "6903Mi", "pods": "29", "ephemeral-storage": "17Gi"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Compute(c.it, c.nc, DefaultOptions)
			require.NoError(t, err)
			alloc := res.Allocatable()
			for name, want := range c.alloc {
				got := alloc[name]
				assert.Truef(t, got.Equal(resource.MustParse(want)), "allocatable %s: got %s want %s", name, got.String(), want)
			}
			for name, want := range c.cap {
				got := res.Capacity[name]
				assert.Truef(t, got.Equal(resource.MustParse(want)), "capacity %s: got %s want %s", name, got.String(), want)
			}
		})
	}
}

func TestComputeErrors(t *testing.T) {
	_, err := Compute(InstanceType{Name: "x", VCPUs: 2, MemoryMiB: 1024}, NodeClass{}, DefaultOptions)
	assert.ErrorContains(t, err, "no ENI limits")
	_, err = Compute(m5large, NodeClass{Family: "Ubuntu"}, DefaultOptions)
	assert.ErrorContains(t, err, `unknown AMI family "Ubuntu"`)
	_, err = Compute(m5large, NodeClass{Kubelet: Kubelet{
		KubeReserved:   map[string]string{"memory": "lots"},
		SystemReserved: map[string]string{"cpu": "1x"},
		EvictionHard:   map[string]string{MemoryAvailable: "120%"},
	}}, DefaultOptions)
	require.Error(t, err)
	for _, want := range []string{"kubeReserved: memory", "systemReserved: cpu", "evictionHard: memory.available"} {
		assert.ErrorContains(t, err, want)
	}
}

func TestExtendedPassThrough(t *testing.T) {
	it := m5large
	it.Extended = corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1"), corev1.ResourceCPU: resource.MustParse("99")}
	res, err := Compute(it, NodeClass{}, DefaultOptions)
	require.NoError(t, err)
	gpu := res.Allocatable()["nvidia.com/gpu"]
	assert.Equal(t, "1", gpu.String())
	cpu := res.Capacity[corev1.ResourceCPU]
	assert.Equal(t, "2", cpu.String(), "core resources are computed, never taken from Extended")
}
