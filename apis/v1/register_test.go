package v1

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestAddToScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, AddToScheme(scheme))
	for kind, obj := range map[string]runtime.Object{
		KindNodePool: &NodePool{}, KindNodePoolList: &NodePoolList{}, KindNodeClaim: &NodeClaim{}, KindNodeClaimList: &NodeClaimList{},
	} {
		gvks, _, err := scheme.ObjectKinds(obj)
		require.NoError(t, err, kind)
		assert.Contains(t, gvks, SchemeGroupVersion.WithKind(kind))
		created, err := scheme.New(SchemeGroupVersion.WithKind(kind))
		require.NoError(t, err, kind)
		assert.IsType(t, obj, created)
	}
	assert.Equal(t, "karpenter.sh/v1", SchemeGroupVersion.String())
	assert.Equal(t, APIVersion, SchemeGroupVersion.String())
	assert.Equal(t, "nodepools.karpenter.sh", Resource("nodepools").String())
	assert.False(t, scheme.Recognizes(SchemeGroupVersion.WithKind("Provisioner")))
}
