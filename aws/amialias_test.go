package aws_test

import (
	"context"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	"github.com/nodeplan/nodeplan/aws/awstest"
)

// ssmOverHTTP serves parameters over SSM's JSON 1.1 protocol to the real SDK client and
// returns a provider on Kubernetes k8s that resolves NodeClasses with it.
func ssmOverHTTP(t *testing.T, f *fixture, k8s string, params map[string]string) (*awstest.SSMServer, *aws.Provider) {
	t.Helper()
	srv := awstest.NewSSMServer(awstest.NewSSM(params))
	t.Cleanup(srv.Close)
	p, err := aws.New(aws.Config{ClusterName: "prod", EC2: f.ec2, SSM: awstest.SSMClient(awstest.Config(), srv.URL), KubernetesVersion: k8s, Now: f.clock.Now,
		NodeClass: func(context.Context, string) (*awsv1.EC2NodeClass, error) { return nil, nil }})
	require.NoError(t, err)
	return srv, p
}

func aliasNodeClass(f *fixture, term awsv1.AMISelectorTerm) *awsv1.EC2NodeClass {
	nc := roleNodeClass(f)
	nc.Spec.Role, nc.Spec.InstanceProfile = "", ptrTo("NodeProfile")
	nc.Spec.AMISelectorTerms = []awsv1.AMISelectorTerm{term}
	return nc
}

func ptrTo[T any](v T) *T { return &v }

var (
	standard = []corev1.NodeSelectorRequirement{{Key: aws.LabelGPUCount, Operator: corev1.NodeSelectorOpDoesNotExist}, {Key: aws.LabelAcceleratorCount, Operator: corev1.NodeSelectorOpDoesNotExist}}
	nvidia   = []corev1.NodeSelectorRequirement{{Key: aws.LabelGPUCount, Operator: corev1.NodeSelectorOpExists}}
	neuron   = []corev1.NodeSelectorRequirement{{Key: aws.LabelAcceleratorCount, Operator: corev1.NodeSelectorOpExists}}
)

func archReq(arch string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: v1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{arch}}
}

// amiReqs maps each resolved AMI's requirements to its ID, as "id" per requirement set.
func amiReqs(amis []awsv1.AMI) map[string][]string {
	out := map[string][]string{}
	for _, a := range amis {
		out[a.ID] = append(out[a.ID], fmtReqs(a.Requirements))
	}
	return out
}

func fmtReqs(reqs []corev1.NodeSelectorRequirement) string {
	s := ""
	for _, r := range reqs {
		s += r.Key + " " + string(r.Operator) + " " + strings.Join(r.Values, ",") + "; "
	}
	return s
}

func with(arch string, variant []corev1.NodeSelectorRequirement) string {
	return fmtReqs(append([]corev1.NodeSelectorRequirement{archReq(arch)}, variant...))
}

