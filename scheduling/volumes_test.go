package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

func withPVC(p *corev1.Pod, volume, claim string) *corev1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	return p
}

func pvc(name, class, volume string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	if class != "" {
		c.Spec.StorageClassName = &class
	}
	if volume != "" {
		c.Spec.VolumeName = volume
		c.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
	}
	return c
}

func zonalPV(name, driver string, zoneTerms ...[]string) *corev1.PersistentVolume {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}}
	pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: name}
	var terms []corev1.NodeSelectorTerm
	for _, zones := range zoneTerms {
		terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "topology.ebs.csi.aws.com/zone", Operator: corev1.NodeSelectorOpIn, Values: zones}}})
	}
	pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: terms}}
	return pv
}

func storageClass(name string, mode storagev1.VolumeBindingMode, zones ...string) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "kubernetes.io/aws-ebs", VolumeBindingMode: &mode}
	if len(zones) > 0 {
		sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
			{Key: v1.LabelTopologyZone, Values: zones}}}}
	}
	return sc
}

// volumeObjects are pending pods and one NodePool "default" of five fake instance types.
func volumeObjects(pods ...*corev1.Pod) cluster.Objects {
	return cluster.Objects{
		Pods:            pods,
		NodePools:       []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes:   map[string]cloudprovider.InstanceTypes{"default": fake.InstanceTypes(5)},
		WellKnownLabels: fake.WellKnownLabels(),
	}
}

func zoneOf(t *testing.T, res *scheduling.Result, pod string) string {
	t.Helper()
	for _, c := range res.NewNodeClaims {
		for _, p := range c.Pods {
			if p.Name == pod {
				return c.Offering.Zone()
			}
		}
	}
	t.Fatalf("pod %s is not on a new NodeClaim; errors: %v", pod, res.PodErrors)
	return ""
}

