package aws

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

// tagFilters turns selector-term tags into EC2 filters: "*" is tag-key=key, anything else
// tag:key=value (sorted by key, so requests are stable).
func tagFilters(tags map[string]string) []ec2types.Filter {
	var out []ec2types.Filter
	for _, k := range sortedKeys(tags) {
		if tags[k] == "*" {
			out = append(out, ec2types.Filter{Name: sdkaws.String("tag-key"), Values: []string{k}})
		} else {
			out = append(out, ec2types.Filter{Name: sdkaws.String("tag:" + k), Values: []string{tags[k]}})
		}
	}
	return out
}

func filter(name string, values ...string) ec2types.Filter {
	return ec2types.Filter{Name: sdkaws.String(name), Values: values}
}

// availableImages asks DescribeImages for the available images that match filters.
func availableImages(filters ...ec2types.Filter) *ec2.DescribeImagesInput {
	return &ec2.DescribeImagesInput{Filters: append([]ec2types.Filter{filter("state", "available")}, filters...)}
}

// ResolveNodeClass returns a copy of the EC2NodeClass with the status Karpenter's NodeClass
// controller would write: the subnets its selector terms match (most free IPs first, then
// ID), its security groups, its AMIs (one per architecture and variant, non-deprecated and
// newest first) and its instance profile (spec.instanceProfile, or the one it creates or
// reuses for spec.role through Config.IAM), and Ready=True. Terms are ORed, a term's fields
// ANDed. An alias (al2023, al2, bottlerocket, windows2019/2022/2025 @latest or a pinned
// version) reads Karpenter's public SSM parameters per architecture and variant through
// Config.SSM, and needs Config.KubernetesVersion; without SSM only al2023 aliases resolve, by
// the EKS AMI name with DescribeImages. An ssmParameter term reads its parameter's AMI ID. An error names the NodeClass and the field that matched nothing.
func (p *Provider) ResolveNodeClass(ctx context.Context, in *awsv1.EC2NodeClass) (*awsv1.EC2NodeClass, error) {
	nc := in.DeepCopy()
	fail := func(field, format string, args ...any) error {
		return fmt.Errorf("EC2NodeClass %s: %s: %s", nc.Name, field, fmt.Sprintf(format, args...))
	}
	subnets, err := p.resolveSubnets(ctx, nc)
	if err != nil {
		return nil, fail("spec.subnetSelectorTerms", "%v", err)
	}
	if len(subnets) == 0 {
		return nil, fail("spec.subnetSelectorTerms", "no subnet matches")
	}
	groups, err := p.resolveSecurityGroups(ctx, nc)
	if err != nil {
		return nil, fail("spec.securityGroupSelectorTerms", "%v", err)
	}
	if len(groups) == 0 {
		return nil, fail("spec.securityGroupSelectorTerms", "no security group matches")
	}
	amis, err := p.resolveAMIs(ctx, nc)
	if err != nil {
		return nil, fail("spec.amiSelectorTerms", "%v", err)
	}
	profile, err := p.resolveInstanceProfile(ctx, nc)
	if err != nil {
		return nil, fail("spec.role", "%v", err)
	}
	nc.Status.Subnets, nc.Status.SecurityGroups, nc.Status.AMIs, nc.Status.InstanceProfile = subnets, groups, amis, profile
	meta.SetStatusCondition(&nc.Status.Conditions, metav1.Condition{
		Type: awsv1.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: "Ready", ObservedGeneration: nc.Generation,
		LastTransitionTime: metav1.NewTime(p.now()),
	})
	return nc, nil
}

func (p *Provider) resolveSubnets(ctx context.Context, nc *awsv1.EC2NodeClass) ([]awsv1.Subnet, error) {
	seen := map[string]ec2types.Subnet{}
	for _, term := range nc.Spec.SubnetSelectorTerms {
		fs := tagFilters(term.Tags)
		if term.ID != "" {
			fs = append(fs, filter("subnet-id", term.ID))
		}
		for pg := ec2.NewDescribeSubnetsPaginator(p.ec2, &ec2.DescribeSubnetsInput{Filters: fs, MaxResults: sdkaws.Int32(500)}); pg.HasMorePages(); {
			out, err := pg.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			for _, s := range out.Subnets {
				seen[sdkaws.ToString(s.SubnetId)] = s
			}
		}
	}
	list := make([]ec2types.Subnet, 0, len(seen))
	for _, s := range seen {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool {
		a, b := sdkaws.ToInt32(list[i].AvailableIpAddressCount), sdkaws.ToInt32(list[j].AvailableIpAddressCount)
		if a != b {
			return a > b
		}
		return sdkaws.ToString(list[i].SubnetId) < sdkaws.ToString(list[j].SubnetId)
	})
	out := make([]awsv1.Subnet, 0, len(list))
	for _, s := range list {
		out = append(out, awsv1.Subnet{ID: sdkaws.ToString(s.SubnetId), Zone: sdkaws.ToString(s.AvailabilityZone), ZoneID: sdkaws.ToString(s.AvailabilityZoneId)})
	}
	return out, nil
}

