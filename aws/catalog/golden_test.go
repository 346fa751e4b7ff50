package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/nodeplan/nodeplan/aws/ec2capacity"
)

// TestKarpenterAllocatable rebuilds every type of the data file that has ENI limits from its
// facts alone (vCPUs, memory, architecture, ENIs) with Karpenter's default NodeClass and
// checks cpu, memory, pods and ephemeral storage against the allocatable values Karpenter's
// generated instance-type reference publishes (the file's "resources").
func TestKarpenterAllocatable(t *testing.T) {
	f, err := decodeEC2()
	require.NoError(t, err)
	checked, matched := 0, 0
	for _, ft := range f.InstanceTypes {
		if ft.Network == nil {
			continue
		}
		facts, err := ec2Facts(ft)
		require.NoError(t, err, ft.Name)
		res, err := ec2capacity.Compute(facts, ec2capacity.NodeClass{}, ec2capacity.DefaultOptions)
		require.NoError(t, err, ft.Name)
		alloc := res.Allocatable()
		checked++
		ok := true
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage} {
			want := resource.MustParse(ft.Resources[string(name)])
			got := alloc[name]
			if !assert.Truef(t, got.Equal(want), "%s %s: computed %s, Karpenter publishes %s", ft.Name, name, got.String(), want.String()) {
				ok = false
			}
		}
		if ok {
			matched++
		}
	}
	assert.Equal(t, 1355, checked)
	assert.Equal(t, checked, matched)
	t.Logf("%d/%d types match Karpenter's published allocatable exactly", matched, checked)
}
