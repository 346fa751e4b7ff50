package v1

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/yaml"
)

// decodeNodePools strictly decodes the NodePool documents of testdata/name.
func decodeNodePools(t *testing.T, name string) []*NodePool {
	t.Helper()
	var out []*NodePool
	for _, d := range readDocuments(t, name) {
		if d.Kind != KindNodePool {
			continue
		}
		require.NoError(t, CheckAPIVersion(d.APIVersion, d.Kind, d.Name))
		np := &NodePool{}
		require.NoError(t, yaml.UnmarshalStrict(d.Raw, np), "%s %s", name, d.Name)
		out = append(out, np)
	}
	return out
}

func TestDecodeGeneralPurpose(t *testing.T) {
	nps := decodeNodePools(t, "general-purpose.yaml")
	require.Len(t, nps, 1)
	np := nps[0]
	assert.Equal(t, "general-purpose", np.Name)
	assert.Equal(t, APIVersion, np.APIVersion)
	assert.Equal(t, "General purpose NodePool for generic workloads", np.Annotations["kubernetes.io/description"])
	assert.Equal(t, []NodeSelectorRequirementWithMinValues{
		{Key: LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
		{Key: LabelOS, Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}},
		{Key: CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
		{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m", "r"}},
		{Key: "karpenter.k8s.aws/instance-generation", Operator: corev1.NodeSelectorOpGt, Values: []string{"2"}},
	}, np.Spec.Template.Spec.Requirements)
	assert.Equal(t, &NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}, np.Spec.Template.Spec.NodeClassRef)
	assert.True(t, np.Spec.Template.Spec.ExpireAfter.IsZero())
	assert.True(t, np.Spec.Disruption.ConsolidateAfter.IsZero())
	assert.Nil(t, np.Spec.Disruption.Budgets)

	require.NoError(t, np.Validate())
	np.SetDefaults()
	require.NoError(t, np.Validate())
	assert.Equal(t, "720h", np.Spec.Template.Spec.ExpireAfter.String())
	assert.Equal(t, []Budget{{Nodes: "10%"}}, np.Spec.Disruption.Budgets)
}

func TestDecodeTeamTaints(t *testing.T) {
	nps := decodeNodePools(t, "team-taints-nodepools.yaml")
	require.Len(t, nps, 2)
	for i, np := range nps {
		team := []string{"team-1", "team-2"}[i]
		assert.Equal(t, team, np.Name)
		assert.Equal(t, []corev1.Taint{{Key: team + "-nodes", Effect: corev1.TaintEffectNoSchedule}}, np.Spec.Template.Spec.Taints)
		assert.Equal(t, []NodeSelectorRequirementWithMinValues{
			{Key: LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
			{Key: CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
		}, np.Spec.Template.Spec.Requirements)
		assert.Equal(t, ConsolidationPolicyWhenEmptyOrUnderutilized, np.Spec.Disruption.ConsolidationPolicy)
		assert.Equal(t, "0s", np.Spec.Disruption.ConsolidateAfter.String())
		assert.Equal(t, []Budget{{Nodes: "100%"}}, np.Spec.Disruption.Budgets)
		assert.NoError(t, np.Validate())
		np.SetDefaults()
		assert.NoError(t, np.Validate())
	}
}

func TestDecodeUnknownFieldFails(t *testing.T) {
	base := readDocuments(t, "team-taints-nodepools.yaml")[0].Raw
	require.NoError(t, yaml.UnmarshalStrict(base, &NodePool{}))
	cases := map[string]string{
		"v1beta1 expireAfter under disruption": strings.Replace(string(base), "    consolidateAfter: 0s", "    consolidateAfter: 0s\n    expireAfter: 720h", 1),
		"v1beta1 kubelet":                      strings.Replace(string(base), "      taints:", "      kubelet:\n        maxPods: 110\n      taints:", 1),
		"typo at spec level":                   strings.Replace(string(base), "  disruption:", "  disruptions:", 1),
		"apiVersion in nodeClassRef":           strings.Replace(string(base), "        group: karpenter.k8s.aws", "        apiVersion: karpenter.k8s.aws/v1", 1),
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			require.NotEqual(t, string(base), doc, "the replacement must apply")
			err := yaml.UnmarshalStrict([]byte(doc), &NodePool{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "unknown field")
			// The non-strict decoder accepts it, so the strictness is what catches it.
			assert.NoError(t, yaml.Unmarshal([]byte(doc), &NodePool{}))
		})
	}
}

func TestDecodeWithScheme(t *testing.T) {
	scheme := runtime.NewScheme()
	require.NoError(t, AddToScheme(scheme))
	strict := jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, scheme, scheme,
		jsonserializer.SerializerOptions{Yaml: true, Strict: true})

	for _, file := range []string{"general-purpose.yaml", "team-taints-nodepools.yaml"} {
		for _, d := range readDocuments(t, file) {
			if d.Kind != KindNodePool {
				continue
			}
			obj, gvk, err := strict.Decode(d.Raw, nil, nil)
			require.NoError(t, err, "%s %s", file, d.Name)
			assert.Equal(t, SchemeGroupVersion.WithKind(KindNodePool), *gvk)
			np, ok := obj.(*NodePool)
			require.True(t, ok, "%T", obj)
			assert.Equal(t, d.Name, np.Name)
			assert.NoError(t, np.Validate())

			var viaYAML NodePool
			require.NoError(t, yaml.UnmarshalStrict(d.Raw, &viaYAML))
			assert.Empty(t, cmp.Diff(&viaYAML, np), "both decoders agree")
		}
	}

	base := readDocuments(t, "team-taints-nodepools.yaml")[0].Raw
	bad := strings.Replace(string(base), "  disruption:", "  disruptions: {}\n  disruption:", 1)
	_, _, err := strict.Decode([]byte(bad), nil, nil)
	require.Error(t, err)
	assert.True(t, runtime.IsStrictDecodingError(err), "%v", err)
	assert.Contains(t, err.Error(), "disruptions")

	nc := `apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-abcde
spec:
  expireAfter: Never
  requirements:
  - key: karpenter.sh/nodepool
    operator: In
    values: [default]
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
status:
  nodeName: ip-10-0-0-1
  capacity: {cpu: "2", memory: 8Gi}
  conditions:
  - {type: Launched, status: "True", reason: Launched, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}
`
	obj, _, err := strict.Decode([]byte(nc), nil, nil)
	require.NoError(t, err)
	claim := obj.(*NodeClaim)
	assert.True(t, claim.Spec.ExpireAfter.IsNever())
	assert.Equal(t, "ip-10-0-0-1", claim.Status.NodeName)
	assert.NoError(t, claim.Validate())

	list := `apiVersion: karpenter.sh/v1
kind: NodePoolList
items:
- metadata: {name: a}
  spec:
    template:
      spec:
        requirements: []
        nodeClassRef: {group: example.com, kind: Class, name: default}
`
	obj, _, err = strict.Decode([]byte(list), nil, nil)
	require.NoError(t, err)
	require.Len(t, obj.(*NodePoolList).Items, 1)
	assert.NoError(t, obj.(*NodePoolList).Items[0].Validate())
}

// TestJSONRoundTripIsStable checks decode → encode → decode gives the same object, that a
// second encode gives the same bytes, and that unset fields stay unset (no "" durations, no
// empty status).
func TestJSONRoundTripIsStable(t *testing.T) {
	nps := append(decodeNodePools(t, "general-purpose.yaml"), decodeNodePools(t, "team-taints-nodepools.yaml")...)
	for _, defaulted := range []bool{false, true} {
		for _, np := range nps {
			np = np.DeepCopy()
			if defaulted {
				np.SetDefaults()
			}
			first, err := json.Marshal(np)
			require.NoError(t, err)
			var back NodePool
			require.NoError(t, yaml.UnmarshalStrict(first, &back), "%s", first)
			assert.Empty(t, cmp.Diff(np, &back))
			second, err := json.Marshal(&back)
			require.NoError(t, err)
			assert.Equal(t, string(first), string(second))
			assert.NotContains(t, string(first), `"status"`)
			assert.NotContains(t, string(first), `""`)
			if defaulted {
				assert.Contains(t, string(first), `"expireAfter":"720h"`)
				assert.Contains(t, string(first), `"consolidateAfter":"0s"`)
			} else if np.Name == "general-purpose" {
				assert.NotContains(t, string(first), "expireAfter")
				assert.NotContains(t, string(first), "consolidateAfter")
			}
		}
	}
}
