package aws

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

// InstanceProfileName is the name Karpenter gives the instance profile it creates for a
// NodeClass's role: "<cluster>_<hash>", the hash being hashstructure's FormatV2 hash of the
// string region+name, which for a string is its 64-bit FNV-1a (Karpenter's deterministic
// name; its newest releases draw a random one and remember it in the status, which
// ResolveNodeClass cannot do across restarts without a store).
func InstanceProfileName(cluster, region, nodeClass string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(region + nodeClass))
	return fmt.Sprintf("%s_%d", cluster, h.Sum64())
}

// instanceProfilePath is the IAM path Karpenter files a NodeClass's profile under, so a
// cluster's profiles can be listed by prefix.
func instanceProfilePath(region, cluster, uid string) string {
	return fmt.Sprintf("/karpenter/%s/%s/%s/", region, cluster, uid)
}

// instanceProfileTags are the NodeClass's tags with Karpenter's fixed ones (which win),
// sorted by key.
func instanceProfileTags(cluster, region string, nc *awsv1.EC2NodeClass) []iamtypes.Tag {
	m := map[string]string{}
	for k, v := range nc.Spec.Tags {
		m[k] = v
	}
	m[clusterTag(cluster)] = "owned"
	m[TagClusterName] = cluster
	m[LabelNodeClass] = nc.Name
	m[v1.LabelTopologyRegion] = region
	out := make([]iamtypes.Tag, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, iamtypes.Tag{Key: sdkaws.String(k), Value: sdkaws.String(m[k])})
	}
	return out
}

func apiErrorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// resolveInstanceProfile returns spec.instanceProfile, or makes sure the profile Karpenter
// would create for spec.role exists, carries that role (and no other) and returns its name.
// Every step tolerates a retry of itself that already ran, so a lost reply is harmless.
func (p *Provider) resolveInstanceProfile(ctx context.Context, nc *awsv1.EC2NodeClass) (string, error) {
	if nc.Spec.InstanceProfile != nil {
		return *nc.Spec.InstanceProfile, nil
	}
	if nc.Spec.Role == "" {
		return "", errors.New("neither spec.role nor spec.instanceProfile is set")
	}
	if p.cfg.IAM == nil {
		return "", errors.New("creating an instance profile for a role needs Config.IAM; set it or spec.instanceProfile")
	}
	region := p.cfg.Region
	if region == "" {
		p.mu.Lock()
		region = p.regionName
		p.mu.Unlock()
	}
	if region == "" {
		return "", errors.New("naming the instance profile needs Config.Region (or a Refresh first)")
	}
	name := InstanceProfileName(p.cluster, region, nc.Name)
	profile, err := p.instanceProfile(ctx, name)
	if err != nil {
		return "", err
	}
	if profile == nil {
		out, err := p.cfg.IAM.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{
			InstanceProfileName: sdkaws.String(name),
			Path:                sdkaws.String(instanceProfilePath(region, p.cluster, string(nc.UID))),
			Tags:                instanceProfileTags(p.cluster, region, nc),
		})
		switch {
		case err == nil:
			profile = out.InstanceProfile
		case apiErrorCode(err) == "EntityAlreadyExists": // created by a retried call or a racing controller
			if profile, err = p.instanceProfile(ctx, name); err != nil || profile == nil {
				return "", fmt.Errorf("instance profile %s exists but cannot be read: %v", name, err)
			}
		default:
			return "", fmt.Errorf("creating instance profile %s: %w", name, err)
		}
	}
	if err := p.ensureRole(ctx, profile, name, nc.Spec.Role); err != nil {
		return "", err
	}
	return name, nil
}

// instanceProfile reads a profile, nil when it does not exist.
func (p *Provider) instanceProfile(ctx context.Context, name string) (*iamtypes.InstanceProfile, error) {
	out, err := p.cfg.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: sdkaws.String(name)})
	if apiErrorCode(err) == "NoSuchEntity" {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("getting instance profile %s: %w", name, err)
	}
	return out.InstanceProfile, nil
}

// ensureRole leaves role as the profile's only role (a profile holds at most one). A role
// given with a path ("team/NodeRole") is added by its name, as IAM requires.
func (p *Provider) ensureRole(ctx context.Context, profile *iamtypes.InstanceProfile, name, role string) error {
	role = role[strings.LastIndex(role, "/")+1:]
	for _, r := range profile.Roles {
		if sdkaws.ToString(r.RoleName) == role {
			return nil
		}
		_, err := p.cfg.IAM.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: sdkaws.String(name), RoleName: r.RoleName})
		if err != nil && apiErrorCode(err) != "NoSuchEntity" {
			return fmt.Errorf("removing role %s from instance profile %s: %w", sdkaws.ToString(r.RoleName), name, err)
		}
	}
	_, err := p.cfg.IAM.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: sdkaws.String(name), RoleName: sdkaws.String(role)})
	if apiErrorCode(err) == "LimitExceeded" { // a retried call that already added it?
		if again, gerr := p.instanceProfile(ctx, name); gerr == nil && again != nil && len(again.Roles) == 1 && sdkaws.ToString(again.Roles[0].RoleName) == role {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("adding role %s to instance profile %s: %w", role, name, err)
	}
	return nil
}
