package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The deep copies below are written by hand; deepcopy_test.go fills every field and checks
// that no memory is shared.

// DeepCopyInto copies in into out.
func (in *EC2NodeClass) DeepCopyInto(out *EC2NodeClass) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *EC2NodeClass) DeepCopy() *EC2NodeClass {
	if in == nil {
		return nil
	}
	out := new(EC2NodeClass)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *EC2NodeClass) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out.
func (in *EC2NodeClassList) DeepCopyInto(out *EC2NodeClassList) {
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]EC2NodeClass, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *EC2NodeClassList) DeepCopy() *EC2NodeClassList {
	if in == nil {
		return nil
	}
	out := new(EC2NodeClassList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *EC2NodeClassList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out.
func (in *EC2NodeClassSpec) DeepCopyInto(out *EC2NodeClassSpec) {
	*out = *in
	out.SubnetSelectorTerms = copyEach(in.SubnetSelectorTerms, func(t SubnetSelectorTerm) SubnetSelectorTerm {
		t.Tags = copyMap(t.Tags)
		return t
	})
	out.SecurityGroupSelectorTerms = copyEach(in.SecurityGroupSelectorTerms, func(t SecurityGroupSelectorTerm) SecurityGroupSelectorTerm {
		t.Tags = copyMap(t.Tags)
		return t
	})
	out.CapacityReservationSelectorTerms = copyEach(in.CapacityReservationSelectorTerms, func(t CapacityReservationSelectorTerm) CapacityReservationSelectorTerm {
		t.Tags = copyMap(t.Tags)
		return t
	})
	out.PlacementGroupSelector = copyPtr(in.PlacementGroupSelector)
	out.AssociatePublicIPAddress = copyPtr(in.AssociatePublicIPAddress)
	out.IPPrefixCount = copyPtr(in.IPPrefixCount)
	out.AMISelectorTerms = copyEach(in.AMISelectorTerms, func(t AMISelectorTerm) AMISelectorTerm {
		t.Tags = copyMap(t.Tags)
		return t
	})
	out.AMIFamily = copyPtr(in.AMIFamily)
	out.UserData = copyPtr(in.UserData)
	out.InstanceProfile = copyPtr(in.InstanceProfile)
	out.Tags = copyMap(in.Tags)
	out.Kubelet = in.Kubelet.DeepCopy()
	out.BlockDeviceMappings = copyEach(in.BlockDeviceMappings, func(b *BlockDeviceMapping) *BlockDeviceMapping { return b.DeepCopy() })
	out.InstanceStorePolicy = copyPtr(in.InstanceStorePolicy)
	out.NetworkInterfaces = copyEach(in.NetworkInterfaces, copyPtr[NetworkInterface])
	out.DetailedMonitoring = copyPtr(in.DetailedMonitoring)
	if in.MetadataOptions != nil {
		m := *in.MetadataOptions
		m.HTTPEndpoint, m.HTTPProtocolIPv6 = copyPtr(m.HTTPEndpoint), copyPtr(m.HTTPProtocolIPv6)
		m.HTTPPutResponseHopLimit, m.HTTPTokens = copyPtr(m.HTTPPutResponseHopLimit), copyPtr(m.HTTPTokens)
		out.MetadataOptions = &m
	}
	if in.ConnectionTracking != nil {
		c := *in.ConnectionTracking
		c.TCPEstablishedTimeout, c.UDPStreamTimeout, c.UDPTimeout = copyPtr(c.TCPEstablishedTimeout), copyPtr(c.UDPStreamTimeout), copyPtr(c.UDPTimeout)
		out.ConnectionTracking = &c
	}
	out.Context = copyPtr(in.Context)
	if in.CPUOptions != nil {
		out.CPUOptions = &CPUOptions{NestedVirtualization: copyPtr(in.CPUOptions.NestedVirtualization)}
	}
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *KubeletConfiguration) DeepCopy() *KubeletConfiguration {
	if in == nil {
		return nil
	}
	out := *in
	out.ClusterDNS = copyEach(in.ClusterDNS, func(s string) string { return s })
	out.MaxPods, out.PodsPerCore = copyPtr(in.MaxPods), copyPtr(in.PodsPerCore)
	out.SystemReserved, out.KubeReserved = copyMap(in.SystemReserved), copyMap(in.KubeReserved)
	out.EvictionHard, out.EvictionSoft = copyMap(in.EvictionHard), copyMap(in.EvictionSoft)
	out.EvictionSoftGracePeriod = copyMap(in.EvictionSoftGracePeriod)
	out.EvictionMaxPodGracePeriod = copyPtr(in.EvictionMaxPodGracePeriod)
	out.ImageGCHighThresholdPercent, out.ImageGCLowThresholdPercent = copyPtr(in.ImageGCHighThresholdPercent), copyPtr(in.ImageGCLowThresholdPercent)
	out.CPUCFSQuota = copyPtr(in.CPUCFSQuota)
	return &out
}

// DeepCopy returns a copy of in that shares no memory with it.
func (in *BlockDeviceMapping) DeepCopy() *BlockDeviceMapping {
	if in == nil {
		return nil
	}
	out := *in
	out.DeviceName = copyPtr(in.DeviceName)
	if e := in.EBS; e != nil {
		b := *e
		b.DeleteOnTermination, b.Encrypted = copyPtr(e.DeleteOnTermination), copyPtr(e.Encrypted)
		b.IOPS, b.KMSKeyID, b.SnapshotID = copyPtr(e.IOPS), copyPtr(e.KMSKeyID), copyPtr(e.SnapshotID)
		b.Throughput, b.VolumeInitializationRate = copyPtr(e.Throughput), copyPtr(e.VolumeInitializationRate)
		if e.VolumeSize != nil {
			q := e.VolumeSize.DeepCopy()
			b.VolumeSize = &q
		}
		b.VolumeType = copyPtr(e.VolumeType)
		out.EBS = &b
	}
	return &out
}

// DeepCopyInto copies in into out.
func (in *EC2NodeClassStatus) DeepCopyInto(out *EC2NodeClassStatus) {
	*out = *in
	out.Subnets = copyEach(in.Subnets, func(s Subnet) Subnet { return s })
	out.SecurityGroups = copyEach(in.SecurityGroups, func(s SecurityGroup) SecurityGroup { return s })
	out.CapacityReservations = copyEach(in.CapacityReservations, func(c CapacityReservation) CapacityReservation {
		c.EndTime = c.EndTime.DeepCopy()
		return c
	})
	out.AMIs = copyEach(in.AMIs, func(a AMI) AMI {
		a.Requirements = copyEach(a.Requirements, func(r corev1.NodeSelectorRequirement) corev1.NodeSelectorRequirement {
			return *r.DeepCopy()
		})
		return a
	})
	out.Conditions = copyEach(in.Conditions, func(c metav1.Condition) metav1.Condition { return *c.DeepCopy() })
}

// copyPtr returns a pointer to a copy of *p, or nil. T must hold no pointers of its own.
func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// copyEach copies a slice element by element, keeping nil nil.
func copyEach[E any](in []E, each func(E) E) []E {
	if in == nil {
		return nil
	}
	out := make([]E, len(in))
	for i, e := range in {
		out[i] = each(e)
	}
	return out
}

// copyMap copies a map of values that hold no pointers, keeping nil nil.
func copyMap[V any](in map[string]V) map[string]V {
	if in == nil {
		return nil
	}
	out := make(map[string]V, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}
