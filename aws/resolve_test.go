package aws_test

import (
	"context"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/aws/awstest"
)

func tags(kv ...string) []ec2types.Tag {
	var out []ec2types.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, ec2types.Tag{Key: sdkaws.String(kv[i]), Value: sdkaws.String(kv[i+1])})
	}
	return out
}

func image(id, name string, arch ec2types.ArchitectureValues, created string, deprecation string) ec2types.Image {
	img := ec2types.Image{ImageId: sdkaws.String(id), Name: sdkaws.String(name), Architecture: arch, CreationDate: sdkaws.String(created),
		State: ec2types.ImageStateAvailable, OwnerId: sdkaws.String("602401143452"), ImageOwnerAlias: sdkaws.String("amazon")}
	if deprecation != "" {
		img.DeprecationTime = sdkaws.String(deprecation)
	}
	return img
}

// ResolveNodeClass reads subnets, security groups and AMIs through the EC2 query protocol
// as Karpenter's NodeClass controller would.
func TestResolveNodeClass(t *testing.T) {
	f := newFixture(t)
	a1, a2, b1 := awstest.Subnet("subnet-a1", "us-east-1a", 100), awstest.Subnet("subnet-a2", "us-east-1a", 200), awstest.Subnet("subnet-b1", "us-east-1b", 50)
	a1.Tags, a2.Tags, b1.Tags = tags("karpenter.sh/discovery", "prod"), tags("karpenter.sh/discovery", "prod"), tags("other", "x")
	a1.AvailabilityZoneId, a2.AvailabilityZoneId, b1.AvailabilityZoneId = sdkaws.String("use1-az1"), sdkaws.String("use1-az1"), sdkaws.String("use1-az2")
	f.ec2.Subnets = []ec2types.Subnet{a1, a2, b1}
	f.ec2.SecurityGroups = []ec2types.SecurityGroup{
		{GroupId: sdkaws.String("sg-1"), GroupName: sdkaws.String("nodes"), Tags: tags("karpenter.sh/discovery", "prod")},
		{GroupId: sdkaws.String("sg-2"), GroupName: sdkaws.String("extra")},
		{GroupId: sdkaws.String("sg-3"), GroupName: sdkaws.String("unrelated")},
	}
	f.ec2.Images = []ec2types.Image{
		image("ami-x-old", "amazon-eks-node-al2023-x86_64-standard-1.33-v20260101", ec2types.ArchitectureValuesX8664, "2026-01-01T00:00:00.000Z", ""),
		image("ami-x-new", "amazon-eks-node-al2023-x86_64-standard-1.33-v20261101", ec2types.ArchitectureValuesX8664, "2026-11-01T00:00:00.000Z", ""),
		image("ami-x-depr", "amazon-eks-node-al2023-x86_64-standard-1.33-v20261120", ec2types.ArchitectureValuesX8664, "2026-11-20T00:00:00.000Z", "2026-11-25T00:00:00Z"),
		image("ami-arm", "amazon-eks-node-al2023-arm64-standard-1.33-v20261101", ec2types.ArchitectureValuesArm64, "2026-11-01T00:00:00.000Z", ""),
		image("ami-gpu", "amazon-eks-node-al2023-x86_64-nvidia-1.33-v20261101", ec2types.ArchitectureValuesX8664, "2026-11-01T00:00:00.000Z", ""),
		image("ami-132", "amazon-eks-node-al2023-x86_64-standard-1.32-v20261201", ec2types.ArchitectureValuesX8664, "2026-12-01T00:00:00.000Z", ""),
	}
	srv := awstest.NewEC2Server(f.ec2)
	defer srv.Close()
	p, err := aws.New(aws.Config{ClusterName: "prod", EC2: awstest.EC2Client(awstest.Config(), srv.URL), Now: f.clock.Now, KubernetesVersion: "1.33",
		NodeClass: func(context.Context, string) (*awsv1.EC2NodeClass, error) { return nil, nil }})
	require.NoError(t, err)

	nc := &awsv1.EC2NodeClass{}
	nc.Name = "default"
	nc.Generation = 3
	nc.Spec.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "prod"}}}
	nc.Spec.SecurityGroupSelectorTerms = []awsv1.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "*"}}, {Name: "extra"}}
	nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: "al2023@latest"}}
	nc.Spec.InstanceProfile = sdkaws.String("NodeProfile")
	out, err := p.ResolveNodeClass(context.Background(), nc)
	require.NoError(t, err)
	assert.Empty(t, nc.Status.Subnets, "the input is not modified")
	assert.Equal(t, []awsv1.Subnet{{ID: "subnet-a2", Zone: "us-east-1a", ZoneID: "use1-az1"}, {ID: "subnet-a1", Zone: "us-east-1a", ZoneID: "use1-az1"}}, out.Status.Subnets)
	assert.Equal(t, []awsv1.SecurityGroup{{ID: "sg-1", Name: "nodes"}, {ID: "sg-2", Name: "extra"}}, out.Status.SecurityGroups)
	var ids []string
	for _, a := range out.Status.AMIs {
		ids = append(ids, a.ID)
	}
	assert.Equal(t, []string{"ami-arm", "ami-gpu", "ami-x-new"}, ids, "newest non-deprecated per arch and variant; 1.32 and deprecated ones skipped")
	for _, a := range out.Status.AMIs {
		if a.ID == "ami-gpu" {
			assert.Contains(t, a.Requirements, corev1.NodeSelectorRequirement{Key: aws.LabelGPUCount, Operator: corev1.NodeSelectorOpExists})
			assert.Contains(t, a.Requirements, corev1.NodeSelectorRequirement{Key: v1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}})
		}
	}
	assert.Equal(t, "NodeProfile", out.Status.InstanceProfile)
	require.Len(t, out.Status.Conditions, 1)
	assert.Equal(t, int64(3), out.Status.Conditions[0].ObservedGeneration)

	// The resolved NodeClass launches: the GPU AMI is not used for the plain types.
	f.nodeClass = out
	prov := f.provider(t, f.ec2)
	launched, err := prov.Create(context.Background(), claim("resolved", "on-demand"))
	require.NoError(t, err)
	assert.Equal(t, "ami-x-new", launched.Status.ImageID)

	for _, tc := range []struct {
		change func(*awsv1.EC2NodeClass)
		field  string
	}{
		{func(nc *awsv1.EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms[0].Tags = map[string]string{"karpenter.sh/discovery": "nope"}
		}, "spec.subnetSelectorTerms"},
		{func(nc *awsv1.EC2NodeClass) {
			nc.Spec.SecurityGroupSelectorTerms = []awsv1.SecurityGroupSelectorTerm{{ID: "sg-none"}}
		}, "spec.securityGroupSelectorTerms"},
		{func(nc *awsv1.EC2NodeClass) {
			nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{SSMParameter: "/my/ami"}}
		}, "spec.amiSelectorTerms"},
		{func(nc *awsv1.EC2NodeClass) {
			nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: "bottlerocket@latest"}}
		}, "spec.amiSelectorTerms"},
		{func(nc *awsv1.EC2NodeClass) { nc.Spec.InstanceProfile = nil; nc.Spec.Role = "NodeRole" }, "spec.role"},
	} {
		bad := nc.DeepCopy()
		tc.change(bad)
		_, err := p.ResolveNodeClass(context.Background(), bad)
		require.Error(t, err, tc.field)
		assert.Contains(t, err.Error(), `EC2NodeClass default: `+tc.field)
	}
	byID := nc.DeepCopy()
	byID.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{ID: "ami-x-old"}}
	out, err = p.ResolveNodeClass(context.Background(), byID)
	require.NoError(t, err)
	require.Len(t, out.Status.AMIs, 1)
	assert.Equal(t, "ami-x-old", out.Status.AMIs[0].ID)
}

