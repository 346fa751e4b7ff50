package scheduling_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// The pods of a claim the cloud refused are accounted for after Apply: pending in the
// snapshot, each with a LaunchRefused error naming the NodePool (issue #21: they carried no
// reason anywhere).
func TestRefusedLaunchesGiveEachPodAReason(t *testing.T) {
	types := fake.InstanceTypes(2)
	var pods []*corev1.Pod
	for i := range 6 {
		pods = append(pods, fake.Pod(fmt.Sprintf("p%d", i)).Requests("900m", "1Gi").Obj())
	}
	snap, err := cluster.New(cluster.Objects{NodePools: []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}, WellKnownLabels: fake.WellKnownLabels(), Pods: pods})
	require.NoError(t, err)
	res := mustSolve(t, snap, scheduling.Options{})
	require.Len(t, res.NewNodeClaims, 3)

	for _, tc := range []struct {
		name    string
		cloud   func(*fake.CloudProvider) // before the launches
		refused []int                     // the claims refused
	}{
		{name: "every claim launched"},
		{name: "the cloud has no capacity left", refused: []int{0, 1, 2}, cloud: func(cloud *fake.CloudProvider) {
			cloud.OfferingCapacity = map[string]int{}
			for _, it := range types {
				for _, o := range it.Offerings {
					cloud.OfferingCapacity[fake.OfferingKey(it, o)] = 0
				}
			}
		}},
		{name: "one claim refused", refused: []int{1}}, // as Launch leaves a claim it refused
	} {
		t.Run(tc.name, func(t *testing.T) {
			cloud := fake.NewCloudProvider(types)
			var names fake.Names
			claims := scheduling.NodeClaimsFor(snap, res.NewNodeClaims, names.Next)
			if tc.cloud != nil {
				tc.cloud(cloud)
			}
			launched, err := cloudprovider.Launch(context.Background(), cloud, claims)
			require.NoError(t, err)
			if tc.cloud == nil {
				for _, i := range tc.refused {
					launched[i] = nil
				}
			}
			next, err := scheduling.Apply(snap, res, launched)
			require.NoError(t, err)
			refused := res.Refused(launched)
			var want []string
			for _, i := range tc.refused {
				for _, p := range res.NewNodeClaims[i].Pods {
					want = append(want, p.Name)
				}
			}
			var got, pending []string
			for _, e := range refused {
				got = append(got, e.Pod.Name)
				assert.Equal(t, scheduling.ReasonLaunchRefused, e.Code)
				require.Len(t, e.Causes, 1)
				assert.Equal(t, "default", e.Causes[0].NodePool)
				assert.Equal(t, len(res.NewNodeClaims[0].InstanceTypeOptions), e.Causes[0].InstanceTypes)
			}
			for _, p := range next.Pending() {
				pending = append(pending, p.Name)
			}
			assert.Equal(t, want, got)
			assert.ElementsMatch(t, want, pending, "the refused pods, and only they, are pending")
		})
	}
}

// Launched is the claim as a cloud launching the plan's choice returns it: the chosen type,
// zone and capacity type in its labels, which meet the claim's requirements, and the type's
// capacity; the claim given is not modified.
func TestLaunchedIsThePlansChoice(t *testing.T) {
	types := fake.InstanceTypes(4)
	var pods []*corev1.Pod
	for i := range 5 {
		pods = append(pods, fake.Pod(fmt.Sprintf("p%d", i)).Requests("1500m", "1Gi").Obj())
	}
	pool := fake.NodePool("default").Requirement(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, fake.TestZone2, fake.TestZone3).Obj()
	snap, err := cluster.New(cluster.Objects{NodePools: []*v1.NodePool{pool},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}, WellKnownLabels: fake.WellKnownLabels(), Pods: pods})
	require.NoError(t, err)
	res := mustSolve(t, snap, scheduling.Options{})
	require.NotEmpty(t, res.NewNodeClaims)
	for i, c := range res.NewNodeClaims {
		nc := scheduling.NodeClaimFor(c, fmt.Sprintf("default-%d", i), pool)
		before := nc.DeepCopy()
		got := scheduling.Launched(c, nc)
		assert.Equal(t, before, nc, "the claim given is not modified")
		assert.Equal(t, c.InstanceType.Name, got.Labels[v1.LabelInstanceType])
		assert.Equal(t, c.Offering.Zone(), got.Labels[v1.LabelTopologyZone])
		assert.Equal(t, c.Offering.CapacityType(), got.Labels[v1.CapacityTypeLabelKey])
		assert.Equal(t, "default", got.Labels[v1.NodePoolLabelKey])
		assert.NoError(t, requirements.FromLabels(got.Labels).Compatible(c.Requirements, nil), "the labels meet the claim's requirements")
		alloc := c.InstanceType.Allocatable()
		assert.True(t, got.Status.Allocatable.Cpu().Equal(*alloc.Cpu()))
		require.NotEmpty(t, got.Status.Conditions)
		assert.Equal(t, v1.ConditionTypeLaunched, got.Status.Conditions[0].Type)
	}
}
