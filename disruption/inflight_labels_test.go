package disruption

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// An in-flight NodeClaim carries the labels the cloud gives a launched one (its type's
// arch, os, …), so a DaemonSet selecting on them counts against its room when a later
// command's simulation plans an earlier command's pods onto it (reference §3.8: pods of
// deleting nodes may use uninitialized nodes). The DaemonSet's 500m pod runs on the existing
// nodes in both cases, so only the in-flight node's labels differ. The pending pod p fills a new small node
// up to 300m with the DaemonSet's 500m, 800m without it; a (800m) and b (900m, placed first) leave spot
// candidates A and B; S has 1100m spare and is the only node b may use (rack=r1). After
// the command for one candidate, the other one's command needs its own pod on S and the
// first one's on the in-flight node: only room when the DaemonSet does not run there.
func TestInflightClaimDaemonSetOverhead(t *testing.T) {
	cases := []struct {
		name     string
		dsArch   string
		commands int
	}{
		{"DaemonSet runs on the in-flight node: one command", "amd64", 1},
		{"DaemonSet selects another arch: the room is real, two commands", "arm64", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := fake.Pod("logs").Namespace("kube-system").Requests("500m", "10Mi").
				NodeSelector(v1.LabelArch, tc.dsArch).Obj()
			a, b, s := bound("a", "800m"), bound("b", "900m"), bound("s", "2400m")
			b.Spec.NodeSelector = map[string]string{"rack": "r1"}
			nodeA := testNode("A", "default", "small", v1.CapacityTypeSpot, a)
			nodeB := testNode("B", "default", "small", v1.CapacityTypeSpot, b)
			nodeS := testNode("S", "default", "medium", v1.CapacityTypeSpot, s)
			for _, n := range []*cluster.Node{nodeA, nodeB, nodeS} {
				n.Node.Labels["rack"] = "r1"
				// the DaemonSet's pod already runs on every existing node (whatever it selects)
				d := bound("logs-"+n.Node.Name, "500m")
				d.Namespace, d.Spec.NodeName = "kube-system", n.Node.Name
				d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "logs", Controller: ptr(true)}}
				n.Pods = append(n.Pods, d)
			}
			in := input([]*v1.NodePool{pool("default", spotToo)}, nodeA, nodeB, nodeS)
			in.DaemonSets = []*appsv1.DaemonSet{fake.DaemonSet("logs", ds)}
			in.Pods = []*corev1.Pod{fake.Pod("p").Requests("1200m", "100Mi").Obj()}
			res, err := plan(t, in)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Provisioned) != 1 || res.Provisioned[0].InstanceType.Name != "small" {
				t.Fatalf("want the pending pod on one new small node, got %v", res.Provisioned)
			}
			if len(res.Commands) != tc.commands {
				t.Fatalf("commands = %v, want %d", cmdSummary(res), tc.commands)
			}
		})
	}
}
