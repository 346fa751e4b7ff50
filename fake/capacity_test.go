package fake_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/fake"
)

func smallClaim(name string) *v1.NodeClaim {
	return &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.NodePoolLabelKey: "default"}},
		Spec: v1.NodeClaimSpec{Resources: v1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}
}

// An offering out of capacity fails over to the next best, becomes unavailable in
// GetInstanceTypes, and Restock brings it back.
func TestOfferingCapacity(t *testing.T) {
	ctx := context.Background()
	types := fake.InstanceTypes(2)
	cloud := fake.NewCloudProvider(types)
	first, err := cloud.Create(ctx, smallClaim("probe"))
	require.NoError(t, err)
	var cheapest *cloudprovider.Offering
	var cheapestType *cloudprovider.InstanceType
	for _, it := range types {
		for _, o := range it.Offerings {
			if it.Name == first.Labels[v1.LabelInstanceType] && o.Zone() == first.Labels[v1.LabelTopologyZone] && o.CapacityType() == first.Labels[v1.CapacityTypeLabelKey] {
				cheapest, cheapestType = o, it
			}
		}
	}
	require.NotNil(t, cheapest)
	key := fake.OfferingKey(cheapestType, cheapest)
	cloud.OfferingCapacity = map[string]int{key: 1}

	a, err := cloud.Create(ctx, smallClaim("a"))
	require.NoError(t, err)
	assert.Equal(t, first.Labels[v1.LabelTopologyZone], a.Labels[v1.LabelTopologyZone], "one launch left there")
	b, err := cloud.Create(ctx, smallClaim("b"))
	require.NoError(t, err, "fails over to the next offering")
	assert.NotEqual(t, fake.OfferingKey(cheapestType, cheapest), b.Labels[v1.LabelInstanceType]+"/"+b.Labels[v1.LabelTopologyZone]+"/"+b.Labels[v1.CapacityTypeLabelKey])
	assert.Equal(t, map[string]bool{key: true}, cloud.Unavailable())

	got, err := cloud.GetInstanceTypes(ctx, fake.NodePool("default").Obj())
	require.NoError(t, err)
	for _, it := range got {
		for _, o := range it.Offerings {
			assert.Equal(t, fake.OfferingKey(it, o) != key, o.Available, fake.OfferingKey(it, o))
		}
	}
	assert.True(t, cheapest.Available, "the caller's types are never modified")

	cloud.Restock(1)
	got, err = cloud.GetInstanceTypes(ctx, nil)
	require.NoError(t, err)
	assert.Same(t, types[0], got[0])
	assert.Empty(t, cloud.Unavailable())
}

// Every fitting offering out of capacity: an InsufficientCapacityError, all marked.
func TestOfferingCapacityExhausted(t *testing.T) {
	types := fake.InstanceTypes(1)
	cloud := fake.NewCloudProvider(types)
	cloud.OfferingCapacity = map[string]int{}
	for _, o := range types[0].Offerings {
		cloud.OfferingCapacity[fake.OfferingKey(types[0], o)] = 0
	}
	_, err := cloud.Create(context.Background(), smallClaim("a"))
	assert.True(t, cloudprovider.IsInsufficientCapacityError(err), err)
	assert.Len(t, cloud.Unavailable(), len(types[0].Offerings))
}

// An interrupted offering is marked unavailable by hand; Create fails over around it until
// it is made available again.
func TestMarkUnavailable(t *testing.T) {
	ctx := context.Background()
	types := fake.InstanceTypes(1)
	cloud := fake.NewCloudProvider(types)
	first, err := cloud.Create(ctx, smallClaim("a"))
	require.NoError(t, err)
	var key string
	for _, o := range types[0].Offerings {
		if o.Zone() == first.Labels[v1.LabelTopologyZone] && o.CapacityType() == first.Labels[v1.CapacityTypeLabelKey] {
			key = fake.OfferingKey(types[0], o)
		}
	}
	cloud.MarkUnavailable(key)
	assert.Equal(t, map[string]bool{key: true}, cloud.Unavailable())
	second, err := cloud.Create(ctx, smallClaim("b"))
	require.NoError(t, err)
	assert.NotEqual(t, first.Labels[v1.LabelTopologyZone]+first.Labels[v1.CapacityTypeLabelKey],
		second.Labels[v1.LabelTopologyZone]+second.Labels[v1.CapacityTypeLabelKey], "the marked offering is skipped")
	cloud.MakeAvailable(key)
	assert.Empty(t, cloud.Unavailable())
	third, err := cloud.Create(ctx, smallClaim("c"))
	require.NoError(t, err)
	assert.Equal(t, first.Labels[v1.LabelTopologyZone], third.Labels[v1.LabelTopologyZone])
	assert.Equal(t, first.Labels[v1.CapacityTypeLabelKey], third.Labels[v1.CapacityTypeLabelKey])
}

func TestBuilders(t *testing.T) {
	it := fake.InstanceTypes(1)[0]
	node, nc := fake.NodeAndClaim("n-1", "default", it, it.Offerings[0], time.Unix(0, 0))
	assert.Equal(t, node.Spec.ProviderID, nc.Status.ProviderID)
	assert.Equal(t, "n-1", nc.Status.NodeName)
	assert.Equal(t, "true", node.Labels[v1.NodeInitializedLabelKey])
	assert.Equal(t, it.Name, node.Labels[v1.LabelInstanceType])
	assert.Equal(t, it.Offerings[0].Zone(), node.Labels[v1.LabelTopologyZone])

	ds := fake.DaemonSet("logs", fake.Pod("logs").CPU("100m").Obj())
	assert.Equal(t, "100m", ds.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().String())
	pdb := fake.PDB("web", "default", map[string]string{"app": "web"}, 0)
	assert.Equal(t, int32(0), pdb.Spec.MaxUnavailable.IntVal)

	var names fake.Names
	assert.Equal(t, []string{"p-1", "p-2", "q-1"}, []string{names.Next("p"), names.Next("p"), names.Next("q")})
}
