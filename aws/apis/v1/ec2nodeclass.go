package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EC2NodeClass is karpenter.k8s.aws/v1 EC2NodeClass: how Karpenter launches EC2 instances for
// the NodePools that reference it (network, AMI, kubelet, storage, metadata).
type EC2NodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              EC2NodeClassSpec   `json:"spec"`
	Status            EC2NodeClassStatus `json:"status,omitzero"`
}

// EC2NodeClassList is a list of EC2NodeClasses (kind EC2NodeClassList).
type EC2NodeClassList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EC2NodeClass `json:"items"`
}

// EC2NodeClassSpec is the desired state of an EC2NodeClass.
type EC2NodeClassSpec struct {
	SubnetSelectorTerms              []SubnetSelectorTerm              `json:"subnetSelectorTerms"`
	SecurityGroupSelectorTerms       []SecurityGroupSelectorTerm       `json:"securityGroupSelectorTerms"`
	CapacityReservationSelectorTerms []CapacityReservationSelectorTerm `json:"capacityReservationSelectorTerms,omitempty"`
	PlacementGroupSelector           *PlacementGroupSelector           `json:"placementGroupSelector,omitempty"`
	AssociatePublicIPAddress         *bool                             `json:"associatePublicIPAddress,omitempty"`
	IPPrefixCount                    *int32                            `json:"ipPrefixCount,omitempty"`
	AMISelectorTerms                 []AMISelectorTerm                 `json:"amiSelectorTerms,omitempty"`
	// AMIFamily is required unless amiSelectorTerms holds an alias (see AMIFamily()).
	AMIFamily *string `json:"amiFamily,omitempty"`
	UserData  *string `json:"userData,omitempty"`
	// Role and InstanceProfile: exactly one is set.
	Role            string            `json:"role,omitempty"`
	InstanceProfile *string           `json:"instanceProfile,omitempty"`
	Tags            map[string]string `json:"tags,omitempty"`
	// Kubelet changes the nodes' kubelet configuration (and so their allocatable).
	Kubelet             *KubeletConfiguration `json:"kubelet,omitempty"`
	BlockDeviceMappings []*BlockDeviceMapping `json:"blockDeviceMappings,omitempty"`
	InstanceStorePolicy *InstanceStorePolicy  `json:"instanceStorePolicy,omitempty"`
	NetworkInterfaces   []*NetworkInterface   `json:"networkInterfaces,omitempty"`
	DetailedMonitoring  *bool                 `json:"detailedMonitoring,omitempty"`
	MetadataOptions     *MetadataOptions      `json:"metadataOptions,omitempty"`
	ConnectionTracking  *ConnectionTracking   `json:"connectionTracking,omitempty"`
	Context             *string               `json:"context,omitempty"`
	CPUOptions          *CPUOptions           `json:"cpuOptions,omitempty"`
}

// SubnetSelectorTerm selects subnets by tags or by ID.
type SubnetSelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty"`
	ID   string            `json:"id,omitempty"`
}

// SecurityGroupSelectorTerm selects security groups by tags, ID or name.
type SecurityGroupSelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty"`
	ID   string            `json:"id,omitempty"`
	Name string            `json:"name,omitempty"`
}

// CapacityReservationSelectorTerm selects capacity reservations.
type CapacityReservationSelectorTerm struct {
	Tags                  map[string]string `json:"tags,omitempty"`
	ID                    string            `json:"id,omitempty"`
	OwnerID               string            `json:"ownerID,omitempty"`
	InstanceMatchCriteria string            `json:"instanceMatchCriteria,omitempty"`
}

// PlacementGroupSelector selects one placement group by name or ID.
type PlacementGroupSelector struct {
	Name string `json:"name,omitempty"`
	ID   string `json:"id,omitempty"`
}

// AMISelectorTerm selects AMIs: an alias (family@version) alone, or by tags, ID, name, owner or
// SSM parameter.
type AMISelectorTerm struct {
	Alias        string            `json:"alias,omitempty"`
	Tags         map[string]string `json:"tags,omitempty"`
	ID           string            `json:"id,omitempty"`
	Name         string            `json:"name,omitempty"`
	Owner        string            `json:"owner,omitempty"`
	SSMParameter string            `json:"ssmParameter,omitempty"`
}

// KubeletConfiguration is the kubelet configuration Karpenter reads (the fields of the
// karpenter.k8s.aws/v1 CRD's kubelet schema). Any other key is an unknown field: newer
// Karpenter releases pass further upstream fields through on AL2023, but accepting unknown
// keys would let a misspelt maxPods silently change nothing.
type KubeletConfiguration struct {
	ClusterDNS                  []string                   `json:"clusterDNS,omitempty"`
	MaxPods                     *int32                     `json:"maxPods,omitempty"`
	PodsPerCore                 *int32                     `json:"podsPerCore,omitempty"`
	SystemReserved              map[string]string          `json:"systemReserved,omitempty"`
	KubeReserved                map[string]string          `json:"kubeReserved,omitempty"`
	EvictionHard                map[string]string          `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string          `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]metav1.Duration `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32                     `json:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int32                     `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32                     `json:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool                      `json:"cpuCFSQuota,omitempty"`
}

