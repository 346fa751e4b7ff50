package gendump

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/manifest"
)

// TestWrite: the dump reads as nodeplan reads kubectl's output, YAML and JSON alike, with
// exactly the pods asked for (DaemonSet pods on every node, bound and pending replicas,
// finished Job pods), a NodeClaim for every Node, the NodePools, EC2NodeClasses,
// Deployments, PDBs and Leases, what a live cluster's objects carry (managedFields, status,
// owners); the same options give the same bytes, another seed other bytes.
func TestWrite(t *testing.T) {
	for _, n := range []int{100, 600} {
		var yamlOut, jsonOut bytes.Buffer
		if err := Write(&yamlOut, Options{Pods: n, Seed: 3}); err != nil {
			t.Fatal(err)
		}
		if err := Write(&jsonOut, Options{Pods: n, Seed: 3, JSON: true}); err != nil {
			t.Fatal(err)
		}
		sets := map[string]*manifest.Set{}
		for format, data := range map[string][]byte{"yaml": yamlOut.Bytes(), "json": jsonOut.Bytes()} {
			set, err := manifest.Parse(data, "dump."+format)
			if err != nil {
				t.Fatalf("%d pods, %s: %v", n, format, err)
			}
			sets[format] = set
			if len(set.Pods) != n {
				t.Fatalf("%d pods, %s: read %d pods", n, format, len(set.Pods))
			}
			if len(set.NodePools) != 3 || len(set.NodeClasses) != 2 || len(set.Nodes) == 0 || len(set.NodeClaims) != len(set.Nodes) ||
				len(set.Leases) != len(set.Nodes) || len(set.DaemonSets) != 5 {
				t.Fatalf("%d pods, %s: %d NodePools, %d EC2NodeClasses, %d Nodes, %d NodeClaims, %d Leases, %d DaemonSets",
					n, format, len(set.NodePools), len(set.NodeClasses), len(set.Nodes), len(set.NodeClaims), len(set.Leases), len(set.DaemonSets))
			}
			if set.SkippedTotal() != 0 {
				t.Fatalf("%d pods, %s: skipped %v", n, format, set.Skipped)
			}
			for _, p := range set.Pods {
				if len(p.OwnerReferences) == 0 || p.Status.Phase == "" {
					t.Fatalf("%s: pod %s/%s lacks owners or status", format, p.Namespace, p.Name)
				}
			}
			// The reader drops managedFields once checked: they are counted in the text.
			if got := bytes.Count(data, []byte("managedFields")); got < n {
				t.Fatalf("%d pods, %s: %d managedFields", n, format, got)
			}
		}
		if y, j := summary(sets["yaml"]), summary(sets["json"]); y != j {
			t.Fatalf("%d pods: YAML and JSON differ:\n%s\n%s", n, y, j)
		}
		if n < 500 {
			continue
		}
		set := sets["yaml"]
		phases := map[corev1.PodPhase]int{}
		labels := 0
		for _, p := range set.Pods {
			phases[p.Status.Phase]++
			labels = max(labels, len(p.Labels))
		}
		if phases[corev1.PodPending] == 0 || phases[corev1.PodSucceeded] == 0 || phases[corev1.PodRunning] < n*9/10 || labels < 12 {
			t.Fatalf("phases %v, most labels %d: want mostly running pods, some pending and finished, long label sets", phases, labels)
		}
		if len(set.Workloads) == 0 || len(set.PodDisruptionBudgets) == 0 {
			t.Fatalf("%d workloads, %d PDBs", len(set.Workloads), len(set.PodDisruptionBudgets))
		}
		var again bytes.Buffer
		Write(&again, Options{Pods: n, Seed: 3})
		if !bytes.Equal(yamlOut.Bytes(), again.Bytes()) {
			t.Fatal("the same options gave other bytes")
		}
		var other bytes.Buffer
		Write(&other, Options{Pods: n, Seed: 4})
		if bytes.Equal(yamlOut.Bytes(), other.Bytes()) {
			t.Fatal("seeds 3 and 4 gave the same dump")
		}
	}
	if err := Write(&bytes.Buffer{}, Options{Pods: 99}); err == nil {
		t.Fatal("99 pods gave no error")
	}
}

// summary is what a set holds, in short: every pod with its node, every node with its type.
func summary(s *manifest.Set) string {
	var b strings.Builder
	for _, p := range s.Pods {
		b.WriteString(p.Namespace + "/" + p.Name + "@" + p.Spec.NodeName + " " + string(p.Status.Phase) + "\n")
	}
	for _, n := range s.Nodes {
		b.WriteString(n.Name + " " + n.Labels[corev1.LabelInstanceTypeStable] + "\n")
	}
	return b.String()
}
