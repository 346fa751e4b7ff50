package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	return out
}

func parse(t *testing.T, doc string) *Set {
	t.Helper()
	s, err := Parse([]byte(doc), "test.yaml")
	require.NoError(t, err)
	return s
}

func parseErr(t *testing.T, doc string) string {
	t.Helper()
	s, err := Parse([]byte(doc), "test.yaml")
	require.Error(t, err)
	require.Nil(t, s)
	return err.Error()
}

func TestOnlineBoutique(t *testing.T) {
	s, err := Load("testdata/online-boutique.yaml")
	require.NoError(t, err)
	deployments := []string{"frontend", "adservice", "currencyservice", "cartservice", "redis-cart",
		"loadgenerator", "recommendationservice", "checkoutservice", "emailservice", "paymentservice",
		"shippingservice", "productcatalogservice"}
	var want []string
	for _, d := range deployments {
		want = append(want, "default/"+d+"-0")
	}
	assert.Equal(t, want, podNames(s.Pods))
	assert.Equal(t, map[string]int{"Service": 12, "ServiceAccount": 11}, s.Skipped)
	assert.Equal(t, 23, s.SkippedTotal())
	require.Len(t, s.Workloads, 12)
	assert.Empty(t, s.NodePools)
	assert.Empty(t, s.Nodes)

	frontend := s.Pods[0]
	assert.Equal(t, corev1.PodPending, frontend.Status.Phase)
	assert.Empty(t, frontend.Spec.NodeName)
	assert.Equal(t, "uid-default/frontend-0", string(frontend.UID))
	assert.Equal(t, map[string]string{"app": "frontend"}, frontend.Labels)
	assert.Equal(t, "true", frontend.Annotations["sidecar.istio.io/rewriteAppHTTPProbers"])
	require.Len(t, frontend.OwnerReferences, 1)
	owner := frontend.OwnerReferences[0]
	assert.Equal(t, "apps/v1", owner.APIVersion)
	assert.Equal(t, "ReplicaSet", owner.Kind)
	assert.Equal(t, "frontend", owner.Name)
	assert.True(t, *owner.Controller)
	assert.Equal(t, resource.MustParse("100m"), frontend.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU])

	w := s.WorkloadOf(frontend)
	require.NotNil(t, w)
	assert.Equal(t, "Deployment", w.Kind)
	assert.Equal(t, "frontend", w.Name)
	assert.Equal(t, map[string]string{"app": "frontend"}, w.Selector.MatchLabels)
	assert.True(t, w.Expanded)
	assert.Equal(t, []*corev1.Pod{frontend}, w.Pods)
	assert.IsType(t, &appsv1.Deployment{}, w.Object)

	// The first object follows the license header and a "---".
	assert.Equal(t, "testdata/online-boutique.yaml: document 1 (line 21)", s.SourceOf("Pod", "default", "frontend-0"))
	assert.Equal(t, "testdata/online-boutique.yaml: document 1 (line 21)", s.SourceOf("Deployment", "default", "frontend"))
}

func TestSockShop(t *testing.T) {
	s, err := Load("testdata/sock-shop.yaml")
	require.NoError(t, err)
	require.Len(t, s.Pods, 14)
	for _, p := range s.Pods {
		assert.Equal(t, "sock-shop", p.Namespace)
		assert.True(t, strings.HasSuffix(p.Name, "-0"), p.Name)
	}
	assert.Equal(t, "sock-shop/carts-0", podNames(s.Pods)[0])
	assert.Equal(t, "sock-shop/user-db-0", podNames(s.Pods)[13])
	assert.Equal(t, map[string]int{"Service": 14}, s.Skipped)
	require.Len(t, s.Namespaces, 1)
	assert.Equal(t, "sock-shop", s.Namespaces[0].Labels[corev1.LabelMetadataName], "the API server's label")
}

