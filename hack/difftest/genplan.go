package main

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// input is one generated case: manifests, a catalog, and the tags of what it exercises.
type input struct {
	Kind     string // plan or disrupt
	Seed     uint64
	Docs     []map[string]any
	Catalog  map[string]any
	Now      string // disrupt only
	Features []string
}

func newRand(kind string, seed uint64) *rand.Rand {
	salt := uint64(0x9e3779b97f4a7c15)
	if kind == "disrupt" {
		salt = 0xc2b2ae3d27d4eb4f
	}
	return rand.New(rand.NewPCG(seed, seed^salt))
}

var planEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// begin starts an input of kind: its random source and catalog.
func begin(kind string, seed uint64) (*rand.Rand, *input, []*instanceType, []string) {
	r := newRand(kind, seed)
	in := &input{Kind: kind, Seed: seed}
	types := genCatalog(r)
	in.Catalog = catalogDoc(types)
	return r, in, types, zonesOf(types)
}

// genPlan makes a `plan` input: 1–3 NodePools, a few existing nodes (some uninitialized) with
// bound pods, DaemonSets, and pending workloads with constraints.
func genPlan(seed uint64) *input {
	r := newRand("plan", seed)
	in := &input{Kind: "plan", Seed: seed}
	sh := newShapes(seed)
	mo := newMoreShapes(seed)
	types := genCatalog(r)
	types = sh.catalog(types, zonesOf(types))
	mo.catalog(types)
	in.Catalog = catalogDoc(types)
	zones := zonesOf(types)
	var pools []*pool
	for i := range 1 + r.IntN(3) {
		p := genPool(r, i, types)
		sh.pool(p, types)
		mo.pool(p, pools)
		pools = append(pools, p)
	}
	if sh.gpu && sh.x.IntN(2) == 0 {
		pools = append(pools, sh.gpuPool(len(pools)))
	}
	for _, p := range pools {
		in.Docs = append(in.Docs, p.doc(false))
		if p.LimitCPU > 0 || p.LimitNodes > 0 {
			in.Features = append(in.Features, "limits")
		}
	}
	nWorkloads := 2 + r.IntN(5)
	apps := make([]string, nWorkloads)
	for i := range apps {
		apps[i] = fmt.Sprintf("app-%d", i)
	}
	in.Docs = append(in.Docs, sh.chooseNamespaces(apps)...)

	// Existing nodes and their pods.
	for i := range r.IntN(5) {
		p := pools[r.IntN(len(pools))]
		t, o, ok := pickNode(r, p, types, false)
		if !ok {
			continue
		}
		n := &node{Name: fmt.Sprintf("node-%d", i), Pool: p, Type: t, Offer: o, Created: planEpoch, Initialized: r.IntN(6) != 0}
		if !n.Initialized {
			in.Features = append(in.Features, "uninitialized-node")
		}
		// No in-flight NodeClaims: the oracle cannot bind pods to a claim without a Node, so it
		// places pending pods there again every round and the comparison means nothing.
		nd := n.doc()
		sh.node(nd, n)
		mo.node(nd, n)
		in.Docs = append(in.Docs, nd)
		if !n.Initialized && i%2 == 1 {
			// Half the uninitialized nodes come with their NodeClaim (whose startup taints a
			// pod may ignore), half as a bare Node.
			cd := n.claimDoc()
			sh.node(cd, n)
			mo.node(cd, n)
			in.Docs = append(in.Docs, cd)
			in.Features = append(in.Features, "uninitialized-with-claim")
		}
		cpu, mem := t.allocatable()
		fill := 0.2 + 0.6*r.Float64()
		k := r.IntN(5)
		for j := range k {
			app := apps[r.IntN(len(apps))]
			spec := map[string]any{"nodeName": n.Name, "containers": []any{container("app", int(float64(cpu)*fill)/k, int(float64(mem)*fill)/k)}}
			if r.IntN(8) == 0 {
				spec["affinity"] = map[string]any{"podAntiAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": []any{
					map[string]any{"topologyKey": "kubernetes.io/hostname", "labelSelector": selector(apps[r.IntN(len(apps))])}}}}
				in.Features = append(in.Features, "existing-antiAffinity")
			}
			pd := podDoc(fmt.Sprintf("%s-p%d", n.Name, j), app, spec, nil)
			pd["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
			in.Docs = append(in.Docs, pd)
		}
		in.Features = append(in.Features, "existing-node")
	}

	// DaemonSets.
	for i := range r.IntN(3) {
		spec := map[string]any{"containers": []any{container("agent", []int{50, 100, 200}[r.IntN(3)], []int{64, 128, 256}[r.IntN(3)])}}
		if r.IntN(2) == 0 {
			spec["tolerations"] = []any{map[string]any{"operator": "Exists"}}
		}
		if r.IntN(4) == 0 {
			spec["nodeSelector"] = map[string]any{"kubernetes.io/arch": "amd64"}
		}
		sh.daemonSet(spec)
		mo.daemonSet(spec, pools)
		name := fmt.Sprintf("ds-%d", i)
		in.Docs = append(in.Docs, map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet",
			"metadata": map[string]any{"name": name, "namespace": "default"},
			"spec": map[string]any{"selector": selector(name), "template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}}, "spec": spec}}})
		in.Features = append(in.Features, "daemonset")
	}

	if sh.gpu && sh.x.IntN(3) != 0 {
		in.Docs = append(in.Docs, sh.gpuDaemonSet())
	}

	// Pending workloads.
	storageClass := false
	for i, app := range apps {
		cpu, mem := cpuChoices[r.IntN(len(cpuChoices))], memChoices[r.IntN(len(memChoices))]
		spec := map[string]any{"containers": []any{container("app", cpu, mem)}}
		if r.IntN(8) == 0 {
			spec["initContainers"] = []any{container("init", cpu*2, mem)}
			in.Features = append(in.Features, "initContainer")
		}
		if r.IntN(6) == 0 {
			spec["containers"] = append(spec["containers"].([]any), container("sidecar", 100, 128))
		}
		others := append(append([]string{}, apps[:i]...), apps[i+1:]...)
		in.Features = append(in.Features, constraints(r, spec, app, others, pools, zones)...)
		labels := map[string]any{"app": app}
		sh.podShapes(spec, labels, app, others, pools, zones)
		mo.pod(spec, i, app, apps, pools)
		replicas := mo.replicas(1 + r.IntN(7))
		switch k := r.IntN(10); {
		case k == 0: // StatefulSet with zonal volumes
			if !storageClass {
				storageClass = true
				in.Docs = append(in.Docs, map[string]any{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
					"metadata": map[string]any{"name": "ebs"}, "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"})
			}
			replicas = 1 + r.IntN(3)
			for j := range replicas {
				if r.IntN(3) == 0 {
					continue // the claim is made by the template, unbound
				}
				pvc := fmt.Sprintf("data-%s-%d", app, j)
				in.Docs = append(in.Docs, zonalPV(pvc, zones[r.IntN(len(zones))])...)
			}
			in.Docs = append(in.Docs, map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet",
				"metadata": map[string]any{"name": app, "namespace": "default"},
				"spec": map[string]any{"replicas": replicas, "serviceName": app, "selector": selector(app),
					"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": spec},
					"volumeClaimTemplates": []any{map[string]any{"metadata": map[string]any{"name": "data"},
						"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "storageClassName": "ebs",
							"resources": map[string]any{"requests": map[string]any{"storage": "10Gi"}}}}}}})
			in.Features = append(in.Features, "statefulset-pvc")
		case k < 3: // bare pods
			vdocs, vspecs := sh.volumes(spec, app, replicas, zones)
			in.Docs = append(in.Docs, vdocs...)
			for j := range replicas {
				ps := vspecs[j]
				if ps == nil {
					ps = deepCopy(spec)
				}
				in.Docs = append(in.Docs, podDoc(fmt.Sprintf("%s-%d", app, j), app, ps, map[string]any{"labels": deepCopy(labels)}))
			}
		default:
			in.Docs = append(in.Docs, map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": app, "namespace": "default"},
				"spec": map[string]any{"replicas": replicas, "selector": selector(app),
					"template": map[string]any{"metadata": map[string]any{"labels": labels}, "spec": spec}}})
		}
	}
	sh.relocate(in.Docs)
	mo.finish(in.Docs)
	in.Features = uniq(append(append(in.Features, sh.feats...), mo.feats...))
	return in
}

