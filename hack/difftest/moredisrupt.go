package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Disrupt shapes of a third random stream (the base draws of a seed stay what they were):
// NoExecute NodePool taints (the pods on those nodes tolerate them), NodePool weight ties, and on some nodes extra pods that Karpenter treats
// apart: a mirror pod (owned by its Node and annotated, or only annotated), a finished Job pod
// (Succeeded or Failed), a terminating pod (of a ReplicaSet or a StatefulSet), a StatefulSet pod
// with a zonal PersistentVolume (its replacement must be in that zone), a pod with a host port,
// a pod with required zonal pod affinity to another app, a pod two PDBs select, a do-not-disrupt
// annotation on a DaemonSet's pod.
// reservedInDisrupt turns reserved offerings on in disrupt inputs (off: the oracle panics on them).
const reservedInDisrupt = false

type disruptMore struct {
	*moreShapes
	storageClass bool
}

func newDisruptMore(seed uint64) *disruptMore {
	m := &moreShapes{x: rand.New(rand.NewPCG(seed^0x3c6ef372fe94f82b, seed+0xa54ff53a5f1d36f1)), taintedBy: map[string]bool{}}
	return &disruptMore{moreShapes: m}
}

// catalog would add reserved offerings (and no price skew: disrupt seeds keep their prices),
// but the disrupt oracle panics on a replacement launched on one ("attempted to reserve
// non-existent offering": its fake cloud provider makes a reservation ID up), so it draws and
// does nothing until the oracle can take them.
func (d *disruptMore) catalog(types []*instanceType) {
	x := d.x
	if x.IntN(6) != 0 || !reservedInDisrupt {
		return
	}
	for _, t := range types {
		if x.IntN(3) != 0 {
			continue
		}
		for _, o := range t.Offers {
			if o.CapacityType == "on-demand" && x.IntN(2) == 0 {
				t.Reservations = append(t.Reservations, reservation{Zone: o.Zone, ID: fmt.Sprintf("cr-%s-%s", t.Name, o.Zone[len(o.Zone)-1:]),
					Capacity: x.IntN(4), Price: round4(o.Price * 0.1)})
				d.reserved = true
			}
		}
	}
	if d.reserved {
		d.feat("catalog-reserved")
	}
}

// pool: reserved capacity, a NoExecute taint, a weight tie (earlier: the pools made before p).
func (d *disruptMore) pool(p *pool, earlier []*pool) {
	saved := d.profile
	d.profile = ""
	d.moreShapes.pool(p, earlier)
	d.profile = saved
}

