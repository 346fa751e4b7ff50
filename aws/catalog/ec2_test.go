package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/ec2capacity"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

func find(its cloudprovider.InstanceTypes, name string) *cloudprovider.InstanceType {
	for _, it := range its {
		if it.Name == name {
			return it
		}
	}
	return nil
}

func TestEC2Counts(t *testing.T) {
	its, err := EC2()
	require.NoError(t, err)
	skipped, err := EC2Skipped()
	require.NoError(t, err)
	assert.Len(t, skipped, 18)
	assert.Contains(t, skipped, "p5e.48xlarge")
	assert.Contains(t, skipped, "hpc7a.12xlarge")
	assert.Len(t, its, 1363-len(skipped))
	assert.Equal(t, 1345, len(its))
	names := map[string]bool{}
	for _, it := range its {
		assert.False(t, names[it.Name], "duplicate %s", it.Name)
		names[it.Name] = true
		assert.NotNil(t, it.Overhead, it.Name)
		assert.Len(t, it.Offerings, 6, it.Name)
	}
	for _, s := range skipped {
		assert.False(t, names[s], s)
	}
}

func TestEC2M5Large(t *testing.T) {
	its, err := EC2()
	require.NoError(t, err)
	it := find(its, "m5.large")
	require.NotNil(t, it)
	alloc := it.Allocatable()
	for name, want := range map[corev1.ResourceName]string{
		corev1.ResourceCPU: "1930m", corev1.ResourceMemory: "6903Mi", corev1.ResourcePods: "29",
		corev1.ResourceEphemeralStorage: "17Gi", "vpc.amazonaws.com/pod-eni": "9",
	} {
		got := alloc[name]
		assert.True(t, got.Equal(resource.MustParse(want)), "%s: got %s want %s", name, got.String(), want)
	}
	offerings := []string{}
	for _, o := range it.Offerings {
		assert.Equal(t, 0.096, o.Price, "spot is estimated at the on-demand price")
		assert.True(t, o.Available)
		offerings = append(offerings, o.Zone()+"/"+o.CapacityType())
	}
	assert.Equal(t, []string{"us-east-1a/spot", "us-east-1a/on-demand", "us-east-1b/spot", "us-east-1b/on-demand",
		"us-east-1c/spot", "us-east-1c/on-demand"}, offerings)
	capacity := it.Capacity[corev1.ResourceMemory]
	assert.Equal(t, "7577Mi", capacity.String(), "capacity is the memory after VM overhead")
	r := it.Requirements
	assert.Equal(t, []string{"m5.large"}, r.Get(v1.LabelInstanceType).Values())
	assert.Equal(t, []string{"amd64"}, r.Get(v1.LabelArch).Values())
	assert.Equal(t, []string{"linux"}, r.Get(v1.LabelOS).Values())
	assert.Equal(t, []string{"us-east-1"}, r.Get(v1.LabelTopologyRegion).Values())
	assert.Equal(t, []string{"on-demand", "spot"}, r.Get(v1.CapacityTypeLabelKey).Values())
	assert.Equal(t, []string{"us-east-1a", "us-east-1b", "us-east-1c"}, r.Get(v1.LabelTopologyZone).Values())
	assert.Equal(t, []string{"m5"}, r.Get("karpenter.k8s.aws/instance-family").Values())
	assert.Equal(t, []string{"8192"}, r.Get("karpenter.k8s.aws/instance-memory").Values())
	// m5.large has no GPU: the catalog key is defined as DoesNotExist.
	assert.True(t, r.Has("karpenter.k8s.aws/instance-gpu-count"))
	assert.Equal(t, requirements.DoesNotExist, r.Get("karpenter.k8s.aws/instance-gpu-count").Operator())
}

func TestEC2Arm64(t *testing.T) {
	its, err := EC2()
	require.NoError(t, err)
	arm := 0
	for _, it := range its {
		if it.Requirements.Get(v1.LabelArch).Has(v1.ArchitectureArm64) {
			arm++
		}
	}
	assert.Greater(t, arm, 300)
	for _, name := range []string{"m6g.large", "c7g.xlarge", "a1.medium"} {
		it := find(its, name)
		require.NotNil(t, it, name)
		assert.Equal(t, []string{"arm64"}, it.Requirements.Get(v1.LabelArch).Values(), name)
	}
}

