// Package v1beta1 reads Karpenter's karpenter.k8s.aws/v1beta1 EC2NodeClass (served until
// Karpenter 1.1) and converts it to karpenter.k8s.aws/v1 as Karpenter 1.0's conversion webhook
// did. The types are field for field the v1beta1 CRD's, so strict decoding rejects unknown
// fields. Pure functions only: no cluster, no AWS, no clock.
package v1beta1

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

// APIVersion is karpenter.k8s.aws/v1beta1.
const APIVersion = awsv1.Group + "/v1beta1"

// SchemeGroupVersion is karpenter.k8s.aws/v1beta1.
var SchemeGroupVersion = schema.GroupVersion{Group: awsv1.Group, Version: "v1beta1"}

// AddToScheme registers EC2NodeClass under karpenter.k8s.aws/v1beta1.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &EC2NodeClass{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}

// EC2NodeClass is karpenter.k8s.aws/v1beta1 EC2NodeClass.
type EC2NodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              EC2NodeClassSpec   `json:"spec"`
	Status            EC2NodeClassStatus `json:"status,omitzero"`
}

// EC2NodeClassSpec is the v1beta1 spec; kubelet settings lived on the NodePool then.
type EC2NodeClassSpec struct {
	SubnetSelectorTerms        []awsv1.SubnetSelectorTerm        `json:"subnetSelectorTerms"`
	SecurityGroupSelectorTerms []awsv1.SecurityGroupSelectorTerm `json:"securityGroupSelectorTerms"`
	AssociatePublicIPAddress   *bool                             `json:"associatePublicIPAddress,omitempty"`
	AMISelectorTerms           []AMISelectorTerm                 `json:"amiSelectorTerms,omitempty"`
	AMIFamily                  *string                           `json:"amiFamily,omitempty"`
	UserData                   *string                           `json:"userData,omitempty"`
	Role                       string                            `json:"role,omitempty"`
	InstanceProfile            *string                           `json:"instanceProfile,omitempty"`
	Tags                       map[string]string                 `json:"tags,omitempty"`
	BlockDeviceMappings        []*BlockDeviceMapping             `json:"blockDeviceMappings,omitempty"`
	InstanceStorePolicy        *awsv1.InstanceStorePolicy        `json:"instanceStorePolicy,omitempty"`
	DetailedMonitoring         *bool                             `json:"detailedMonitoring,omitempty"`
	MetadataOptions            *awsv1.MetadataOptions            `json:"metadataOptions,omitempty"`
	Context                    *string                           `json:"context,omitempty"`
}

// AMISelectorTerm is a v1beta1 AMI selector term (no alias, no SSM parameter).
type AMISelectorTerm struct {
	Tags  map[string]string `json:"tags,omitempty"`
	ID    string            `json:"id,omitempty"`
	Name  string            `json:"name,omitempty"`
	Owner string            `json:"owner,omitempty"`
}

// BlockDeviceMapping is a v1beta1 block device mapping.
type BlockDeviceMapping struct {
	DeviceName *string      `json:"deviceName,omitempty"`
	EBS        *BlockDevice `json:"ebs,omitempty"`
	RootVolume bool         `json:"rootVolume,omitempty"`
}

// BlockDevice is a v1beta1 EBS volume (no volumeInitializationRate).
type BlockDevice struct {
	DeleteOnTermination *bool              `json:"deleteOnTermination,omitempty"`
	Encrypted           *bool              `json:"encrypted,omitempty"`
	IOPS                *int64             `json:"iops,omitempty"`
	KMSKeyID            *string            `json:"kmsKeyID,omitempty"`
	SnapshotID          *string            `json:"snapshotID,omitempty"`
	Throughput          *int64             `json:"throughput,omitempty"`
	VolumeSize          *resource.Quantity `json:"volumeSize,omitempty"`
	VolumeType          *string            `json:"volumeType,omitempty"`
}