func TestExamples(t *testing.T) {
	s, err := Load("testdata/general-purpose.yaml")
	require.NoError(t, err)
	require.Len(t, s.NodePools, 1)
	require.Len(t, s.NodeClasses, 1)
	np := s.NodePools[0]
	assert.Equal(t, "general-purpose", np.Name)
	assert.Len(t, np.Spec.Template.Spec.Requirements, 5)
	// Defaults are applied.
	assert.Equal(t, v1.ConsolidationPolicyWhenEmptyOrUnderutilized, np.Spec.Disruption.ConsolidationPolicy)
	assert.Equal(t, []v1.Budget{{Nodes: "10%"}}, np.Spec.Disruption.Budgets)
	nc := s.NodeClasses[0]
	assert.Equal(t, "default", nc.GetName())
	assert.Equal(t, "EC2NodeClass", nc.Kind)
	assert.Equal(t, "KarpenterNodeRole-${CLUSTER_NAME}", nc.Spec.Role)
	assert.Equal(t, "AL2023", nc.AMIFamily())

	// The v1beta1 tutorial is read as Karpenter 1.0 converted it (see v1beta1_test.go), with a
	// warning per converted object.
	s, err = Load("testdata/teams-v1beta1.yaml")
	require.NoError(t, err)
	assert.Len(t, s.NodePools, 2)
	assert.Len(t, s.NodeClasses, 1)
	var warned []string
	for _, w := range s.Warnings {
		warned = append(warned, w.Object)
	}
	assert.Equal(t, []string{`NodePool "team-1"`, `NodePool "team-2"`, `EC2NodeClass "default"`}, warned)
}

func TestScenarios(t *testing.T) {
	entries, err := os.ReadDir("testdata/scenarios")
	require.NoError(t, err)
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			s, err := Load(filepath.Join("testdata/scenarios", e.Name()))
			if e.Name() == "bad-operator.yaml" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), `testdata/scenarios/bad-operator.yaml: document 1 (line 1): NodePool "default": spec.template.spec.requirements[0].operator: Unsupported value: "Foo"`)
				return
			}
			require.NoError(t, err)
			assert.NotEmpty(t, s.NodePools)
			assert.NotEmpty(t, s.Pods)
		})
	}
	s, err := Load("testdata/scenarios/disrupt-empty-node.yaml")
	require.NoError(t, err)
	assert.Len(t, s.Nodes, 2)
	assert.Len(t, s.NodeClasses, 1)
	require.Len(t, s.Pods, 1)
	assert.Equal(t, "node-b", s.Pods[0].Spec.NodeName)
	assert.Equal(t, corev1.PodRunning, s.Pods[0].Status.Phase)
	assert.Equal(t, resource.MustParse("8"), s.Nodes[0].Status.Allocatable[corev1.ResourceCPU])

	s, err = Load("testdata/scenarios/zone-spread.yaml")
	require.NoError(t, err)
	assert.Equal(t, []string{"default/spread-0", "default/spread-1", "default/spread-2", "default/spread-3",
		"default/spread-4", "default/spread-5"}, podNames(s.Pods))
}

func TestFolderWalkIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	pod := func(name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec: {containers: [{name: c, image: i}]}\n", name)
	}
	files := map[string]string{
		"b.yaml":          pod("b"),
		"a/z.yml":         pod("a-z"),
		"a/b/c.yaml":      pod("a-b-c"),
		"c.json":          `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "c"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}`,
		"notes.txt":       "not: a manifest",
		".hidden/x.yaml":  pod("hidden"),
		"d.YAML":          pod("d"),
		"empty/readme.md": "",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	want := []string{"default/a-b-c", "default/a-z", "default/b", "default/c", "default/d"}
	for range 3 {
		s, err := Load(dir)
		require.NoError(t, err)
		assert.Equal(t, want, podNames(s.Pods))
	}
	// Paths keep their order; a file named twice is read once.
	s, err := Load(filepath.Join(dir, "c.json"), filepath.Join(dir, "b.yaml"), dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"default/c", "default/b", "default/a-b-c", "default/a-z", "default/d"}, podNames(s.Pods))
	assert.Equal(t, filepath.Join(dir, "a/z.yml")+": document 1 (line 1)", s.SourceOf("Pod", "default", "a-z"))

	_, err = Load(filepath.Join(dir, "empty"))
	assert.ErrorContains(t, err, "folder holds no .yaml, .yml or .json file")
	_, err = Load(filepath.Join(dir, "missing.yaml"))
	assert.ErrorContains(t, err, "missing.yaml: no such file or directory")
}

