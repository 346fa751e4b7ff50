package ec2capacity_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/aws/ec2capacity"
)

// An m5.large (2 vCPUs, 8 GiB, 3 ENIs of 10 IPv4 addresses) under Karpenter's default
// AL2023 EC2NodeClass: capacity after the VM's memory overhead, ENI-limited max pods, and
// what the kubelet keeps back.
func ExampleCompute() {
	m5large := ec2capacity.InstanceType{Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, ENIs: 3, IPv4PerENI: 10}
	res, err := ec2capacity.Compute(m5large, ec2capacity.NodeClass{}, ec2capacity.DefaultOptions)
	if err != nil {
		panic(err)
	}
	alloc := res.Allocatable()
	fmt.Println("capacity:   ", res.Capacity.Cpu(), res.Capacity.Memory(), res.Capacity.Pods())
	fmt.Println("allocatable:", alloc.Cpu(), alloc.Memory(), alloc.Pods())
	// Output:
	// capacity:    2 7577Mi 29
	// allocatable: 1930m 6903Mi 29
}

// A NodeClass's kubelet settings change the result: maxPods replaces the ENI limit (on
// AL2023, kube-reserved memory still follows the ENI limit: 11 MiB x 29 + 255 MiB, as in
// Karpenter), and system-reserved memory comes off the allocatable.
func ExampleCompute_kubelet() {
	m5large := ec2capacity.InstanceType{Name: "m5.large", VCPUs: 2, MemoryMiB: 8192, ENIs: 3, IPv4PerENI: 10}
	maxPods := int32(110)
	nc := ec2capacity.NodeClass{Kubelet: ec2capacity.Kubelet{
		MaxPods:        &maxPods,
		SystemReserved: map[string]string{string(corev1.ResourceMemory): "200Mi"},
	}}
	res, err := ec2capacity.Compute(m5large, nc, ec2capacity.DefaultOptions)
	if err != nil {
		panic(err)
	}
	fmt.Println("pods:", res.Capacity.Pods(), "kube-reserved memory:", res.KubeReserved.Memory(), "system-reserved memory:", res.SystemReserved.Memory())
	alloc := res.Allocatable()
	fmt.Println("allocatable memory:", alloc.Memory())
	// Output:
	// pods: 110 kube-reserved memory: 574Mi system-reserved memory: 200Mi
	// allocatable memory: 6703Mi
}
