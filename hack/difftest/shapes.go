package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Plan shapes beyond the base generator: GPU and ephemeral-storage capacity, NodePool
// requirement operators, minValues, PreferNoSchedule and GPU taints, memory limits, pods in a
// second namespace with cross-namespace (anti-)affinity, node-affinity operators, more spread
// constraints (matchLabelKeys, node affinity/taint policies), extended-resource and
// ephemeral-storage requests, limits without requests, pod overhead, priority, DaemonSets with
// node affinity and tolerations, volumes of a StorageClass with allowedTopologies.
//
// They draw from their own random stream, so a seed's base shapes stay what they were and every
// new shape comes on top at a moderate rate.

// shapes is the per-input state of the extra shapes.
type shapes struct {
	x          *rand.Rand
	gpu        bool // the catalog has GPU types
	ephemeral  bool // the catalog lists ephemeral-storage
	namespaces bool // a second namespace, team-b
	moved      map[string]bool
	zonalSC    bool // StorageClass "zonal" written
	immediate  bool // StorageClass "fast-immediate" written
	feats      []string
}

func newShapes(seed uint64) *shapes {
	return &shapes{x: rand.New(rand.NewPCG(seed^0x51ed270b, seed+0x2545f491)), moved: map[string]bool{}}
}

func (s *shapes) feat(f ...string) { s.feats = append(s.feats, f...) }

// catalog adds GPU types and ephemeral-storage capacity.
func (s *shapes) catalog(types []*instanceType, zones []string) []*instanceType {
	x := s.x
	if x.IntN(3) == 0 {
		s.ephemeral = true
		for _, t := range types {
			t.EphemeralGi = []int{20, 50, 100}[x.IntN(3)]
		}
		s.feat("catalog-ephemeral-storage")
	}
	if x.IntN(4) == 0 {
		s.gpu = true
		for i := range 1 + x.IntN(3) {
			gpus := []int{1, 1, 4, 8}[x.IntN(4)]
			name := []string{"t4", "a10g", "l4"}[x.IntN(3)]
			cpu := 4 * gpus * (1 + i%2)
			t := &instanceType{Name: fmt.Sprintf("g%d-%dx%d-%s", 4+i, cpu, cpu*4, name), Family: "g", Arch: "amd64", Gen: 5 + i,
				CPU: cpu, MemGi: cpu * 4, Pods: 58, GPUs: gpus, GPUName: name}
			if s.ephemeral {
				t.EphemeralGi = 200
			}
			base := float64(cpu)*0.05 + float64(gpus)*0.5
			for _, z := range zones {
				if x.IntN(4) == 0 {
					continue
				}
				t.Offers = append(t.Offers, offer{z, "on-demand", round4(base), x.IntN(10) != 0})
				if x.IntN(2) == 0 {
					t.Offers = append(t.Offers, offer{z, "spot", round4(base * 0.4), true})
				}
			}
			if len(t.Offers) == 0 {
				t.Offers = append(t.Offers, offer{zones[0], "on-demand", round4(base), true})
			}
			if !slices.ContainsFunc(types, func(o *instanceType) bool { return o.Name == t.Name }) {
				types = append(types, t)
			}
		}
		slices.SortFunc(types, func(a, b *instanceType) int { return cmpStr(a.Name, b.Name) })
		s.feat("catalog-gpu")
	}
	return types
}

// pool adds requirement operators, minValues, taints and a memory limit to a generated pool.
func (s *shapes) pool(p *pool, types []*instanceType) {
	x := s.x
	if x.IntN(7) == 0 {
		f := families[x.IntN(len(families))].name
		p.ExcludeFamily = f
		s.feat("pool-req-NotIn")
	}
	if s.gpu && x.IntN(2) == 0 {
		p.GPU = -1
		s.feat("pool-req-DoesNotExist")
	}
	if x.IntN(8) == 0 {
		p.ExtraReqs = append(p.ExtraReqs, req("example.com/gen", "Exists"))
		s.feat("pool-req-Exists")
	}
	if x.IntN(10) == 0 {
		p.ExtraReqs = append(p.ExtraReqs, req("example.com/cpu", "Lt", "64"))
		s.feat("pool-req-Lt")
	}
	if x.IntN(6) == 0 {
		p.MinValues = map[string]int{}
		switch {
		case len(p.Families) >= 2 && x.IntN(2) == 0:
			p.MinValues["example.com/family"] = 2
		default:
			p.ExtraReqs = append(p.ExtraReqs, req("node.kubernetes.io/instance-type", "Exists"))
			p.MinValues["node.kubernetes.io/instance-type"] = 2 + x.IntN(3)
		}
		s.feat("pool-minValues")
	}
	if x.IntN(7) == 0 {
		p.PreferTaint = true
		s.feat("pool-taint-PreferNoSchedule")
	}
	if x.IntN(6) == 0 {
		p.LimitMemGi = 32 * (1 + x.IntN(8))
		s.feat("limits-memory")
	}
	if !slices.ContainsFunc(types, p.allowsType) {
		p.ExcludeFamily, p.GPU = "", 0
	}
}