func TestMultiDocumentAndEmptyDocuments(t *testing.T) {
	s := parse(t, `# leading comment
---
---
# only a comment
---
apiVersion: v1
kind: Pod
metadata:
  name: a
spec:
  containers: [{name: c, image: i}]
--- # a comment on the separator
apiVersion: v1
kind: ConfigMap
metadata: {name: x}
data: {k: v}
---

...
---
apiVersion: example.com/v7
kind: Widget
spec: {anything: [1, 2]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: other, uid: given}
spec: {containers: [{name: c, image: i}]}
`)
	assert.Equal(t, []string{"default/a", "other/b"}, podNames(s.Pods))
	assert.Equal(t, "uid-default/a", string(s.Pods[0].UID))
	assert.Equal(t, "given", string(s.Pods[1].UID))
	assert.Equal(t, map[string]int{"ConfigMap": 1, "Widget": 1}, s.Skipped)
	assert.Equal(t, "test.yaml: document 1 (line 6)", s.SourceOf("Pod", "default", "a"))
	assert.Equal(t, "test.yaml: document 4 (line 25)", s.SourceOf("Pod", "other", "b"))

	s = parse(t, "")
	assert.Empty(t, s.Pods)
	s = parse(t, "# nothing\n\n---\n")
	assert.Empty(t, s.Pods)
}

const kubectlDump = `apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: shop, uid: d-1}
  spec:
    replicas: 2
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: c, image: i}]}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: web-5d4f
    namespace: shop
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1, controller: true}]
  spec:
    replicas: 2
    selector: {matchLabels: {app: web, pod-template-hash: 5d4f}}
    template:
      metadata: {labels: {app: web, pod-template-hash: 5d4f}}
      spec: {containers: [{name: c, image: i}]}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata:
    name: web-old
    namespace: shop
    ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1, controller: true}]
  spec:
    replicas: 0
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-5d4f-abcde
    namespace: shop
    labels: {app: web, pod-template-hash: 5d4f}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d4f, uid: rs-1, controller: true}]
  spec: {nodeName: node-a, containers: [{name: c, image: i}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-5d4f-fghij
    namespace: shop
    labels: {app: web, pod-template-hash: 5d4f}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-5d4f, uid: rs-1, controller: true}]
  spec: {containers: [{name: c, image: i}]}
  status: {phase: Pending}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
  spec: {selector: {app: web}}
- apiVersion: v1
  kind: Node
  metadata: {name: node-a}
`

func TestKubectlListDump(t *testing.T) {
	s := parse(t, kubectlDump)
	// The Deployment and its ReplicaSets have their pods in the dump: nothing is expanded.
	assert.Equal(t, []string{"shop/web-5d4f-abcde", "shop/web-5d4f-fghij"}, podNames(s.Pods))
	require.Len(t, s.Workloads, 3)
	for _, w := range s.Workloads {
		assert.False(t, w.Expanded, w.Name)
	}
	assert.Len(t, s.Nodes, 1)
	assert.Equal(t, map[string]int{"Service": 1}, s.Skipped)
	assert.Equal(t, "test.yaml: document 1 (line 1): items[3]", s.SourceOf("Pod", "shop", "web-5d4f-abcde"))
	rs := s.WorkloadOf(s.Pods[0])
	require.NotNil(t, rs)
	assert.Equal(t, "ReplicaSet", rs.Kind)
	assert.Equal(t, "web-5d4f", rs.Name)

	// Without the pods, the Deployment stands for its ReplicaSets and is expanded once.
	noPods := strings.Split(kubectlDump, "- apiVersion: v1\n  kind: Pod\n")[0] +
		"- apiVersion: v1\n  kind: Node\n  metadata: {name: node-a}\n"
	s = parse(t, noPods)
	assert.Equal(t, []string{"shop/web-0", "shop/web-1"}, podNames(s.Pods))
	assert.Equal(t, "Deployment", s.WorkloadOf(s.Pods[1]).Kind)

	// Pods of a Deployment's ReplicaSet that is not in the input: judged by pod-template-hash.
	s = parse(t, `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: c, image: i}]}
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-77-x
    labels: {app: web, pod-template-hash: "77"}
    ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-77, uid: u, controller: true}]
  spec: {containers: [{name: c, image: i}]}
`)
	assert.Equal(t, []string{"default/web-77-x"}, podNames(s.Pods))
	assert.Equal(t, "Deployment", s.WorkloadOf(s.Pods[0]).Kind)
}

