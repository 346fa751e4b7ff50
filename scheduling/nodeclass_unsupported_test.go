package scheduling_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestNodeClassUnsupported: with Options.NodeClasses, a NodePool whose nodeClassRef names
// another kind or group launches nothing, as Karpenter leaves such a NodePool unmanaged; a
// pod it alone could take fails with a NodeClassUnsupported cause naming the NodePool and the
// kind. Without NodeClasses every kind launches.
func TestNodeClassUnsupported(t *testing.T) {
	withRef := func(name string, weight int32, group, kind string) *v1.NodePool {
		np := fake.NodePool(name).Weight(weight).Obj()
		np.Spec.Template.Spec.NodeClassRef = &v1.NodeClassReference{Group: group, Kind: kind, Name: "default"}
		return np
	}
	pools := []*v1.NodePool{
		withRef("aks", 50, "karpenter.azure.com", "AKSNodeClass"),
		withRef("other-group", 40, "example.com", "EC2NodeClass"),
		withRef("aws", 10, "karpenter.k8s.aws", "EC2NodeClass"),
	}
	types := fake.InstanceTypes(4)
	in := cluster.Objects{NodePools: pools, InstanceTypes: map[string]cloudprovider.InstanceTypes{"aks": types, "other-group": types, "aws": types},
		Pods: []*corev1.Pod{fake.Pod("any").Obj(), fake.Pod("azure").NodeSelector(v1.NodePoolLabelKey, "aks").Obj()}}
	ec2 := scheduling.Options{NodeClasses: []schema.GroupKind{{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass"}}}

	res := mustSolve(t, snapOf(t, in), ec2)
	require.Len(t, res.NewNodeClaims, 1)
	assert.Equal(t, "aws", res.NewNodeClaims[0].NodePool, "the weightier NodePools launch nothing")
	require.Len(t, res.PodErrors, 1)
	assert.Equal(t, "azure", res.PodErrors[0].Pod.Name, "only the AKS NodePool could take it")

	// As for a NodePool that is not ready, the causes name it when no NodePool can launch.
	in.NodePools = pools[:2]
	res = mustSolve(t, snapOf(t, in), ec2)
	require.Len(t, res.PodErrors, 2)
	for _, e := range res.PodErrors {
		assert.Equal(t, scheduling.ReasonNoNodePool, e.Code)
		var got [][3]string
		for _, c := range e.Causes {
			got = append(got, [3]string{string(c.Code), c.NodePool, c.Detail})
		}
		assert.Equal(t, [][3]string{{string(scheduling.ReasonNodeClassUnsupported), "aks", "AKSNodeClass.karpenter.azure.com"},
			{string(scheduling.ReasonNodeClassUnsupported), "other-group", "EC2NodeClass.example.com"}}, got)
	}

	res = mustSolve(t, snapOf(t, in), scheduling.Options{})
	assert.Empty(t, res.PodErrors, "without NodeClasses every kind launches")
}
