package v1

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// validNodePool is a NodePool that passes Validate; tests mutate one field of it.
func validNodePool() *NodePool {
	return &NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersion, Kind: KindNodePool},
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: NodePoolSpec{
			Template: NodeClaimTemplate{
				ObjectMeta: ObjectMeta{Labels: map[string]string{"team": "a"}},
				Spec: NodeClaimTemplateSpec{
					Requirements: []NodeSelectorRequirementWithMinValues{
						{Key: LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{ArchitectureAmd64}},
						{Key: CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{CapacityTypeOnDemand}},
					},
					NodeClassRef: &NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
				},
			},
		},
	}
}

// validNodeClaim is a NodeClaim that passes Validate.
func validNodeClaim() *NodeClaim {
	return &NodeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: APIVersion, Kind: KindNodeClaim},
		ObjectMeta: metav1.ObjectMeta{Name: "default-abcde"},
		Spec: NodeClaimSpec{
			Requirements: []NodeSelectorRequirementWithMinValues{
				{Key: NodePoolLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{"default"}},
				{Key: LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large", "m5.xlarge"}},
			},
			NodeClassRef: &NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
		},
	}
}

// document is one YAML document of a multi-document file.
type document struct {
	Kind, APIVersion, Name string
	Raw                    []byte
}

// readDocuments splits testdata/name into its YAML documents.
func readDocuments(t testing.TB, name string) []document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var docs []document
	for _, raw := range bytes.Split(data, []byte("\n---")) {
		var head struct {
			metav1.TypeMeta   `json:",inline"`
			metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal(raw, &head); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if head.Kind == "" {
			continue
		}
		docs = append(docs, document{Kind: head.Kind, APIVersion: head.APIVersion, Name: head.Name, Raw: raw})
	}
	return docs
}

func ptr[T any](v T) *T { return &v }
