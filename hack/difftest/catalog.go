package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// The generated catalog: a few families (CPU:memory ratio), generations, sizes, two
// architectures, up to three zones, on-demand and spot offerings, some of them unavailable.

var allZones = []string{"test-zone-a", "test-zone-b", "test-zone-c"}

type offer struct {
	Zone, CapacityType string
	Price              float64
	Available          bool
}

type instanceType struct {
	Name, Family, Arch string
	Gen, CPU, MemGi    int
	Pods               int
	Overhead           bool
	Offers             []offer
	GPUs               int    // nvidia.com/gpu capacity (0: none)
	GPUName            string // example.com/gpu-name label when GPUs > 0
	EphemeralGi        int    // ephemeral-storage capacity (0: not listed)
	Reservations       []reservation
}

// reservation is a reserved offering (a capacity reservation) of a type in a zone.
type reservation struct {
	Zone, ID string
	Capacity int
	Price    float64
}

// allocatable CPU (millicores) and memory (MiB) after overhead.
func (t *instanceType) allocatable() (int, int) {
	if t.Overhead {
		return t.CPU*1000 - 100, t.MemGi*1024 - 256
	}
	return t.CPU * 1000, t.MemGi * 1024
}

func (t *instanceType) labels() map[string]any {
	l := map[string]any{
		"kubernetes.io/arch": t.Arch,
		"kubernetes.io/os":   "linux",
		"example.com/family": t.Family,
		"example.com/gen":    fmt.Sprint(t.Gen),
		"example.com/cpu":    fmt.Sprint(t.CPU),
	}
	if t.GPUs > 0 {
		l["example.com/gpu-name"] = t.GPUName
		l["example.com/gpu-count"] = fmt.Sprint(t.GPUs)
	}
	return l
}

type family struct {
	name  string
	ratio int // GiB per vCPU
	price float64
}

var families = []family{{"c", 2, 0.034}, {"m", 4, 0.048}, {"r", 8, 0.063}}

func genCatalog(r *rand.Rand) []*instanceType {
	zones := allZones
	if r.IntN(5) == 0 {
		zones = allZones[:2]
	}
	n := 5 + r.IntN(10)
	seen := map[string]bool{}
	var out []*instanceType
	for len(out) < n {
		f := families[r.IntN(len(families))]
		gen := 5 + r.IntN(3)
		arch, suffix := "amd64", ""
		if r.IntN(4) == 0 {
			arch, suffix = "arm64", "g"
		}
		cpu := []int{1, 2, 4, 8, 16, 32}[r.IntN(6)]
		name := fmt.Sprintf("%s%d%s-%dx%d", f.name, gen, suffix, cpu, cpu*f.ratio)
		if seen[name] {
			continue
		}
		seen[name] = true
		t := &instanceType{Name: name, Family: f.name, Arch: arch, Gen: gen, CPU: cpu, MemGi: cpu * f.ratio,
			Pods: []int{8, 29, 58, 110}[r.IntN(4)], Overhead: r.IntN(3) == 0}
		if cpu >= 8 && t.Pods == 8 {
			t.Pods = 29
		}
		base := float64(cpu) * f.price * (1 - 0.03*float64(gen-5))
		if arch == "arm64" {
			base *= 0.85
		}
		base *= 0.97 + 0.06*r.Float64()
		for _, z := range zones {
			if r.IntN(7) == 0 {
				continue
			}
			if r.IntN(10) != 0 {
				t.Offers = append(t.Offers, offer{z, "on-demand", round4(base), r.IntN(12) != 0})
			}
			if r.IntN(5) < 3 {
				t.Offers = append(t.Offers, offer{z, "spot", round4(base * (0.3 + 0.15*r.Float64())), r.IntN(8) != 0})
			}
		}
		if len(t.Offers) == 0 {
			t.Offers = append(t.Offers, offer{zones[r.IntN(len(zones))], "on-demand", round4(base), true})
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *instanceType) int { return cmpStr(a.Name, b.Name) })
	return out
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// catalogDoc renders the catalog in nodeplan's --instance-types format.
func catalogDoc(types []*instanceType) map[string]any {
	var list []any
	for _, t := range types {
		var offs []any
		for _, o := range t.Offers {
			m := map[string]any{"zone": o.Zone, "capacityType": o.CapacityType, "price": o.Price}
			if !o.Available {
				m["available"] = false
			}
			offs = append(offs, m)
		}
		for _, rv := range t.Reservations {
			offs = append(offs, map[string]any{"zone": rv.Zone, "capacityType": "reserved", "price": rv.Price,
				"reservationID": rv.ID, "reservationCapacity": rv.Capacity})
		}
		m := map[string]any{
			"name":      t.Name,
			"labels":    t.labels(),
			"capacity":  map[string]any{"cpu": fmt.Sprint(t.CPU), "memory": fmt.Sprintf("%dGi", t.MemGi), "pods": fmt.Sprint(t.Pods)},
			"offerings": offs,
		}
		capacity := m["capacity"].(map[string]any)
		if t.GPUs > 0 {
			capacity["nvidia.com/gpu"] = fmt.Sprint(t.GPUs)
		}
		if t.EphemeralGi > 0 {
			capacity["ephemeral-storage"] = fmt.Sprintf("%dGi", t.EphemeralGi)
		}
		if t.Overhead {
			m["overhead"] = map[string]any{"cpu": "100m", "memory": "256Mi"}
		}
		list = append(list, m)
	}
	return map[string]any{"instanceTypes": list}
}