// gpuPool is a NodePool for GPU types only, tainted nvidia.com/gpu.
func (s *shapes) gpuPool(i int) *pool {
	x := s.x
	p := &pool{Name: fmt.Sprintf("pool-%d", i), Hash: fmt.Sprint(1000 + i), GPU: 1, GPUTaint: x.IntN(3) != 0,
		CapacityTypes: [][]string{{"on-demand"}, {"spot", "on-demand"}}[x.IntN(2)], Labels: map[string]string{"team": fmt.Sprintf("pool-%d", i)}}
	if x.IntN(3) == 0 {
		p.Weight = 10
	}
	if x.IntN(3) == 0 {
		p.LimitCPU = 64
	}
	s.feat("pool-gpu")
	return p
}

// node gives a Node (or NodeClaim) document the extra taints and resources of its pool and type.
func (s *shapes) node(doc map[string]any, n *node) {
	spec := doc["spec"].(map[string]any)
	var extra []any
	if n.Pool.GPUTaint {
		extra = append(extra, map[string]any{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"})
	}
	if n.Pool.PreferTaint {
		extra = append(extra, map[string]any{"key": "example.com/spare", "value": "true", "effect": "PreferNoSchedule"})
	}
	if extra != nil {
		ts, _ := spec["taints"].([]any)
		spec["taints"] = append(ts, extra...)
	}
	if doc["kind"] != "Node" {
		return
	}
	st := doc["status"].(map[string]any)
	for _, k := range []string{"capacity", "allocatable"} {
		rl := st[k].(map[string]any)
		if n.Type.GPUs > 0 {
			rl["nvidia.com/gpu"] = fmt.Sprint(n.Type.GPUs)
		}
		if n.Type.EphemeralGi > 0 {
			rl["ephemeral-storage"] = fmt.Sprintf("%dGi", n.Type.EphemeralGi)
		}
	}
}

// chooseNamespaces moves some apps into namespace team-b and returns the Namespace documents.
func (s *shapes) chooseNamespaces(apps []string) []map[string]any {
	if s.x.IntN(4) != 0 {
		return nil
	}
	s.namespaces = true
	for _, a := range apps {
		if s.x.IntN(3) == 0 {
			s.moved[a] = true
		}
	}
	s.feat("namespaces")
	ns := func(name, env string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": name, "labels": map[string]any{"env": env}}}
	}
	return []map[string]any{ns("default", "prod"), ns("team-b", "dev")}
}

// relocate puts the documents of moved apps into team-b and gives bound pods a version label
// (which matchLabelKeys reads).
func (s *shapes) relocate(docs []map[string]any) {
	for _, d := range docs {
		meta, _ := d["metadata"].(map[string]any)
		if meta == nil {
			continue
		}
		switch d["kind"] {
		case "Pod":
			labels := meta["labels"].(map[string]any)
			app, _ := labels["app"].(string)
			if s.moved[app] {
				meta["namespace"] = "team-b"
			}
			if spec := d["spec"].(map[string]any); spec["nodeName"] != nil {
				labels["version"] = []string{"v1", "v2"}[s.x.IntN(2)]
			}
		case "Deployment":
			if s.moved[meta["name"].(string)] {
				meta["namespace"] = "team-b"
			}
		}
	}
}

// podShapes adds the extra pod-spec shapes to a pending workload's template spec and labels.
func (s *shapes) podShapes(spec, labels map[string]any, app string, others []string, pools []*pool, zones []string) {
	x := s.x
	pick := func(xs []string) string { return xs[x.IntN(len(xs))] }
	labels["version"] = "v2"
	cs := spec["containers"].([]any)
	main := cs[0].(map[string]any)
	res := main["resources"].(map[string]any)
	reqs := res["requests"].(map[string]any)

	// Resources.
	if s.ephemeral && x.IntN(4) == 0 {
		reqs["ephemeral-storage"] = fmt.Sprintf("%dGi", []int{1, 5, 10, 30, 60}[x.IntN(5)])
		s.feat("request-ephemeral-storage")
	}
	if s.gpu && x.IntN(3) == 0 {
		res["limits"] = map[string]any{"nvidia.com/gpu": fmt.Sprint([]int{1, 1, 2, 4}[x.IntN(4)])}
		s.addToleration(spec, map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"})
		s.feat("request-gpu")
		if x.IntN(3) == 0 {
			s.addNodeExpr(spec, req("example.com/gpu-name", "In", pick([]string{"t4", "a10g", "l4"})))
			s.feat("nodeAffinity-gpu-name")
		}
	} else if x.IntN(10) == 0 {
		// Limits only: the API server requests them at the limit.
		res["limits"] = reqs
		delete(res, "requests")
		s.feat("limits-without-requests")
	}
	if x.IntN(10) == 0 {
		spec["overhead"] = map[string]any{"cpu": pick([]string{"100m", "250m"}), "memory": pick([]string{"64Mi", "160Mi"})}
		spec["runtimeClassName"] = "kata"
		s.feat("pod-overhead")
	}
	if x.IntN(6) == 0 {
		spec["priorityClassName"] = pick([]string{"high", "low"})
		spec["priority"] = map[string]int{"high": 1000, "low": -10}[spec["priorityClassName"].(string)]
		s.feat("priority")
	}

	// Node affinity with other operators.
	if x.IntN(5) == 0 {
		var e map[string]any
		switch x.IntN(7) {
		case 0:
			e = req("example.com/cpu", "Lt", pick([]string{"5", "9", "17"}))
		case 1:
			e = req("topology.kubernetes.io/zone", "NotIn", pick(zones))
		case 2:
			e = req("karpenter.sh/capacity-type", "NotIn", "spot")
		case 3:
			e = req("team", "Exists")
		case 4:
			e = req("team", "DoesNotExist")
		case 5:
			e = req("karpenter.sh/nodepool", "In", pools[x.IntN(len(pools))].Name)
		default:
			e = req("example.com/gen", "Gt", "5")
		}
		s.addNodeExpr(spec, e)
		s.feat("nodeAffinity-op-" + e["operator"].(string))
	}
	if x.IntN(8) == 0 {
		aff := ensure(spec, "affinity")
		na := ensure(aff, "nodeAffinity")
		pref, _ := na["preferredDuringSchedulingIgnoredDuringExecution"].([]any)
		pref = append(pref,
			map[string]any{"weight": 80, "preference": map[string]any{"matchExpressions": []any{req("example.com/family", "In", pick([]string{"c", "m", "r"}))}}},
			map[string]any{"weight": 20, "preference": map[string]any{"matchExpressions": []any{req("example.com/cpu", "Gt", "7")}}})
		na["preferredDuringSchedulingIgnoredDuringExecution"] = pref
		s.feat("nodeAffinity-preferred-multi")
	}

	// PreferNoSchedule taints: some pods tolerate them.
	if slices.ContainsFunc(pools, func(p *pool) bool { return p.PreferTaint }) && x.IntN(3) == 0 {
		s.addToleration(spec, map[string]any{"key": "example.com/spare", "operator": "Exists", "effect": "PreferNoSchedule"})
		s.feat("tolerations-PreferNoSchedule")
	}
	if x.IntN(20) == 0 {
		s.addToleration(spec, map[string]any{"operator": "Exists"})
		s.feat("tolerations-all")
	}

	// Spread constraints: policies on existing ones, matchLabelKeys, another key.
	tscs, _ := spec["topologySpreadConstraints"].([]any)
	for _, t := range tscs {
		s.spreadPolicies(t.(map[string]any))
	}
	if x.IntN(5) == 0 {
		key, k := "topology.kubernetes.io/zone", "zone"
		switch x.IntN(4) {
		case 0:
			key, k = "kubernetes.io/hostname", "host"
		case 1:
			key, k = "karpenter.sh/capacity-type", "capacity-type"
		}
		mode := []string{"DoNotSchedule", "ScheduleAnyway"}[x.IntN(2)]
		dup := slices.ContainsFunc(tscs, func(t any) bool {
			m := t.(map[string]any)
			return m["topologyKey"] == key && m["whenUnsatisfiable"] == mode
		})
		if !dup {
			tsc := map[string]any{"topologyKey": key, "maxSkew": 1 + x.IntN(2), "whenUnsatisfiable": mode, "labelSelector": selector(app)}
			if x.IntN(2) == 0 {
				tsc["matchLabelKeys"] = []any{"version"}
				s.feat("spread-matchLabelKeys")
			}
			s.spreadPolicies(tsc)
			tscs = append(tscs, tsc)
			spec["topologySpreadConstraints"] = tscs
			s.feat("spread-extra-"+k+"-"+mode, "spread-multiple")
		}
	}

	// Cross-namespace pod (anti-)affinity.
	if s.namespaces && x.IntN(4) == 0 {
		target := app
		if len(others) > 0 && x.IntN(3) != 0 {
			target = pick(others)
		}
		key := pick([]string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"})
		term := map[string]any{"topologyKey": key, "labelSelector": selector(target)}
		switch x.IntN(3) {
		case 0:
			term["namespaces"] = []any{"team-b", "default"}
			s.feat("podAffinity-namespaces")
		case 1:
			term["namespaceSelector"] = map[string]any{"matchLabels": map[string]any{"env": pick([]string{"dev", "prod"})}}
			s.feat("podAffinity-namespaceSelector")
		default:
			term["namespaceSelector"] = map[string]any{}
			s.feat("podAffinity-namespaceSelector-all")
		}
		kind := pick([]string{"podAffinity", "podAntiAffinity"})
		aff := ensure(spec, "affinity")
		pa := ensure(aff, kind)
		if x.IntN(2) == 0 {
			l, _ := pa["requiredDuringSchedulingIgnoredDuringExecution"].([]any)
			pa["requiredDuringSchedulingIgnoredDuringExecution"] = append(l, term)
			s.feat(kind + "-ns-required")
		} else {
			l, _ := pa["preferredDuringSchedulingIgnoredDuringExecution"].([]any)
			pa["preferredDuringSchedulingIgnoredDuringExecution"] = append(l, map[string]any{"weight": 30, "podAffinityTerm": term})
			s.feat(kind + "-ns-preferred")
		}
	}
}

func (s *shapes) spreadPolicies(tsc map[string]any) {
	if s.x.IntN(4) == 0 {
		tsc["nodeAffinityPolicy"] = []string{"Honor", "Ignore"}[s.x.IntN(2)]
		s.feat("spread-nodeAffinityPolicy-" + tsc["nodeAffinityPolicy"].(string))
	}
	if s.x.IntN(4) == 0 {
		tsc["nodeTaintsPolicy"] = []string{"Honor", "Ignore"}[s.x.IntN(2)]
		s.feat("spread-nodeTaintsPolicy-" + tsc["nodeTaintsPolicy"].(string))
	}
}

// daemonSet adds node affinity, tolerations and ephemeral-storage requests to a DaemonSet's pod spec.
func (s *shapes) daemonSet(spec map[string]any) {
	x := s.x
	if x.IntN(3) == 0 {
		e := []map[string]any{req("kubernetes.io/arch", "In", "amd64"), req("karpenter.sh/capacity-type", "In", "on-demand"),
			req("team", "DoesNotExist"), req("example.com/cpu", "Gt", "3")}[x.IntN(4)]
		s.addNodeExpr(spec, e)
		s.feat("daemonset-nodeAffinity")
	}
	if x.IntN(3) == 0 {
		tol := []map[string]any{{"key": "team", "operator": "Exists", "effect": "NoSchedule"},
			{"key": "nvidia.com/gpu", "operator": "Exists"}, {"key": "example.com/spare", "operator": "Exists"}}[x.IntN(3)]
		s.addToleration(spec, tol)
		s.feat("daemonset-tolerations")
	}
	if s.ephemeral && x.IntN(4) == 0 {
		c := spec["containers"].([]any)[0].(map[string]any)
		c["resources"].(map[string]any)["requests"].(map[string]any)["ephemeral-storage"] = "1Gi"
		s.feat("daemonset-ephemeral-storage")
	}
}

// gpuDaemonSet is a device-plugin-like DaemonSet on GPU nodes only.
func (s *shapes) gpuDaemonSet() map[string]any {
	spec := map[string]any{"containers": []any{container("plugin", 50, 64)},
		"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}}}
	s.addNodeExpr(spec, req("example.com/gpu-name", "Exists"))
	s.feat("daemonset-gpu")
	return map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet",
		"metadata": map[string]any{"name": "gpu-plugin", "namespace": "default"},
		"spec": map[string]any{"selector": selector("gpu-plugin"), "template": map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"app": "gpu-plugin"}}, "spec": spec}}}
}

// volumes sometimes gives a bare-pod workload unbound claims of a StorageClass with
// allowedTopologies (WaitForFirstConsumer) or of an Immediate one; it returns the documents to
// add (StorageClass once, a PVC per pod) and whether it did.
func (s *shapes) volumes(spec map[string]any, app string, replicas int, zones []string) ([]map[string]any, map[int]map[string]any) {
	x := s.x
	if x.IntN(6) != 0 || s.moved[app] {
		return nil, nil
	}
	var docs []map[string]any
	class := "zonal"
	if x.IntN(5) == 0 {
		class = "fast-immediate"
		if !s.immediate {
			s.immediate = true
			docs = append(docs, map[string]any{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
				"metadata": map[string]any{"name": class}, "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "Immediate"})
		}
		s.feat("pvc-unbound-Immediate")
	} else {
		if !s.zonalSC {
			s.zonalSC = true
			zs := slices.Clone(zones)
			x.Shuffle(len(zs), func(i, j int) { zs[i], zs[j] = zs[j], zs[i] })
			zs = zs[:1+x.IntN(len(zs))]
			slices.Sort(zs)
			vals := make([]any, len(zs))
			for i, z := range zs {
				vals[i] = z
			}
			docs = append(docs, map[string]any{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
				"metadata": map[string]any{"name": class}, "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer",
				"allowedTopologies": []any{map[string]any{"matchLabelExpressions": []any{
					map[string]any{"key": "topology.kubernetes.io/zone", "values": vals}}}}})
		}
		s.feat("pvc-allowedTopologies")
	}
	specs := map[int]map[string]any{}
	for j := range replicas {
		pvc := fmt.Sprintf("scratch-%s-%d", app, j)
		docs = append(docs, map[string]any{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"metadata": map[string]any{"name": pvc, "namespace": "default"},
			"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "storageClassName": class,
				"resources": map[string]any{"requests": map[string]any{"storage": "5Gi"}}},
			"status": map[string]any{"phase": "Pending"}})
		ps := deepCopy(spec)
		ps["volumes"] = []any{map[string]any{"name": "scratch", "persistentVolumeClaim": map[string]any{"claimName": pvc}}}
		specs[j] = ps
	}
	return docs, specs
}

func (s *shapes) addToleration(spec map[string]any, tol map[string]any) {
	l, _ := spec["tolerations"].([]any)
	spec["tolerations"] = append(l, tol)
}

// addNodeExpr ANDs e into every required node-selector term (making one if there is none).
func (s *shapes) addNodeExpr(spec map[string]any, e map[string]any) {
	aff := ensure(spec, "affinity")
	na := ensure(aff, "nodeAffinity")
	reqd := ensure(na, "requiredDuringSchedulingIgnoredDuringExecution")
	terms, _ := reqd["nodeSelectorTerms"].([]any)
	if len(terms) == 0 {
		terms = []any{map[string]any{"matchExpressions": []any{}}}
	}
	for _, t := range terms {
		tm := t.(map[string]any)
		l, _ := tm["matchExpressions"].([]any)
		tm["matchExpressions"] = append(l, deepCopy(e))
	}
	reqd["nodeSelectorTerms"] = terms
}

func ensure(m map[string]any, k string) map[string]any {
	v, ok := m[k].(map[string]any)
	if !ok {
		v = map[string]any{}
		m[k] = v
	}
	return v
}