func TestTypedListAndJSON(t *testing.T) {
	// A typed list from the API: items carry no apiVersion or kind.
	s := parse(t, `{
  "apiVersion": "v1",
  "kind": "PodList",
  "metadata": {"resourceVersion": "1"},
  "items": [
    {"metadata": {"name": "p1"}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
    {"metadata": {"name": "p2", "namespace": "x"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
  ]
}`)
	assert.Equal(t, []string{"default/p1", "x/p2"}, podNames(s.Pods))

	// A stream of JSON objects, and a JSON array of objects.
	s = parse(t, `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}
{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"}}
[{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n3"}}, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}]`)
	require.Len(t, s.Nodes, 3)
	assert.Equal(t, "n3", s.Nodes[2].Name)
	assert.Equal(t, map[string]int{"Secret": 1}, s.Skipped)
	assert.Equal(t, "test.yaml: document 2 (line 2)", s.SourceOf("Node", "", "n2"))
	assert.Equal(t, "test.yaml: document 3 (line 3): [0]", s.SourceOf("Node", "", "n3"))

	// JSON errors name the field too.
	msg := parseErr(t, `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [], "nodename": "x"}}`)
	assert.Equal(t, `test.yaml: document 1 (line 1): Pod "default/p": spec.nodename: unknown field`, msg)

	// Lists of NodePools, and nested lists.
	s = parse(t, `apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePoolList
  items:
  - metadata: {name: np}
    spec:
      template:
        spec:
          requirements: []
          nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
`)
	require.Len(t, s.NodePools, 1)
	assert.Equal(t, "test.yaml: document 1 (line 1): items[0].items[0]", s.SourceOf("NodePool", "", "np"))
}

