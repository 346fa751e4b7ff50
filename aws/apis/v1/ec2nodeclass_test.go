package v1

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	karpv1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/internal/deepcopytest"
	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
)

var stamp = metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))

// fullNodeClass sets every field of every type of this package; TestFixtureSetsEveryField
// keeps it that way when fields are added.
func fullNodeClass() *EC2NodeClass {
	return &EC2NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersion, Kind: KindEC2NodeClass},
		ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{"a": "b"}},
		Spec: EC2NodeClassSpec{
			SubnetSelectorTerms:              []SubnetSelectorTerm{{Tags: map[string]string{"k": "v"}, ID: "subnet-1"}},
			SecurityGroupSelectorTerms:       []SecurityGroupSelectorTerm{{Tags: map[string]string{"k": "v"}, ID: "sg-1", Name: "n"}},
			CapacityReservationSelectorTerms: []CapacityReservationSelectorTerm{{Tags: map[string]string{"k": "v"}, ID: "cr-1", OwnerID: "123456789012", InstanceMatchCriteria: "open"}},
			PlacementGroupSelector:           &PlacementGroupSelector{Name: "pg", ID: "pg-1"},
			AssociatePublicIPAddress:         ptr(true),
			IPPrefixCount:                    ptr[int32](1),
			AMISelectorTerms:                 []AMISelectorTerm{{Alias: "al2023@latest", Tags: map[string]string{"k": "v"}, ID: "ami-1", Name: "n", Owner: "self", SSMParameter: "/p"}},
			AMIFamily:                        ptr("AL2023"),
			UserData:                         ptr("#!/bin/sh"),
			Role:                             "role",
			InstanceProfile:                  ptr("profile"),
			Tags:                             map[string]string{"team": "a"},
			Kubelet: &KubeletConfiguration{
				ClusterDNS: []string{"10.0.0.10"}, MaxPods: ptr[int32](8), PodsPerCore: ptr[int32](2),
				SystemReserved: map[string]string{"cpu": "100m"}, KubeReserved: map[string]string{"memory": "1Gi"},
				EvictionHard: map[string]string{"memory.available": "5%"}, EvictionSoft: map[string]string{"memory.available": "10%"},
				EvictionSoftGracePeriod:   map[string]metav1.Duration{"memory.available": {Duration: time.Minute}},
				EvictionMaxPodGracePeriod: ptr[int32](30), ImageGCHighThresholdPercent: ptr[int32](85),
				ImageGCLowThresholdPercent: ptr[int32](80), CPUCFSQuota: ptr(true),
			},
			BlockDeviceMappings: []*BlockDeviceMapping{{DeviceName: ptr("/dev/xvda"), RootVolume: true, EBS: &BlockDevice{
				DeleteOnTermination: ptr(true), Encrypted: ptr(true), IOPS: ptr[int64](3000), KMSKeyID: ptr("k"), SnapshotID: ptr("snap-1"),
				Throughput: ptr[int64](125), VolumeInitializationRate: ptr[int32](100), VolumeSize: ptr(resource.MustParse("100Gi")), VolumeType: ptr("gp3")}}},
			InstanceStorePolicy: ptr(InstanceStorePolicyRAID0),
			NetworkInterfaces:   []*NetworkInterface{{NetworkCardIndex: 1, DeviceIndex: 1, InterfaceType: "efa-only"}},
			DetailedMonitoring:  ptr(true),
			MetadataOptions:     &MetadataOptions{HTTPEndpoint: ptr("enabled"), HTTPProtocolIPv6: ptr("disabled"), HTTPPutResponseHopLimit: ptr[int64](2), HTTPTokens: ptr("required")},
			ConnectionTracking:  &ConnectionTracking{TCPEstablishedTimeout: ptr[int32](60), UDPStreamTimeout: ptr[int32](60), UDPTimeout: ptr[int32](30)},
			Context:             ptr("ctx"),
			CPUOptions:          &CPUOptions{NestedVirtualization: ptr("enabled")},
		},
		Status: EC2NodeClassStatus{
			Subnets:              []Subnet{{ID: "subnet-1", Zone: "us-east-1a", ZoneID: "use1-az1"}},
			SecurityGroups:       []SecurityGroup{{ID: "sg-1", Name: "n"}},
			CapacityReservations: []CapacityReservation{{AvailabilityZone: "us-east-1a", EndTime: &stamp, ID: "cr-1", InstanceMatchCriteria: "open", InstanceType: "m5.large", OwnerID: "123456789012", ReservationType: "default", Interruptible: true, State: "active"}},
			AMIs:                 []AMI{{ID: "ami-1", Name: "n", Deprecated: true, Requirements: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}}}},
			InstanceProfile:      "profile",
			Conditions:           []metav1.Condition{{Type: ConditionTypeReady, Status: metav1.ConditionTrue, LastTransitionTime: stamp, Reason: "Ready"}},
		},
	}
}

