package v1

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	karpv1 "github.com/nodeplan/nodeplan/apis/v1"
)

// fieldError is what a test checks of a field.Error.
type fieldError struct {
	Field string
	Type  field.ErrorType
}

// TestValidateRefusesWhatEC2AndTheKubeletRefuse: values the CRD lets through but that nodeplan
// could not count (kubeReserved 1e30 surfaced as an error naming an instance type), that the
// CRD's patterns refuse (a volume above 64T), that CreateFleet refuses (iops -1, iops on gp2)
// or that the kubelet refuses (clusterDNS not an IP) are field errors of the NodeClass, in
// the order to fix them (an unknown amiFamily before the amiSelectorTerms it makes required).
func TestValidateRefusesWhatEC2AndTheKubeletRefuse(t *testing.T) {
	ebs := func(b *BlockDevice) func(*EC2NodeClass) {
		return func(n *EC2NodeClass) {
			n.Spec.BlockDeviceMappings = []*BlockDeviceMapping{{DeviceName: ptr("/dev/xvda"), RootVolume: true, EBS: b}}
		}
	}
	size := func(s string) *resource.Quantity { q := resource.MustParse(s); return &q }
	for _, c := range []struct {
		name   string
		mutate func(*EC2NodeClass)
		want   []fieldError
	}{
		{"kubeReserved 1e30", func(n *EC2NodeClass) {
			n.Spec.Kubelet = &KubeletConfiguration{KubeReserved: map[string]string{"cpu": "1e30"}}
		},
			[]fieldError{{"spec.kubelet.kubeReserved[cpu]", field.ErrorTypeInvalid}}},
		{"systemReserved memory 1e30", func(n *EC2NodeClass) {
			n.Spec.Kubelet = &KubeletConfiguration{SystemReserved: map[string]string{"memory": "1e30"}}
		},
			[]fieldError{{"spec.kubelet.systemReserved[memory]", field.ErrorTypeInvalid}}},
		{"evictionHard 1e30", func(n *EC2NodeClass) {
			n.Spec.Kubelet = &KubeletConfiguration{EvictionHard: map[string]string{"memory.available": "1e30"}}
		}, []fieldError{{"spec.kubelet.evictionHard[memory.available]", field.ErrorTypeInvalid}}},
		{"clusterDNS not an IP", func(n *EC2NodeClass) {
			n.Spec.Kubelet = &KubeletConfiguration{ClusterDNS: []string{"10.100.0.10", "not-an-ip"}}
		},
			[]fieldError{{"spec.kubelet.clusterDNS[1]", field.ErrorTypeInvalid}}},
		{"volumeSize 1e30", ebs(&BlockDevice{VolumeSize: size("1e30")}), []fieldError{{"spec.blockDeviceMappings[0].ebs.volumeSize", field.ErrorTypeInvalid}}},
		{"volumeSize 1000000Ti", ebs(&BlockDevice{VolumeSize: size("1000000Ti")}), []fieldError{{"spec.blockDeviceMappings[0].ebs.volumeSize", field.ErrorTypeInvalid}}},
		{"volumeSize 65T", ebs(&BlockDevice{VolumeSize: size("65T")}), []fieldError{{"spec.blockDeviceMappings[0].ebs.volumeSize", field.ErrorTypeInvalid}}},
		{"volumeSize 100Mi", ebs(&BlockDevice{VolumeSize: size("100Mi")}), []fieldError{{"spec.blockDeviceMappings[0].ebs.volumeSize", field.ErrorTypeInvalid}}},
		{"iops -1", ebs(&BlockDevice{VolumeSize: size("20Gi"), IOPS: ptr[int64](-1)}), []fieldError{{"spec.blockDeviceMappings[0].ebs.iops", field.ErrorTypeInvalid}}},
		{"iops on gp2", ebs(&BlockDevice{VolumeSize: size("20Gi"), VolumeType: ptr("gp2"), IOPS: ptr[int64](3000)}), []fieldError{{"spec.blockDeviceMappings[0].ebs.iops", field.ErrorTypeInvalid}}},
		{"gp3 iops below 3000", ebs(&BlockDevice{VolumeSize: size("20Gi"), VolumeType: ptr("gp3"), IOPS: ptr[int64](100)}), []fieldError{{"spec.blockDeviceMappings[0].ebs.iops", field.ErrorTypeInvalid}}},
		{"throughput on io2, 0 throughput", ebs(&BlockDevice{VolumeSize: size("20Gi"), VolumeType: ptr("io2"), IOPS: ptr[int64](100), Throughput: ptr[int64](200)}),
			[]fieldError{{"spec.blockDeviceMappings[0].ebs.throughput", field.ErrorTypeInvalid}}},
		{"gp3 throughput 0", ebs(&BlockDevice{VolumeSize: size("20Gi"), VolumeType: ptr("gp3"), Throughput: ptr[int64](0)}), []fieldError{{"spec.blockDeviceMappings[0].ebs.throughput", field.ErrorTypeInvalid}}},
		{"amiFamily Plan9 without terms", func(n *EC2NodeClass) { n.Spec.AMIFamily, n.Spec.AMISelectorTerms = ptr("Plan9"), nil },
			[]fieldError{{"spec.amiFamily", field.ErrorTypeNotSupported}, {"spec.amiSelectorTerms", field.ErrorTypeRequired}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			nc := validNodeClass()
			c.mutate(nc)
			var ve *karpv1.ValidationError
			require.True(t, errors.As(nc.Validate(), &ve))
			var got []fieldError
			for _, fe := range ve.Errs {
				got = append(got, fieldError{fe.Field, fe.Type})
			}
			assert.Equal(t, c.want, got)
		})
	}
	for name, b := range map[string]*BlockDevice{
		"the largest volume":           {VolumeSize: size("64T")},
		"59000Gi, the pattern's most":  {VolumeSize: size("59000Gi")},
		"1G, the least":                {VolumeSize: size("1G")},
		"gp3 at its minimums":          {VolumeSize: size("20Gi"), VolumeType: ptr("gp3"), IOPS: ptr[int64](3000), Throughput: ptr[int64](125)},
		"io1 with iops":                {VolumeSize: size("100Gi"), VolumeType: ptr("io1"), IOPS: ptr[int64](100)},
		"no type: EC2's default rules": {VolumeSize: size("20Gi"), IOPS: ptr[int64](3000)},
	} {
		nc := validNodeClass()
		ebs(b)(nc)
		assert.NoError(t, nc.Validate(), name)
	}
	nc := validNodeClass()
	nc.Spec.Kubelet = &KubeletConfiguration{ClusterDNS: []string{"10.100.0.10", "fd00::a"}, KubeReserved: map[string]string{"cpu": "9223372036854775807m"}}
	assert.NoError(t, nc.Validate(), "IPv6 DNS, the largest countable quantity")
}