func TestStrictErrors(t *testing.T) {
	for name, tc := range map[string]struct{ doc, want string }{
		"unknown field": {`apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: c
    image: i
    resourcess: {}
`, `test.yaml: document 1 (line 1): Pod "default/web": spec.containers[0].resourcess: unknown field`},
		"bad quantity": {`apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: lots}}
`, `test.yaml: document 1 (line 1): Pod "default/web": spec.containers[0].resources.requests.cpu: quantities must match the regular expression`},
		"wrong type": {`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: three
  selector: {}
  template: {}
`, `Deployment "default/web": spec.replicas: expected an integer, got a string`},
		"label key in path": {`apiVersion: v1
kind: Node
metadata:
  name: node
  labels: {app.kubernetes.io/name: [x]}
`, `Node "node": metadata.labels["app.kubernetes.io/name"]: expected a string, got an array`},
		"duplicate key": {`apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: []
  containers: []
`, `test.yaml: document 1 (line 1): Pod "default/web": yaml: unmarshal errors:`},
		"unknown NodePool field": {`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements: []
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  weigth: 10
`, `NodePool "default": spec.weigth: unknown field`},
		"Pod apiVersion": {`apiVersion: v2
kind: Pod
metadata: {name: web}
`, `test.yaml: document 1 (line 1): Pod "default/web": apiVersion "v2" is not supported for Pod; nodeplan reads Pod as v1`},
		"policy/v1beta1 PDB": {`apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: pdb}
`, `apiVersion "policy/v1beta1" is not supported for PodDisruptionBudget; nodeplan reads PodDisruptionBudget as policy/v1`},
		"no kind": {`apiVersion: v1
metadata: {name: x}
`, `test.yaml: document 1 (line 1): kind: missing; every object needs apiVersion and kind`},
		"no apiVersion": {`kind: Pod
metadata: {name: x}
`, `test.yaml: document 1 (line 1): Pod "x": apiVersion: missing`},
		"no apiVersion for a skipped kind": {`kind: Service
metadata: {name: x}
`, `Service "x": apiVersion: missing`},
		"kind not a string": {`apiVersion: v1
kind: [Pod]
`, `kind: expected a string, got a list`},
		"no name": {`apiVersion: v1
kind: Pod
metadata: {generateName: web-}
spec: {containers: []}
`, `Pod (unnamed): metadata.name: required (generateName is not supported`},
		"not an object": {`just a string`, `test.yaml: document 1 (line 1): expected an object with apiVersion and kind, got a string`},
		"negative replicas": {`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec: {replicas: -1, selector: {}, template: {}}
`, `StatefulSet "default/db": spec.replicas: must not be negative, got -1`},
		"too many replicas": {`apiVersion: apps/v1
kind: Deployment
metadata: {name: db}
spec: {replicas: 2000000000, selector: {}, template: {}}
`, `spec.replicas: 2000000000 is more than nodeplan expands`},
		"yaml syntax, line of the file": {`apiVersion: v1
kind: Node
metadata: {name: a}
---
apiVersion: v1
kind: Node
metadata:
  name: b
 labels: x
`, `test.yaml: document 2 (line 5): yaml: line 8: did not find expected key`},
		"list field": {`apiVersion: v1
kind: List
itemz: []
items: []
`, `List: itemz: unknown field`},
		"EC2NodeClass shape": {`apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default, labelz: {}}
spec: {}
`, `EC2NodeClass "default": metadata.labelz: unknown field`},
		"v1alpha5 Provisioner": {`apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
`, `Provisioner "default": kind Provisioner (apiVersion karpenter.sh/v1alpha5) is no longer served`},
		"NodeClaim validation": {`apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: c}
spec:
  requirements: [{key: kubernetes.io/arch, operator: Foo, values: [amd64]}]
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
`, `NodeClaim "c": spec.requirements[0].operator: Unsupported value: "Foo"`},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Contains(t, parseErr(t, tc.doc), tc.want)
		})
	}
}

func TestErrorsNameEveryProblem(t *testing.T) {
	_, err := Parse([]byte(`apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {containers: [], foo: 1, bar: 2}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [], baz: 1}
`), "f.yaml")
	require.Error(t, err)
	assert.Equal(t, `f.yaml: document 1 (line 1): Pod "default/a": spec.bar: unknown field
f.yaml: document 1 (line 1): Pod "default/a": spec.foo: unknown field
f.yaml: document 2 (line 6): Pod "default/b": spec.baz: unknown field`, err.Error())
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, Source{File: "f.yaml", Document: 1, Line: 1}, e.Source)
	assert.Equal(t, `Pod "default/a"`, e.Object)
	assert.Equal(t, "spec.bar", e.Field)
}

func TestUnknownKindsAreSkipped(t *testing.T) {
	s := parse(t, `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: x}
spec: {whatever: {unknown: true}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: x}
spec: {schedule: "* * * * *"}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: x}
---
apiVersion: example.com/v1
kind: ThingList
items: [{metadata: {name: a}}, {metadata: {name: b}}]
`)
	assert.Equal(t, map[string]int{"ServiceMonitor": 1, "CronJob": 1, "HorizontalPodAutoscaler": 1, "Thing": 2}, s.Skipped)
}

