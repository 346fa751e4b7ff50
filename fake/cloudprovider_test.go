package fake

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

func claim(name string, requests corev1.ResourceList, reqs ...v1.NodeSelectorRequirementWithMinValues) *v1.NodeClaim {
	return &v1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.NodePoolLabelKey: "default", "team": "a"}},
		Spec: v1.NodeClaimSpec{
			Requirements: reqs,
			Resources:    v1.ResourceRequirements{Requests: requests},
			NodeClassRef: &v1.NodeClassReference{Group: "karpenter.test.sh", Kind: "TestNodeClass", Name: "default"},
		},
	}
}

func req(key string, op corev1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirementWithMinValues {
	return v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
}

func rl(cpu, mem string) corev1.ResourceList {
	out := corev1.ResourceList{}
	if cpu != "" {
		out[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		out[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return out
}

func TestInstanceTypesGenerator(t *testing.T) {
	its := InstanceTypes(3)
	require.Len(t, its, 3)
	it := its[2]
	assert.Equal(t, "fake-it-2", it.Name)
	cpu, mem, pods := it.Capacity[corev1.ResourceCPU], it.Capacity[corev1.ResourceMemory], it.Capacity[corev1.ResourcePods]
	assert.Equal(t, int64(3), cpu.Value())
	assert.Equal(t, int64(6)<<30, mem.Value())
	assert.Equal(t, int64(30), pods.Value())
	alloc := it.Allocatable()[corev1.ResourceCPU]
	assert.Equal(t, int64(2900), alloc.MilliValue())
	assert.Equal(t, []string{"3"}, it.Requirements.Get(IntegerInstanceLabelKey).Values())
	assert.Equal(t, []string{"linux"}, it.Requirements.Get(v1.LabelOS).Values())
	assert.Equal(t, []string{"amd64"}, it.Requirements.Get(v1.LabelArch).Values())
	require.Len(t, it.Offerings, 5)
	assert.InDelta(t, 0.1*3+0.1*float64(int64(6)<<30)/1e9, it.Offerings[0].Price, 1e-12)
	spot := it.Offerings.Compatible(requirements.NewRequirements(requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, "spot")))
	assert.Len(t, spot, 2)

	assorted := InstanceTypesAssorted()
	assert.Len(t, assorted, 1344)
	seen := map[string]bool{}
	for _, it := range assorted {
		assert.False(t, seen[it.Name], it.Name)
		seen[it.Name] = true
		assert.Len(t, it.Offerings, 1)
	}

	def := NewInstanceType(InstanceTypeOptions{})
	assert.Equal(t, "default-instance-type", def.Name)
	assert.Equal(t, []string{"darwin", "linux", "windows"}, def.Requirements.Get(v1.LabelOS).Values())
	assert.Equal(t, []string{"small"}, def.Requirements.Get(LabelInstanceSize).Values())
	big := NewInstanceType(InstanceTypeOptions{Name: "big", Resources: rl("16", "32Gi")})
	assert.Equal(t, []string{"large"}, big.Requirements.Get(LabelInstanceSize).Values())
	assert.Equal(t, []string{"optional"}, big.Requirements.Get(ExoticInstanceLabelKey).Values())
	gpu := NewInstanceType(InstanceTypeOptions{Name: "gpu", Resources: corev1.ResourceList{"fake.com/vendor-a": resource.MustParse("2")}})
	assert.InDelta(t, 0.4+0.1*float64(4<<30)/1e9+1, gpu.Offerings[0].Price, 1e-12)
}

func TestCreatePicksCheapestFitting(t *testing.T) {
	cp := NewCloudProvider(InstanceTypes(5))
	ctx := context.Background()
	cases := []struct {
		name     string
		nc       *v1.NodeClaim
		wantType string
		wantZone string
		wantCT   string
	}{
		{"smallest fits", claim("a", rl("500m", "1Gi")), "fake-it-0", TestZone1, "spot"},
		{"needs 2 cpu", claim("b", rl("1500m", "")), "fake-it-1", TestZone1, "spot"},
		{"needs memory", claim("c", rl("", "7Gi")), "fake-it-3", TestZone1, "spot"},
		{"spot only", claim("d", rl("100m", ""), req(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot")), "fake-it-0", TestZone1, "spot"},
		{"zone 3", claim("e", rl("100m", ""), req(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, TestZone3)), "fake-it-0", TestZone3, "on-demand"},
		{"integer label", claim("f", nil, req(IntegerInstanceLabelKey, corev1.NodeSelectorOpGt, "2")), "fake-it-2", TestZone1, "spot"},
		{"instance type", claim("g", nil, req(v1.LabelInstanceType, corev1.NodeSelectorOpIn, "fake-it-4", "fake-it-3")), "fake-it-3", TestZone1, "spot"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cp.Create(ctx, tc.nc)
			require.NoError(t, err)
			assert.Equal(t, tc.wantType, got.Labels[v1.LabelInstanceType])
			assert.Equal(t, tc.wantZone, got.Labels[v1.LabelTopologyZone])
			assert.Equal(t, tc.wantCT, got.Labels[v1.CapacityTypeLabelKey])
			assert.Equal(t, "amd64", got.Labels[v1.LabelArch])
			assert.Equal(t, "linux", got.Labels[v1.LabelOS])
			assert.Equal(t, "a", got.Labels["team"], "NodeClaim labels kept")
			assert.Equal(t, fmt.Sprintf("fake:///%s/%d", tc.wantZone, i+1), got.Status.ProviderID)
			assert.NotEmpty(t, got.Status.Capacity)
			assert.NotEmpty(t, got.Status.Allocatable)
			require.Len(t, got.Status.Conditions, 1)
			assert.Equal(t, v1.ConditionTypeLaunched, got.Status.Conditions[0].Type)
		})
	}
}

func TestCreatePrefersCheaperSpotWhenAllowed(t *testing.T) {
	it := NewInstanceType(InstanceTypeOptions{Name: "x", Offerings: cloudprovider.Offerings{
		cloudprovider.NewOffering("z1", "on-demand", 1, true),
		cloudprovider.NewOffering("z2", "spot", 0.3, true),
		cloudprovider.NewOffering("z1", "spot", 0.3, true),
		cloudprovider.NewOffering("z3", "spot", 0.1, false),
	}})
	cp := NewCloudProvider(cloudprovider.InstanceTypes{it})
	got, err := cp.Create(context.Background(), claim("a", nil))
	require.NoError(t, err)
	assert.Equal(t, "z1", got.Labels[v1.LabelTopologyZone], "tie broken by zone, unavailable skipped")
	assert.Equal(t, "spot", got.Labels[v1.CapacityTypeLabelKey])
}

func TestCreateReserved(t *testing.T) {
	it := NewInstanceType(InstanceTypeOptions{Name: "r", Offerings: cloudprovider.Offerings{
		cloudprovider.NewOffering("z1", "spot", 0.1, true),
		cloudprovider.NewReservedOffering("z1", "cr-1", 0.5, 1),
	}})
	cp := NewCloudProvider(cloudprovider.InstanceTypes{it})
	ctx := context.Background()
	first, err := cp.Create(ctx, claim("a", nil))
	require.NoError(t, err)
	assert.Equal(t, "reserved", first.Labels[v1.CapacityTypeLabelKey])
	assert.Equal(t, "cr-1", first.Labels[cloudprovider.ReservationIDLabel])
	second, err := cp.Create(ctx, claim("b", nil))
	require.NoError(t, err)
	assert.Equal(t, "spot", second.Labels[v1.CapacityTypeLabelKey], "reservation used up")
	require.NoError(t, cp.Delete(ctx, first))
	third, err := cp.Create(ctx, claim("c", nil))
	require.NoError(t, err)
	assert.Equal(t, "reserved", third.Labels[v1.CapacityTypeLabelKey], "slot released by Delete")
	assert.Equal(t, 1, it.Offerings[1].ReservationCapacity, "instance type not mutated")
}

func TestCreateInsufficientCapacity(t *testing.T) {
	cp := NewCloudProvider(InstanceTypes(2))
	ctx := context.Background()
	for _, nc := range []*v1.NodeClaim{
		claim("too-big", rl("64", "")),
		claim("no-zone", nil, req(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, "mars")),
		claim("no-arch", nil, req(v1.LabelArch, corev1.NodeSelectorOpIn, "arm64")),
		claim("gpu", corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}),
	} {
		_, err := cp.Create(ctx, nc)
		assert.True(t, cloudprovider.IsInsufficientCapacityError(err), "%s: %v", nc.Name, err)
	}
	unavailable := NewInstanceType(InstanceTypeOptions{Offerings: cloudprovider.Offerings{cloudprovider.NewOffering("z", "spot", 1, false)}})
	_, err := NewCloudProvider(cloudprovider.InstanceTypes{unavailable}).Create(ctx, claim("x", nil))
	assert.True(t, cloudprovider.IsInsufficientCapacityError(err))
	_, err = NewCloudProvider(nil).Create(ctx, claim("x", nil))
	assert.True(t, cloudprovider.IsInsufficientCapacityError(err))
	list, _ := cp.List(ctx)
	assert.Empty(t, list)
}

func TestGetListDeleteRoundTrip(t *testing.T) {
	cp := NewCloudProvider(InstanceTypes(3))
	ctx := context.Background()
	var ids []string
	for i := 0; i < 12; i++ {
		nc, err := cp.Create(ctx, claim(fmt.Sprintf("nc-%d", i), rl("100m", "")))
		require.NoError(t, err)
		ids = append(ids, nc.Status.ProviderID)
	}
	list, err := cp.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 12)
	for i, nc := range list {
		assert.Equal(t, ids[i], nc.Status.ProviderID, "launch order")
		assert.Equal(t, fmt.Sprintf("nc-%d", i), nc.Name)
	}
	got, err := cp.Get(ctx, ids[3])
	require.NoError(t, err)
	assert.Equal(t, "nc-3", got.Name)
	got.Labels["mutated"] = "yes"
	again, _ := cp.Get(ctx, ids[3])
	assert.NotContains(t, again.Labels, "mutated", "Get returns copies")

	require.NoError(t, cp.Delete(ctx, got))
	_, err = cp.Get(ctx, ids[3])
	assert.True(t, cloudprovider.IsNodeClaimNotFoundError(err))
	err = cp.Delete(ctx, got)
	assert.True(t, cloudprovider.IsNodeClaimNotFoundError(err), "second delete: not found")
	err = cp.Delete(ctx, &v1.NodeClaim{Status: v1.NodeClaimStatus{ProviderID: "fake:///nowhere/99"}})
	assert.True(t, cloudprovider.IsNodeClaimNotFoundError(err))
	list, _ = cp.List(ctx)
	assert.Len(t, list, 11)
	assert.Len(t, cp.DeleteCallsSnapshot(), 3)
	assert.Len(t, cp.CreateCallsSnapshot(), 12)
	assert.Equal(t, ids[3], cp.GetCalls[0])
}

func TestInjectedErrors(t *testing.T) {
	cp := NewCloudProvider(InstanceTypes(1))
	ctx := context.Background()
	boom := errors.New("boom")
	cp.NextCreateErr = boom
	_, err := cp.Create(ctx, claim("a", nil))
	assert.Equal(t, boom, err)
	nc, err := cp.Create(ctx, claim("a", nil))
	require.NoError(t, err, "injected error is used once")

	cp.NextGetErr = cloudprovider.NewNodeClassNotReadyError(boom)
	_, err = cp.Get(ctx, nc.Status.ProviderID)
	assert.True(t, cloudprovider.IsNodeClassNotReadyError(err))
	_, err = cp.Get(ctx, nc.Status.ProviderID)
	assert.NoError(t, err)

	cp.NextDeleteErr = boom
	assert.Equal(t, boom, cp.Delete(ctx, nc))
	assert.NoError(t, cp.Delete(ctx, nc))

	cp.AllowedCreateCalls = 3
	_, err = cp.Create(ctx, claim("b", nil))
	assert.NoError(t, err)
	_, err = cp.Create(ctx, claim("c", nil))
	assert.Error(t, err, "4th call exceeds AllowedCreateCalls")

	cp.Reset()
	cp.ErrorsForNodePool = map[string]error{"default": boom}
	_, err = cp.Create(ctx, claim("d", nil))
	assert.Equal(t, boom, err)
	_, err = cp.GetInstanceTypes(ctx, NodePool("default").Obj())
	assert.Equal(t, boom, err)

	cp.Reset()
	cp.InstanceTypesForNodePool = map[string]cloudprovider.InstanceTypes{"default": InstanceTypes(3)[2:]}
	got, err := cp.Create(ctx, claim("e", nil))
	require.NoError(t, err)
	assert.Equal(t, "fake-it-2", got.Labels[v1.LabelInstanceType])
	its, err := cp.GetInstanceTypes(ctx, NodePool("other").Obj())
	require.NoError(t, err)
	assert.Len(t, its, 1)

	_, err = cp.Create(ctx, claim("bad", nil, req("k", "Bogus")))
	assert.Error(t, err)
	assert.False(t, cloudprovider.IsInsufficientCapacityError(err))
}

func TestCreateDoesNotMutateInput(t *testing.T) {
	cp := NewCloudProvider(InstanceTypes(2))
	nc := claim("a", rl("1", "1Gi"), req(v1.LabelArch, corev1.NodeSelectorOpIn, "amd64"))
	before := nc.DeepCopy()
	out, err := cp.Create(context.Background(), nc)
	require.NoError(t, err)
	assert.Equal(t, before, nc)
	out.Spec.Requirements[0].Values[0] = "changed"
	out.Labels["x"] = "y"
	assert.Equal(t, before, nc, "output shares nothing with input")
	stored, _ := cp.Get(context.Background(), out.Status.ProviderID)
	assert.Equal(t, "amd64", stored.Spec.Requirements[0].Values[0], "output shares nothing with the record")
	assert.Equal(t, before, cp.CreateCalls[0])
}

func TestMiscellaneous(t *testing.T) {
	cp := NewCloudProvider(nil)
	assert.Equal(t, "fake", cp.Name())
	assert.Equal(t, []cloudprovider.RepairPolicy{{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, TolerationDuration: 1800}}, cp.RepairPolicies())
	r, err := cp.IsDrifted(context.Background(), &v1.NodeClaim{})
	require.NoError(t, err)
	assert.Equal(t, cloudprovider.DriftReason(""), r)
	cp.Drifted = "AMIDrift"
	r, _ = cp.IsDrifted(context.Background(), &v1.NodeClaim{})
	assert.Equal(t, cloudprovider.DriftReason("AMIDrift"), r)
	ks := WellKnownLabels()
	assert.True(t, ks[IntegerInstanceLabelKey])
	assert.True(t, ks[v1.LabelTopologyZone])
}

func TestConcurrentCreates(t *testing.T) {
	cp := NewCloudProvider(InstanceTypes(4))
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := cp.Create(ctx, claim(fmt.Sprintf("c-%d", i), rl("100m", "")))
			if err == nil {
				_, _ = cp.Get(ctx, nc.Status.ProviderID)
				_, _ = cp.List(ctx)
			}
		}()
	}
	wg.Wait()
	list, _ := cp.List(ctx)
	assert.Len(t, list, 50)
	ids := map[string]bool{}
	for _, nc := range list {
		assert.False(t, ids[nc.Status.ProviderID])
		ids[nc.Status.ProviderID] = true
	}
}

// TestConformance checks, over generated instance types and claims, the contract every
// CloudProvider must keep: Create returns a claim whose labels satisfy its requirements,
// whose allocatable fits its requests and whose offering was available and the cheapest
// possible; otherwise an InsufficientCapacityError exactly when nothing could fit; and
// Get/List/Delete agree with what was created.
func TestConformance(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		its := InstanceTypesGenerator(6).Draw(t, "types")
		cp := NewCloudProvider(its)
		ctx := context.Background()
		n := rapid.IntRange(1, 6).Draw(t, "claims")
		created := map[string]bool{}
		for i := 0; i < n; i++ {
			var rs []v1.NodeSelectorRequirementWithMinValues
			if rapid.Bool().Draw(t, "zone-req") {
				rs = append(rs, req(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, rapid.SampledFrom(genZones).Draw(t, "zone")))
			}
			if rapid.Bool().Draw(t, "ct-req") {
				rs = append(rs, req(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, rapid.SampledFrom([]string{"spot", "on-demand"}).Draw(t, "ct")))
			}
			if rapid.Bool().Draw(t, "arch-req") {
				rs = append(rs, req(v1.LabelArch, corev1.NodeSelectorOpIn, rapid.SampledFrom(genArches).Draw(t, "arch")))
			}
			requests := rl(fmt.Sprintf("%dm", rapid.IntRange(0, 70000).Draw(t, "cpu")), "")
			nc := claim(fmt.Sprintf("nc-%d", i), requests, rs...)
			reqs, err := requirements.FromNodeSelectorRequirements(rs...)
			if err != nil {
				t.Fatal(err)
			}
			// the cheapest price any fitting type offers
			best := -1.0
			for _, it := range its {
				if !it.Requirements.HasIntersection(reqs) || !fits(requests, it.Allocatable()) {
					continue
				}
				for _, o := range it.Offerings.Available().Compatible(reqs) {
					if best < 0 || o.Price < best {
						best = o.Price
					}
				}
			}
			out, err := cp.Create(ctx, nc)
			if best < 0 {
				if !cloudprovider.IsInsufficientCapacityError(err) {
					t.Fatalf("want ICE, got %v", err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if !requirements.FromLabels(out.Labels).HasIntersection(reqs) {
				t.Fatalf("labels %v do not satisfy %v", out.Labels, reqs)
			}
			if !fits(requests, out.Status.Allocatable) {
				t.Fatalf("allocatable %v does not fit %v", out.Status.Allocatable, requests)
			}
			var chosen *cloudprovider.InstanceType
			for _, it := range its {
				if it.Name == out.Labels[v1.LabelInstanceType] {
					chosen = it
				}
			}
			if chosen == nil {
				t.Fatalf("unknown type %q", out.Labels[v1.LabelInstanceType])
			}
			o := chosen.Offerings.Compatible(requirements.FromLabels(map[string]string{
				v1.LabelTopologyZone: out.Labels[v1.LabelTopologyZone], v1.CapacityTypeLabelKey: out.Labels[v1.CapacityTypeLabelKey],
			})).Cheapest()
			if o == nil || !o.Available || o.Price != best {
				t.Fatalf("chosen offering %v, want price %v", o, best)
			}
			created[out.Status.ProviderID] = true
			if _, err := cp.Get(ctx, out.Status.ProviderID); err != nil {
				t.Fatalf("get: %v", err)
			}
		}
		list, _ := cp.List(ctx)
		if len(list) != len(created) {
			t.Fatalf("list has %d, created %d", len(list), len(created))
		}
		for _, nc := range list {
			if err := cp.Delete(ctx, nc); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if _, err := cp.Get(ctx, nc.Status.ProviderID); !cloudprovider.IsNodeClaimNotFoundError(err) {
				t.Fatalf("get after delete: %v", err)
			}
		}
	})
}
