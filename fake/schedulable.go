package fake

import (
	"fmt"

	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// The "always schedulable" mode: pods drawn with SchedulablePodSettings, for an untainted
// NodePool without limits or requirements (NodePool(name).Obj()) over types drawn by
// SchedulableInstanceTypesGenerator, can all be placed, so that a property may demand that
// Solve leaves no PodErrors. It holds because every constraint those settings draw is one a
// new node satisfies: the types offer every zone and capacity type the pods may select,
// both arches, and room for the largest pod.

// SchedulablePodSettings are settings whose pods a new node can always take (see the
// always-schedulable mode above): nodeSelectors on zone and arch, tolerations, a required
// capacity type, DoNotSchedule zone and hostname spreads (without minDomains, under the
// default node policies), hostname anti-affinity and host ports, each with probability
// one half, within DefaultPodSettings' request bounds. Zone affinity and anti-affinity,
// minDomains and nodeAffinityPolicy Ignore are left out: a zone cannot be made.
func SchedulablePodSettings() PodSettings {
	return PodSettings{ZoneSelector: 0.5, ArchSelector: 0.5, Toleration: 0.5, CapacityTypeRequirement: 0.5,
		ZoneSpread: 0.5, HostnameSpread: 0.5, HonorTaints: 0.5, HostnameAntiAffinity: 0.5, HostPort: 0.5}
}

// SchedulableInstanceTypesGenerator draws 2..most (at least 2) linux instance types named
// "sched-it-<i>", each with an available offering in every test zone for spot and on-demand
// (prices 0.001..10): the first two are large (8 CPUs, 16 GiB, 110 pods; amd64 and arm64),
// so that every pod of SchedulablePodSettings fits one; the others have 1..64 CPUs, 1..256
// GiB, 1..110 pods and an arch, as InstanceTypesGenerator draws them.
func SchedulableInstanceTypesGenerator(most int) *rapid.Generator[cloudprovider.InstanceTypes] {
	most = max(most, 2)
	return rapid.Custom(func(t *rapid.T) cloudprovider.InstanceTypes {
		n := rapid.IntRange(2, most).Draw(t, "instance-types")
		out := make(cloudprovider.InstanceTypes, 0, n)
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("sched-it-%d", i)
			var ofs cloudprovider.Offerings
			for _, z := range genZones {
				for _, ct := range []string{v1.CapacityTypeSpot, v1.CapacityTypeOnDemand} {
					price := float64(rapid.IntRange(1, 10000).Draw(t, fmt.Sprintf("%s/price-%s-%s", name, z, ct))) / 1000
					ofs = append(ofs, cloudprovider.NewOffering(z, ct, price, true))
				}
			}
			arch, cpu, memGi, pods := genArches[i%len(genArches)], 8, 16, 110
			if i >= len(genArches) {
				arch = rapid.SampledFrom(genArches).Draw(t, name+"/arch")
				cpu = rapid.IntRange(1, 64).Draw(t, name+"/cpu")
				memGi = rapid.IntRange(1, 256).Draw(t, name+"/memory-gi")
				pods = rapid.IntRange(1, 110).Draw(t, name+"/pods")
			}
			out = append(out, linuxType(name, arch, cpu, memGi, pods, ofs))
			t.Logf("%s", Describe(out[len(out)-1]))
		}
		return out
	})
}
