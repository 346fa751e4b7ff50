package scheduling_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestStartupTaintsOfNodesWithoutClaims: a managed, uninitialized Node given without its
// NodeClaim carries its NodePool's startup taints as the claim would, so they do not keep
// pods off it (a snapshot of Nodes alone is common; Karpenter always has the claim).
func TestStartupTaintsOfNodesWithoutClaims(t *testing.T) {
	room := kcRL("cpu", "4", "memory", "4Gi", "pods", "5")
	labels := map[string]string{kcZone: kcZ1, kcIT: kcDefault, kcCT: v1.CapacityTypeOnDemand, kcArch: v1.ArchitectureAmd64, kcOS: "linux"}
	startup := kcTaint("startup", "x", corev1.TaintEffectNoSchedule)
	nodeOnly := func(initialized bool) *cluster.Node {
		n := kcManaged("n1", "default", initialized, labels, room)
		n.NodeClaim = nil
		return kcWithTaints(n, startup)
	}
	p1 := func() []*corev1.Pod { return []*corev1.Pod{fake.Pod("p").CPU("1").Obj()} }
	kcRun(t, []kcCase{
		{
			name:  "uninitialized Node whose NodePool has the startup taint is reused",
			pools: kcPools(kcPool("default").StartupTaint("startup", "x", corev1.TaintEffectNoSchedule)),
			pods:  p1(), nodes: []*cluster.Node{nodeOnly(false)},
			claims: kcInt(0), want: map[string]kcWant{"p": {existing: "n1"}},
		},
		{
			name: "a taint that is no startup taint of its NodePool keeps pods off",
			pods: p1(), nodes: []*cluster.Node{nodeOnly(false)},
			claims: kcInt(1), want: map[string]kcWant{"p": {pool: "default"}},
		},
		{
			name:  "initialized Node whose startup taint re-appeared is not reused",
			pools: kcPools(kcPool("default").StartupTaint("startup", "x", corev1.TaintEffectNoSchedule)),
			pods:  p1(), nodes: []*cluster.Node{nodeOnly(true)},
			claims: kcInt(1), want: map[string]kcWant{"p": {pool: "default"}},
		},
		{
			// Karpenter's state reads a Node without its NodeClaim as unmanaged: initialized,
			// its startup taint a taint like any other.
			name:  "Karpenter mode: the startup taint of a Node without its NodeClaim keeps pods off",
			pools: kcPools(kcPool("default").StartupTaint("startup", "x", corev1.TaintEffectNoSchedule)),
			pods:  p1(), nodes: []*cluster.Node{nodeOnly(false)},
			opts:   scheduling.Options{Packing: scheduling.PackingKarpenter},
			claims: kcInt(1), want: map[string]kcWant{"p": {pool: "default"}},
		},
	})
}