// BlockDeviceMapping is one EBS volume of the launch template.
type BlockDeviceMapping struct {
	DeviceName *string      `json:"deviceName,omitempty"`
	EBS        *BlockDevice `json:"ebs,omitempty"`
	// RootVolume marks the volume that holds the root filesystem (and ephemeral storage).
	RootVolume bool `json:"rootVolume,omitempty"`
}

// BlockDevice is an EBS volume's settings.
type BlockDevice struct {
	DeleteOnTermination      *bool              `json:"deleteOnTermination,omitempty"`
	Encrypted                *bool              `json:"encrypted,omitempty"`
	IOPS                     *int64             `json:"iops,omitempty"`
	KMSKeyID                 *string            `json:"kmsKeyID,omitempty"`
	SnapshotID               *string            `json:"snapshotID,omitempty"`
	Throughput               *int64             `json:"throughput,omitempty"`
	VolumeInitializationRate *int32             `json:"volumeInitializationRate,omitempty"`
	VolumeSize               *resource.Quantity `json:"volumeSize,omitempty"`
	VolumeType               *string            `json:"volumeType,omitempty"`
}

// InstanceStorePolicy says what to do with local instance-store disks.
type InstanceStorePolicy string

// InstanceStorePolicyRAID0 puts the local disks in a RAID0 array for ephemeral storage.
const InstanceStorePolicyRAID0 InstanceStorePolicy = "RAID0"

// NetworkInterface is one network interface of the launch.
type NetworkInterface struct {
	NetworkCardIndex int32  `json:"networkCardIndex"`
	DeviceIndex      int32  `json:"deviceIndex"`
	InterfaceType    string `json:"interfaceType"`
}

// MetadataOptions are the instance metadata service settings.
type MetadataOptions struct {
	HTTPEndpoint            *string `json:"httpEndpoint,omitempty"`
	HTTPProtocolIPv6        *string `json:"httpProtocolIPv6,omitempty"`
	HTTPPutResponseHopLimit *int64  `json:"httpPutResponseHopLimit,omitempty"`
	HTTPTokens              *string `json:"httpTokens,omitempty"`
}

// ConnectionTracking sets the instances' connection-tracking timeouts (seconds).
type ConnectionTracking struct {
	TCPEstablishedTimeout *int32 `json:"tcpEstablishedTimeout,omitempty"`
	UDPStreamTimeout      *int32 `json:"udpStreamTimeout,omitempty"`
	UDPTimeout            *int32 `json:"udpTimeout,omitempty"`
}

// CPUOptions are the instances' CPU options.
type CPUOptions struct {
	NestedVirtualization *string `json:"nestedVirtualization,omitempty"`
}

// EC2NodeClassStatus is what Karpenter resolved for the NodeClass.
type EC2NodeClassStatus struct {
	Subnets              []Subnet              `json:"subnets,omitempty"`
	SecurityGroups       []SecurityGroup       `json:"securityGroups,omitempty"`
	CapacityReservations []CapacityReservation `json:"capacityReservations,omitempty"`
	AMIs                 []AMI                 `json:"amis,omitempty"`
	InstanceProfile      string                `json:"instanceProfile,omitempty"`
	Conditions           []metav1.Condition    `json:"conditions,omitempty"`
}

// Subnet is a resolved subnet.
type Subnet struct {
	ID     string `json:"id"`
	Zone   string `json:"zone"`
	ZoneID string `json:"zoneID,omitempty"`
}

// SecurityGroup is a resolved security group.
type SecurityGroup struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// CapacityReservation is a resolved capacity reservation.
type CapacityReservation struct {
	AvailabilityZone      string       `json:"availabilityZone"`
	EndTime               *metav1.Time `json:"endTime,omitempty"`
	ID                    string       `json:"id"`
	InstanceMatchCriteria string       `json:"instanceMatchCriteria"`
	InstanceType          string       `json:"instanceType"`
	OwnerID               string       `json:"ownerID"`
	ReservationType       string       `json:"reservationType,omitempty"`
	Interruptible         bool         `json:"interruptible,omitempty"`
	State                 string       `json:"state,omitempty"`
}

// AMI is a resolved AMI and the instance requirements it serves.
type AMI struct {
	ID           string                           `json:"id"`
	Name         string                           `json:"name,omitempty"`
	Deprecated   bool                             `json:"deprecated,omitempty"`
	Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
}

// AMI families (spec.amiFamily) and aliases.
const (
	AMIFamilyAL2          = "AL2"
	AMIFamilyAL2023       = "AL2023"
	AMIFamilyBottlerocket = "Bottlerocket"
	AMIFamilyCustom       = "Custom"
	AMIFamilyWindows2019  = "Windows2019"
	AMIFamilyWindows2022  = "Windows2022"
	AMIFamilyWindows2025  = "Windows2025"
)

// AMIFamilies are the values spec.amiFamily accepts.
var AMIFamilies = []string{AMIFamilyAL2, AMIFamilyAL2023, AMIFamilyBottlerocket, AMIFamilyCustom,
	AMIFamilyWindows2019, AMIFamilyWindows2022, AMIFamilyWindows2025}

// Condition types of the NodeClass status.
const ConditionTypeReady = "Ready"