// validNodeClass is the smallest EC2NodeClass the CRD accepts.
func validNodeClass() *EC2NodeClass {
	return &EC2NodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: EC2NodeClassSpec{
			Role:                       "KarpenterNodeRole",
			AMISelectorTerms:           []AMISelectorTerm{{Alias: "al2023@latest"}},
			SubnetSelectorTerms:        []SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "c"}}},
			SecurityGroupSelectorTerms: []SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "c"}}},
		},
	}
}

func TestFixtureSetsEveryField(t *testing.T) {
	deepcopytest.AssertAllSet(t, reflect.ValueOf(fullNodeClass()), reflect.TypeOf(EC2NodeClass{}).PkgPath(), "EC2NodeClass")
}

func TestDeepCopy(t *testing.T) {
	for _, obj := range []any{fullNodeClass(), &EC2NodeClassList{Items: []EC2NodeClass{*fullNodeClass()}}} {
		var c any
		switch o := obj.(type) {
		case *EC2NodeClass:
			c = o.DeepCopyObject()
		case *EC2NodeClassList:
			c = o.DeepCopyObject()
		}
		assert.Empty(t, cmp.Diff(obj, c))
		deepcopytest.AssertNoSharedMemory(t, reflect.ValueOf(obj), reflect.ValueOf(c), "copy")
	}
	assert.Nil(t, (*EC2NodeClass)(nil).DeepCopy())
	assert.Nil(t, (*KubeletConfiguration)(nil).DeepCopy())
}

func TestJSONRoundTrip(t *testing.T) {
	nc := fullNodeClass()
	b, err := json.Marshal(nc)
	require.NoError(t, err)
	got := &EC2NodeClass{}
	require.NoError(t, json.Unmarshal(b, got))
	assert.Empty(t, cmp.Diff(nc, got))
	for _, name := range []string{`"amiSelectorTerms"`, `"kubelet"`, `"maxPods":8`, `"volumeSize":"100Gi"`, `"httpPutResponseHopLimit":2`, `"ownerID"`} {
		assert.Contains(t, string(b), name)
	}
}

func TestSetDefaults(t *testing.T) {
	nc := validNodeClass()
	nc.Status.CapacityReservations = []CapacityReservation{{ID: "cr-1"}}
	nc.SetDefaults()
	assert.Equal(t, &MetadataOptions{HTTPEndpoint: ptr("enabled"), HTTPProtocolIPv6: ptr("disabled"), HTTPPutResponseHopLimit: ptr[int64](1), HTTPTokens: ptr("required")}, nc.Spec.MetadataOptions)
	assert.Equal(t, "default", nc.Status.CapacityReservations[0].ReservationType)
	assert.Equal(t, "active", nc.Status.CapacityReservations[0].State)

	nc = validNodeClass()
	nc.Spec.MetadataOptions = &MetadataOptions{HTTPTokens: ptr("optional")}
	nc.SetDefaults()
	assert.Equal(t, "optional", *nc.Spec.MetadataOptions.HTTPTokens, "set fields stay")
	assert.Equal(t, "enabled", *nc.Spec.MetadataOptions.HTTPEndpoint)
	require.NoError(t, nc.Validate())
}

