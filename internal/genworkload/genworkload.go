// Package genworkload writes a generic workload as Kubernetes YAML: a general-purpose
// NodePool (amd64, linux, on-demand, instance categories c, m and r of generation 3 or later,
// as Karpenter's examples/v1/general-purpose.yaml), two DaemonSets, and Deployments of mixed
// cpu and memory shapes, some spread over zones or hostnames, with as many pods in all as asked.
// The same options always give the same bytes (a seeded PCG; no clock, no map order).
//
// It is the input of the price benchmarks (scheduling's BenchmarkGenericWorkload) and of
// `go run ./hack/genworkload`, for the embedded EC2 catalog (the NodePool names no
// EC2NodeClass of the input, so nodeplan plans it with Karpenter's default NodeClass). It
// never decides anything: test and tool support only.
package genworkload

import (
	"bytes"
	"fmt"
	"math/rand/v2"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/internal/weighted"
)

// NodePool is the name of the workload's NodePool.
const NodePool = "general-purpose"

// Options say what to generate.
type Options struct {
	// Pods is the number of Deployment replicas in all (at least 1).
	Pods int
	// Seed draws the Deployments; the same seed gives the same workload.
	Seed uint64
}

// The shapes of a Deployment's pods: cpu, and memory as GiB per vCPU, mostly small services
// with 2-4 GiB per vCPU, some cpu-bound and some memory-bound.
var (
	cpuMillis = []weighted.Choice[int64]{{Value: 100, Weight: 15}, {Value: 250, Weight: 25}, {Value: 500, Weight: 25}, {Value: 1000, Weight: 20}, {Value: 2000, Weight: 10}, {Value: 4000, Weight: 5}}
	gibPerCPU = []weighted.Choice[float64]{{Value: 0.5, Weight: 10}, {Value: 1, Weight: 15}, {Value: 2, Weight: 30}, {Value: 4, Weight: 30}, {Value: 8, Weight: 15}}
	replicas  = []weighted.Choice[int]{{Value: 1, Weight: 10}, {Value: 2, Weight: 20}, {Value: 3, Weight: 20}, {Value: 5, Weight: 15}, {Value: 8, Weight: 10}, {Value: 10, Weight: 10}, {Value: 20, Weight: 10}, {Value: 40, Weight: 5}}
)

// spread is a Deployment's topology spread: none, zones (DoNotSchedule) or hostnames
// (ScheduleAnyway or DoNotSchedule), all with maxSkew 1.
type spread struct {
	key  string
	when corev1.UnsatisfiableConstraintAction
}

var spreads = []weighted.Choice[spread]{
	{Value: spread{}, Weight: 70},
	{Value: spread{corev1.LabelTopologyZone, corev1.DoNotSchedule}, Weight: 15},
	{Value: spread{corev1.LabelHostname, corev1.ScheduleAnyway}, Weight: 10},
	{Value: spread{corev1.LabelHostname, corev1.DoNotSchedule}, Weight: 5},
}

// Generate returns the workload as YAML documents: the NodePool, the DaemonSets, then the
// Deployments (svc-0001, svc-0002, …).
func Generate(opts Options) ([]byte, error) {
	if opts.Pods < 1 {
		return nil, fmt.Errorf("genworkload: %d pods: want at least 1", opts.Pods)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
	var out bytes.Buffer
	out.WriteString(nodePool)
	for _, ds := range []*appsv1.DaemonSet{daemonSet("kube-proxy", "100m", "128Mi"), daemonSet("node-agent", "50m", "100Mi")} {
		if err := document(&out, ds); err != nil {
			return nil, err
		}
	}
	for i, left := 1, opts.Pods; left > 0; i++ {
		n := min(weighted.Draw(rng, replicas), left)
		left -= n
		cpu := weighted.Draw(rng, cpuMillis)
		mem := int64(float64(cpu) * weighted.Draw(rng, gibPerCPU) * 1024 / 1000) // MiB
		if err := document(&out, deployment(fmt.Sprintf("svc-%04d", i), n, cpu, max(mem, 64), weighted.Draw(rng, spreads))); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}

func document(out *bytes.Buffer, obj any) error {
	b, err := yaml.Marshal(obj)
	if err != nil {
		return err
	}
	out.WriteString("---\n")
	out.Write(b)
	return nil
}

// nodePool is Karpenter's general-purpose example NodePool.
const nodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: ` + NodePool + `
spec:
  template:
    spec:
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: kubernetes.io/os, operator: In, values: [linux]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["2"]}
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
`

func requests(cpu, memory string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}
}

func daemonSet(name, cpu, memory string) *appsv1.DaemonSet {
	labels := map[string]string{"app": name}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers:  []corev1.Container{{Name: name, Image: "registry.example/" + name + ":1", Resources: requests(cpu, memory)}},
				},
			},
		},
	}
}

func deployment(name string, replicas int, cpuMillis, memMiB int64, sp spread) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	n := int32(replicas)
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &n,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/" + name + ":1",
					Resources: requests(fmt.Sprintf("%dm", cpuMillis), fmt.Sprintf("%dMi", memMiB))}}},
			},
		},
	}
	if sp.key != "" {
		d.Spec.Template.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: sp.key, WhenUnsatisfiable: sp.when, LabelSelector: &metav1.LabelSelector{MatchLabels: labels}}}
	}
	return d
}
