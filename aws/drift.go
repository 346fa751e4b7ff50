package aws

import (
	"context"
	"fmt"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// Drift reasons of Karpenter's AWS provider.
const (
	NodeClassDrift     cloudprovider.DriftReason = "NodeClassDrift"
	AMIDrift           cloudprovider.DriftReason = "AMIDrift"
	SubnetDrift        cloudprovider.DriftReason = "SubnetDrift"
	SecurityGroupDrift cloudprovider.DriftReason = "SecurityGroupDrift"
)

// IsDrifted compares the NodeClaim with its EC2NodeClass, in Karpenter's order: the static
// NodeClass hash (both sides annotated with the same hash version and different hashes),
// the AMI (its image is none of the AMIs the NodeClass resolves for its instance type), then
// the instance's subnet (not among the NodeClass's) and security groups (a different set).
// A claim without a NodePool, or whose NodeClass is gone, is not drifted.
func (p *Provider) IsDrifted(ctx context.Context, claim *v1.NodeClaim) (cloudprovider.DriftReason, error) {
	if claim == nil || claim.Labels[v1.NodePoolLabelKey] == "" || claim.Spec.NodeClassRef == nil {
		return "", nil
	}
	nc, err := p.cfg.NodeClass(ctx, claim.Spec.NodeClassRef.Name)
	if err != nil {
		return "", fmt.Errorf("resolving EC2NodeClass %s: %w", claim.Spec.NodeClassRef.Name, err)
	}
	if nc == nil {
		return "", nil
	}
	ncHash, ncOK := nc.Annotations[AnnotationNodeClassHash]
	ncVer, ncVerOK := nc.Annotations[AnnotationNodeClassHashVersion]
	clHash, clOK := claim.Annotations[AnnotationNodeClassHash]
	clVer, clVerOK := claim.Annotations[AnnotationNodeClassHashVersion]
	if ncOK && ncVerOK && clOK && clVerOK && ncVer == clVer && ncHash != clHash {
		return NodeClassDrift, nil
	}
	if len(nc.Status.Subnets) == 0 || len(nc.Status.SecurityGroups) == 0 {
		return "", fmt.Errorf("EC2NodeClass %s: status has no subnets or security groups, cannot tell drift", nc.Name)
	}
	if claim.Status.ImageID != "" {
		if it := p.instanceType(ctx, typeCache{}, nc.Name, claim.Labels[v1.NodePoolLabelKey], claim.Labels[v1.LabelInstanceType]); it != nil && amiFor(nc, it) != claim.Status.ImageID {
			return AMIDrift, nil
		}
	}
	_, id, err := ParseProviderID(claim.Status.ProviderID)
	if err != nil {
		return "", err
	}
	inst, err := p.describeInstance(ctx, id)
	if err != nil {
		return "", err
	}
	if !owned(inst, p.cluster) {
		return "", &NotOwnedError{InstanceID: id, Cluster: p.cluster}
	}
	subnetOK := false
	for _, s := range nc.Status.Subnets {
		subnetOK = subnetOK || s.ID == sdkaws.ToString(inst.SubnetId)
	}
	if !subnetOK {
		return SubnetDrift, nil
	}
	var have, want []string
	for _, g := range inst.SecurityGroups {
		have = append(have, sdkaws.ToString(g.GroupId))
	}
	for _, g := range nc.Status.SecurityGroups {
		want = append(want, g.ID)
	}
	if fmt.Sprint(sortedUnique(have)) != fmt.Sprint(sortedUnique(want)) {
		return SecurityGroupDrift, nil
	}
	return "", nil
}