func TestAMIFamily(t *testing.T) {
	for _, c := range []struct {
		family *string
		terms  []AMISelectorTerm
		want   string
	}{
		{nil, []AMISelectorTerm{{Alias: "al2023@latest"}}, "AL2023"},
		{nil, []AMISelectorTerm{{Alias: "bottlerocket@v1.20.0"}}, "Bottlerocket"},
		{nil, []AMISelectorTerm{{Alias: "windows2022@latest"}}, "Windows2022"},
		{ptr("Custom"), []AMISelectorTerm{{Alias: "al2@latest"}}, "Custom"},
		{ptr("AL2"), []AMISelectorTerm{{ID: "ami-1"}}, "AL2"},
		{nil, []AMISelectorTerm{{ID: "ami-1"}}, "Custom"},
	} {
		nc := validNodeClass()
		nc.Spec.AMIFamily, nc.Spec.AMISelectorTerms = c.family, c.terms
		assert.Equal(t, c.want, nc.AMIFamily(), "%+v", c)
	}
}

// fieldsOf are the field paths of a Validate error, in order.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var ve *karpv1.ValidationError
	require.True(t, errors.As(err, &ve), "%v", err)
	assert.Equal(t, KindEC2NodeClass, ve.Kind)
	var out []string
	for _, fe := range ve.Errs {
		out = append(out, fe.Field)
	}
	return out
}

