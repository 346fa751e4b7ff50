package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Plan shapes of a third random stream (so the base and shapes.go draws of a seed stay what
// they were): reserved capacity (offerings with a reservation ID and a capacity of 0–3, pools
// that allow it, pods that select it), per-zone price skew, NoExecute NodePool taints and
// tolerations of every effect (tolerationSeconds, a wrong effect, any effect), equal NodePool
// weights, pod (anti-)affinity on karpenter.sh/capacity-type and on a NodePool label (team),
// labelSelector matchExpressions (In over two apps, NotIn, Exists) on spreads and affinities,
// several host ports (UDP, a hostIP), DaemonSets that select one NodePool by label; and one
// "profile" per seed at most, which concentrates a pattern that found a root cause of #15
// (profile-* features):
//   - zone-spread: every workload zone-spread, some selecting other apps too (R1: pods merely
//     selected by a spread on an open NodeClaim), more replicas;
//   - anti-zone: zonal self anti-affinity over more replicas than zones, selecting pods pinned to
//     a zone nothing offers (R6);
//   - minvalues: every NodePool with instance-type minValues, pods zone-spread (R2, R3);
//   - host-limits: tight cpu/node limits, hostname spreads with node-affinity and taint
//     policies and node selectors (R4);
//   - self-affinity: zonal self affinity with zone prices skewed (R5).

var profiles = []string{"zone-spread", "anti-zone", "minvalues", "host-limits", "self-affinity"}

// unofferedZone is a zone no generated catalog offers: a pod pinned to it never schedules.
const unofferedZone = "test-zone-x"

type moreShapes struct {
	x         *rand.Rand
	profile   string // "": none
	reserved  bool   // the catalog has reserved offerings
	noExecute bool   // some NodePool has a NoExecute taint
	taintedBy map[string]bool
	feats     []string
}

func newMoreShapes(seed uint64) *moreShapes {
	m := &moreShapes{x: rand.New(rand.NewPCG(seed^0x6a09e667f3bcc909, seed+0xbb67ae8584caa73b)), taintedBy: map[string]bool{}}
	if m.x.IntN(5) < 2 {
		m.profile = profiles[m.x.IntN(len(profiles))]
		m.feat("profile-" + m.profile)
	}
	return m
}

func (m *moreShapes) feat(f ...string) { m.feats = append(m.feats, f...) }

// catalog adds reserved offerings and skews on-demand prices per zone.
func (m *moreShapes) catalog(types []*instanceType) {
	x := m.x
	if x.IntN(4) == 0 {
		for _, t := range types {
			if t.GPUs > 0 || x.IntN(3) != 0 {
				continue
			}
			for _, o := range t.Offers {
				if o.CapacityType != "on-demand" || x.IntN(2) == 0 {
					continue
				}
				t.Reservations = append(t.Reservations, reservation{Zone: o.Zone, ID: fmt.Sprintf("cr-%s-%s", t.Name, o.Zone[len(o.Zone)-1:]),
					Capacity: x.IntN(4), Price: round4(o.Price * 0.1)})
				m.reserved = true
			}
		}
		if m.reserved {
			m.feat("catalog-reserved")
		}
	}
	if m.profile == "self-affinity" || x.IntN(5) == 0 {
		skew := map[string]float64{}
		for _, z := range allZones {
			skew[z] = 0.9 + 0.25*x.Float64()
		}
		for _, t := range types {
			for i, o := range t.Offers {
				t.Offers[i].Price = round4(o.Price * skew[o.Zone])
			}
		}
		m.feat("catalog-zone-price-skew")
	}
}

// pool adds reserved capacity, a NoExecute taint, a weight equal to an earlier pool's, and the
// profile's minValues or tight limits. earlier are the pools made before p.
func (m *moreShapes) pool(p *pool, earlier []*pool) {
	x := m.x
	if m.reserved && x.IntN(2) == 0 {
		p.CapacityTypes = append(slices.Clone(p.CapacityTypes), "reserved")
		m.feat("pool-reserved")
	}
	if len(earlier) > 0 && x.IntN(6) == 0 {
		p.NoExecute = true
		m.noExecute = true
		m.feat("pool-taint-NoExecute")
	}
	if len(earlier) > 0 && x.IntN(5) == 0 {
		p.Weight = earlier[x.IntN(len(earlier))].Weight
		m.feat("pool-weight-tie")
	}
	switch m.profile {
	case "minvalues":
		if p.MinValues == nil {
			p.MinValues = map[string]int{}
		}
		if p.MinValues["node.kubernetes.io/instance-type"] == 0 {
			p.ExtraReqs = append(p.ExtraReqs, req("node.kubernetes.io/instance-type", "Exists"))
			p.MinValues["node.kubernetes.io/instance-type"] = 2 + x.IntN(3)
		}
	case "host-limits":
		p.LimitCPU = 8 + 4*x.IntN(5)
		if x.IntN(2) == 0 {
			p.LimitNodes = 1 + x.IntN(3)
		}
	}
}

func (p *pool) noExecuteTaint() map[string]any {
	return map[string]any{"key": "dedicated", "value": p.Name, "effect": "NoExecute"}
}

// node gives a Node (or NodeClaim) document its pool's NoExecute taint.
func (m *moreShapes) node(doc map[string]any, n *node) {
	if !n.Pool.NoExecute {
		return
	}
	spec := doc["spec"].(map[string]any)
	ts, _ := spec["taints"].([]any)
	spec["taints"] = append(ts, n.Pool.noExecuteTaint())
	m.taintedBy[n.Name] = true
}

// daemonSet makes some DaemonSets select one NodePool by its team label (or avoid it).
func (m *moreShapes) daemonSet(spec map[string]any, pools []*pool) {
	var labelled []*pool
	for _, p := range pools {
		if p.Labels["team"] != "" {
			labelled = append(labelled, p)
		}
	}
	if len(labelled) == 0 || m.x.IntN(4) != 0 {
		return
	}
	p := labelled[m.x.IntN(len(labelled))]
	if m.x.IntN(2) == 0 {
		ns, _ := spec["nodeSelector"].(map[string]any)
		if ns == nil {
			ns = map[string]any{}
		}
		ns["team"] = p.Name
		spec["nodeSelector"] = ns
		m.feat("daemonset-selects-pool")
	} else {
		(&shapes{}).addNodeExpr(spec, req("team", "NotIn", p.Name))
		m.feat("daemonset-avoids-pool")
	}
	if p.Taint {
		(&shapes{}).addToleration(spec, map[string]any{"key": "team", "operator": "Exists"})
	}
}

// replicas raises a workload's replicas under the profiles that need many pods.
func (m *moreShapes) replicas(n int) int {
	switch m.profile {
	case "zone-spread", "anti-zone", "host-limits":
		return n + m.x.IntN(6)
	}
	return n
}

// pod adds the stream's pod shapes and the profile's to a pending workload's template spec.
// i is the workload's index among apps.
func (m *moreShapes) pod(spec map[string]any, i int, app string, apps []string, pools []*pool) {
	x := m.x
	pick := func(xs []string) string { return xs[x.IntN(len(xs))] }
	other := app
	if len(apps) > 1 {
		other = apps[(i+1+x.IntN(len(apps)-1))%len(apps)]
	}
	sh := &shapes{}

	if m.noExecute && x.IntN(2) == 0 {
		var np []string
		for _, p := range pools {
			if p.NoExecute {
				np = append(np, p.Name)
			}
		}
		switch x.IntN(4) {
		case 0:
			sh.addToleration(spec, map[string]any{"key": "dedicated", "operator": "Exists", "effect": "NoExecute"})
			m.feat("tolerations-NoExecute")
		case 1:
			sh.addToleration(spec, map[string]any{"key": "dedicated", "operator": "Equal", "value": pick(np), "effect": "NoExecute", "tolerationSeconds": 300})
			m.feat("tolerations-NoExecute-seconds")
		case 2:
			sh.addToleration(spec, map[string]any{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"})
			m.feat("tolerations-wrong-effect")
		default:
			sh.addToleration(spec, map[string]any{"key": "dedicated", "operator": "Exists"})
			m.feat("tolerations-any-effect")
		}
	}
	if m.reserved && x.IntN(8) == 0 {
		ns, _ := spec["nodeSelector"].(map[string]any)
		if ns == nil {
			ns = map[string]any{}
		}
		if _, taken := ns["karpenter.sh/capacity-type"]; !taken {
			ns["karpenter.sh/capacity-type"] = "reserved"
			spec["nodeSelector"] = ns
			m.feat("nodeSelector-reserved")
		}
	}

	// Pod (anti-)affinity on the capacity type or a NodePool label.
	if x.IntN(8) == 0 {
		key := pick([]string{"karpenter.sh/capacity-type", "team"})
		term := map[string]any{"topologyKey": key, "labelSelector": selector(pick([]string{app, other}))}
		kind := pick([]string{"podAffinity", "podAntiAffinity"})
		pa := ensure(ensure(spec, "affinity"), kind)
		k := "ct"
		if key == "team" {
			k = "team"
		}
		if x.IntN(2) == 0 {
			l, _ := pa["requiredDuringSchedulingIgnoredDuringExecution"].([]any)
			pa["requiredDuringSchedulingIgnoredDuringExecution"] = append(l, term)
			m.feat(kind + "-required-" + k)
		} else {
			l, _ := pa["preferredDuringSchedulingIgnoredDuringExecution"].([]any)
			pa["preferredDuringSchedulingIgnoredDuringExecution"] = append(l, map[string]any{"weight": 1 + x.IntN(100), "podAffinityTerm": term})
			m.feat(kind + "-preferred-" + k)
		}
	}

	// Host ports: a UDP one beside, or the same port on one host IP.
	if x.IntN(10) == 0 {
		c := spec["containers"].([]any)[0].(map[string]any)
		ports, _ := c["ports"].([]any)
		// The host-IP port is 8080 too, so it conflicts with other pods' 8080 on every IP; a
		// container that already has 8080 gets the UDP one instead (a pod never conflicts with
		// itself in kube-scheduler, the checker would say it does).
		if x.IntN(2) == 0 || len(ports) > 0 {
			ports = append(ports, map[string]any{"containerPort": 5353, "hostPort": 5353, "protocol": "UDP"})
			m.feat("hostPort-udp")
		} else {
			ports = append(ports, map[string]any{"containerPort": 8080, "hostPort": 8080, "hostIP": "10.0.0.1", "protocol": "TCP"})
			m.feat("hostPort-hostIP")
		}
		c["ports"] = ports
	}

	// The profile's pattern.
	switch m.profile {
	case "zone-spread":
		sel := selector(app)
		if x.IntN(3) == 0 {
			sel = map[string]any{"matchExpressions": []any{req("app", "In", app, other)}}
			m.feat("spread-selects-others")
		}
		addSpread(spec, map[string]any{"topologyKey": "topology.kubernetes.io/zone", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": sel})
		if x.IntN(3) == 0 {
			addSpread(spec, map[string]any{"topologyKey": "kubernetes.io/hostname", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector(app)})
		}
	case "anti-zone":
		switch {
		case i == 0:
			term := map[string]any{"topologyKey": "topology.kubernetes.io/zone", "labelSelector": map[string]any{"matchExpressions": []any{req("app", "In", app, other)}}}
			pa := ensure(ensure(spec, "affinity"), "podAntiAffinity")
			l, _ := pa["requiredDuringSchedulingIgnoredDuringExecution"].([]any)
			pa["requiredDuringSchedulingIgnoredDuringExecution"] = append(l, term)
		case x.IntN(2) == 0:
			ns, _ := spec["nodeSelector"].(map[string]any)
			if ns == nil {
				ns = map[string]any{}
			}
			ns["topology.kubernetes.io/zone"] = unofferedZone
			spec["nodeSelector"] = ns
			m.feat("nodeSelector-unoffered-zone")
		}
	case "minvalues":
		if x.IntN(2) == 0 {
			addSpread(spec, map[string]any{"topologyKey": "topology.kubernetes.io/zone", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector(app)})
		}
	case "host-limits":
		tsc := map[string]any{"topologyKey": "kubernetes.io/hostname", "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector(app)}
		if x.IntN(2) == 0 {
			tsc["nodeAffinityPolicy"] = pick([]string{"Honor", "Ignore"})
		}
		if x.IntN(2) == 0 {
			tsc["nodeTaintsPolicy"] = pick([]string{"Honor", "Ignore"})
		}
		addSpread(spec, tsc)
		if x.IntN(2) == 0 {
			ns, _ := spec["nodeSelector"].(map[string]any)
			if ns == nil {
				ns = map[string]any{}
			}
			if _, taken := ns["karpenter.sh/nodepool"]; !taken {
				ns["karpenter.sh/nodepool"] = pools[x.IntN(len(pools))].Name
				spec["nodeSelector"] = ns
			}
		}
	case "self-affinity":
		if x.IntN(2) == 0 {
			pa := ensure(ensure(spec, "affinity"), "podAffinity")
			l, _ := pa["requiredDuringSchedulingIgnoredDuringExecution"].([]any)
			pa["requiredDuringSchedulingIgnoredDuringExecution"] = append(l,
				map[string]any{"topologyKey": "topology.kubernetes.io/zone", "labelSelector": selector(app)})
		}
	}

	// matchExpressions selectors on spreads and affinity terms.
	if x.IntN(5) == 0 {
		m.expressionSelectors(spec, app, other)
	}
}

// addSpread appends a spread constraint unless one with the same key and mode is there (the API
// server rejects a duplicate).
func addSpread(spec map[string]any, tsc map[string]any) {
	tscs, _ := spec["topologySpreadConstraints"].([]any)
	if slices.ContainsFunc(tscs, func(t any) bool {
		o := t.(map[string]any)
		return o["topologyKey"] == tsc["topologyKey"] && o["whenUnsatisfiable"] == tsc["whenUnsatisfiable"]
	}) {
		return
	}
	spec["topologySpreadConstraints"] = append(tscs, tsc)
}

// expressionSelectors rewrites the matchLabels selectors of the spec's spreads and pod
// (anti-)affinity terms as matchExpressions: the same set, two apps, or NotIn another.
func (m *moreShapes) expressionSelectors(spec map[string]any, app, other string) {
	rewrite := func(holder map[string]any) {
		sel, _ := holder["labelSelector"].(map[string]any)
		ml, _ := sel["matchLabels"].(map[string]any)
		target, _ := ml["app"].(string)
		if target == "" || len(ml) != 1 {
			return
		}
		var e map[string]any
		switch m.x.IntN(3) {
		case 0:
			e = req("app", "In", target)
		case 1:
			e = req("app", "In", target, other)
		default:
			e = req("app", "NotIn", other)
			if other == target {
				e = req("app", "NotIn", "nobody")
			}
			holder["labelSelector"] = map[string]any{"matchExpressions": []any{e, req("version", "Exists")}}
			m.feat("selector-expressions")
			return
		}
		holder["labelSelector"] = map[string]any{"matchExpressions": []any{e}}
		m.feat("selector-expressions")
	}
	tscs, _ := spec["topologySpreadConstraints"].([]any)
	for _, t := range tscs {
		rewrite(t.(map[string]any))
	}
	aff, _ := spec["affinity"].(map[string]any)
	for _, kind := range []string{"podAffinity", "podAntiAffinity"} {
		pa, _ := aff[kind].(map[string]any)
		reqd, _ := pa["requiredDuringSchedulingIgnoredDuringExecution"].([]any)
		for _, t := range reqd {
			rewrite(t.(map[string]any))
		}
		pref, _ := pa["preferredDuringSchedulingIgnoredDuringExecution"].([]any)
		for _, t := range pref {
			if term, ok := t.(map[string]any)["podAffinityTerm"].(map[string]any); ok {
				rewrite(term)
			}
		}
	}
}

// finish gives the bound pods of NoExecute-tainted nodes a toleration for it (a pod that did
// not tolerate it would have been evicted).
func (m *moreShapes) finish(docs []map[string]any) {
	if len(m.taintedBy) == 0 {
		return
	}
	for _, d := range docs {
		if d["kind"] != "Pod" {
			continue
		}
		spec := d["spec"].(map[string]any)
		if n, _ := spec["nodeName"].(string); m.taintedBy[n] {
			(&shapes{}).addToleration(spec, map[string]any{"key": "dedicated", "operator": "Exists", "effect": "NoExecute"})
		}
	}
}
