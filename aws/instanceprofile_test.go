package aws_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/types"

	"github.com/nodeplan/nodeplan/aws"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/aws/awstest"
)

// roleNodeClass is a NodeClass that names a role, resolvable against the fixture's EC2.
func roleNodeClass(f *fixture) *awsv1.EC2NodeClass {
	f.ec2.SecurityGroups = []ec2types.SecurityGroup{{GroupId: sdkaws.String("sg-1"), GroupName: sdkaws.String("nodes")}}
	f.ec2.Images = []ec2types.Image{image("ami-1", "my-ami", ec2types.ArchitectureValuesX8664, "2026-11-01T00:00:00.000Z", "")}
	nc := &awsv1.EC2NodeClass{}
	nc.Name, nc.UID = "default", types.UID("uid-1234")
	nc.Spec.SubnetSelectorTerms = []awsv1.SubnetSelectorTerm{{ID: "subnet-a1"}}
	nc.Spec.SecurityGroupSelectorTerms = []awsv1.SecurityGroupSelectorTerm{{ID: "sg-1"}}
	nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{{ID: "ami-1"}}
	nc.Spec.Role = "KarpenterNodeRole"
	nc.Spec.Tags = map[string]string{"team": "platform", "kubernetes.io/cluster/prod": "shared"}
	return nc
}

// iamOverHTTP serves an IAM with the given roles to the real SDK client and returns a
// provider (region from Config.Region) that resolves NodeClasses with it.
func iamOverHTTP(t *testing.T, f *fixture, roles ...string) (*awstest.IAMServer, *aws.Provider) {
	t.Helper()
	srv := awstest.NewIAMServer(awstest.NewIAM(roles...))
	t.Cleanup(srv.Close)
	p, err := aws.New(aws.Config{ClusterName: "prod", EC2: f.ec2, IAM: awstest.IAMClient(awstest.Config(), srv.URL), Region: "us-east-1", Now: f.clock.Now,
		NodeClass: func(context.Context, string) (*awsv1.EC2NodeClass, error) { return nil, nil }})
	require.NoError(t, err)
	return srv, p
}

func tagMap(tags []iamtypes.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[sdkaws.ToString(t.Key)] = sdkaws.ToString(t.Value)
	}
	return m
}

// The name is Karpenter's deterministic one: cluster, "_", the FNV-1a hash of region+name.
func TestInstanceProfileName(t *testing.T) {
	h := fnv.New64a()
	h.Write([]byte("us-east-1default"))
	assert.Equal(t, fmt.Sprintf("prod_%d", h.Sum64()), aws.InstanceProfileName("prod", "us-east-1", "default"))
	assert.Equal(t, aws.InstanceProfileName("prod", "us-east-1", "default"), aws.InstanceProfileName("prod", "us-east-1", "default"))
	assert.NotEqual(t, aws.InstanceProfileName("prod", "us-east-1", "default"), aws.InstanceProfileName("prod", "us-west-2", "default"))
	assert.NotEqual(t, aws.InstanceProfileName("prod", "us-east-1", "default"), aws.InstanceProfileName("dev", "us-east-1", "default"))
}

// A NodeClass with spec.role gets the instance profile Karpenter would create, over IAM's
// query protocol: its name, path, tags and role; resolving again changes nothing; a new role
// replaces the old one.
func TestResolveNodeClassCreatesInstanceProfile(t *testing.T) {
	f := newFixture(t)
	srv, p := iamOverHTTP(t, f, "KarpenterNodeRole", "OtherRole")
	nc := roleNodeClass(f)
	out, err := p.ResolveNodeClass(context.Background(), nc)
	require.NoError(t, err)
	name := aws.InstanceProfileName("prod", "us-east-1", "default")
	assert.Equal(t, name, out.Status.InstanceProfile)
	profiles := srv.IAM.Profiles()
	require.Len(t, profiles, 1)
	got := profiles[0]
	assert.Equal(t, name, sdkaws.ToString(got.InstanceProfileName))
	assert.Equal(t, "/karpenter/us-east-1/prod/uid-1234/", sdkaws.ToString(got.Path))
	assert.Equal(t, map[string]string{"team": "platform", "kubernetes.io/cluster/prod": "owned", "eks:eks-cluster-name": "prod",
		"karpenter.k8s.aws/ec2nodeclass": "default", "topology.kubernetes.io/region": "us-east-1"}, tagMap(got.Tags), "the fixed tags win over the NodeClass's")
	require.Len(t, got.Roles, 1)
	assert.Equal(t, "KarpenterNodeRole", sdkaws.ToString(got.Roles[0].RoleName))
	assert.Equal(t, []string{"CreateInstanceProfile", "AddRoleToInstanceProfile"}, srv.IAM.Calls())

	_, err = p.ResolveNodeClass(context.Background(), nc)
	require.NoError(t, err)
	assert.Len(t, srv.IAM.Calls(), 2, "resolving again is a read")

	nc.Spec.Role = "team/OtherRole" // a role with a path is added by its name
	out, err = p.ResolveNodeClass(context.Background(), nc)
	require.NoError(t, err)
	assert.Equal(t, name, out.Status.InstanceProfile)
	got = srv.IAM.Profiles()[0]
	require.Len(t, got.Roles, 1)
	assert.Equal(t, "OtherRole", sdkaws.ToString(got.Roles[0].RoleName))
	assert.Equal(t, []string{"CreateInstanceProfile", "AddRoleToInstanceProfile", "RemoveRoleFromInstanceProfile", "AddRoleToInstanceProfile"}, srv.IAM.Calls())

	// spec.instanceProfile never touches IAM.
	byProfile := nc.DeepCopy()
	byProfile.Spec.Role, byProfile.Spec.InstanceProfile = "", sdkaws.String("MyProfile")
	out, err = p.ResolveNodeClass(context.Background(), byProfile)
	require.NoError(t, err)
	assert.Equal(t, "MyProfile", out.Status.InstanceProfile)
	assert.Len(t, srv.IAM.Calls(), 4)
}