func TestValidate(t *testing.T) {
	require.NoError(t, validNodeClass().Validate())
	full := fullNodeClass()
	full.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-1"}}
	full.Spec.InstanceProfile = nil
	full.Spec.PlacementGroupSelector.Name = ""
	full.Spec.SubnetSelectorTerms[0].Tags = nil
	full.Spec.SecurityGroupSelectorTerms[0] = SecurityGroupSelectorTerm{ID: "sg-1"}
	full.Spec.CapacityReservationSelectorTerms[0] = CapacityReservationSelectorTerm{ID: "cr-1"}
	full.Spec.NetworkInterfaces = []*NetworkInterface{{InterfaceType: "interface"}}
	require.NoError(t, full.Validate(), "the full fixture with one choice per exclusive field is valid")

	for _, c := range []struct {
		name   string
		mutate func(*EC2NodeClass)
		fields []string
		msg    string
	}{
		{"no subnets", func(n *EC2NodeClass) { n.Spec.SubnetSelectorTerms = nil }, []string{"spec.subnetSelectorTerms"}, "Required value"},
		{"empty subnet term", func(n *EC2NodeClass) { n.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{}} }, []string{"spec.subnetSelectorTerms[0]"}, "expected at least one"},
		{"subnet id with tags", func(n *EC2NodeClass) {
			n.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{ID: "subnet-1", Tags: map[string]string{"a": "b"}}}
		}, []string{"spec.subnetSelectorTerms[0]"}, "'id' is mutually exclusive"},
		{"bad subnet id", func(n *EC2NodeClass) { n.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{ID: "sn-1"}} }, []string{"spec.subnetSelectorTerms[0].id"}, "subnet-"},
		{"empty tag value", func(n *EC2NodeClass) { n.Spec.SubnetSelectorTerms[0].Tags["k"] = "" }, []string{"spec.subnetSelectorTerms[0].tags[k]"}, "empty tag"},
		{"no security groups", func(n *EC2NodeClass) { n.Spec.SecurityGroupSelectorTerms = nil }, []string{"spec.securityGroupSelectorTerms"}, "Required"},
		{"no AMI terms", func(n *EC2NodeClass) { n.Spec.AMISelectorTerms = nil }, []string{"spec.amiSelectorTerms"}, "Required"},
		{"no family without alias", func(n *EC2NodeClass) { n.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-1"}} }, []string{"spec.amiFamily"}, "must specify amiFamily"},
		{"unknown family", func(n *EC2NodeClass) { n.Spec.AMIFamily = ptr("Ubuntu") }, []string{"spec.amiFamily"}, "Unsupported value"},
		{"family against alias", func(n *EC2NodeClass) { n.Spec.AMIFamily = ptr("Bottlerocket") }, []string{"spec.amiFamily"}, "match the alias"},
		{"alias with another term", func(n *EC2NodeClass) {
			n.Spec.AMISelectorTerms = append(n.Spec.AMISelectorTerms, AMISelectorTerm{ID: "ami-1"})
		}, []string{"spec.amiSelectorTerms[0]"}, "other amiSelectorTerms"},
		{"alias with a field", func(n *EC2NodeClass) { n.Spec.AMISelectorTerms[0].Name = "x" }, []string{"spec.amiSelectorTerms[0]"}, "'alias' is mutually exclusive"},
		{"bad alias", func(n *EC2NodeClass) { n.Spec.AMISelectorTerms[0].Alias = "ubuntu@latest" }, []string{"spec.amiSelectorTerms[0].alias"}, "family is not supported"},
		{"windows pinned", func(n *EC2NodeClass) { n.Spec.AMISelectorTerms[0].Alias = "windows2022@v1" }, []string{"spec.amiSelectorTerms[0].alias"}, "only specify version 'latest'"},
		{"role and profile", func(n *EC2NodeClass) { n.Spec.InstanceProfile = ptr("p") }, []string{"spec"}, "exactly one of ['role', 'instanceProfile']"},
		{"neither role nor profile", func(n *EC2NodeClass) { n.Spec.Role = "" }, []string{"spec"}, "exactly one"},
		{"restricted tag", func(n *EC2NodeClass) { n.Spec.Tags = map[string]string{"karpenter.sh/nodepool": "x"} }, []string{"spec.tags[karpenter.sh/nodepool]"}, "restricted"},
		{"kubelet values", func(n *EC2NodeClass) {
			n.Spec.Kubelet = &KubeletConfiguration{MaxPods: ptr[int32](-1), KubeReserved: map[string]string{"gpu": "1", "cpu": "lots"},
				EvictionHard:                map[string]string{"memory.available": "120%", "disk.available": "1Gi"},
				ImageGCHighThresholdPercent: ptr[int32](50), ImageGCLowThresholdPercent: ptr[int32](60)}
		}, []string{"spec.kubelet.maxPods", "spec.kubelet.imageGCHighThresholdPercent", "spec.kubelet.kubeReserved[cpu]", "spec.kubelet.kubeReserved",
			"spec.kubelet.evictionHard", "spec.kubelet.evictionHard[memory.available]"}, ""},
		{"evictionSoft needs a grace period", func(n *EC2NodeClass) {
			n.Spec.Kubelet = &KubeletConfiguration{EvictionSoft: map[string]string{"memory.available": "1Gi"}}
		}, []string{"spec.kubelet.evictionSoft[memory.available]"}, "evictionSoftGracePeriod"},
		{"two root volumes and no size", func(n *EC2NodeClass) {
			n.Spec.BlockDeviceMappings = []*BlockDeviceMapping{{RootVolume: true, EBS: &BlockDevice{VolumeType: ptr("gp9")}}, {RootVolume: true}}
		}, []string{"spec.blockDeviceMappings[0].ebs", "spec.blockDeviceMappings[0].ebs.volumeType", "spec.blockDeviceMappings"}, ""},
		{"instance store policy", func(n *EC2NodeClass) { n.Spec.InstanceStorePolicy = ptr(InstanceStorePolicy("RAID1")) }, []string{"spec.instanceStorePolicy"}, "Unsupported"},
		{"metadata options", func(n *EC2NodeClass) {
			n.Spec.MetadataOptions = &MetadataOptions{HTTPTokens: ptr("sometimes"), HTTPPutResponseHopLimit: ptr[int64](65)}
		}, []string{"spec.metadataOptions.httpTokens", "spec.metadataOptions.httpPutResponseHopLimit"}, ""},
		{"network interfaces without the primary", func(n *EC2NodeClass) {
			n.Spec.NetworkInterfaces = []*NetworkInterface{{NetworkCardIndex: 1, InterfaceType: "efa-only"}, {NetworkCardIndex: 1, InterfaceType: "efa-only"}}
		}, []string{"spec.networkInterfaces[1]", "spec.networkInterfaces"}, ""},
		{"connection tracking", func(n *EC2NodeClass) { n.Spec.ConnectionTracking = &ConnectionTracking{UDPTimeout: ptr[int32](10)} }, []string{"spec.connectionTracking.udpTimeout"}, "between 30 and 60"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nc := validNodeClass()
			c.mutate(nc)
			err := nc.Validate()
			require.Error(t, err)
			assert.Equal(t, c.fields, fieldsOf(t, err))
			assert.True(t, strings.HasPrefix(err.Error(), `EC2NodeClass "default": `+c.fields[0]+": "), err.Error())
			if c.msg != "" {
				assert.Contains(t, err.Error(), c.msg)
			}
		})
	}
}