// Each alias family reads Karpenter's SSM parameters for its architectures and variants, over
// SSM's JSON protocol, and the images they name carry the variants' requirements.
func TestAliasesResolveThroughSSM(t *testing.T) {
	const x86, arm = ec2types.ArchitectureValuesX8664, ec2types.ArchitectureValuesArm64
	for _, tc := range []struct {
		name, alias, k8s string
		params           map[string]string
		images           map[string]ec2types.ArchitectureValues
		want             map[string][]string
		asked            []string
	}{{
		name: "al2023 latest", alias: "al2023@latest", k8s: "1.33",
		params: map[string]string{
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id": "ami-x",
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/recommended/image_id":   "ami-xg",
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/neuron/recommended/image_id":   "ami-xn",
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/recommended/image_id":  "ami-a",
		},
		images: map[string]ec2types.ArchitectureValues{"ami-x": x86, "ami-xg": x86, "ami-xn": x86, "ami-a": arm},
		want: map[string][]string{"ami-x": {with("amd64", standard)}, "ami-xg": {with("amd64", nvidia)}, "ami-xn": {with("amd64", neuron)},
			"ami-a": {with("arm64", standard)}},
		asked: []string{
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id",
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/nvidia/recommended/image_id",
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/neuron/recommended/image_id",
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/recommended/image_id",
			"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/nvidia/recommended/image_id",
		},
	}, {
		name: "al2023 pinned", alias: "al2023@v20261101", k8s: "1.33",
		params: map[string]string{"/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.33-v20261101/image_id": "ami-a"},
		images: map[string]ec2types.ArchitectureValues{"ami-a": arm},
		want:   map[string][]string{"ami-a": {with("arm64", standard)}},
	}, {
		name: "al2 gpu image serves nvidia and neuron", alias: "al2@v20261101", k8s: "1.32",
		params: map[string]string{
			"/aws/service/eks/optimized-ami/1.32/amazon-linux-2/amazon-eks-node-1.32-v20261101/image_id":             "ami-x",
			"/aws/service/eks/optimized-ami/1.32/amazon-linux-2-arm64/amazon-eks-arm64-node-1.32-v20261101/image_id": "ami-a",
			"/aws/service/eks/optimized-ami/1.32/amazon-linux-2-gpu/amazon-eks-gpu-node-1.32-v20261101/image_id":     "ami-g",
		},
		images: map[string]ec2types.ArchitectureValues{"ami-x": x86, "ami-a": arm, "ami-g": x86},
		want:   map[string][]string{"ami-x": {with("amd64", standard)}, "ami-a": {with("arm64", standard)}, "ami-g": {with("amd64", neuron), with("amd64", nvidia)}},
	}, {
		name: "bottlerocket drops the v", alias: "bottlerocket@v1.20.0", k8s: "1.33",
		params: map[string]string{
			"/aws/service/bottlerocket/aws-k8s-1.33/x86_64/1.20.0/image_id":       "ami-x",
			"/aws/service/bottlerocket/aws-k8s-1.33-nvidia/arm64/1.20.0/image_id": "ami-ag",
		},
		images: map[string]ec2types.ArchitectureValues{"ami-x": x86, "ami-ag": arm},
		want:   map[string][]string{"ami-x": {with("amd64", neuron), with("amd64", standard)}, "ami-ag": {with("arm64", nvidia)}},
	}, {
		name: "windows2022", alias: "windows2022@latest", k8s: "1.33",
		params: map[string]string{"/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.33/image_id": "ami-w"},
		images: map[string]ec2types.ArchitectureValues{"ami-w": x86},
		want: map[string][]string{"ami-w": {with("amd64", []corev1.NodeSelectorRequirement{
			{Key: v1.LabelOS, Operator: corev1.NodeSelectorOpIn, Values: []string{"windows"}},
			{Key: v1.LabelWindowsBuild, Operator: corev1.NodeSelectorOpIn, Values: []string{"10.0.20348"}}})}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			srv, p := ssmOverHTTP(t, f, tc.k8s, tc.params)
			nc := aliasNodeClass(f, awsv1.AMISelectorTerm{Alias: tc.alias})
			f.ec2.Images = nil
			for id, arch := range tc.images {
				f.ec2.Images = append(f.ec2.Images, image(id, "eks-"+id, arch, "2026-11-01T00:00:00.000Z", ""))
			}
			f.ec2.Images = append(f.ec2.Images, image("ami-unnamed", "amazon-eks-node-al2023-x86_64-standard-"+tc.k8s+"-v20990101", x86, "2099-01-01T00:00:00.000Z", ""))
			out, err := p.ResolveNodeClass(context.Background(), nc)
			require.NoError(t, err)
			assert.Equal(t, tc.want, amiReqs(out.Status.AMIs))
			if tc.asked != nil {
				assert.Equal(t, tc.asked, srv.SSM.Requests())
			}
		})
	}
}

// An ssmParameter term reads its AMI ID; bad parameters and refused aliases are errors
// naming spec.amiSelectorTerms.
func TestSSMParameterTermsAndErrors(t *testing.T) {
	f := newFixture(t)
	srv, p := ssmOverHTTP(t, f, "1.33", map[string]string{"/my/ami": "ami-1", "/my/text": "hello"})
	out, err := p.ResolveNodeClass(context.Background(), aliasNodeClass(f, awsv1.AMISelectorTerm{SSMParameter: "/my/ami"}))
	require.NoError(t, err)
	require.Len(t, out.Status.AMIs, 1)
	assert.Equal(t, "ami-1", out.Status.AMIs[0].ID)
	assert.Equal(t, []corev1.NodeSelectorRequirement{archReq("amd64")}, out.Status.AMIs[0].Requirements)

	for _, term := range []awsv1.AMISelectorTerm{
		{SSMParameter: "/my/missing"}, {SSMParameter: "/my/text"}, {Alias: "al2023@latest"}, {Alias: "al2@latest"}, {Alias: "windows2025@latest"},
	} {
		_, err := p.ResolveNodeClass(context.Background(), aliasNodeClass(f, term))
		require.Error(t, err, term)
		assert.Contains(t, err.Error(), "EC2NodeClass default: spec.amiSelectorTerms: [0].", term)
	}
	assert.Positive(t, srv.Requests.Load())

	// Throttling and 5xx are retried by the SDK.
	for _, fault := range []awstest.Fault{awstest.Throttle, awstest.ServerError, awstest.ServerErrorAfter} {
		srv.Faults.Inject("GetParameter", fault, 2)
		out, err := p.ResolveNodeClass(context.Background(), aliasNodeClass(f, awsv1.AMISelectorTerm{SSMParameter: "/my/ami"}))
		require.NoError(t, err, fault)
		assert.Equal(t, "ami-1", out.Status.AMIs[0].ID)
		assert.Zero(t, srv.Faults.Pending())
	}
	// A malformed answer is an error, not a silent skip.
	srv.Faults.Inject("GetParameter", awstest.MalformedBody, 1)
	_, err = p.ResolveNodeClass(context.Background(), aliasNodeClass(f, awsv1.AMISelectorTerm{SSMParameter: "/my/ami"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.amiSelectorTerms: [0].ssmParameter")
}