// Without SSM an al2023 alias that finds no image says which owner and name patterns it
// looked for (the old message said only "no AMI matches"); other terms say what they tried.
func TestNoAMIMatchSaysWhatWasTried(t *testing.T) {
	f := newFixture(t)
	f.ec2.Images = []ec2types.Image{
		image("ami-133", "amazon-eks-node-al2023-x86_64-standard-1.33-v20261101", ec2types.ArchitectureValuesX8664, "2026-11-01T00:00:00.000Z", ""),
	}
	p, err := aws.New(aws.Config{ClusterName: "prod", EC2: f.ec2, Now: f.clock.Now, KubernetesVersion: "1.34",
		NodeClass: func(context.Context, string) (*awsv1.EC2NodeClass, error) { return nil, nil }})
	require.NoError(t, err)
	for _, tc := range []struct {
		term awsv1.AMISelectorTerm
		want []string
	}{
		{awsv1.AMISelectorTerm{Alias: "al2023@latest"}, []string{
			`spec.amiSelectorTerms: no AMI matches (looked for [0].alias "al2023@latest": owner amazon, name amazon-eks-node-al2023-x86_64-standard-1.34-v*;`,
			"owner amazon, name amazon-eks-node-al2023-arm64-standard-1.34-v*",
		}},
		{awsv1.AMISelectorTerm{Alias: "al2023@v20261101"}, []string{"owner amazon, name amazon-eks-node-al2023-x86_64-standard-1.34-v20261101"}},
		{awsv1.AMISelectorTerm{Name: "my-ami-*", Owner: "123456789012"}, []string{"looked for [0]: owner 123456789012, name my-ami-*)"}},
		{awsv1.AMISelectorTerm{Tags: map[string]string{"team": "a"}}, []string{"looked for [0]: tag team=a)"}},
	} {
		_, err := p.ResolveNodeClass(context.Background(), aliasNodeClass(f, tc.term))
		require.Error(t, err)
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w)
		}
	}
}