func TestEC2FreshCopies(t *testing.T) {
	a, err := EC2()
	require.NoError(t, err)
	it := find(a, "m5.large")
	it.Capacity[corev1.ResourceCPU] = resource.MustParse("99")
	it.Requirements.Add(requirements.MustNew(v1.LabelArch, requirements.In, "arm64"))
	it.Offerings[0].Price = 42
	it.Offerings[0].Requirements.Add(requirements.MustNew(v1.LabelTopologyZone, requirements.In, "nowhere"))
	a[0] = nil

	b, err := EC2()
	require.NoError(t, err)
	require.NotNil(t, b[0])
	it = find(b, "m5.large")
	cpu := it.Allocatable()[corev1.ResourceCPU]
	assert.Equal(t, "1930m", cpu.String())
	assert.Equal(t, []string{"amd64"}, it.Requirements.Get(v1.LabelArch).Values())
	assert.Equal(t, 0.096, it.Offerings[0].Price)
	assert.Equal(t, "us-east-1a", it.Offerings[0].Zone())
}

func TestEC2WellKnownLabels(t *testing.T) {
	ks := EC2WellKnownLabels()
	for k := range v1.WellKnownLabels {
		assert.True(t, ks[k], k)
	}
	assert.True(t, ks["karpenter.k8s.aws/instance-family"])
	assert.True(t, ks["karpenter.k8s.aws/instance-gpu-name"])
	ks["x"] = true
	assert.False(t, EC2WellKnownLabels()["x"], "fresh set per call")
	assert.False(t, v1.WellKnownLabels["karpenter.k8s.aws/instance-family"], "core set untouched")
}

func TestEC2CheapestCompatible(t *testing.T) {
	its, err := EC2()
	require.NoError(t, err)
	reqs := requirements.NewRequirements(
		requirements.MustNew("karpenter.k8s.aws/instance-family", requirements.In, "m5"),
	)
	ordered := its.Compatible(reqs).OrderByPrice(reqs)
	require.NotEmpty(t, ordered)
	assert.Equal(t, "m5.large", ordered[0].Name)
}

// BenchmarkEC2Load measures the first load (gunzip + JSON decode + building requirements)
// by bypassing the cache.
func BenchmarkEC2Load(b *testing.B) {
	for b.Loop() {
		if _, err := loadEC2Uncached(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEC2 measures a cached call (fresh copies of every type).
func BenchmarkEC2(b *testing.B) {
	if _, err := EC2(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := EC2(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestEC2Zones(t *testing.T) {
	its, err := BuildEC2(EC2Options{Zones: []string{"us-east-1b", "us-west-2a", "us-east-1b"}})
	require.NoError(t, err)
	it := find(its, "m5.large")
	assert.Equal(t, []string{"us-east-1b"}, it.Requirements.Get(v1.LabelTopologyZone).Values())
	available := []string{}
	for _, o := range it.Offerings {
		if o.Available {
			available = append(available, o.Zone()+"/"+o.CapacityType())
		}
	}
	assert.Equal(t, []string{"us-east-1b/spot", "us-east-1b/on-demand"}, available)
	assert.Len(t, it.Offerings, 6, "offerings elsewhere stay, unavailable")

	its, err = BuildEC2(EC2Options{Zones: []string{"eu-west-1a"}})
	require.NoError(t, err)
	it = find(its, "m5.large")
	assert.Empty(t, it.Offerings.Available())
}

func TestEC2Windows(t *testing.T) {
	its, err := BuildEC2(EC2Options{NodeClass: ec2capacity.NodeClass{Family: ec2capacity.Windows2022}})
	require.NoError(t, err)
	assert.Nil(t, find(its, "m6g.large"), "Windows AMIs are amd64 only")
	it := find(its, "m5.large")
	require.NotNil(t, it)
	assert.Equal(t, []string{"windows"}, it.Requirements.Get(v1.LabelOS).Values())
	assert.Equal(t, []string{"10.0.20348"}, it.Requirements.Get(v1.LabelWindowsBuild).Values())
	pods := it.Allocatable()[corev1.ResourcePods]
	assert.Equal(t, int64(110), pods.Value())

	its, err = EC2()
	require.NoError(t, err)
	assert.Equal(t, requirements.DoesNotExist, find(its, "m5.large").Requirements.Get(v1.LabelWindowsBuild).Operator())
}