// EC2NodeClassStatus is the v1beta1 status.
type EC2NodeClassStatus struct {
	Subnets         []awsv1.Subnet        `json:"subnets,omitempty"`
	SecurityGroups  []awsv1.SecurityGroup `json:"securityGroups,omitempty"`
	AMIs            []AMI                 `json:"amis,omitempty"`
	InstanceProfile string                `json:"instanceProfile,omitempty"`
	Conditions      []metav1.Condition    `json:"conditions,omitempty"`
}

// AMI is a v1beta1 resolved AMI.
type AMI struct {
	ID           string                           `json:"id"`
	Name         string                           `json:"name,omitempty"`
	Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
}

// DeepCopyObject implements runtime.Object. The scheme machinery is its only caller, so a
// JSON round trip (which cannot share memory) is enough.
func (in *EC2NodeClass) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		panic(fmt.Sprintf("v1beta1.EC2NodeClass cannot be marshalled: %v", err))
	}
	out := &EC2NodeClass{}
	if err := json.Unmarshal(b, out); err != nil {
		panic(fmt.Sprintf("v1beta1.EC2NodeClass cannot be unmarshalled: %v", err))
	}
	return out
}

// Ubuntu is the v1beta1 family v1 dropped.
const Ubuntu = "Ubuntu"

// UbuntuCompatibilityAnnotationKey records what the conversion changed for an Ubuntu
// NodeClass; the value "incompatible" in it means Karpenter will not provision with it.
const UbuntuCompatibilityAnnotationKey = "compatibility." + awsv1.Group + "/v1beta1-ubuntu"

// UbuntuIncompatible is the part of UbuntuCompatibilityAnnotationKey's value that marks a
// NodeClass Karpenter 1.0 refuses to provision with (Ubuntu without amiSelectorTerms).
const UbuntuIncompatible = "incompatible"

