package aws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

// launchTemplates remembers the templates known to exist, by name, and the creations in
// flight, so that concurrent launches needing a new template make one DescribeLaunchTemplates
// and one CreateLaunchTemplate for it, not one each (EC2 rate-limits both).
type launchTemplates struct {
	mu       sync.Mutex
	known    map[string]bool
	inFlight map[string]*templateCall
}

// templateCall is one creation in flight; done closes when err is set.
type templateCall struct {
	done chan struct{}
	err  error
}

func newLaunchTemplates() *launchTemplates {
	return &launchTemplates{known: map[string]bool{}, inFlight: map[string]*templateCall{}}
}

// forget drops a template EC2 no longer has, so the next launch creates it again.
func (l *launchTemplates) forget(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.known, name)
}

// ensure makes sure the template name exists: at once when it is known, else by running
// create, or by waiting for the call already running it. A waiter shares that call's error,
// except when the call ended with its own caller's context: then the waiter tries itself.
func (l *launchTemplates) ensure(ctx context.Context, name string, create func(context.Context) error) error {
	for {
		l.mu.Lock()
		if l.known[name] {
			l.mu.Unlock()
			return nil
		}
		if c, ok := l.inFlight[name]; ok {
			l.mu.Unlock()
			select {
			case <-c.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			if c.err == nil || !errors.Is(c.err, context.Canceled) && !errors.Is(c.err, context.DeadlineExceeded) {
				return c.err
			}
			continue
		}
		c := &templateCall{done: make(chan struct{})}
		l.inFlight[name] = c
		l.mu.Unlock()

		err := create(ctx)
		l.mu.Lock()
		delete(l.inFlight, name)
		if err == nil {
			l.known[name] = true
		}
		c.err = err
		close(c.done)
		l.mu.Unlock()
		return err
	}
}

// launchTemplateName is karpenter.k8s.aws/<hash of the template data>, so identical
// options share one template and any change makes a new one.
func launchTemplateName(data *ec2types.RequestLaunchTemplateData) string {
	b, _ := json.Marshal(data) // SDK structs marshal deterministically (fields in order)
	h := fnv.New64a()
	_, _ = h.Write(b)
	return fmt.Sprintf("karpenter.k8s.aws/%016x", h.Sum64())
}

// templateData builds the launch template data for one AMI, user data and reservation ("":
// open reservations are not consumed, so on-demand and spot stay what they are).
func (p *Provider) templateData(nc *awsv1.EC2NodeClass, ami, userData, reservation string) *ec2types.RequestLaunchTemplateData {
	var groups []string
	for _, sg := range nc.Status.SecurityGroups {
		groups = append(groups, sg.ID)
	}
	sort.Strings(groups)
	// The security groups go on the first network interface, never at the top level
	// (SecurityGroupIds): EC2 refuses both at once, and Karpenter's rule ("top level unless
	// network interfaces are set") always sets one since v1.1.0 (aws/karpenter-provider-aws
	// 317f5510a), with the groups, public IP choice and IPv6 options on it.
	d := &ec2types.RequestLaunchTemplateData{
		ImageId:  sdkaws.String(ami),
		UserData: sdkaws.String(userData),
		NetworkInterfaces: []ec2types.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest{{
			DeviceIndex: sdkaws.Int32(0), Groups: groups, AssociatePublicIpAddress: nc.Spec.AssociatePublicIPAddress,
		}},
		Monitoring: &ec2types.LaunchTemplatesMonitoringRequest{Enabled: sdkaws.Bool(sdkaws.ToBool(nc.Spec.DetailedMonitoring))},
		CapacityReservationSpecification: &ec2types.LaunchTemplateCapacityReservationSpecificationRequest{
			CapacityReservationPreference: ec2types.CapacityReservationPreferenceNone,
		},
	}
	if reservation != "" {
		d.CapacityReservationSpecification = &ec2types.LaunchTemplateCapacityReservationSpecificationRequest{
			CapacityReservationTarget: &ec2types.CapacityReservationTarget{CapacityReservationId: sdkaws.String(reservation)},
		}
	}
	if nc.Status.InstanceProfile != "" {
		d.IamInstanceProfile = &ec2types.LaunchTemplateIamInstanceProfileSpecificationRequest{Name: sdkaws.String(nc.Status.InstanceProfile)}
	}
	m := nc.DeepCopy()
	m.SetDefaults()
	md := m.Spec.MetadataOptions
	d.MetadataOptions = &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{
		HttpEndpoint:            ec2types.LaunchTemplateInstanceMetadataEndpointState(sdkaws.ToString(md.HTTPEndpoint)),
		HttpProtocolIpv6:        ec2types.LaunchTemplateInstanceMetadataProtocolIpv6(sdkaws.ToString(md.HTTPProtocolIPv6)),
		HttpPutResponseHopLimit: sdkaws.Int32(int32(sdkaws.ToInt64(md.HTTPPutResponseHopLimit))),
		HttpTokens:              ec2types.LaunchTemplateHttpTokensState(sdkaws.ToString(md.HTTPTokens)),
		InstanceMetadataTags:    ec2types.LaunchTemplateInstanceMetadataTagsStateDisabled,
	}
	bdms := nc.Spec.BlockDeviceMappings
	if len(bdms) == 0 {
		bdms = []*awsv1.BlockDeviceMapping{defaultBlockDevice()}
	}
	for _, b := range bdms {
		if b == nil {
			continue
		}
		r := ec2types.LaunchTemplateBlockDeviceMappingRequest{DeviceName: b.DeviceName}
		if e := b.EBS; e != nil {
			r.Ebs = &ec2types.LaunchTemplateEbsBlockDeviceRequest{
				DeleteOnTermination: e.DeleteOnTermination, Encrypted: e.Encrypted, KmsKeyId: e.KMSKeyID,
				SnapshotId: e.SnapshotID, VolumeType: ec2types.VolumeType(sdkaws.ToString(e.VolumeType)),
			}
			if e.IOPS != nil {
				r.Ebs.Iops = sdkaws.Int32(int32(*e.IOPS))
			}
			if e.Throughput != nil {
				r.Ebs.Throughput = sdkaws.Int32(int32(*e.Throughput))
			}
			if e.VolumeSize != nil {
				gib := (e.VolumeSize.Value() + (1<<30 - 1)) >> 30 // rounded up to whole GiB
				r.Ebs.VolumeSize = sdkaws.Int32(int32(gib))
			}
		}
		d.BlockDeviceMappings = append(d.BlockDeviceMappings, r)
	}
	return d
}

// defaultBlockDevice is AL2023's root volume: 20 GiB gp3, encrypted.
func defaultBlockDevice() *awsv1.BlockDeviceMapping {
	size := gibQuantity(20)
	return &awsv1.BlockDeviceMapping{DeviceName: sdkaws.String("/dev/xvda"), RootVolume: true, EBS: &awsv1.BlockDevice{
		VolumeSize: &size, VolumeType: sdkaws.String("gp3"), Encrypted: sdkaws.Bool(true), DeleteOnTermination: sdkaws.Bool(true),
	}}
}

// ensureTemplate returns the name of a launch template with data, creating it when EC2 does
// not have it; one creation per name is in flight at a time. Errors never include the
// template data (it holds user data).
func (p *Provider) ensureTemplate(ctx context.Context, nc *awsv1.EC2NodeClass, data *ec2types.RequestLaunchTemplateData) (string, error) {
	name := launchTemplateName(data)
	return name, p.templates.ensure(ctx, name, func(ctx context.Context) error { return p.createTemplate(ctx, nc, name, data) })
}

// createTemplate creates the template unless EC2 already has it.
func (p *Provider) createTemplate(ctx context.Context, nc *awsv1.EC2NodeClass, name string, data *ec2types.RequestLaunchTemplateData) error {
	_, err := p.ec2.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: []string{name}})
	if err == nil {
		return nil
	}
	if !isAPIError(err, "InvalidLaunchTemplateName.NotFoundException") {
		return fmt.Errorf("describing launch template %s: %w", name, err)
	}
	tags := []ec2types.Tag{
		{Key: sdkaws.String(TagClusterName), Value: sdkaws.String(p.cluster)},
		{Key: sdkaws.String(clusterTag(p.cluster)), Value: sdkaws.String("owned")},
		{Key: sdkaws.String(LabelNodeClass), Value: sdkaws.String(nc.Name)},
	}
	_, err = p.ec2.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: sdkaws.String(name), LaunchTemplateData: data,
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeLaunchTemplate, Tags: tags}},
	})
	if err != nil && !isAPIError(err, "InvalidLaunchTemplateName.AlreadyExistsException") {
		return fmt.Errorf("creating launch template %s: %w", name, err)
	}
	return nil
}
