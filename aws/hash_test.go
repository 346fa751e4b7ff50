package aws_test

import (
	"context"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/aws"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

func TestNodeClassHash(t *testing.T) {
	f := newFixture(t)
	nc := f.nodeClass
	size, other := resource.MustParse("50Gi"), resource.MustParse("100Gi")
	nc.Spec.BlockDeviceMappings = []*awsv1.BlockDeviceMapping{
		{DeviceName: sdkaws.String("/dev/xvda"), RootVolume: true, EBS: &awsv1.BlockDevice{VolumeSize: &size}},
		{DeviceName: sdkaws.String("/dev/xvdb"), EBS: &awsv1.BlockDevice{VolumeSize: &other}},
	}
	base := aws.NodeClassHash(nc)

	same := nc.DeepCopy()
	same.Spec.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{ID: "subnet-new"}} // dynamic drift, not static
	same.Spec.IPPrefixCount = new(int32)
	same.Status.AMIs = nil
	same.Spec.BlockDeviceMappings[0], same.Spec.BlockDeviceMappings[1] = same.Spec.BlockDeviceMappings[1], same.Spec.BlockDeviceMappings[0]
	assert.Equal(t, base, aws.NodeClassHash(same), "selector terms, ipPrefixCount, status and list order do not change the hash")

	for name, change := range map[string]func(*awsv1.EC2NodeClass){
		"userData": func(nc *awsv1.EC2NodeClass) { nc.Spec.UserData = sdkaws.String("echo hi") },
		"tags":     func(nc *awsv1.EC2NodeClass) { nc.Spec.Tags["team"] = "other" },
		"volume size": func(nc *awsv1.EC2NodeClass) {
			q := resource.MustParse("60Gi")
			nc.Spec.BlockDeviceMappings[0].EBS.VolumeSize = &q
		},
		"amiFamily":     func(nc *awsv1.EC2NodeClass) { nc.Spec.AMIFamily = sdkaws.String("Bottlerocket") },
		"kubelet":       func(nc *awsv1.EC2NodeClass) { nc.Spec.Kubelet = &awsv1.KubeletConfiguration{MaxPods: new(int32)} },
		"detailed mon.": func(nc *awsv1.EC2NodeClass) { nc.Spec.DetailedMonitoring = sdkaws.Bool(true) },
	} {
		c := nc.DeepCopy()
		change(c)
		assert.NotEqual(t, base, aws.NodeClassHash(c), name)
	}

	// Stamped on the NodeClass, copied to the claim at launch, compared by IsDrifted.
	aws.StampNodeClassHash(f.nodeClass)
	p := f.provider(t, f.ec2)
	out, err := p.Create(context.Background(), claim("h", "on-demand"))
	require.NoError(t, err)
	assert.Equal(t, aws.NodeClassHashVersion, out.Annotations[aws.AnnotationNodeClassHashVersion])
	f.nodeClass.Spec.UserData = sdkaws.String("echo changed")
	aws.StampNodeClassHash(f.nodeClass)
	reason, err := p.IsDrifted(context.Background(), out)
	require.NoError(t, err)
	assert.Equal(t, aws.NodeClassDrift, reason)
}
