package v1beta1

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

func old(family string, terms ...AMISelectorTerm) *EC2NodeClass {
	nc := &EC2NodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default", Annotations: map[string]string{"a": "b"}},
		Spec: EC2NodeClassSpec{
			Role:                       "KarpenterNodeRole",
			SubnetSelectorTerms:        []awsv1.SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "c"}}},
			SecurityGroupSelectorTerms: []awsv1.SecurityGroupSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "c"}}},
			AMISelectorTerms:           terms,
			Tags:                       map[string]string{"team": "a"},
		},
	}
	if family != "" {
		nc.Spec.AMIFamily = &family
	}
	return nc
}

func TestConvert(t *testing.T) {
	for _, c := range []struct {
		name         string
		in           *EC2NodeClass
		wantFamily   string // resolved
		wantAlias    string
		wantTerms    int
		incompatible bool
		notes        int
	}{
		{"AL2 without terms: alias", old("AL2"), "AL2", "al2@latest", 1, false, 1},
		{"AL2023 without terms: alias", old("AL2023"), "AL2023", "al2023@latest", 1, false, 1},
		{"Bottlerocket without terms: alias", old("Bottlerocket"), "Bottlerocket", "bottlerocket@latest", 1, false, 1},
		{"Windows2022 without terms: alias", old("Windows2022"), "Windows2022", "windows2022@latest", 1, false, 1},
		{"AL2 with terms: both kept", old("AL2", AMISelectorTerm{ID: "ami-1"}), "AL2", "", 1, false, 0},
		{"Custom stays Custom", old("Custom", AMISelectorTerm{Name: "my-ami", Owner: "self"}), "Custom", "", 1, false, 0},
		{"no family is Custom", old("", AMISelectorTerm{ID: "ami-1"}), "Custom", "", 1, false, 0},
		{"Ubuntu with terms: AL2 plus a root volume", old("Ubuntu", AMISelectorTerm{ID: "ami-1"}), "AL2", "", 1, false, 2},
		{"Ubuntu without terms: incompatible", old("Ubuntu"), "AL2", "", 1, true, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := c.in.DeepCopyObject()
			got, notes := c.in.Convert()
			assert.Equal(t, before, c.in, "the input is not changed")
			assert.Equal(t, awsv1.APIVersion, got.APIVersion)
			assert.Equal(t, "EC2NodeClass", got.Kind)
			assert.Equal(t, "default", got.Name)
			assert.Equal(t, c.wantFamily, got.AMIFamily())
			assert.Len(t, got.Spec.AMISelectorTerms, c.wantTerms)
			if c.wantAlias != "" {
				assert.Nil(t, got.Spec.AMIFamily, "an alias replaces amiFamily")
				assert.Equal(t, c.wantAlias, got.Spec.AMISelectorTerms[0].Alias)
			}
			assert.Equal(t, c.incompatible, Incompatible(got))
			assert.Len(t, notes, c.notes, "%q", notes)
			assert.Equal(t, "KarpenterNodeRole", got.Spec.Role)
			assert.Equal(t, map[string]string{"team": "a"}, got.Spec.Tags)
			got.SetDefaults()
			assert.NoError(t, got.Validate())
			got.Spec.Tags["team"] = "changed"
			got.Spec.SubnetSelectorTerms[0].Tags["x"] = "y"
			assert.Equal(t, "a", c.in.Spec.Tags["team"], "no memory shared")
			assert.Len(t, c.in.Spec.SubnetSelectorTerms[0].Tags, 1)
		})
	}
}

func TestConvertUbuntuRootVolume(t *testing.T) {
	got, _ := old("Ubuntu", AMISelectorTerm{ID: "ami-1"}).Convert()
	require.Len(t, got.Spec.BlockDeviceMappings, 1)
	b := got.Spec.BlockDeviceMappings[0]
	assert.Equal(t, "/dev/sda1", *b.DeviceName)
	assert.True(t, b.RootVolume)
	assert.True(t, b.EBS.VolumeSize.Equal(resource.MustParse("20Gi")))
	assert.Equal(t, "amiFamily,blockDeviceMappings", got.Annotations[UbuntuCompatibilityAnnotationKey])
	assert.Equal(t, "b", got.Annotations["a"])

	withBDM := old("Ubuntu", AMISelectorTerm{ID: "ami-1"})
	withBDM.Spec.BlockDeviceMappings = []*BlockDeviceMapping{{DeviceName: ptr("/dev/sda1"), RootVolume: true, EBS: &BlockDevice{VolumeSize: ptr(resource.MustParse("80Gi"))}}}
	got, _ = withBDM.Convert()
	assert.True(t, got.Spec.BlockDeviceMappings[0].EBS.VolumeSize.Equal(resource.MustParse("80Gi")), "the user's mappings are kept")
	assert.Equal(t, "amiFamily", got.Annotations[UbuntuCompatibilityAnnotationKey])
}