func TestVolumeTopology(t *testing.T) {
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	t.Run("bound volume pins the zone (driver key normalised)", func(t *testing.T) {
		in := volumeObjects(withPVC(fake.Pod("db").Requests("1", "1Gi").Obj(), "data", "data-db"))
		in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("data-db", "gp3", "pv-1")}
		in.PersistentVolumes = []*corev1.PersistentVolume{zonalPV("pv-1", "ebs.csi.aws.com", []string{fake.TestZone3})}
		res, err := solveVerified(t, nil, snapOf(t, in), scheduling.Options{})
		require.NoError(t, err)
		assert.Equal(t, fake.TestZone3, zoneOf(t, res, "db"))
	})
	t.Run("OR-ed volume terms let anti-affine pods use different zones", func(t *testing.T) {
		a := withPVC(fake.Pod("a").Label("app", "db").PodAntiAffinity(v1.LabelTopologyZone, map[string]string{"app": "db"}).Requests("1", "1Gi").Obj(), "data", "shared")
		b := withPVC(fake.Pod("b").Label("app", "db").PodAntiAffinity(v1.LabelTopologyZone, map[string]string{"app": "db"}).Requests("1", "1Gi").Obj(), "data", "shared")
		in := volumeObjects(a, b)
		in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("shared", "", "pv-x")}
		in.PersistentVolumes = []*corev1.PersistentVolume{zonalPV("pv-x", "efs.csi.aws.com", []string{fake.TestZone1}, []string{fake.TestZone2})}
		res, err := solveVerified(t, nil, snapOf(t, in), scheduling.Options{})
		require.NoError(t, err)
		require.Empty(t, res.PodErrors)
		za, zb := zoneOf(t, res, "a"), zoneOf(t, res, "b")
		assert.NotEqual(t, za, zb)
		assert.Contains(t, []string{fake.TestZone1, fake.TestZone2}, za)
		assert.Contains(t, []string{fake.TestZone1, fake.TestZone2}, zb)
	})
	t.Run("unbound claim follows the class's allowed topologies", func(t *testing.T) {
		in := volumeObjects(withPVC(fake.Pod("db").Requests("1", "1Gi").Obj(), "data", "data-db"))
		in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("data-db", "zonal", "")}
		in.StorageClasses = []*storagev1.StorageClass{storageClass("zonal", wffc, fake.TestZone2)}
		res, err := solveVerified(t, nil, snapOf(t, in), scheduling.Options{})
		require.NoError(t, err)
		assert.Equal(t, fake.TestZone2, zoneOf(t, res, "db"))
	})
	t.Run("unbound claim without a class takes the default class", func(t *testing.T) {
		in := volumeObjects(withPVC(fake.Pod("db").Requests("1", "1Gi").Obj(), "data", "data-db"))
		in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("data-db", "", "")}
		sc := storageClass("zonal", wffc, fake.TestZone2)
		sc.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}
		in.StorageClasses = []*storagev1.StorageClass{storageClass("other", wffc, fake.TestZone1), sc}
		res, err := solveVerified(t, nil, snapOf(t, in), scheduling.Options{})
		require.NoError(t, err)
		assert.Equal(t, fake.TestZone2, zoneOf(t, res, "db"))
	})
	t.Run("unbound claim of a class the input lacks binds anywhere", func(t *testing.T) {
		// Deliberate (README): Karpenter refuses the pod ("failed to get storage class"); a
		// dump without its StorageClasses should still plan its volume pods.
		in := volumeObjects(withPVC(fake.Pod("db").Requests("1", "1Gi").Obj(), "data", "data-db"))
		in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("data-db", "gp3-not-given", "")}
		res, err := solveVerified(t, nil, snapOf(t, in), scheduling.Options{})
		require.NoError(t, err)
		require.Empty(t, res.PodErrors)
		require.Len(t, res.NewNodeClaims, 1)
		zone := res.NewNodeClaims[0].Requirements.Get(v1.LabelTopologyZone)
		for _, z := range []string{fake.TestZone1, fake.TestZone2, fake.TestZone3} {
			assert.True(t, zone.Has(z), "the claim stays open over %s: %s", z, zone)
		}
	})
	t.Run("volume zone incompatible with the pod's own zone", func(t *testing.T) {
		in := volumeObjects(withPVC(fake.Pod("db").NodeSelector(v1.LabelTopologyZone, fake.TestZone1).Requests("1", "1Gi").Obj(), "data", "data-db"))
		in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("data-db", "zonal", "")}
		in.StorageClasses = []*storagev1.StorageClass{storageClass("zonal", wffc, fake.TestZone2)}
		res, err := solveVerified(t, nil, snapOf(t, in), scheduling.Options{})
		require.NoError(t, err)
		require.Len(t, res.PodErrors, 1)
		assert.Empty(t, res.NewNodeClaims)
	})
	t.Run("local volume's hostname term does not constrain a new node", func(t *testing.T) {
		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "local-1"}}
		pv.Spec.Local = &corev1.LocalVolumeSource{Path: "/mnt/disk"}
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"gone-node"}}}}}}}
		in := volumeObjects(withPVC(fake.Pod("db").Requests("1", "1Gi").Obj(), "data", "data-db"))
		in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("data-db", "local", "local-1")}
		in.PersistentVolumes = []*corev1.PersistentVolume{pv}
		res, err := solveVerified(t, nil, snapOf(t, in), scheduling.Options{})
		require.NoError(t, err)
		assert.Empty(t, res.PodErrors)
		assert.Len(t, res.NewNodeClaims, 1)
	})
}