func (p *Provider) resolveSecurityGroups(ctx context.Context, nc *awsv1.EC2NodeClass) ([]awsv1.SecurityGroup, error) {
	seen := map[string]string{}
	for _, term := range nc.Spec.SecurityGroupSelectorTerms {
		fs := tagFilters(term.Tags)
		if term.ID != "" {
			fs = append(fs, filter("group-id", term.ID))
		}
		if term.Name != "" {
			fs = append(fs, filter("group-name", term.Name))
		}
		for pg := ec2.NewDescribeSecurityGroupsPaginator(p.ec2, &ec2.DescribeSecurityGroupsInput{Filters: fs, MaxResults: sdkaws.Int32(500)}); pg.HasMorePages(); {
			out, err := pg.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			for _, g := range out.SecurityGroups {
				seen[sdkaws.ToString(g.GroupId)] = sdkaws.ToString(g.GroupName)
			}
		}
	}
	out := make([]awsv1.SecurityGroup, 0, len(seen))
	for _, id := range sortedKeys(seen) {
		out = append(out, awsv1.SecurityGroup{ID: id, Name: seen[id]})
	}
	return out, nil
}

// amiQuery is one DescribeImages call with the requirement sets its images serve (one entry
// per variant; a single nil entry when the term says nothing of variants) and the term it
// serves ("[0].alias \"al2023@latest\"").
type amiQuery struct {
	in       *ec2.DescribeImagesInput
	variants [][]corev1.NodeSelectorRequirement
	term     string
}

// String says what the query looks for: owners, name pattern, image ID, tags.
func (q amiQuery) String() string {
	var parts []string
	if len(q.in.Owners) > 0 {
		parts = append(parts, "owner "+strings.Join(q.in.Owners, " or "))
	}
	for _, f := range q.in.Filters {
		name, values := sdkaws.ToString(f.Name), strings.Join(f.Values, " or ")
		switch {
		case name == "name":
			parts = append(parts, "name "+values)
		case name == "image-id":
			parts = append(parts, "ID "+values)
		case name == "tag-key":
			parts = append(parts, "tag "+values)
		case strings.HasPrefix(name, "tag:"):
			parts = append(parts, "tag "+strings.TrimPrefix(name, "tag:")+"="+values)
		}
	}
	return strings.Join(parts, ", ")
}

// noAMIError says that no image matched, and what each term looked for.
func noAMIError(qs []amiQuery) error {
	var tried []string
	for i, q := range qs {
		if i == 0 || q.term != qs[i-1].term {
			tried = append(tried, q.term+": "+q.String())
		} else {
			tried[len(tried)-1] += "; " + q.String()
		}
	}
	if len(tried) == 0 {
		return errors.New("no AMI matches (no term)")
	}
	return fmt.Errorf("no AMI matches (looked for %s)", strings.Join(tried, "; "))
}

func (p *Provider) amiQueries(ctx context.Context, nc *awsv1.EC2NodeClass) ([]amiQuery, error) {
	var qs []amiQuery
	for i, term := range nc.Spec.AMISelectorTerms {
		switch {
		case term.Alias != "":
			family, version, _ := strings.Cut(term.Alias, "@")
			family = strings.ToLower(family)
			if p.cfg.KubernetesVersion == "" {
				return nil, fmt.Errorf("[%d].alias: resolving an alias needs Config.KubernetesVersion", i)
			}
			if p.cfg.SSM == nil {
				if family != "al2023" {
					return nil, fmt.Errorf("[%d].alias %q: only al2023 aliases can be resolved without Config.SSM", i, term.Alias)
				}
				for _, q := range al2023NameQueries(p.cfg.KubernetesVersion, version) {
					q.term = fmt.Sprintf("[%d].alias %q", i, term.Alias)
					qs = append(qs, q)
				}
				continue
			}
			params, err := aliasParameters(family, version, p.cfg.KubernetesVersion)
			if err != nil {
				return nil, fmt.Errorf("[%d].alias %q: %v", i, term.Alias, err)
			}
			found := 0
			for _, param := range params {
				id, ok, err := p.ssmImageID(ctx, param.path)
				if err != nil {
					return nil, fmt.Errorf("[%d].alias %q: %w", i, term.Alias, err)
				}
				if ok {
					found++
					qs = append(qs, amiQuery{in: availableImages(filter("image-id", id)), variants: param.variants, term: fmt.Sprintf("[%d].alias %q", i, term.Alias)})
				}
			}
			if found == 0 {
				return nil, fmt.Errorf("[%d].alias %q: no SSM parameter of the alias exists (first: %s)", i, term.Alias, params[0].path)
			}
		case term.SSMParameter != "":
			if p.cfg.SSM == nil {
				return nil, fmt.Errorf("[%d].ssmParameter: reading SSM parameters needs Config.SSM", i)
			}
			id, ok, err := p.ssmImageID(ctx, term.SSMParameter)
			if err != nil {
				return nil, fmt.Errorf("[%d].ssmParameter: %w", i, err)
			}
			if !ok {
				return nil, fmt.Errorf("[%d].ssmParameter: parameter %s does not exist", i, term.SSMParameter)
			}
			qs = append(qs, amiQuery{in: availableImages(filter("image-id", id)), variants: [][]corev1.NodeSelectorRequirement{nil}, term: fmt.Sprintf("[%d].ssmParameter %s", i, term.SSMParameter)})
		default:
			in := availableImages(tagFilters(term.Tags)...)
			if term.ID != "" {
				in.Filters = append(in.Filters, filter("image-id", term.ID))
			}
			if term.Name != "" {
				in.Filters = append(in.Filters, filter("name", term.Name))
				if term.Owner == "" {
					in.Owners = []string{"self", "amazon"}
				}
			}
			if term.Owner != "" {
				in.Owners = []string{term.Owner}
			}
			qs = append(qs, amiQuery{in: in, variants: [][]corev1.NodeSelectorRequirement{nil}, term: fmt.Sprintf("[%d]", i)})
		}
	}
	return qs, nil
}