func TestWorkloadExpansion(t *testing.T) {
	s := parse(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {name: ignored, labels: {app: web}, annotations: {a: b}}
    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: idle}
spec:
  replicas: 0
  selector: {matchLabels: {app: idle}}
  template: {spec: {containers: [{name: c, image: i}]}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  parallelism: 5
  completions: 2
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: paused}
spec:
  suspend: true
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}
---
apiVersion: v1
kind: Pod
metadata: {name: between}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 2
  selector: {matchLabels: {app: rs}}
  template: {metadata: {labels: {app: rs}}, spec: {containers: [{name: c, image: i}]}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: data}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: i, volumeMounts: [{name: data, mountPath: /d}]}]
      volumes: [{name: data, emptyDir: {}}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: gp3
      resources: {requests: {storage: 10Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-db-1, namespace: data}
spec:
  accessModes: [ReadWriteOnce]
  volumeName: pv-1
  resources: {requests: {storage: 10Gi}}
`)
	assert.Equal(t, []string{"shop/web-0", "shop/web-1", "shop/web-2", "default/batch-0", "default/batch-1",
		"default/once-0", "default/between", "default/rs-0", "default/rs-1", "data/db-0", "data/db-1"}, podNames(s.Pods))
	require.Len(t, s.Workloads, 7)
	for _, w := range s.Workloads {
		assert.True(t, w.Expanded, w.Name)
		assert.Len(t, w.Pods, int(w.Replicas), w.Name)
	}
	web := s.Pods[0]
	assert.Equal(t, map[string]string{"app": "web"}, web.Labels)
	assert.Equal(t, map[string]string{"a": "b"}, web.Annotations)
	assert.Equal(t, "uid-shop/web-0", string(web.UID))
	assert.Equal(t, resource.MustParse("500m"), web.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU])
	// Each pod has its own copy of the template.
	web.Labels["x"] = "y"
	web.Spec.Containers[0].Name = "changed"
	assert.Equal(t, map[string]string{"app": "web"}, s.Pods[1].Labels)
	assert.Equal(t, "c", s.Pods[1].Spec.Containers[0].Name)
	assert.Equal(t, "c", s.Workloads[0].Template.Spec.Containers[0].Name)

	owner := func(p *corev1.Pod) string {
		r := p.OwnerReferences[0]
		return r.APIVersion + " " + r.Kind + " " + r.Name
	}
	assert.Equal(t, "apps/v1 ReplicaSet web", owner(s.Pods[0]))
	assert.Equal(t, "batch/v1 Job batch", owner(s.Pods[3]))
	assert.Equal(t, "apps/v1 ReplicaSet rs", owner(s.Pods[7]))
	assert.Equal(t, "apps/v1 StatefulSet db", owner(s.Pods[9]))
	assert.Nil(t, s.WorkloadOf(s.Pods[6]))
	assert.Equal(t, "batch", s.WorkloadOf(s.Pods[4]).Name)

	// StatefulSet pods use their own claims; the claim given is kept, the other one made.
	db0 := s.Pods[9]
	require.Len(t, db0.Spec.Volumes, 1)
	assert.Equal(t, "data-db-0", db0.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
	assert.Equal(t, "db-0", db0.Spec.Hostname)
	assert.Equal(t, "db", db0.Spec.Subdomain)
	require.Len(t, s.PersistentVolumeClaims, 2)
	assert.Equal(t, "data-db-1", s.PersistentVolumeClaims[0].Name)
	assert.Equal(t, "pv-1", s.PersistentVolumeClaims[0].Spec.VolumeName)
	made := s.PersistentVolumeClaims[1]
	assert.Equal(t, "data/data-db-0", made.Namespace+"/"+made.Name)
	assert.Equal(t, "gp3", *made.Spec.StorageClassName)
	assert.Equal(t, corev1.ClaimPending, made.Status.Phase)
	assert.NotEmpty(t, s.SourceOf("PersistentVolumeClaim", "data", "data-db-0"))
}

func TestDuplicates(t *testing.T) {
	msg := parseErr(t, `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: []}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec: {containers: []}
`)
	assert.Equal(t, `test.yaml: document 2 (line 6): Pod "default/web": defined twice: first at test.yaml: document 1 (line 1)`, msg)

	msg = parseErr(t, `apiVersion: v1
kind: Pod
metadata: {name: web-0}
spec: {containers: []}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec: {selector: {}, template: {spec: {containers: []}}}
`)
	assert.Contains(t, msg, `test.yaml: document 2 (line 6): Pod "default/web-0": the pod this workload makes is defined twice: first at test.yaml: document 1 (line 1)`)

	msg = parseErr(t, `apiVersion: v1
kind: Pod
metadata: {name: a, uid: same}
spec: {containers: []}
---
apiVersion: v1
kind: Pod
metadata: {name: b, uid: same}
spec: {containers: []}
`)
	assert.Contains(t, msg, `Pod "default/b": metadata.uid: UID "same" is also the UID of Pod "default/a"`)
}

func TestMerge(t *testing.T) {
	deployment, err := Parse([]byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: i}]}}
`), "deploy.yaml")
	require.NoError(t, err)
	require.Len(t, deployment.Pods, 2)
	pods, err := Parse([]byte(`apiVersion: v1
kind: Pod
metadata:
  name: web-abc-1
  labels: {app: web, pod-template-hash: abc}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, uid: u, controller: true}]
spec: {nodeName: node-a, containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Service
metadata: {name: web}
`), "pods.yaml")
	require.NoError(t, err)

	merged := NewSet()
	require.NoError(t, merged.Merge(deployment))
	assert.Equal(t, []string{"default/web-0", "default/web-1"}, podNames(merged.Pods))
	require.NoError(t, merged.Merge(pods))
	// The Deployment's pods are in the second file: it is not expanded any more.
	assert.Equal(t, []string{"default/web-abc-1"}, podNames(merged.Pods))
	assert.False(t, merged.Workloads[0].Expanded)
	assert.Equal(t, map[string]int{"Service": 1}, merged.Skipped)
	assert.Equal(t, "deploy.yaml: document 1 (line 1)", merged.SourceOf("Deployment", "default", "web"))
	assert.Empty(t, merged.SourceOf("Pod", "default", "web-0"))
	// The inputs are unchanged.
	assert.Len(t, deployment.Pods, 2)
	assert.True(t, deployment.Workloads[0].Expanded)

	// Merging an object twice fails and leaves the set as it was.
	err = merged.Merge(pods)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `pods.yaml: document 1 (line 1): Pod "default/web-abc-1": defined twice: first at pods.yaml: document 1 (line 1)`)
	assert.Equal(t, []string{"default/web-abc-1"}, podNames(merged.Pods))
	assert.Equal(t, map[string]int{"Service": 1}, merged.Skipped)

	// The workloads of a set expand into MaxExpandedPods pods at most.
	defer func(n int) { maxExpandedPods = n }(maxExpandedPods)
	maxExpandedPods = 5
	big := strings.Repeat(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web%d}