func zonalPV(pvc, zone string) []map[string]any {
	pv := "pv-" + pvc
	return []map[string]any{
		{"apiVersion": "v1", "kind": "PersistentVolume", "metadata": map[string]any{"name": pv},
			"spec": map[string]any{"capacity": map[string]any{"storage": "10Gi"}, "accessModes": []any{"ReadWriteOnce"},
				"storageClassName": "ebs", "csi": map[string]any{"driver": "ebs.csi.aws.com", "volumeHandle": "vol-" + pvc},
				"claimRef": map[string]any{"namespace": "default", "name": pvc},
				"nodeAffinity": map[string]any{"required": map[string]any{"nodeSelectorTerms": []any{
					map[string]any{"matchExpressions": []any{req("topology.kubernetes.io/zone", "In", zone)}}}}}},
			"status": map[string]any{"phase": "Bound"}},
		{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": map[string]any{"name": pvc, "namespace": "default",
			"annotations": map[string]any{"pv.kubernetes.io/bind-completed": "yes"}},
			"spec": map[string]any{"accessModes": []any{"ReadWriteOnce"}, "storageClassName": "ebs", "volumeName": pv,
				"resources": map[string]any{"requests": map[string]any{"storage": "10Gi"}}},
			"status": map[string]any{"phase": "Bound"}},
	}
}

func zonesOf(types []*instanceType) []string {
	var zs []string
	for _, t := range types {
		for _, o := range t.Offers {
			zs = append(zs, o.Zone)
		}
	}
	return uniq(zs)
}

func deepCopy(v map[string]any) map[string]any {
	return deepCopyAny(v).(map[string]any)
}

func deepCopyAny(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopyAny(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopyAny(e)
		}
		return s
	}
	return v
}
