package cloudprovider

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

func reqs(t *testing.T, rs ...v1.NodeSelectorRequirementWithMinValues) requirements.Requirements {
	t.Helper()
	out, err := requirements.FromNodeSelectorRequirements(rs...)
	require.NoError(t, err)
	return out
}

func nsr(key string, op corev1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirementWithMinValues {
	return v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
}

func withMin(r v1.NodeSelectorRequirementWithMinValues, n int) v1.NodeSelectorRequirementWithMinValues {
	r.MinValues = &n
	return r
}

// newType builds a test instance type; its requirements define instance-type, family and the
// union of the offerings' zones and capacity types.
func newType(name, family string, ofs ...*Offering) *InstanceType {
	zones, cts := []string{}, []string{}
	for _, o := range ofs {
		zones = append(zones, o.Zone())
		cts = append(cts, o.CapacityType())
	}
	rs := requirements.NewRequirements(
		requirements.MustNew(v1.LabelInstanceType, requirements.In, name),
		requirements.MustNew("family", requirements.In, family),
	)
	if len(ofs) > 0 {
		rs.Add(requirements.MustNew(v1.LabelTopologyZone, requirements.In, zones...))
		rs.Add(requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, cts...))
	}
	return &InstanceType{
		Name:         name,
		Requirements: rs,
		Offerings:    ofs,
		Capacity:     corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
	}
}

func names(its InstanceTypes) []string {
	out := []string{}
	for _, it := range its {
		out = append(out, it.Name)
	}
	return out
}

func TestAllocatableHugepages(t *testing.T) {
	it := &InstanceType{
		Name: "huge",
		Capacity: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("5"),
			corev1.ResourceMemory: resource.MustParse("20Gi"),
			"hugepages-2Mi":       resource.MustParse("5Gi"),
			"hugepages-1Gi":       resource.MustParse("10Gi"),
		},
		Overhead: &InstanceTypeOverhead{KubeReserved: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("125m"),
			corev1.ResourceMemory: resource.MustParse("1Gi"),
		}},
	}
	alloc := it.Allocatable()
	cpu, mem := alloc[corev1.ResourceCPU], alloc[corev1.ResourceMemory]
	assert.Equal(t, int64(4875), cpu.MilliValue())
	assert.True(t, mem.Equal(resource.MustParse("4Gi")), mem.String())

	over := &InstanceType{Capacity: corev1.ResourceList{
		corev1.ResourceMemory: resource.MustParse("4Gi"),
		"hugepages-1Gi":       resource.MustParse("8Gi"),
	}}
	mem = over.Allocatable()[corev1.ResourceMemory]
	assert.Equal(t, int64(0), mem.Value(), "hugepages beyond memory floor at zero")
}

func TestAllocatableWithoutOverhead(t *testing.T) {
	it := &InstanceType{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}}
	cpu := it.Allocatable()[corev1.ResourceCPU]
	assert.Equal(t, int64(2000), cpu.MilliValue())
}

func TestOfferingAccessors(t *testing.T) {
	o := NewOffering("zone-a", v1.CapacityTypeSpot, 0.5, true)
	assert.Equal(t, "zone-a", o.Zone())
	assert.Equal(t, v1.CapacityTypeSpot, o.CapacityType())
	assert.Equal(t, "", o.ReservationID())
	assert.True(t, o.Available)
	r := NewReservedOffering("zone-b", "cr-1", 0.2, 3)
	assert.Equal(t, "cr-1", r.ReservationID())
	assert.Equal(t, v1.CapacityTypeReserved, r.CapacityType())
	assert.Equal(t, 3, r.ReservationCapacity)
	assert.True(t, r.Available)
	assert.False(t, NewReservedOffering("zone-b", "cr-2", 0.2, 0).Available)
}