// Convert returns the karpenter.k8s.aws/v1 EC2NodeClass Karpenter 1.0's conversion webhook
// made of this object, and one note per change that a user moving the manifest to v1 must
// make by hand (the fields that differ). The result shares no memory with in.
//
// The rules: an AL2, AL2023, Bottlerocket, Windows2019 or Windows2022 family without
// amiSelectorTerms becomes amiSelectorTerms [{alias: <family>@latest}] without amiFamily (with
// terms, both are kept); Ubuntu becomes AL2 with a 20Gi gp3 root volume on /dev/sda1 when no
// blockDeviceMappings are given, and without amiSelectorTerms it is marked incompatible
// (Karpenter then ignores the NodeClass and its NodePools); Custom stays Custom. Every other
// field carries over unchanged.
func (in *EC2NodeClass) Convert() (*awsv1.EC2NodeClass, []string) {
	out := &awsv1.EC2NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: awsv1.APIVersion, Kind: awsv1.KindEC2NodeClass},
		ObjectMeta: in.ObjectMeta,
	}
	s := &in.Spec
	var notes []string
	family := ""
	if s.AMIFamily != nil {
		family = *s.AMIFamily
	}
	o := &out.Spec
	for _, t := range s.AMISelectorTerms {
		o.AMISelectorTerms = append(o.AMISelectorTerms, awsv1.AMISelectorTerm{Tags: t.Tags, ID: t.ID, Name: t.Name, Owner: t.Owner})
	}
	for _, b := range s.BlockDeviceMappings {
		if b == nil {
			o.BlockDeviceMappings = append(o.BlockDeviceMappings, nil)
			continue
		}
		m := &awsv1.BlockDeviceMapping{DeviceName: b.DeviceName, RootVolume: b.RootVolume}
		if e := b.EBS; e != nil {
			m.EBS = &awsv1.BlockDevice{DeleteOnTermination: e.DeleteOnTermination, Encrypted: e.Encrypted, IOPS: e.IOPS,
				KMSKeyID: e.KMSKeyID, SnapshotID: e.SnapshotID, Throughput: e.Throughput, VolumeSize: e.VolumeSize, VolumeType: e.VolumeType}
		}
		o.BlockDeviceMappings = append(o.BlockDeviceMappings, m)
	}
	switch family {
	case awsv1.AMIFamilyAL2, awsv1.AMIFamilyAL2023, awsv1.AMIFamilyBottlerocket, awsv1.AMIFamilyWindows2019, awsv1.AMIFamilyWindows2022:
		if len(s.AMISelectorTerms) == 0 {
			alias := strings.ToLower(family) + "@latest"
			o.AMISelectorTerms = []awsv1.AMISelectorTerm{{Alias: alias}}
			notes = append(notes, fmt.Sprintf("replace spec.amiFamily %s by spec.amiSelectorTerms [{alias: %s}]", family, alias))
		} else {
			o.AMIFamily = ptr(family)
		}
	case Ubuntu:
		o.AMIFamily = ptr(awsv1.AMIFamilyAL2)
		changes := []string{"amiFamily"}
		notes = append(notes, "Ubuntu is no longer a family: set spec.amiFamily AL2 (same user data) and keep amiSelectorTerms that find Ubuntu AMIs")
		if s.BlockDeviceMappings == nil {
			changes = append(changes, "blockDeviceMappings")
			o.BlockDeviceMappings = []*awsv1.BlockDeviceMapping{{DeviceName: ptr("/dev/sda1"), RootVolume: true,
				EBS: &awsv1.BlockDevice{Encrypted: ptr(true), VolumeType: ptr("gp3"), VolumeSize: ptr(resource.MustParse("20Gi"))}}}
			notes = append(notes, "add Ubuntu's root volume: spec.blockDeviceMappings [{deviceName: /dev/sda1, rootVolume: true, ebs: {encrypted: true, volumeType: gp3, volumeSize: 20Gi}}]")
		}
		if len(s.AMISelectorTerms) == 0 {
			changes = append(changes, UbuntuIncompatible)
			o.AMISelectorTerms = []awsv1.AMISelectorTerm{{ID: "ami-placeholder"}}
			notes = append(notes, "add spec.amiSelectorTerms that select Ubuntu AMIs: without them Karpenter 1.0 marks the NodeClass not ready and ignores its NodePools")
		}
		out.Annotations = withAnnotation(out.Annotations, UbuntuCompatibilityAnnotationKey, strings.Join(changes, ","))
	default:
		o.AMIFamily = ptr(awsv1.AMIFamilyCustom)
	}
	o.SubnetSelectorTerms = s.SubnetSelectorTerms
	o.SecurityGroupSelectorTerms = s.SecurityGroupSelectorTerms
	o.AssociatePublicIPAddress = s.AssociatePublicIPAddress
	o.UserData = s.UserData
	o.Role = s.Role
	o.InstanceProfile = s.InstanceProfile
	o.Tags = s.Tags
	o.InstanceStorePolicy = s.InstanceStorePolicy
	o.DetailedMonitoring = s.DetailedMonitoring
	o.MetadataOptions = s.MetadataOptions
	o.Context = s.Context

	st := &out.Status
	st.Subnets, st.SecurityGroups = in.Status.Subnets, in.Status.SecurityGroups
	for _, a := range in.Status.AMIs {
		st.AMIs = append(st.AMIs, awsv1.AMI{ID: a.ID, Name: a.Name, Requirements: a.Requirements})
	}
	st.InstanceProfile, st.Conditions = in.Status.InstanceProfile, in.Status.Conditions
	return out.DeepCopy(), notes
}

// Incompatible reports whether a converted NodeClass is one Karpenter 1.0 will not provision
// with (an Ubuntu NodeClass that had no amiSelectorTerms).
func Incompatible(nc *awsv1.EC2NodeClass) bool {
	v, ok := nc.Annotations[UbuntuCompatibilityAnnotationKey]
	if !ok {
		return false
	}
	for _, part := range strings.Split(v, ",") {
		if part == UbuntuIncompatible {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }

func withAnnotation(m map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for key, val := range m {
		out[key] = val
	}
	out[k] = v
	return out
}