func TestVolumeRefusals(t *testing.T) {
	immediate := storagev1.VolumeBindingImmediate
	cases := []struct {
		name   string
		claims []*corev1.PersistentVolumeClaim
		pvs    []*corev1.PersistentVolume
		class  *storagev1.StorageClass
		want   string
	}{
		{name: "missing claim", want: "data-db not found"},
		{name: "unbound with Immediate binding", claims: []*corev1.PersistentVolumeClaim{pvc("data-db", "fast", "")}, class: storageClass("fast", immediate), want: "Immediate"},
		{name: "volume missing", claims: []*corev1.PersistentVolumeClaim{pvc("data-db", "", "pv-9")}, want: "pv-9 of claim default/data-db not found"},
		{name: "bind not completed", claims: func() []*corev1.PersistentVolumeClaim {
			c := pvc("data-db", "", "pv-1")
			c.Annotations = nil
			return []*corev1.PersistentVolumeClaim{c}
		}(), pvs: []*corev1.PersistentVolume{zonalPV("pv-1", "ebs.csi.aws.com", []string{fake.TestZone1})}, want: "not bound yet"},
		// Karpenter: "unbound pvc must define a storage class" (volumetopology.go,
		// ValidatePersistentVolumeClaims); karpenter-plan refuses the pod the same way.
		{name: "unbound without a class", claims: []*corev1.PersistentVolumeClaim{pvc("data-db", "", "")}, want: "has no StorageClass"},
		{name: "unbound without a class, no default among the classes", claims: []*corev1.PersistentVolumeClaim{pvc("data-db", "", "")},
			class: storageClass("fast", storagev1.VolumeBindingWaitForFirstConsumer), want: "has no StorageClass"},
		{name: "lost claim", claims: func() []*corev1.PersistentVolumeClaim {
			c := pvc("data-db", "", "")
			c.Status.Phase = corev1.ClaimLost
			return []*corev1.PersistentVolumeClaim{c}
		}(), want: "Lost"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := volumeObjects(withPVC(fake.Pod("db").Requests("1", "1Gi").Obj(), "data", "data-db"), fake.Pod("web").Requests("1", "1Gi").Obj())
			in.PersistentVolumeClaims = tc.claims
			in.PersistentVolumes = tc.pvs
			if tc.class != nil {
				in.StorageClasses = []*storagev1.StorageClass{tc.class}
			}
			res, err := solveVerified(t, nil, snapOf(t, in), scheduling.Options{})
			require.NoError(t, err)
			require.Len(t, res.PodErrors, 1)
			assert.Equal(t, "db", res.PodErrors[0].Pod.Name)
			assert.Equal(t, scheduling.ReasonVolumeUnresolved, res.PodErrors[0].Code)
			assert.Contains(t, res.PodErrors[0].Causes[0].Detail, tc.want, "the volume error names the object")
			require.Len(t, res.NewNodeClaims, 1, "the valid pod still schedules")
			assert.Equal(t, "web", res.NewNodeClaims[0].Pods[0].Name)
		})
	}
}

func TestCSIAttachLimit(t *testing.T) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{
			v1.LabelTopologyZone: fake.TestZone1, v1.LabelHostname: "node-a", v1.LabelInstanceType: "fake-it-4",
			v1.LabelArch: "amd64", v1.LabelOS: "linux", v1.CapacityTypeLabelKey: "on-demand"}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("50")}},
	}
	one := int32(1)
	csiNode := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{
		{Name: "ebs.csi.aws.com", NodeID: "i-1", Allocatable: &storagev1.VolumeNodeResources{Count: &one}}}}}
	wffc := storagev1.VolumeBindingWaitForFirstConsumer
	pods := []*corev1.Pod{
		withPVC(fake.Pod("a").Requests("1", "1Gi").Obj(), "data", "claim-a"),
		withPVC(fake.Pod("b").Requests("1", "1Gi").Obj(), "data", "claim-b"),
		withPVC(fake.Pod("c").Requests("1", "1Gi").Obj(), "data", "claim-a"), // shares a's claim
	}
	in := volumeObjects(pods...)
	in.Nodes = []*corev1.Node{node}
	in.CSINodes = []*storagev1.CSINode{csiNode}
	in.StorageClasses = []*storagev1.StorageClass{storageClass("gp3", wffc)}
	in.PersistentVolumeClaims = []*corev1.PersistentVolumeClaim{pvc("claim-a", "gp3", ""), pvc("claim-b", "gp3", "")}
	res, err := solveVerified(t, nil, snapOf(t, in), scheduling.Options{})
	require.NoError(t, err)
	require.Empty(t, res.PodErrors)
	require.Len(t, byNode(res), 1)
	var onNode []string
	for _, b := range res.Bindings {
		onNode = append(onNode, b.Pod.Name)
	}
	assert.ElementsMatch(t, []string{"a", "c"}, onNode, "one volume attaches; the pod sharing it joins")
	require.Len(t, res.NewNodeClaims, 1)
	assert.Equal(t, "b", res.NewNodeClaims[0].Pods[0].Name)
}
