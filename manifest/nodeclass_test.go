package manifest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	awsv1beta1 "github.com/nodeplan/nodeplan/aws/apis/v1beta1"
)

const nodeClassV1 = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: small}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: bottlerocket@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  kubelet: {maxPods: 8, kubeReserved: {cpu: 200m}}
  blockDeviceMappings:
  - deviceName: /dev/xvdb
    ebs: {volumeSize: 100Gi, volumeType: gp3}
`

func TestEC2NodeClassV1(t *testing.T) {
	s, err := Parse([]byte(nodeClassV1), "nc.yaml")
	require.NoError(t, err)
	require.Len(t, s.NodeClasses, 1)
	nc := s.NodeClasses[0]
	assert.Equal(t, "Bottlerocket", nc.AMIFamily())
	assert.Equal(t, int32(8), *nc.Spec.Kubelet.MaxPods)
	assert.Equal(t, "100Gi", nc.Spec.BlockDeviceMappings[0].EBS.VolumeSize.String())
	assert.Equal(t, "required", *nc.Spec.MetadataOptions.HTTPTokens, "defaults applied")
	assert.Empty(t, s.Warnings)
}

func TestEC2NodeClassErrors(t *testing.T) {
	for _, c := range []struct{ name, edit, want string }{
		{"unknown spec field", "  kubelet: {maxPods: 8, kubeReserved: {cpu: 200m}}\n  subnets: []\n",
			`nc.yaml: document 1 (line 1): EC2NodeClass "small": spec.subnets: unknown field`},
		{"unknown kubelet field", "kubelet: {maxPods: 8,", `EC2NodeClass "small": spec.kubelet.maxpods: unknown field`},
		{"bad value", "volumeSize: 100Gi", `EC2NodeClass "small": spec.blockDeviceMappings[0].ebs.volumeSize`},
		{"validation", "role: KarpenterNodeRole", `EC2NodeClass "small": spec.instanceProfile: Invalid value: "": must not be empty`},
		{"unsupported version", "karpenter.k8s.aws/v1\n", `apiVersion "karpenter.k8s.aws/v1alpha1" is not supported for EC2NodeClass`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := nodeClassV1
			switch c.name {
			case "unknown spec field":
				in = strings.Replace(in, "  kubelet: {maxPods: 8, kubeReserved: {cpu: 200m}}\n", c.edit, 1)
			case "unknown kubelet field":
				in = strings.Replace(in, c.edit, "kubelet: {maxpods: 8,", 1)
			case "bad value":
				in = strings.Replace(in, c.edit, "volumeSize: lots", 1)
			case "validation":
				in = strings.Replace(in, c.edit, "instanceProfile: \"\"", 1)
			case "unsupported version":
				in = strings.Replace(in, c.edit, "karpenter.k8s.aws/v1alpha1\n", 1)
			}
			_, err := Parse([]byte(in), "nc.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestEC2NodeClassV1beta1(t *testing.T) {
	s, err := Load("testdata/teams-v1beta1.yaml")
	require.NoError(t, err, "the v1beta1 example is read as Karpenter 1.0 converted it")
	require.Len(t, s.NodeClasses, 1)
	nc := s.NodeClasses[0]
	assert.Equal(t, "karpenter.k8s.aws/v1", nc.APIVersion)
	assert.Equal(t, "al2@latest", nc.Spec.AMISelectorTerms[0].Alias)
	assert.Nil(t, nc.Spec.AMIFamily)
	assert.Equal(t, "AL2", nc.AMIFamily())
	var found bool
	for _, w := range s.Warnings {
		if w.Object == `EC2NodeClass "default"` {
			found = true
			assert.Contains(t, w.Message, "karpenter.k8s.aws/v1beta1 is no longer served")
			assert.Contains(t, w.Message, "set apiVersion karpenter.k8s.aws/v1")
			assert.Contains(t, w.Message, "replace spec.amiFamily AL2 by spec.amiSelectorTerms [{alias: al2@latest}]")
			assert.Contains(t, w.String(), "teams-v1beta1.yaml: document 3")
		}
	}
	assert.True(t, found, "a warning names the EC2NodeClass: %v", s.Warnings)

	ubuntu := `apiVersion: karpenter.k8s.aws/v1beta1
kind: EC2NodeClass
metadata: {name: ubuntu}
spec:
  amiFamily: Ubuntu
  role: r
  subnetSelectorTerms: [{id: subnet-1}]
  securityGroupSelectorTerms: [{id: sg-1}]
`
	s, err = Parse([]byte(ubuntu), "u.yaml")
	require.NoError(t, err)
	assert.True(t, awsv1beta1.Incompatible(s.NodeClasses[0]))
	assert.Contains(t, s.Warnings[0].Message, "Karpenter 1.0 marks the NodeClass not ready")

	_, err = Parse([]byte(strings.Replace(ubuntu, "role: r", "role: r\n  kubelet: {maxPods: 8}", 1)), "u.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `EC2NodeClass "ubuntu": spec.kubelet: unknown field`, "v1beta1 had no kubelet on the NodeClass")
}

func TestEC2NodeClassesTestdata(t *testing.T) {
	s, err := Load("testdata/ec2nodeclasses.yaml")
	require.NoError(t, err)
	require.Len(t, s.NodeClasses, 2)
	assert.Equal(t, int32(58), *s.NodeClasses[0].Spec.Kubelet.MaxPods)
	assert.Equal(t, "AL2023", s.NodeClasses[1].AMIFamily())
	assert.Equal(t, "al2023@latest", s.NodeClasses[1].Spec.AMISelectorTerms[0].Alias)
	require.Len(t, s.Warnings, 1)
	assert.Equal(t, `EC2NodeClass "legacy"`, s.Warnings[0].Object)
}
