package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// daemonPod is a DaemonSet pod as `kubectl get pods -o yaml` prints it: bound, with the
// node-name affinity and revision labels the DaemonSet controller adds.
func daemonPod(name, owner, node, created, cpu string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  namespace: kube-system
  creationTimestamp: "` + created + `"
  labels: {app: ` + owner + `, controller-revision-hash: 6d4b9c, pod-template-generation: "3"}
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ` + owner + `, uid: uid-of-` + owner + `, controller: true, blockOwnerDeletion: true}]
spec:
  nodeName: ` + node + `
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [` + node + `]}]}]
  nodeSelector: {kubernetes.io/os: linux}
  tolerations: [{operator: Exists}]
  containers: [{name: c, image: x, resources: {requests: {cpu: ` + cpu + `, memory: 64Mi}}}]
status: {phase: Running}
`
}

func TestDaemonSetsFromTheirPods(t *testing.T) {
	cases := []struct {
		name string
		docs []string
		// want maps each derived DaemonSet to the CPU request of its template.
		want map[string]string
	}{
		{
			name: "one DaemonSet, newest pod's template",
			docs: []string{
				daemonPod("aws-node-a", "aws-node", "node-a", "2026-01-01T00:00:00Z", "25m"),
				daemonPod("aws-node-b", "aws-node", "node-b", "2026-01-02T00:00:00Z", "50m"),
				daemonPod("aws-node-c", "aws-node", "node-c", "2026-01-01T12:00:00Z", "30m"),
			},
			want: map[string]string{"kube-system/aws-node": "50m"},
		},
		{
			name: "created at the same time: the first name",
			docs: []string{
				daemonPod("proxy-b", "kube-proxy", "node-b", "2026-01-01T00:00:00Z", "200m"),
				daemonPod("proxy-a", "kube-proxy", "node-a", "2026-01-01T00:00:00Z", "100m"),
			},
			want: map[string]string{"kube-system/kube-proxy": "100m"},
		},
		{
			name: "a DaemonSet of the input is not derived again",
			docs: []string{
				daemonPod("proxy-a", "kube-proxy", "node-a", "2026-01-01T00:00:00Z", "100m"),
				"apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: kube-proxy, namespace: kube-system}\nspec:\n  selector: {matchLabels: {app: kube-proxy}}\n  template:\n    metadata: {labels: {app: kube-proxy}}\n    spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 150m}}}]}\n",
			},
			want: map[string]string{"kube-system/kube-proxy": "150m"},
		},
		{
			name: "two DaemonSets, sorted by name",
			docs: []string{
				daemonPod("proxy-a", "kube-proxy", "node-a", "2026-01-01T00:00:00Z", "100m"),
				daemonPod("ebs-a", "ebs-csi-node", "node-a", "2026-01-01T00:00:00Z", "10m"),
			},
			want: map[string]string{"kube-system/ebs-csi-node": "10m", "kube-system/kube-proxy": "100m"},
		},
		{
			name: "a pending pod of the DaemonSet is enough",
			docs: []string{
				"apiVersion: v1\nkind: Pod\nmetadata: {name: agent-x, namespace: monitoring, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u1, controller: true}]}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: 70m}}}]}\nstatus: {phase: Pending}\n",
			},
			want: map[string]string{"monitoring/agent": "70m"},
		},
		{
			name: "pods of another kind or another group's DaemonSet are not DaemonSet pods",
			docs: []string{
				"apiVersion: v1\nkind: Pod\nmetadata: {name: web-1, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u2, controller: true}]}\nspec: {containers: [{name: c, image: x}]}\n",
				"apiVersion: v1\nkind: Pod\nmetadata: {name: kruise-1, ownerReferences: [{apiVersion: apps.kruise.io/v1alpha1, kind: DaemonSet, name: k, uid: u3, controller: true}]}\nspec: {containers: [{name: c, image: x}]}\n",
				"apiVersion: v1\nkind: Pod\nmetadata: {name: owned-1, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: notcontroller, uid: u4}]}\nspec: {containers: [{name: c, image: x}]}\n",
			},
			want: map[string]string{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := ""
			for _, d := range tc.docs {
				doc += "---\n" + d
			}
			s := parse(t, doc)
			got := map[string]string{}
			for _, ds := range s.DaemonSets {
				cpu := ds.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]
				got[ds.Namespace+"/"+ds.Name] = cpu.String()
			}
			assert.Equal(t, tc.want, got)
			for i := 1; i < len(s.DaemonSets); i++ {
				a, b := s.DaemonSets[i-1], s.DaemonSets[i]
				if len(s.givenDaemonSets) == 0 {
					assert.Less(t, a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
				}
			}
		})
	}
}

func TestDerivedDaemonSetTemplateIsNodeIndependent(t *testing.T) {
	s := parse(t, daemonPod("aws-node-a", "aws-node", "node-a", "2026-01-01T00:00:00Z", "25m"))
	require.Len(t, s.DaemonSets, 1)
	ds := s.DaemonSets[0]
	assert.Equal(t, "uid-of-aws-node", string(ds.UID))
	spec := ds.Spec.Template.Spec
	assert.Empty(t, spec.NodeName)
	assert.Nil(t, spec.Affinity, "the node-name term was the only affinity")
	assert.Equal(t, map[string]string{"kubernetes.io/os": "linux"}, spec.NodeSelector)
	assert.Equal(t, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, spec.Tolerations)
	assert.Equal(t, map[string]string{"app": "aws-node"}, ds.Spec.Template.Labels)
	assert.Contains(t, s.SourceOf("DaemonSet", "kube-system", "aws-node"), "test.yaml", "a derived DaemonSet is where its pod is")
	assert.NotEmpty(t, s.Pods[0].Spec.NodeName, "the pod itself is unchanged")
	assert.NotNil(t, s.Pods[0].Spec.Affinity)

	// Other terms and preferences survive.
	a := withoutNodeNameAffinity(&corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"arm64"}}},
				MatchFields: []corev1.NodeSelectorRequirement{{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{"node-a"}}}},
		}},
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 1}},
	}})
	require.NotNil(t, a)
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	require.Len(t, terms, 1)
	assert.Empty(t, terms[0].MatchFields)
	assert.Len(t, terms[0].MatchExpressions, 1)
	assert.Len(t, a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, 1)
}

func TestDerivedDaemonSetGivesWayToOneInAnotherFile(t *testing.T) {
	pods, err := Parse([]byte(daemonPod("proxy-a", "kube-proxy", "node-a", "2026-01-01T00:00:00Z", "100m")), "pods.yaml")
	require.NoError(t, err)
	require.Len(t, pods.DaemonSets, 1)
	given, err := Parse([]byte("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: kube-proxy, namespace: kube-system}\nspec:\n  selector: {matchLabels: {app: kube-proxy}}\n  template: {metadata: {labels: {app: kube-proxy}}, spec: {containers: [{name: c, image: x}]}}\n"), "ds.yaml")
	require.NoError(t, err)
	require.NoError(t, pods.Merge(given), "a derived DaemonSet is not a duplicate")
	require.Len(t, pods.DaemonSets, 1)
	assert.Equal(t, []*appsv1.DaemonSet{given.DaemonSets[0]}, pods.DaemonSets)
	assert.Contains(t, pods.SourceOf("DaemonSet", "kube-system", "kube-proxy"), "ds.yaml")
}

func TestDerivedDaemonSetMissingFromANodeIsWarned(t *testing.T) {
	node := func(name, extra string) string {
		return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + ", labels: {kubernetes.io/os: linux}}\n" + extra
	}
	// daemonPod tolerates everything and selects kubernetes.io/os=linux.
	pods := daemonPod("agent-a", "agent", "node-a", "2026-01-01T00:00:00Z", "10m") + "---\n" +
		daemonPod("agent-b", "agent", "node-b", "2026-01-01T00:00:00Z", "10m")
	pendingForC := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: agent-c\n  namespace: kube-system\n  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: uid-of-agent, controller: true}]\n" +
		"spec:\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [node-c]}]}]}}}\n" +
		"  containers: [{name: c, image: x}]\nstatus: {phase: Pending}\n"
	cases := []struct {
		name, nodeC, extra string
		warned             bool
	}{
		{name: "a node its pods admit has none", nodeC: node("node-c", ""), warned: true},
		{name: "a node of another OS", nodeC: "apiVersion: v1\nkind: Node\nmetadata: {name: node-c, labels: {kubernetes.io/os: windows}}\n"},
		{name: "a pending pod for the node counts", nodeC: node("node-c", ""), extra: "---\n" + pendingForC},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := parse(t, node("node-a", "")+"---\n"+node("node-b", "")+"---\n"+tc.nodeC+"---\n"+pods+tc.extra)
			var warned []Warning
			for _, w := range s.Warnings {
				if w.Object == `DaemonSet "kube-system/agent"` {
					warned = append(warned, w)
				}
			}
			if !tc.warned {
				assert.Empty(t, warned)
				return
			}
			require.Len(t, warned, 1)
			assert.Contains(t, warned[0].Message, "node-c")
			assert.NotContains(t, warned[0].Message, "node-a")
		})
	}

	// Across files: the warning is derived once from the union, however often sets merge.
	nodes, err := Parse([]byte(node("node-a", "")+"---\n"+node("node-c", "")), "nodes.yaml")
	require.NoError(t, err)
	daemon, err := Parse([]byte(pods), "pods.yaml")
	require.NoError(t, err)
	assert.Empty(t, daemon.Warnings, "no Node in that file: nothing to say")
	require.NoError(t, nodes.Merge(daemon))
	require.Len(t, nodes.Warnings, 1)
	more, err := Parse([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), "more.yaml")
	require.NoError(t, err)
	require.NoError(t, nodes.Merge(more))
	assert.Len(t, nodes.Warnings, 1)
}