spec: {replicas: 3, selector: {}, template: {}}
---
`, 2)
	msg := parseErr(t, fmt.Sprintf(big, 1, 2))
	assert.Equal(t, `test.yaml: document 2 (line 6): Deployment "default/web2": the workloads expand into more than 5 pods, the most nodeplan expands`, msg)
	maxExpandedPods = MaxExpandedPods

	// A zero Set can be merged into.
	var zero Set
	require.NoError(t, zero.Merge(deployment))
	assert.Len(t, zero.Pods, 2)
}

func TestLoadReportsEveryFile(t *testing.T) {
	old := filepath.Join(t.TempDir(), "provisioner.yaml")
	require.NoError(t, os.WriteFile(old, []byte("apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: default}\nspec: {}\n"), 0o644))
	_, err := Load("testdata/scenarios/bad-operator.yaml", old, "testdata/online-boutique.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "testdata/scenarios/bad-operator.yaml: document 1")
	assert.Contains(t, err.Error(), old+": document 1")

	s, err := Load("testdata/general-purpose.yaml", "testdata/online-boutique.yaml", "testdata/sock-shop.yaml")
	require.NoError(t, err)
	assert.Len(t, s.NodePools, 1)
	assert.Len(t, s.Pods, 26)
	assert.Equal(t, map[string]int{"Service": 26, "ServiceAccount": 11}, s.Skipped)
	assert.Len(t, s.Namespaces, 1)
}

func TestReadKinds(t *testing.T) {
	assert.Equal(t, []string{"CSINode", "DaemonSet", "Deployment", "EC2NodeClass", "Job", "Lease", "Namespace", "Node", "NodeClaim",
		"NodePool", "PersistentVolume", "PersistentVolumeClaim", "Pod", "PodDisruptionBudget", "ReplicaSet",
		"StatefulSet", "StorageClass"}, ReadKinds())
}

func TestOtherKinds(t *testing.T) {
	s := parse(t, `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds, namespace: kube-system}