func TestOfferingsAvailableCompatible(t *testing.T) {
	a := NewOffering("z1", v1.CapacityTypeSpot, 0.1, true)
	b := NewOffering("z2", v1.CapacityTypeSpot, 0.2, false)
	c := NewOffering("z2", v1.CapacityTypeOnDemand, 0.3, true)
	d := NewReservedOffering("z1", "cr-1", 0.05, 1)
	ofs := Offerings{a, b, c, d}

	assert.Equal(t, Offerings{a, c, d}, ofs.Available())
	cases := []struct {
		name string
		reqs requirements.Requirements
		want Offerings
	}{
		{"no requirements", reqs(t), Offerings{a, b, c, d}},
		{"zone", reqs(t, nsr(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, "z2")), Offerings{b, c}},
		{"capacity type", reqs(t, nsr(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot")), Offerings{a, b}},
		{"not in", reqs(t, nsr(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpNotIn, "spot")), Offerings{c, d}},
		{"reservation", reqs(t, nsr(ReservationIDLabel, corev1.NodeSelectorOpIn, "cr-1")), Offerings{d}},
		{"zone and type", reqs(t,
			nsr(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, "z1"),
			nsr(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand")), nil},
		{"unrelated key", reqs(t, nsr("team", corev1.NodeSelectorOpIn, "a")), Offerings{a, b, c, d}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ofs.Compatible(tc.reqs)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, len(tc.want) > 0, ofs.HasCompatible(tc.reqs))
		})
	}
	assert.Nil(t, Offerings{}.Available())
	assert.False(t, Offerings{}.HasCompatible(reqs(t)))
}

func TestCheapestMostExpensive(t *testing.T) {
	cases := []struct {
		name            string
		ofs             Offerings
		cheapest, worst string // zone/capacity type
	}{
		{"empty", nil, "", ""},
		{"single", Offerings{NewOffering("z1", "spot", 1, true)}, "z1/spot", "z1/spot"},
		{"by price", Offerings{
			NewOffering("z1", "on-demand", 3, true),
			NewOffering("z2", "spot", 1, true),
			NewOffering("z3", "spot", 2, true),
		}, "z2/spot", "z1/on-demand"},
		{"ties by capacity type (spot before on-demand, as a launch) then zone", Offerings{
			NewOffering("z2", "spot", 1, true),
			NewOffering("z1", "spot", 1, true),
			NewOffering("z1", "on-demand", 1, true),
		}, "z1/spot", "z1/spot"},
		{"a tie prefers spot in another zone to on-demand", Offerings{
			NewOffering("z1", "on-demand", 1, true),
			NewOffering("z2", "spot", 1, true),
		}, "z2/spot", "z2/spot"},
		{"NaN is most expensive", Offerings{
			NewOffering("z1", "spot", math.NaN(), true),
			NewOffering("z2", "spot", 5, true),
		}, "z2/spot", "z1/spot"},
		{"Inf and zero", Offerings{
			NewOffering("z1", "spot", math.Inf(1), true),
			NewOffering("z2", "spot", 0, true),
			NewOffering("z3", "spot", math.Inf(-1), true),
		}, "z3/spot", "z1/spot"},
	}
	key := func(o *Offering) string {
		if o == nil {
			return ""
		}
		return o.Zone() + "/" + o.CapacityType()
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.cheapest, key(tc.ofs.Cheapest()))
			assert.Equal(t, tc.worst, key(tc.ofs.MostExpensive()))
			// order independence
			rev := make(Offerings, len(tc.ofs))
			for i, o := range tc.ofs {
				rev[len(tc.ofs)-1-i] = o
			}
			assert.Equal(t, tc.cheapest, key(rev.Cheapest()))
			assert.Equal(t, tc.worst, key(rev.MostExpensive()))
		})
	}
}

func TestWorstLaunchPrice(t *testing.T) {
	ofs := Offerings{
		NewOffering("z1", "on-demand", 1.0, true),
		NewOffering("z2", "on-demand", 1.2, true),
		NewOffering("z1", "spot", 0.3, true),
		NewOffering("z2", "spot", 0.4, true),
		NewReservedOffering("z1", "cr-1", 0.5, 2),
	}
	cases := []struct {
		name string
		reqs requirements.Requirements
		want float64
	}{
		{"reserved first", reqs(t), 0.5},
		{"spot when no reserved", reqs(t, nsr(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot", "on-demand")), 0.4},
		{"on-demand only", reqs(t, nsr(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "on-demand")), 1.2},
		{"zone restricts", reqs(t, nsr(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, "z2")), 0.4},
		{"none", reqs(t, nsr(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, "z9")), math.Inf(1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ofs.WorstLaunchPrice(tc.reqs))
		})
	}
	assert.Equal(t, math.Inf(1), Offerings(nil).WorstLaunchPrice(reqs(t)))
}

func TestOrderByPrice(t *testing.T) {
	cheapZ2 := newType("c", "x", NewOffering("z1", "on-demand", 5, true), NewOffering("z2", "spot", 0.5, true))
	mid := newType("b", "x", NewOffering("z1", "on-demand", 1, true))
	tieA := newType("a", "x", NewOffering("z1", "on-demand", 1, true))
	unavailable := newType("d", "x", NewOffering("z1", "on-demand", 0.01, false))
	none := newType("e", "x")
	its := InstanceTypes{none, unavailable, mid, cheapZ2, tieA}
	before := names(its)

	cases := []struct {
		name string
		reqs requirements.Requirements
		want []string
	}{
		{"any", reqs(t), []string{"c", "a", "b", "d", "e"}},
		{"zone z1 only", reqs(t, nsr(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, "z1")), []string{"a", "b", "c", "d", "e"}},
		{"spot only", reqs(t, nsr(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot")), []string{"c", "a", "b", "d", "e"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, names(its.OrderByPrice(tc.reqs)))
			assert.Equal(t, before, names(its), "receiver not modified")
		})
	}
	// spot only: a and b have no spot offering, so they sort after c but keep name order.
	assert.Empty(t, InstanceTypes(nil).OrderByPrice(reqs(t)))
}

func TestOrderByPriceOddPrices(t *testing.T) {
	its := InstanceTypes{
		newType("nan", "x", NewOffering("z1", "spot", math.NaN(), true)),
		newType("inf", "x", NewOffering("z1", "spot", math.Inf(1), true)),
		newType("zero", "x", NewOffering("z1", "spot", 0, true)),
		newType("neg-inf", "x", NewOffering("z1", "spot", math.Inf(-1), true)),
		newType("one", "x", NewOffering("z1", "spot", 1, true)),
		newType("nan2", "x", NewOffering("z1", "spot", math.NaN(), true), NewOffering("z2", "spot", 2, true)),
		nil,
	}
	got := names(its.OrderByPrice(reqs(t)))
	assert.Equal(t, []string{"neg-inf", "zero", "one", "nan2", "inf", "nan"}, got)
	// deterministic whatever the input order
	rev := make(InstanceTypes, len(its))
	for i, it := range its {
		rev[len(its)-1-i] = it
	}
	assert.Equal(t, got, names(rev.OrderByPrice(reqs(t))))
}

func TestInstanceTypesCompatible(t *testing.T) {
	a := newType("a", "x", NewOffering("z1", "spot", 1, true))
	b := newType("b", "y", NewOffering("z2", "on-demand", 1, true))
	c := newType("c", "x", NewOffering("z2", "on-demand", 1, false))
	its := InstanceTypes{a, b, c}
	cases := []struct {
		name string
		reqs requirements.Requirements
		want []string
	}{
		{"all available", reqs(t), []string{"a", "b"}},
		{"family", reqs(t, nsr("family", corev1.NodeSelectorOpIn, "x")), []string{"a"}},
		{"zone", reqs(t, nsr(v1.LabelTopologyZone, corev1.NodeSelectorOpIn, "z2")), []string{"b"}},
		{"instance type", reqs(t, nsr(v1.LabelInstanceType, corev1.NodeSelectorOpNotIn, "a")), []string{"b"}},
		{"nothing", reqs(t, nsr("family", corev1.NodeSelectorOpIn, "z")), []string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, names(its.Compatible(tc.reqs)))
		})
	}
}

func TestSatisfiesMinValues(t *testing.T) {
	its := InstanceTypes{
		newType("a", "x", NewOffering("z1", "spot", 1, true)),
		newType("b", "x", NewOffering("z1", "spot", 2, true), NewOffering("z2", "spot", 2, false)),
		newType("c", "y", NewOffering("z2", "spot", 3, true)),
		newType("d", "z", NewOffering("z3", "on-demand", 4, true)),
	}
	cases := []struct {
		name        string
		reqs        requirements.Requirements
		minNeeded   int
		unsatisfied map[string]int
		wantErr     bool
	}{
		{"no minValues", reqs(t, nsr("family", corev1.NodeSelectorOpExists)), 0, nil, false},
		{"family 2", reqs(t, withMin(nsr("family", corev1.NodeSelectorOpExists), 2)), 3, nil, false},
		{"family 3", reqs(t, withMin(nsr("family", corev1.NodeSelectorOpExists), 3)), 4, nil, false},
		{"family 4 unsatisfiable", reqs(t, withMin(nsr("family", corev1.NodeSelectorOpExists), 4)), 4,
			map[string]int{"family": 3}, true},
		{"only admitted values count", reqs(t, withMin(nsr("family", corev1.NodeSelectorOpIn, "x", "z"), 2)), 4, nil, false},
		{"instance type", reqs(t, withMin(nsr(v1.LabelInstanceType, corev1.NodeSelectorOpExists), 2)), 2, nil, false},
		{"zones from available offerings", reqs(t, withMin(nsr(v1.LabelTopologyZone, corev1.NodeSelectorOpExists), 2)), 3, nil, false},
		{"capacity types", reqs(t, withMin(nsr(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpExists), 2)), 4, nil, false},
		{"two keys, one short", reqs(t,
			withMin(nsr("family", corev1.NodeSelectorOpExists), 2),
			withMin(nsr(v1.LabelTopologyZone, corev1.NodeSelectorOpExists), 4)), 4,
			map[string]int{v1.LabelTopologyZone: 3}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, unsat, err := its.SatisfiesMinValues(tc.reqs)
			assert.Equal(t, tc.minNeeded, n)
			assert.Equal(t, tc.unsatisfied, unsat)
			if tc.wantErr {
				assert.Error(t, err)
			} else {
				assert.NoError(t, err)
			}
		})
	}
	n, unsat, err := InstanceTypes(nil).SatisfiesMinValues(reqs(t, withMin(nsr("family", corev1.NodeSelectorOpExists), 1)))
	assert.Equal(t, 0, n)
	assert.Equal(t, map[string]int{"family": 0}, unsat)
	assert.Error(t, err)
}

func TestTruncate(t *testing.T) {
	its := InstanceTypes{
		newType("d", "z", NewOffering("z1", "spot", 4, true)),
		newType("c", "y", NewOffering("z1", "spot", 3, true)),
		newType("b", "x", NewOffering("z1", "spot", 2, true)),
		newType("a", "x", NewOffering("z1", "spot", 1, true)),
	}
	got, err := its.Truncate(reqs(t), 2)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, names(got))

	got, err = its.Truncate(reqs(t), 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "d"}, names(got))

	got, err = its.Truncate(reqs(t, withMin(nsr("family", corev1.NodeSelectorOpExists), 2)), 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, names(got))

	got, err = its.Truncate(reqs(t, withMin(nsr("family", corev1.NodeSelectorOpExists), 2)), 2)
	assert.Error(t, err)
	assert.Equal(t, names(its), names(got), "input returned unchanged on error")

	got, err = its.Truncate(reqs(t), 0)
	require.NoError(t, err)
	assert.Empty(t, got)

	_, err = its.Truncate(reqs(t), -1)
	assert.Error(t, err)
}
