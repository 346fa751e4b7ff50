package ec2capacity

import (
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

// FromEC2NodeClass is what an EC2NodeClass contributes to its nodes' resources: its resolved
// AMI family (spec.amiFamily, else the alias's family), the given kubelet configuration (see
// awsv1.KubeletFor: a NodePool may override the NodeClass's), its block device mappings and
// instance-store policy. A nil nc is Karpenter's defaults with that kubelet.
func FromEC2NodeClass(nc *awsv1.EC2NodeClass, kubelet *awsv1.KubeletConfiguration) NodeClass {
	out := NodeClass{}
	if nc != nil {
		out.Family = Family(nc.AMIFamily())
		for _, b := range nc.Spec.BlockDeviceMappings {
			if b == nil {
				continue
			}
			d := BlockDevice{RootVolume: b.RootVolume}
			if b.DeviceName != nil {
				d.DeviceName = *b.DeviceName
			}
			if b.EBS != nil && b.EBS.VolumeSize != nil {
				q := b.EBS.VolumeSize.DeepCopy()
				d.VolumeSize = &q
			}
			out.BlockDevices = append(out.BlockDevices, d)
		}
		out.InstanceStoreRAID0 = nc.Spec.InstanceStorePolicy != nil && *nc.Spec.InstanceStorePolicy == awsv1.InstanceStorePolicyRAID0
	}
	if k := kubelet; k != nil {
		out.Kubelet = Kubelet{
			MaxPods:        k.MaxPods,
			PodsPerCore:    k.PodsPerCore,
			KubeReserved:   k.KubeReserved,
			SystemReserved: k.SystemReserved,
			EvictionHard:   k.EvictionHard,
		}
	}
	return out
}