// extraPods returns the extra pods of node n (and any PV, PVC or StorageClass they need).
// earlier are the input's documents so far (the node's DaemonSet pods among them).
func (d *disruptMore) extraPods(n *node, apps []string, earlier []map[string]any) []map[string]any {
	x := d.x
	var docs []map[string]any
	start := n.Created.Add(time.Minute)
	running := func(pd map[string]any) map[string]any {
		pd["status"] = map[string]any{"phase": "Running", "startTime": ts(start),
			"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
		return pd
	}
	ownedBy := func(kind, name string) map[string]any {
		return map[string]any{"uid": podUID(x), "creationTimestamp": ts(n.Created), "ownerReferences": []any{map[string]any{
			"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": "uid-" + name, "controller": true}}}
	}
	small := func() []any { return []any{container("app", 100+100*x.IntN(3), 128)} }
	name := func(s string) string { return fmt.Sprintf("%s-%s", n.Name, s) }
	if x.IntN(8) == 0 {
		meta := map[string]any{"uid": podUID(x), "creationTimestamp": ts(n.Created),
			"annotations": map[string]any{"kubernetes.io/config.mirror": "hash-" + n.Name}}
		if x.IntN(3) != 0 {
			meta["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "Node", "name": n.Name, "uid": "uid-node-" + n.Name, "controller": true}}
			d.feat("mirror-pod")
		} else {
			d.feat("mirror-pod-annotation-only")
		}
		docs = append(docs, running(podDoc(name("static"), "static", map[string]any{"nodeName": n.Name, "containers": small()}, meta)))
	}
	if x.IntN(8) == 0 {
		meta := map[string]any{"uid": podUID(x), "creationTimestamp": ts(n.Created), "ownerReferences": []any{map[string]any{
			"apiVersion": "batch/v1", "kind": "Job", "name": "job-" + n.Name, "uid": "uid-job-" + n.Name, "controller": true}}}
		phase := []string{"Succeeded", "Failed"}[x.IntN(2)]
		pd := podDoc(name("job"), "job", map[string]any{"nodeName": n.Name, "restartPolicy": "Never", "containers": small()}, meta)
		pd["status"] = map[string]any{"phase": phase, "startTime": ts(start)}
		docs = append(docs, pd)
		d.feat("pod-terminal")
	}
	if x.IntN(10) == 0 {
		kind := []string{"ReplicaSet", "StatefulSet"}[x.IntN(2)]
		app := apps[x.IntN(len(apps))]
		meta := ownedBy(kind, app+"-"+kind)
		meta["deletionTimestamp"] = ts(disruptNow.Add(-time.Minute))
		meta["finalizers"] = []any{"example.com/hold"}
		docs = append(docs, running(podDoc(name("terminating"), app, map[string]any{"nodeName": n.Name, "containers": small()}, meta)))
		d.feat("pod-terminating-" + kind)
	}
	if x.IntN(7) == 0 {
		if !d.storageClass {
			d.storageClass = true
			docs = append(docs, map[string]any{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
				"metadata": map[string]any{"name": "ebs"}, "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"})
		}
		pvc := "data-" + name("db")
		docs = append(docs, zonalPV(pvc, n.Offer.Zone)...)
		spec := map[string]any{"nodeName": n.Name, "containers": small(),
			"volumes": []any{map[string]any{"name": "data", "persistentVolumeClaim": map[string]any{"claimName": pvc}}}}
		if n.Pool.Taint {
			spec["tolerations"] = []any{map[string]any{"key": "team", "operator": "Exists"}}
		}
		docs = append(docs, running(podDoc(name("db"), "db", spec, ownedBy("StatefulSet", "db"))))
		d.feat("bound-zonal-volume")
	}
	if x.IntN(8) == 0 {
		c := container("app", 100, 128)
		c["ports"] = []any{map[string]any{"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}}
		spec := map[string]any{"nodeName": n.Name, "containers": []any{c}}
		if n.Pool.Taint {
			spec["tolerations"] = []any{map[string]any{"key": "team", "operator": "Exists"}}
		}
		docs = append(docs, running(podDoc(name("hp"), "hostport", spec, ownedBy("ReplicaSet", "hostport-rs"))))
		d.feat("bound-hostPort")
	}
	if x.IntN(10) == 0 {
		target := apps[x.IntN(len(apps))]
		spec := map[string]any{"nodeName": n.Name, "containers": small(), "affinity": map[string]any{"podAffinity": map[string]any{
			"requiredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{"topologyKey": "topology.kubernetes.io/zone", "labelSelector": selector(target)}}}}}
		if n.Pool.Taint {
			spec["tolerations"] = []any{map[string]any{"key": "team", "operator": "Exists"}}
		}
		docs = append(docs, running(podDoc(name("near"), "near-"+target, spec, ownedBy("ReplicaSet", "near-"+target+"-rs"))))
		d.feat("bound-affinity-zone")
	}
	if x.IntN(12) == 0 {
		// A DaemonSet's own pod on this node (a DaemonSet pod without its DaemonSet would make
		// nodeplan guess the DaemonSet's overhead from it, the oracle count none).
		for _, pd := range slices.Backward(earlier) {
			spec, _ := pd["spec"].(map[string]any)
			if pd["kind"] != "Pod" || spec["nodeName"] != n.Name || !ownedByDaemonSet(pd) {
				continue
			}
			meta := pd["metadata"].(map[string]any)
			ann, _ := meta["annotations"].(map[string]any)
			if ann == nil {
				ann = map[string]any{}
				meta["annotations"] = ann
			}
			ann["karpenter.sh/do-not-disrupt"] = "true"
			d.feat("daemonset-pod-do-not-disrupt")
			break
		}
	}
	return docs
}

func ownedByDaemonSet(pd map[string]any) bool {
	refs, _ := pd["metadata"].(map[string]any)["ownerReferences"].([]any)
	for _, r := range refs {
		if r.(map[string]any)["kind"] == "DaemonSet" {
			return true
		}
	}
	return false
}

// pdbs returns a second PDB over some app that already has one (a pod two PDBs select cannot
// be evicted). pdbApps are the apps with a PDB.
func (d *disruptMore) pdbs(pdbApps []string) []map[string]any {
	if len(pdbApps) == 0 || d.x.IntN(6) != 0 {
		return nil
	}
	app := pdbApps[d.x.IntN(len(pdbApps))]
	d.feat("pdb-overlapping")
	return []map[string]any{{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
		"metadata": map[string]any{"name": "pdb2-" + app, "namespace": "default"},
		"spec":     map[string]any{"selector": selector(app), "maxUnavailable": "100%"}}}
}
