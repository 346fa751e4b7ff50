package aws

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// The AMI variants an alias resolves to and what each requires of an instance type.
var (
	variantStandard = []corev1.NodeSelectorRequirement{
		{Key: LabelGPUCount, Operator: corev1.NodeSelectorOpDoesNotExist},
		{Key: LabelAcceleratorCount, Operator: corev1.NodeSelectorOpDoesNotExist}}
	variantNvidia = []corev1.NodeSelectorRequirement{{Key: LabelGPUCount, Operator: corev1.NodeSelectorOpExists}}
	variantNeuron = []corev1.NodeSelectorRequirement{{Key: LabelAcceleratorCount, Operator: corev1.NodeSelectorOpExists}}
)

// windowsBuilds are the Windows Server builds of the windows aliases (node.kubernetes.io/windows-build).
var windowsBuilds = map[string]string{"2019": "10.0.17763", "2022": "10.0.20348", "2025": "10.0.26100"}

// aliasParameter is one public SSM parameter an alias reads, with the variants its image serves.
type aliasParameter struct {
	path     string
	variants [][]corev1.NodeSelectorRequirement
}

// aliasParameters are the SSM parameters Karpenter reads for an alias family@version on a
// Kubernetes version (family lower-case; version "latest" or a pinned one).
func aliasParameters(family, version, k8s string) ([]aliasParameter, error) {
	latest := version == "latest"
	pick := func(pinned string) string {
		if latest {
			return "recommended"
		}
		return pinned
	}
	switch family {
	case "al2023":
		var out []aliasParameter
		for _, arch := range []string{"x86_64", "arm64"} {
			for _, v := range []struct {
				name string
				reqs []corev1.NodeSelectorRequirement
			}{{"standard", variantStandard}, {"nvidia", variantNvidia}, {"neuron", variantNeuron}} {
				if arch == "arm64" && v.name == "neuron" {
					continue
				}
				name := pick(fmt.Sprintf("amazon-eks-node-al2023-%s-%s-%s-%s", arch, v.name, k8s, version))
				out = append(out, aliasParameter{fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/%s/%s/image_id", k8s, arch, v.name, name), [][]corev1.NodeSelectorRequirement{v.reqs}})
			}
		}
		return out, nil
	case "al2":
		if minor, ok := kubernetesMinor(k8s); ok && minor >= 33 {
			return nil, fmt.Errorf("al2 AMIs are not published for Kubernetes %s (1.33 and later)", k8s)
		}
		return []aliasParameter{
			{fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2/%s/image_id", k8s, pick(fmt.Sprintf("amazon-eks-node-%s-%s", k8s, version))), [][]corev1.NodeSelectorRequirement{variantStandard}},
			{fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2-arm64/%s/image_id", k8s, pick(fmt.Sprintf("amazon-eks-arm64-node-%s-%s", k8s, version))), [][]corev1.NodeSelectorRequirement{variantStandard}},
			{fmt.Sprintf("/aws/service/eks/optimized-ami/%s/amazon-linux-2-gpu/%s/image_id", k8s, pick(fmt.Sprintf("amazon-eks-gpu-node-%s-%s", k8s, version))), [][]corev1.NodeSelectorRequirement{variantNeuron, variantNvidia}},
		}, nil
	case "bottlerocket":
		v := strings.TrimLeft(version, "v") // GitHub tags have the v, SSM paths do not
		return []aliasParameter{
			{fmt.Sprintf("/aws/service/bottlerocket/aws-k8s-%s/x86_64/%s/image_id", k8s, v), [][]corev1.NodeSelectorRequirement{variantStandard, variantNeuron}},
			{fmt.Sprintf("/aws/service/bottlerocket/aws-k8s-%s/arm64/%s/image_id", k8s, v), [][]corev1.NodeSelectorRequirement{variantStandard}},
			{fmt.Sprintf("/aws/service/bottlerocket/aws-k8s-%s-nvidia/x86_64/%s/image_id", k8s, v), [][]corev1.NodeSelectorRequirement{variantNvidia}},
			{fmt.Sprintf("/aws/service/bottlerocket/aws-k8s-%s-nvidia/arm64/%s/image_id", k8s, v), [][]corev1.NodeSelectorRequirement{variantNvidia}},
		}, nil
	}
	if year, ok := strings.CutPrefix(family, "windows"); ok && windowsBuilds[year] != "" {
		if !latest {
			return nil, fmt.Errorf("windows aliases only take version latest")
		}
		if minor, ok := kubernetesMinor(k8s); year == "2025" && ok && minor < 35 {
			return nil, fmt.Errorf("windows2025 AMIs need Kubernetes 1.35 or later, not %s", k8s)
		}
		return []aliasParameter{{fmt.Sprintf("/aws/service/ami-windows-latest/Windows_Server-%s-English-Core-EKS_Optimized-%s/image_id", year, k8s), [][]corev1.NodeSelectorRequirement{{
			{Key: v1.LabelOS, Operator: corev1.NodeSelectorOpIn, Values: []string{"windows"}},
			{Key: v1.LabelWindowsBuild, Operator: corev1.NodeSelectorOpIn, Values: []string{windowsBuilds[year]}},
		}}}}, nil
	}
	return nil, fmt.Errorf("alias family %q is not supported", family)
}

// kubernetesMinor is the minor of "1.33".
func kubernetesMinor(version string) (int, bool) {
	_, minor, ok := strings.Cut(version, ".")
	n, err := strconv.Atoi(minor)
	return n, ok && err == nil
}

// ssmImageID reads an AMI ID from an SSM parameter; found is false when it does not exist.
func (p *Provider) ssmImageID(ctx context.Context, name string) (id string, found bool, err error) {
	out, err := p.cfg.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: sdkaws.String(name)})
	if apiErrorCode(err) == "ParameterNotFound" {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading SSM parameter %s: %w", name, err)
	}
	if out.Parameter == nil {
		return "", false, fmt.Errorf("SSM parameter %s: no value in the answer", name)
	}
	value := sdkaws.ToString(out.Parameter.Value)
	if !strings.HasPrefix(value, "ami-") {
		return "", false, fmt.Errorf("SSM parameter %s holds %q, not an AMI ID", name, value)
	}
	return value, true, nil
}
