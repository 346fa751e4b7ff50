package catalog

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
	"github.com/nodeplan/nodeplan/requirements"
)

func TestParseScenarioCatalog(t *testing.T) {
	its, ks, err := ParseFile("testdata/instance-types.yaml")
	require.NoError(t, err)
	require.Len(t, its, 10)
	assert.Equal(t, "s-2x4", its[0].Name)
	assert.True(t, ks["example.com/family"])
	assert.True(t, ks["example.com/cpu"])
	assert.True(t, ks[v1.LabelTopologyZone])
	assert.True(t, ks[v1.NodePoolLabelKey])

	s := its[0]
	assert.Nil(t, s.Overhead)
	cpu := s.Allocatable()[corev1.ResourceCPU]
	assert.Equal(t, int64(2000), cpu.MilliValue())
	assert.Equal(t, []string{"test-zone-a", "test-zone-b", "test-zone-c"}, s.Requirements.Get(v1.LabelTopologyZone).Values())
	assert.Equal(t, []string{"on-demand", "spot"}, s.Requirements.Get(v1.CapacityTypeLabelKey).Values())
	assert.Equal(t, []string{"s-2x4"}, s.Requirements.Get(v1.LabelInstanceType).Values())
	assert.Equal(t, []string{"s"}, s.Requirements.Get("example.com/family").Values())
	require.Len(t, s.Offerings, 6)
	assert.Equal(t, "test-zone-a", s.Offerings[1].Zone())
	assert.Equal(t, "spot", s.Offerings[1].CapacityType())
	assert.Equal(t, 0.03, s.Offerings[1].Price)
	assert.True(t, s.Offerings[1].Available)

	var g, tiny *cloudprovider.InstanceType
	for _, it := range its {
		switch it.Name {
		case "g-8x32":
			g = it
		case "t-1x1":
			tiny = it
		}
	}
	require.NotNil(t, g)
	gpu := g.Allocatable()["nvidia.com/gpu"]
	assert.Equal(t, int64(1), gpu.Value())
	assert.Equal(t, []string{"on-demand"}, g.Requirements.Get(v1.CapacityTypeLabelKey).Values())

	require.NotNil(t, tiny)
	require.NotNil(t, tiny.Overhead)
	alloc := tiny.Allocatable()
	cpu, mem := alloc[corev1.ResourceCPU], alloc[corev1.ResourceMemory]
	assert.Equal(t, int64(900), cpu.MilliValue())
	assert.True(t, mem.Equal(resource.MustParse("924Mi")), mem.String())

	// The cheapest type for a pod that wants family m, on spot.
	reqs := requirements.NewRequirements(
		requirements.MustNew("example.com/family", requirements.In, "m"),
		requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, "spot"),
	)
	ordered := its.Compatible(reqs).OrderByPrice(reqs)
	require.NotEmpty(t, ordered)
	assert.Equal(t, "m-2x16", ordered[0].Name)
}

func TestParseJSONAndDefaults(t *testing.T) {
	data := `{"instanceTypes": [{"name": "a", "labels": {"kubernetes.io/arch": "arm64", "x.io/y": "1"},
	  "capacity": {"cpu": 2, "memory": "1Gi"},
	  "offerings": [
	    {"zone": "z1", "capacityType": "on-demand", "price": 1},
	    {"zone": "z1", "capacityType": "spot", "price": 0.5, "available": false},
	    {"zone": "z2", "capacityType": "reserved", "price": 0, "reservationID": "cr-1", "reservationCapacity": 2},
	    {"zone": "z2", "capacityType": "reserved", "price": 0, "reservationID": "cr-2", "reservationCapacity": 0}
	  ]},
	  {"name": "b", "capacity": {"cpu": "1"}, "offerings": [{"zone": "z1", "capacityType": "spot", "price": 0.1}]}]}`
	its, ks, err := Parse([]byte(data), "cat.json")
	require.NoError(t, err)
	require.Len(t, its, 2)
	a := its[0]
	cpu := a.Capacity[corev1.ResourceCPU]
	assert.Equal(t, int64(2), cpu.Value())
	assert.True(t, a.Offerings[0].Available)
	assert.False(t, a.Offerings[1].Available)
	assert.True(t, a.Offerings[2].Available)
	assert.Equal(t, "cr-1", a.Offerings[2].ReservationID())
	assert.Equal(t, 2, a.Offerings[2].ReservationCapacity)
	assert.False(t, a.Offerings[3].Available, "reserved without capacity defaults to unavailable")
	assert.Equal(t, []string{"on-demand", "reserved", "spot"}, a.Requirements.Get(v1.CapacityTypeLabelKey).Values())
	assert.True(t, ks["x.io/y"])
	// b lacks x.io/y and the arch label: DoesNotExist, so it never matches x.io/y In [1].
	b := its[1]
	assert.Equal(t, requirements.DoesNotExist, b.Requirements.Get("x.io/y").Operator())
	reqs := requirements.NewRequirements(requirements.MustNew("x.io/y", requirements.In, "1"))
	got := its.Compatible(reqs)
	require.Len(t, got, 1)
	assert.Equal(t, "a", got[0].Name)
}

