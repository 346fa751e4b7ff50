package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/requirements"
)

// scannedLaunch is cheapestLaunch as it was before the offerings' launch order: a scan over
// types in index order keeping the cheapest that fits, ties by name.
func scannedLaunch(t *template, reqs requirements.Requirements, types bitset, fits func(int) bool) int {
	info := t.offerings(reqs)
	best := -1
	types.each(func(i int) bool {
		o := info.cheapest[i]
		if o == nil {
			return true
		}
		if best >= 0 && (o.Price > info.cheapest[best].Price ||
			o.Price == info.cheapest[best].Price && t.types[i].it.Name > t.types[best].it.Name) {
			return true
		}
		if fits(i) {
			best = i
		}
		return true
	})
	return best
}

// TestCheapestLaunchAsScanned: walking the offerings' types cheapest first and stopping at
// the first of the set that fits picks the type (and offering) the scan over every type of
// the set picked: few prices (ties by name), names in no order of the types', zones
// unavailable, any set and any fits filter.
func TestCheapestLaunchAsScanned(t *testing.T) {
	zones := []string{"test-zone-1", "test-zone-2"}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 150).Draw(rt, "types")
		names := rapid.Permutation(rapidNames(n)).Draw(rt, "names")
		var types cloudprovider.InstanceTypes
		for i := range n {
			var offers cloudprovider.Offerings
			for _, z := range zones {
				price := float64(rapid.IntRange(1, 4).Draw(rt, "price")) / 4
				offers = append(offers, cloudprovider.NewOffering(z, v1.CapacityTypeOnDemand, price, rapid.IntRange(0, 4).Draw(rt, "available") > 0))
			}
			types = append(types, fake.NewInstanceType(fake.InstanceTypeOptions{Name: names[i], Offerings: offers}))
		}
		offers := append([]*cloudprovider.Offering(nil), types[0].Offerings...)
		offers[0] = cloudprovider.NewOffering(zones[0], v1.CapacityTypeOnDemand, 1, true) // one launchable type at least
		types[0] = fake.NewInstanceType(fake.InstanceTypeOptions{Name: names[0], Offerings: offers})
		snap, err := cluster.New(cluster.Objects{NodePools: []*v1.NodePool{fake.NodePool("default").Obj()},
			InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}, WellKnownLabels: fake.WellKnownLabels()})
		require.NoError(rt, err)
		s, _, err := prepare(snap, Options{}, nil, true)
		require.NoError(rt, err)
		require.Len(rt, s.templates, 1)
		tmpl := s.templates[0]
		for range rapid.IntRange(1, 10).Draw(rt, "queries") {
			set, fitting := newBitset(len(tmpl.types)), newBitset(len(tmpl.types))
			for i := range tmpl.types {
				if rapid.IntRange(0, 3).Draw(rt, "in") > 0 {
					set.set(i)
				}
				if rapid.IntRange(0, 2).Draw(rt, "fits") > 0 {
					fitting.set(i)
				}
			}
			reqs := requirements.NewRequirements()
			if z := rapid.IntRange(-1, len(zones)-1).Draw(rt, "zone"); z >= 0 {
				reqs = requirements.NewRequirements(requirements.MustNew(v1.LabelTopologyZone, requirements.In, zones[z]))
			}
			want := scannedLaunch(tmpl, reqs, set, fitting.has)
			got, ok := cheapestLaunch(tmpl, reqs, set, fitting.has)
			if !ok {
				got.i = -1
			}
			if got.i != want {
				rt.Fatalf("cheapest first picks type %d, the scan %d", got.i, want)
			}
			if ok && got.o != tmpl.offerings(reqs).cheapest[want] {
				rt.Fatalf("offering %v, want the type's cheapest", got.o)
			}
		}
	})
}

// rapidNames are n distinct instance-type names.
func rapidNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("t%03d", i)
	}
	return names
}
