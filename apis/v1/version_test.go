package v1

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckAPIVersion(t *testing.T) {
	cases := []struct {
		apiVersion, kind, name string
		// want are substrings of the error; none means no error.
		want []string
	}{
		{"karpenter.sh/v1", "NodePool", "a", nil},
		{"karpenter.sh/v1", "NodeClaim", "a", nil},
		{"karpenter.sh/v1", "NodePoolList", "", nil},
		{"v1", "Pod", "p", nil},
		{"karpenter.k8s.aws/v1beta1", "EC2NodeClass", "default", nil},
		{"cluster.x-k8s.io/v1beta1", "Machine", "m", nil},
		{"karpenter.sh/v1beta1", "NodePool", "x", []string{
			`NodePool "x": apiVersion karpenter.sh/v1beta1 is no longer served; change it to karpenter.sh/v1 (`,
			"WhenUnderutilized to WhenEmptyOrUnderutilized", "spec.template.spec.expireAfter", "nodeClassRef group/kind/name",
		}},
		{"karpenter.sh/v1beta1", "NodeClaim", "nc", []string{
			`NodeClaim "nc": apiVersion karpenter.sh/v1beta1 is no longer served; change it to karpenter.sh/v1`,
			"spec.nodeClassRef group/kind/name",
		}},
		{"karpenter.sh/v1alpha5", "Provisioner", "default", []string{
			`Provisioner "default": kind Provisioner (apiVersion karpenter.sh/v1alpha5) is no longer served`, "NodePool with apiVersion karpenter.sh/v1",
		}},
		{"karpenter.sh/v1alpha5", "Machine", "m", []string{"NodeClaim with apiVersion karpenter.sh/v1"}},
		{"karpenter.sh/v2", "NodePool", "x", []string{`NodePool "x": apiVersion karpenter.sh/v2 is not supported`, "change it to karpenter.sh/v1"}},
		{"v1", "NodePool", "x", []string{"apiVersion v1 is not supported"}},
		{"", "NodePool", "x", []string{"apiVersion is missing; set it to karpenter.sh/v1"}},
	}
	for _, tc := range cases {
		t.Run(tc.apiVersion+" "+tc.kind, func(t *testing.T) {
			err := CheckAPIVersion(tc.apiVersion, tc.kind, tc.name)
			if len(tc.want) == 0 {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var aerr *APIVersionError
			require.True(t, errors.As(err, &aerr))
			assert.Equal(t, tc.apiVersion, aerr.APIVersion)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestCheckAPIVersionExactV1beta1Message(t *testing.T) {
	err := CheckAPIVersion("karpenter.sh/v1beta1", "NodePool", "x")
	assert.EqualError(t, err, `NodePool "x": apiVersion karpenter.sh/v1beta1 is no longer served; change it to karpenter.sh/v1 `+
		`(v1 renamed spec.disruption.consolidationPolicy WhenUnderutilized to WhenEmptyOrUnderutilized, moved expireAfter to `+
		`spec.template.spec.expireAfter, and requires spec.template.spec.nodeClassRef group/kind/name)`)
}

// TestCheckAPIVersionTeamsV1beta1 checks the multi-team example written for v1beta1: both
// NodePools are refused with a message naming them, the other kinds are not this package's.
func TestCheckAPIVersionTeamsV1beta1(t *testing.T) {
	docs := readDocuments(t, "teams-v1beta1.yaml")
	require.Len(t, docs, 5)
	var refused []string
	for _, d := range docs {
		err := CheckAPIVersion(d.APIVersion, d.Kind, d.Name)
		if d.Kind != KindNodePool {
			assert.NoError(t, err, "%s %s", d.Kind, d.Name)
			continue
		}
		require.Error(t, err)
		assert.Contains(t, err.Error(), `NodePool "`+d.Name+`": apiVersion karpenter.sh/v1beta1 is no longer served; change it to karpenter.sh/v1`)
		refused = append(refused, d.Name)
	}
	assert.Equal(t, []string{"team-1", "team-2"}, refused)
}