spec:
  selector: {matchLabels: {app: ds}}
  template: {metadata: {labels: {app: ds}}, spec: {containers: [{name: c, image: i}]}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: gp3}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-a}
spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 25}}]}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: claim}
spec:
  requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
`)
	require.Len(t, s.DaemonSets, 1)
	assert.Equal(t, "kube-system", s.DaemonSets[0].Namespace)
	require.Len(t, s.PodDisruptionBudgets, 1)
	assert.Equal(t, "default", s.PodDisruptionBudgets[0].Namespace)
	require.Len(t, s.PersistentVolumes, 1)
	assert.Empty(t, s.PersistentVolumes[0].Namespace)
	require.Len(t, s.StorageClasses, 1)
	require.Len(t, s.CSINodes, 1)
	require.Len(t, s.NodeClaims, 1)
	assert.Equal(t, "720h", s.NodeClaims[0].Spec.ExpireAfter.String())
	assert.Empty(t, s.Pods, "DaemonSets are not expanded")
}

func TestDerivedUIDsDoNotCollide(t *testing.T) {
	data := []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team-a}\nspec: {containers: [{name: c, image: x}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a-web, namespace: team}\nspec: {containers: [{name: c, image: x}]}\n")
	s, err := Parse(data, "pods.yaml")
	require.NoError(t, err)
	require.Len(t, s.Pods, 2)
	assert.NotEqual(t, s.Pods[0].UID, s.Pods[1].UID)
}

func TestKindOfAnotherGroupIsSkipped(t *testing.T) {
	data := []byte("apiVersion: apps.kruise.io/v1beta1\nkind: StatefulSet\nmetadata: {name: db}\nspec: {replicas: 3}\n---\napiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: train}\nspec: {}\n")
	s, err := Parse(data, "crds.yaml")
	require.NoError(t, err)
	assert.Empty(t, s.Pods)
	assert.Equal(t, 1, s.Skipped["StatefulSet.apps.kruise.io"])
	assert.Equal(t, 1, s.Skipped["Job.batch.volcano.sh"])
	_, err = Parse([]byte("apiVersion: apps/v2\nkind: StatefulSet\nmetadata: {name: db}\nspec: {}\n"), "v2.yaml")
	assert.Error(t, err, "an unknown version of a group nodeplan reads is still an error")
}

func TestFinishedJobsRunNoPods(t *testing.T) {
	job := func(status string) []byte {
		return []byte("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 4\n  completions: 5\n  template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}\n" + status)
	}
	s, err := Parse(job(""), "j.yaml")
	require.NoError(t, err)
	assert.Len(t, s.Pods, 4, "a new Job runs its parallelism")
	s, err = Parse(job("status: {succeeded: 3}\n"), "j.yaml")
	require.NoError(t, err)
	assert.Len(t, s.Pods, 2, "only the missing completions")
	s, err = Parse(job("status: {succeeded: 5, conditions: [{type: Complete, status: \"True\"}]}\n"), "j.yaml")
	require.NoError(t, err)
	assert.Empty(t, s.Pods, "a complete Job runs nothing")
}

func TestStatefulSetOrdinalsStart(t *testing.T) {
	data := []byte("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  replicas: 2\n  ordinals: {start: 5}\n  selector: {matchLabels: {app: db}}\n  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: x}]}}\n")
	s, err := Parse(data, "db.yaml")
	require.NoError(t, err)
	require.Len(t, s.Pods, 2)
	assert.Equal(t, "db-5", s.Pods[0].Name)
	assert.Equal(t, "db-6", s.Pods[1].Name)
}