func TestKubeletFor(t *testing.T) {
	nc := validNodeClass()
	nc.Spec.Kubelet = &KubeletConfiguration{MaxPods: ptr[int32](20)}
	np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "team"}}
	k, err := KubeletFor(np, nc)
	require.NoError(t, err)
	assert.Equal(t, int32(20), *k.MaxPods, "the NodeClass's without the annotation")
	k, err = KubeletFor(np, nil)
	require.NoError(t, err)
	assert.Nil(t, k)

	np.Annotations = map[string]string{karpv1.KubeletCompatibilityAnnotationKey: `{"maxPods":8,"kubeReserved":{"cpu":"200m"}}`}
	k, err = KubeletFor(np, nc)
	require.NoError(t, err)
	assert.Equal(t, &KubeletConfiguration{MaxPods: ptr[int32](8), KubeReserved: map[string]string{"cpu": "200m"}}, k, "the annotation takes precedence, whole")

	for raw, want := range map[string]string{
		`{"maxpods":8}`:   `NodePool "team": metadata.annotations[compatibility.karpenter.sh/v1beta1-kubelet-conversion]: not a kubelet configuration: unknown field "maxpods"`,
		`{"maxPods":-1}`:  `NodePool "team": metadata.annotations[compatibility.karpenter.sh/v1beta1-kubelet-conversion].maxPods: Invalid value: -1`,
		`not json at all`: `not a kubelet configuration`,
	} {
		np.Annotations[karpv1.KubeletCompatibilityAnnotationKey] = raw
		_, err := KubeletFor(np, nc)
		require.Error(t, err, raw)
		assert.Contains(t, err.Error(), want)
	}
}

// FuzzKubeletFor: any annotation gives a kubelet configuration or an error naming the
// NodePool, never a panic.
func FuzzKubeletFor(f *testing.F) {
	for _, seed := range []string{`{"maxPods":8}`, `{"kubeReserved":{"cpu":"1"},"evictionHard":{"memory.available":"5%"}}`, `null`, `[]`, `{"maxPods":1e99}`, `{"evictionSoftGracePeriod":{"memory.available":"1m"}}`} {
		f.Add(seed)
	}
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, raw string) {
		np := &karpv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "np", Annotations: map[string]string{karpv1.KubeletCompatibilityAnnotationKey: raw}}}
		k, err := KubeletFor(np, nil)
		if err != nil {
			if !strings.Contains(err.Error(), `NodePool "np"`) {
				t.Fatalf("error does not name the NodePool: %v", err)
			}
			return
		}
		if k == nil {
			t.Fatal("no configuration and no error")
		}
	})
}