// A missing role, a provider without IAM or without a region: an error naming spec.role.
func TestResolveNodeClassInstanceProfileErrors(t *testing.T) {
	f := newFixture(t)
	srv, p := iamOverHTTP(t, f)
	_, err := p.ResolveNodeClass(context.Background(), roleNodeClass(f))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "EC2NodeClass default: spec.role")
	assert.Contains(t, err.Error(), "NoSuchEntity")
	assert.Len(t, srv.IAM.Profiles(), 1, "the profile is created; the role is added once it exists")
	srv.IAM.AddRole("KarpenterNodeRole")
	out, err := p.ResolveNodeClass(context.Background(), roleNodeClass(f))
	require.NoError(t, err)
	assert.Equal(t, "KarpenterNodeRole", sdkaws.ToString(srv.IAM.Profiles()[0].Roles[0].RoleName))
	assert.NotEmpty(t, out.Status.InstanceProfile)

	for name, cfg := range map[string]aws.Config{
		"no IAM":    {IAM: nil, Region: "us-east-1"},
		"no region": {IAM: srv.IAM},
	} {
		cfg.ClusterName, cfg.EC2 = "prod", f.ec2
		cfg.NodeClass = func(context.Context, string) (*awsv1.EC2NodeClass, error) { return nil, nil }
		p, err := aws.New(cfg)
		require.NoError(t, err)
		_, err = p.ResolveNodeClass(context.Background(), roleNodeClass(f))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "EC2NodeClass default: spec.role", name)
	}
}

// Under throttling, 5xx before or after the operation ran, the SDK's retries and the
// provider's re-reads end with exactly one profile holding the role.
func TestInstanceProfileUnderFaults(t *testing.T) {
	for _, action := range []string{"GetInstanceProfile", "CreateInstanceProfile", "AddRoleToInstanceProfile", "RemoveRoleFromInstanceProfile"} {
		for _, fault := range []awstest.Fault{awstest.Throttle, awstest.ServerError, awstest.ServerErrorAfter} {
			t.Run(action+"/"+fault.String(), func(t *testing.T) {
				f := newFixture(t)
				srv, p := iamOverHTTP(t, f, "KarpenterNodeRole", "OtherRole")
				nc := roleNodeClass(f)
				if action == "RemoveRoleFromInstanceProfile" {
					nc.Spec.Role = "OtherRole"
					_, err := p.ResolveNodeClass(context.Background(), nc)
					require.NoError(t, err)
					nc.Spec.Role = "KarpenterNodeRole"
				}
				srv.Faults.Inject(action, fault, 1)
				out, err := p.ResolveNodeClass(context.Background(), nc)
				require.NoError(t, err)
				assert.Equal(t, []string{action + ":" + fault.String()}, srv.Faults.Served())
				profiles := srv.IAM.Profiles()
				require.Len(t, profiles, 1)
				assert.Equal(t, out.Status.InstanceProfile, sdkaws.ToString(profiles[0].InstanceProfileName))
				require.Len(t, profiles[0].Roles, 1)
				assert.Equal(t, "KarpenterNodeRole", sdkaws.ToString(profiles[0].Roles[0].RoleName))
			})
		}
	}
}