// al2023NameQueries find an al2023 alias's AMIs by their EKS name, for a provider without
// SSM: one query per architecture and variant ("latest" is the newest v* name).
func al2023NameQueries(k8s, version string) []amiQuery {
	if version == "latest" || version == "" {
		version = "v*"
	}
	var qs []amiQuery
	for _, param := range []struct {
		arch, variant string
		reqs          []corev1.NodeSelectorRequirement
	}{{"x86_64", "standard", variantStandard}, {"arm64", "standard", variantStandard}, {"x86_64", "nvidia", variantNvidia}, {"arm64", "nvidia", variantNvidia}, {"x86_64", "neuron", variantNeuron}} {
		name := fmt.Sprintf("amazon-eks-node-al2023-%s-%s-%s-%s", param.arch, param.variant, k8s, version)
		in := availableImages(filter("name", name))
		in.Owners = []string{"amazon"}
		qs = append(qs, amiQuery{in: in, variants: [][]corev1.NodeSelectorRequirement{param.reqs}})
	}
	return qs
}

func (p *Provider) resolveAMIs(ctx context.Context, nc *awsv1.EC2NodeClass) ([]awsv1.AMI, error) {
	qs, err := p.amiQueries(ctx, nc)
	if err != nil {
		return nil, err
	}
	type candidate struct {
		img  ec2types.Image
		reqs []corev1.NodeSelectorRequirement
		key  string // one image can serve several variants
	}
	best := map[string]candidate{} // requirement set -> chosen image
	now := p.now()
	deprecated := func(img ec2types.Image) bool {
		t, err := time.Parse(time.RFC3339, sdkaws.ToString(img.DeprecationTime))
		return err == nil && !t.After(now)
	}
	better := func(a, b ec2types.Image) bool {
		if da, db := deprecated(a), deprecated(b); da != db {
			return !da
		}
		if ca, cb := sdkaws.ToString(a.CreationDate), sdkaws.ToString(b.CreationDate); ca != cb {
			return ca > cb
		}
		return sdkaws.ToString(a.Name) < sdkaws.ToString(b.Name)
	}
	for _, q := range qs {
		q.in.IncludeDeprecated = sdkaws.Bool(true)
		q.in.MaxResults = sdkaws.Int32(1000)
		for pg := ec2.NewDescribeImagesPaginator(p.ec2, q.in); pg.HasMorePages(); {
			out, err := pg.NextPage(ctx)
			if err != nil {
				return nil, err
			}
			for _, img := range out.Images {
				arch := v1.ArchitectureAmd64
				if img.Architecture == ec2types.ArchitectureValuesArm64 {
					arch = v1.ArchitectureArm64
				}
				for _, variant := range q.variants {
					reqs := append([]corev1.NodeSelectorRequirement{{Key: v1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{arch}}}, variant...)
					key := fmt.Sprint(reqs)
					if cur, ok := best[key]; !ok || better(img, cur.img) {
						best[key] = candidate{img: img, reqs: reqs, key: key}
					}
				}
			}
		}
	}
	cands := make([]candidate, 0, len(best))
	for _, c := range best {
		cands = append(cands, c)
	}
	sort.Slice(cands, func(i, j int) bool {
		if better(cands[i].img, cands[j].img) || better(cands[j].img, cands[i].img) {
			return better(cands[i].img, cands[j].img)
		}
		return cands[i].key < cands[j].key
	})
	if len(cands) == 0 {
		return nil, noAMIError(qs)
	}
	out := make([]awsv1.AMI, 0, len(cands))
	for _, c := range cands {
		out = append(out, awsv1.AMI{ID: sdkaws.ToString(c.img.ImageId), Name: sdkaws.ToString(c.img.Name), Deprecated: deprecated(c.img), Requirements: c.reqs})
	}
	return out, nil
}
