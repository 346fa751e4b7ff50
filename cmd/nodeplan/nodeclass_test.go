package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nodeClassInput is a NodePool "pool" limited to one instance type and on-demand, its
// EC2NodeClass "nc" (AL2023 alias plus extra spec lines) and a Deployment of replicas pods.
func nodeClassInput(instanceType, ncSpec string, replicas int, requests string) string {
	return fmt.Sprintf(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: pool}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: nc}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [%s]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: nc}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
%s
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: %d
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x, resources: {requests: %s}}]
`, instanceType, ncSpec, replicas, requests)
}

// TestPlanNodeClassAllocatable: each EC2NodeClass setting changes the instance types'
// allocatable as Karpenter computes it, and so the plan.
func TestPlanNodeClassAllocatable(t *testing.T) {
	small := "{cpu: 10m, memory: 10Mi}"
	for _, c := range []struct {
		name     string
		it       string
		spec     string
		replicas int
		requests string
		nodes    int // 0: the pods are unschedulable
	}{
		{"defaults: 29 pods fit one m5.large", "m5.large", "", 20, small, 1},
		{"maxPods 8: 20 pods need 3 m5.large", "m5.large", "  kubelet: {maxPods: 8}", 20, small, 3},
		{"podsPerCore 2 on 2 vCPUs: 4 pods a node", "m5.large", "  kubelet: {podsPerCore: 2}", 20, small, 5},
		{"a 6Gi pod fits m5.large (6903Mi)", "m5.large", "", 1, "{cpu: 100m, memory: 6Gi}", 1},
		{"kubeReserved memory 2Gi: it does not (6001Mi)", "m5.large", "  kubelet: {kubeReserved: {memory: 2Gi}}", 1, "{cpu: 100m, memory: 6Gi}", 0},
		{"evictionHard memory 20%: it does not", "m5.large", `  kubelet: {evictionHard: {memory.available: "20%"}}`, 1, "{cpu: 100m, memory: 6Gi}", 0},
		{"systemReserved cpu 500m: a 1500m pod does not fit 1930m", "m5.large", "  kubelet: {systemReserved: {cpu: 500m}}", 1, "{cpu: 1500m}", 0},
		{"50Gi of ephemeral storage does not fit the 20Gi root", "m5.large", "", 1, "{ephemeral-storage: 50Gi}", 0},
		{"it fits a 100Gi root volume", "m5.large",
			"  blockDeviceMappings: [{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 100Gi, volumeType: gp3}}]", 1, "{ephemeral-storage: 50Gi}", 1},
		{"AL2023 cannot boot a1", "a1.large", "", 1, small, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := planJSON(t, "-f", writeInput(t, "in.yaml", nodeClassInput(c.it, c.spec, c.replicas, c.requests)))
			assert.Len(t, got.NodeClaims, c.nodes)
			if c.nodes == 0 {
				assert.Len(t, got.PodErrors, c.replicas)
			} else {
				assert.Empty(t, got.PodErrors)
			}
		})
	}
}

func TestPlanNodeClassFamilies(t *testing.T) {
	in := nodeClassInput("a1.large", "", 1, "{cpu: 10m}")
	got := planJSON(t, "-f", writeInput(t, "in.yaml", strings.Replace(in, "al2023@latest", "al2@latest", 1)))
	assert.Len(t, got.NodeClaims, 1, "AL2 boots a1")

	windows := strings.Replace(nodeClassInput("m5.large", "", 1, "{cpu: 10m}"), "al2023@latest", "windows2022@latest", 1)
	windows = strings.Replace(windows, "containers:", "nodeSelector: {kubernetes.io/os: windows}\n      containers:", 1)
	got = planJSON(t, "-f", writeInput(t, "in.yaml", windows))
	assert.Len(t, got.NodeClaims, 1, "a Windows NodeClass launches windows nodes")
	assert.Empty(t, got.PodErrors)
}

// TestPlanNodeClassMissing: a NodePool whose EC2NodeClass is not in the input is not ready,
// as in Karpenter, and says so; the other NodePools plan as usual.
func TestPlanNodeClassMissing(t *testing.T) {
	in := nodeClassInput("m5.large", "", 2, "{cpu: 10m}")
	in = strings.Replace(in, "name: nc}\n      requirements", "name: gone}\n      requirements", 1)
	out, stderr, code := nodeplan(t, "plan", "-f", writeInput(t, "in.yaml", in), "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, `warning: NodePool "pool": its EC2NodeClass "gone" is not in the input`)
	var got planOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Empty(t, got.NodeClaims)
	require.Len(t, got.PodErrors, 2)
	assert.Equal(t, "NoNodePool", got.PodErrors[0].Code)
	require.Len(t, got.PodErrors[0].Causes, 1)
	c := got.PodErrors[0].Causes[0]
	assert.Equal(t, "NodePoolNotReady", c.Code)
	assert.Equal(t, "pool", c.NodePool)
	assert.Contains(t, c.Detail, `its EC2NodeClass "gone" is not in the input`, "the Ready condition's message")
}

// TestCatalogWarningsBothCommands: the catalog's warnings (here a NodePool whose EC2NodeClass
// is missing) reach stderr under disrupt as under plan; disrupt dropped them silently.
func TestCatalogWarningsBothCommands(t *testing.T) {
	in := nodeClassInput("m5.large", "", 2, "{cpu: 10m}")
	in = strings.Replace(in, "name: nc}\n      requirements", "name: gone}\n      requirements", 1)
	file := writeInput(t, "in.yaml", in)
	for _, command := range []string{"plan", "disrupt"} {
		_, stderr, code := nodeplan(t, command, "-f", file, "-o", "json")
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, `warning: NodePool "pool": its EC2NodeClass "gone" is not in the input`, command)
	}
}

// TestPlanKubeletAnnotation: the v1beta1 kubelet block a NodePool carries in Karpenter 1.0's
// compatibility annotation takes precedence over the EC2NodeClass's kubelet.
func TestPlanKubeletAnnotation(t *testing.T) {
	in := nodeClassInput("m5.large", "  kubelet: {maxPods: 8}", 20, "{cpu: 10m, memory: 10Mi}")
	in = strings.Replace(in, "metadata: {name: pool}", `metadata:
  name: pool
  annotations: {compatibility.karpenter.sh/v1beta1-kubelet-conversion: '{"maxPods":10}'}`, 1)
	got := planJSON(t, "-f", writeInput(t, "in.yaml", in))
	assert.Len(t, got.NodeClaims, 2, "maxPods 10 from the annotation, not 8")

	bad := strings.Replace(in, `{"maxPods":10}`, `{"maxPod":10}`, 1)
	_, stderr, code := nodeplan(t, "plan", "-f", writeInput(t, "in.yaml", bad))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `NodePool "pool": metadata.annotations[compatibility.karpenter.sh/v1beta1-kubelet-conversion]: not a kubelet configuration: unknown field "maxPod"`)
}

// TestPlanNodeClassWithCatalogFile: an --instance-types catalog is used as it is.
func TestPlanNodeClassWithCatalogFile(t *testing.T) {
	in := nodeClassInput("s-2x4", "  kubelet: {maxPods: 1}", 3, "{cpu: 10m, memory: 10Mi}")
	got := planJSON(t, "-f", writeInput(t, "in.yaml", in), "--instance-types", filepath.Join(scenarios, "instance-types.yaml"))
	assert.Len(t, got.NodeClaims, 1, "the file's pods capacity, not maxPods")
}

// TestPlanTeamsV1beta1: the multi-team example written for Karpenter v1beta1 plans, with a
// warning per converted object.
func TestPlanTeamsV1beta1(t *testing.T) {
	out, stderr, code := nodeplan(t, "plan", "-f", "../../apis/v1/testdata/teams-v1beta1.yaml", "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, `EC2NodeClass "default": karpenter.k8s.aws/v1beta1 is no longer served`)
	assert.Contains(t, stderr, "spec.amiSelectorTerms [{alias: al2@latest}]")
	var got planOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got.NodeClaims, 2)
	assert.Equal(t, "team-1", got.NodeClaims[0].NodePool)
	assert.Equal(t, "team-2", got.NodeClaims[1].NodePool)
	assert.Empty(t, got.PodErrors)
}

// TestPlanNodeClassSubnetZones: a NodeClass whose status lists subnets (a dump of a live
// cluster) launches only in their zones, as Karpenter does.
func TestPlanNodeClassSubnetZones(t *testing.T) {
	status := `status:
  subnets:
  - {id: subnet-0b, zone: us-east-1b, zoneID: use1-az2}
  - {id: subnet-0z, zone: us-east-1z, zoneID: use1-az9}`
	in := nodeClassInput("m5.large", status, 1, "{cpu: 10m}")
	got := planJSON(t, "-f", writeInput(t, "in.yaml", in))
	require.Len(t, got.NodeClaims, 1)
	assert.Equal(t, "us-east-1b", got.NodeClaims[0].Zone)

	far := strings.NewReplacer("us-east-1b", "us-west-2a", "us-east-1z", "us-west-2b").Replace(in)
	out, stderr, code := nodeplan(t, "plan", "-f", writeInput(t, "in.yaml", far), "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, `EC2NodeClass "nc": its subnets are in us-west-2a, us-west-2b, which the embedded catalog (us-east-1a, us-east-1b, us-east-1c) does not have`)
	assert.Contains(t, out, `"zone":"us-east-1a"`)
}

// TestPlanControllerCapacityFlags: Karpenter's --reserved-enis and --vm-memory-overhead-percent
// change the embedded catalog as they change Karpenter's.
func TestPlanControllerCapacityFlags(t *testing.T) {
	in := writeInput(t, "in.yaml", nodeClassInput("m5.large", "", 25, "{cpu: 10m, memory: 10Mi}"))
	got := planJSON(t, "-f", in)
	assert.Len(t, got.NodeClaims, 1, "29 pods fit one m5.large")
	got = planJSON(t, "-f", in, "--reserved-enis", "1")
	assert.Len(t, got.NodeClaims, 2, "with one ENI reserved an m5.large holds 2 x 9 + 2 = 20 pods")

	big := writeInput(t, "in.yaml", nodeClassInput("m5.large", "", 1, "{cpu: 10m, memory: 6900Mi}"))
	assert.Len(t, planJSON(t, "-f", big).NodeClaims, 1, "6903Mi allocatable")
	assert.Len(t, planJSON(t, "-f", big, "--vm-memory-overhead-percent", "0.1").PodErrors, 1, "10% overhead leaves 6698Mi")

	for _, args := range [][]string{
		{"--reserved-enis", "-1"}, {"--vm-memory-overhead-percent", "1.5"},
		{"--reserved-enis", "1", "--instance-types", filepath.Join(scenarios, "instance-types.yaml")},
	} {
		_, stderr, code := nodeplan(t, append([]string{"plan", "-f", in}, args...)...)
		assert.Equal(t, 1, code, args)
		assert.NotEmpty(t, stderr)
	}
}

// TestNodePoolOfAnotherCloudLaunchesNothing: with the embedded EC2 catalog, a NodePool whose
// nodeClassRef is another kind (AKSNodeClass) or group launches nothing, as Karpenter's AWS
// provider does not manage it: a warning names the NodePool, and a pod only it could take
// fails with NodeClassUnsupported. It was planned with the default types, exit 0, silently.
func TestNodePoolOfAnotherCloudLaunchesNothing(t *testing.T) {
	in := writeInput(t, "in.yaml", `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: aks}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.azure.com, kind: AKSNodeClass, name: default}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`)
	for _, command := range []string{"plan", "disrupt"} {
		out, stderr, code := nodeplan(t, command, "-f", in, "-o", "json")
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, `nodeplan: warning: NodePool "aks": its nodeClassRef names AKSNodeClass "default" of group "karpenter.azure.com"`)
		var got struct {
			NodeClaims  []claimOutput `json:"nodeClaims"`
			Provisioned []claimOutput `json:"provisioned"`
			PodErrors   []struct {
				Code   string `json:"code"`
				Causes []struct {
					Code     string `json:"code"`
					NodePool string `json:"nodePool"`
				} `json:"causes"`
			} `json:"podErrors"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		assert.Empty(t, got.NodeClaims, command)
		assert.Empty(t, got.Provisioned, command)
		if command == "plan" {
			require.Len(t, got.PodErrors, 1)
			require.Len(t, got.PodErrors[0].Causes, 1)
			assert.Equal(t, "NodeClassUnsupported", got.PodErrors[0].Causes[0].Code)
			assert.Equal(t, "aks", got.PodErrors[0].Causes[0].NodePool)
		}
	}
	// A catalog file is no cloud's: its NodePools launch whatever their NodeClass.
	out, stderr, code := nodeplan(t, "plan", "-f", in, "--instance-types", filepath.Join(scenarios, "instance-types.yaml"), "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "warning")
	assert.Contains(t, out, `"nodePool":"aks"`)
}