func TestParseErrors(t *testing.T) {
	const ok = `{zone: z, capacityType: spot, price: 1}`
	cases := []struct {
		name string
		yaml string
		want []string // substrings of the error
	}{
		{"unknown top-level field", "instanceTypes: []\nfoo: 1", []string{"cat.yaml", "foo"}},
		{"unknown type field", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [" + ok + "], cpus: 2}", []string{"cat.yaml", "cpus"}},
		{"unknown offering field", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{zone: z, capacityType: spot, price: 1, region: r}]}", []string{"region"}},
		{"empty", "", []string{"cat.yaml", "no instance types"}},
		{"missing name", "instanceTypes:\n- {capacity: {cpu: '1'}, offerings: [" + ok + "]}", []string{"cat.yaml: instanceTypes[0]: name: is required"}},
		{"duplicate name", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [" + ok + "]}\n- {name: a, capacity: {cpu: '1'}, offerings: [" + ok + "]}",
			[]string{"instanceTypes[1] (a): name: duplicate of instanceTypes[0]"}},
		{"bad quantity", "instanceTypes:\n- {name: a, capacity: {cpu: 'two'}, offerings: [" + ok + "]}", []string{"instanceTypes[0] (a): capacity.cpu: bad quantity"}},
		{"negative quantity", "instanceTypes:\n- {name: a, capacity: {cpu: '-1'}, offerings: [" + ok + "]}", []string{"capacity.cpu: negative"}},
		{"no capacity", "instanceTypes:\n- {name: a, offerings: [" + ok + "]}", []string{"instanceTypes[0] (a): capacity: is required"}},
		{"overhead bad", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, overhead: {cpu: 1x}, offerings: [" + ok + "]}", []string{"overhead.cpu: bad quantity"}},
		{"overhead not in capacity", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, overhead: {memory: 1Mi}, offerings: [" + ok + "]}", []string{"overhead.memory: not in capacity"}},
		{"overhead exceeds", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, overhead: {cpu: '2'}, offerings: [" + ok + "]}", []string{"overhead.cpu: 2 exceeds capacity 1"}},
		{"no offerings", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}}", []string{"instanceTypes[0] (a): offerings: at least one"}},
		{"offering without zone", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{capacityType: spot, price: 1}]}", []string{"offerings[0].zone: is required"}},
		{"offering without capacity type", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [" + ok + ", {zone: z, price: 1}]}", []string{"instanceTypes[0] (a): offerings[1].capacityType: is required"}},
		{"unknown capacity type", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{zone: z, capacityType: preemptible, price: 1}]}", []string{`offerings[0].capacityType: unknown "preemptible"`}},
		{"negative price", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{zone: z, capacityType: spot, price: -1}]}", []string{"offerings[0].price: must be a finite number >= 0"}},
		{"missing price", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{zone: z, capacityType: spot}]}", []string{"offerings[0].price: is required"}},
		{"string price", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{zone: z, capacityType: spot, price: cheap}]}", []string{"offerings[0].price: not a number"}},
		{"NaN price", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{zone: z, capacityType: spot, price: .nan}]}", []string{"cat.yaml"}},
		{"reserved without id", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{zone: z, capacityType: reserved, price: 1, reservationCapacity: 1}]}", []string{"offerings[0].reservationID: is required"}},
		{"reserved without capacity", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{zone: z, capacityType: reserved, price: 1, reservationID: r}]}", []string{"offerings[0].reservationCapacity: is required"}},
		{"reservation on spot", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [{zone: z, capacityType: spot, price: 1, reservationID: r}]}", []string{"offerings[0].reservationID: only allowed"}},
		{"duplicate offering", "instanceTypes:\n- {name: a, capacity: {cpu: '1'}, offerings: [" + ok + ", " + ok + "]}", []string{"offerings[1]: duplicate of offerings[0]"}},
		{"zone label", "instanceTypes:\n- {name: a, labels: {topology.kubernetes.io/zone: z}, capacity: {cpu: '1'}, offerings: [" + ok + "]}", []string{"labels.topology.kubernetes.io/zone: set by the offerings"}},
		{"instance-type label mismatch", "instanceTypes:\n- {name: a, labels: {node.kubernetes.io/instance-type: b}, capacity: {cpu: '1'}, offerings: [" + ok + "]}", []string{"labels.node.kubernetes.io/instance-type"}},
		{"bad label key", "instanceTypes:\n- {name: a, labels: {'bad key!': v}, capacity: {cpu: '1'}, offerings: [" + ok + "]}", []string{"invalid label key"}},
		{"bad name", "instanceTypes:\n- {name: 'a b', capacity: {cpu: '1'}, offerings: [" + ok + "]}", []string{"name: \"a b\" is not a valid label value"}},
		{"several errors", "instanceTypes:\n- {capacity: {cpu: x}, offerings: [{price: -1}]}", []string{"name: is required", "capacity.cpu", "offerings[0].zone", "offerings[0].capacityType", "offerings[0].price"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			its, ks, err := Parse([]byte(tc.yaml), "cat.yaml")
			require.Error(t, err)
			assert.Nil(t, its)
			assert.Nil(t, ks)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestParseDoesNotShareState(t *testing.T) {
	data, err := os.ReadFile("testdata/instance-types.yaml")
	require.NoError(t, err)
	a, _, err := Parse(data, "x")
	require.NoError(t, err)
	a[0].Capacity[corev1.ResourceCPU] = resource.MustParse("64")
	b, _, err := Parse(data, "x")
	require.NoError(t, err)
	cpu := b[0].Capacity[corev1.ResourceCPU]
	assert.Equal(t, "2", cpu.String())
}

func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/instance-types.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"instanceTypes":[{"name":"a","capacity":{"cpu":1},"offerings":[{"zone":"z","capacityType":"reserved","price":0,"reservationID":"r","reservationCapacity":1}]}]}`))
	f.Add([]byte("instanceTypes:\n- {name: a, labels: {k: v}, capacity: {cpu: '1', memory: 1Gi}, overhead: {cpu: 100m}, offerings: [{zone: z, capacityType: spot, price: 1}]}"))
	f.Add([]byte(""))
	f.Add([]byte("instanceTypes: [{name: a, capacity: {cpu: 1e999}}]"))
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		its, ks, err := Parse(data, "fuzz.yaml")
		if err != nil {
			if its != nil || ks != nil {
				t.Fatalf("results alongside error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Fatalf("error does not name the source: %v", err)
			}
			return
		}
		for _, it := range its {
			_ = it.Allocatable()
			if len(it.Offerings) == 0 || it.Name == "" {
				t.Fatalf("invalid type accepted: %+v", it)
			}
			for _, o := range it.Offerings {
				if o.Price < 0 || o.Zone() == "" {
					t.Fatalf("invalid offering accepted")
				}
			}
			_ = it.Requirements.String()
		}
	})
}

func TestParseUndefinedKeysHaveNoValue(t *testing.T) {
	data := []byte(`instanceTypes:
- name: small
  labels: {kubernetes.io/arch: amd64}
  capacity: {cpu: "2", memory: 4Gi, pods: "10"}
  offerings: [{zone: z1, capacityType: on-demand, price: 0.1}]
- name: big
  labels: {kubernetes.io/arch: amd64, node.kubernetes.io/instance-type: big}
  capacity: {cpu: "8", memory: 16Gi, pods: "10"}
  offerings: [{zone: z1, capacityType: on-demand, price: 0.4}]
`)
	types, _, err := Parse(data, "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range types {
		if got := it.Requirements.Get(v1.LabelInstanceType); !got.Has(it.Name) {
			t.Errorf("%s: instance-type requirement %s does not hold its own name", it.Name, got)
		}
		for _, k := range []string{v1.LabelOS, v1.LabelTopologyRegion, v1.LabelWindowsBuild} {
			if op := it.Requirements.Get(k).Operator(); op != "DoesNotExist" {
				t.Errorf("%s: %s is %s, want DoesNotExist (the catalog gives it no value)", it.Name, k, op)
			}
		}
	}
}
