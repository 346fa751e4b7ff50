package requirements_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeplan/nodeplan/requirements"
)

func ExampleNew() {
	cpu, err := requirements.New("example.com/cpu", requirements.Gt, "4")
	if err != nil {
		panic(err)
	}
	fmt.Println(cpu, cpu.Has("8"), cpu.Has("4"), cpu.Has("large"))

	_, err = requirements.New("example.com/cpu", requirements.Gt, "four")
	fmt.Println(err)
	// Output:
	// example.com/cpu Exists >=5 true false false
	// requirement on key "example.com/cpu": operator Gt requires a non-negative integer, got "four"
}

func ExampleRequirement_Intersection() {
	zones := requirements.MustNew("failure-domain.beta.kubernetes.io/zone", requirements.In, "z1", "z2", "z3").WithMinValues(2)
	notZ1 := requirements.MustNew("topology.kubernetes.io/zone", requirements.NotIn, "z1")
	fmt.Println(zones.Intersection(notZ1))

	gt1 := requirements.MustNew("cpu", requirements.Gt, "1")
	lt9 := requirements.MustNew("cpu", requirements.Lt, "9")
	both := gt1.Intersection(lt9)
	fmt.Println(both, both.Intersects(requirements.MustNew("cpu", requirements.In, "16")))
	for _, nsr := range both.NodeSelectorRequirements() {
		fmt.Println(nsr.Operator, nsr.Values)
	}
	// Output:
	// topology.kubernetes.io/zone In [z2 z3] minValues 2
	// cpu Exists >=2 <=8 false
	// Gte [2]
	// Lte [8]
}

func ExampleRequirements_Compatible() {
	nodePool := requirements.NewRequirements(
		requirements.MustNew("topology.kubernetes.io/zone", requirements.In, "z1", "z2"),
		requirements.MustNew("example.com/team", requirements.In, "web"),
	)
	pod := requirements.NewRequirements(requirements.MustNew("zone", requirements.In, "z1"))
	fmt.Println(nodePool.Compatible(pod, requirements.AllowUndefinedWellKnownLabels()))

	pod = requirements.NewRequirements(requirements.MustNew("topology.kubernetes.io/zone", requirements.In, "z3"))
	fmt.Println(nodePool.Compatible(pod, requirements.AllowUndefinedWellKnownLabels()))

	pod = requirements.NewRequirements(
		requirements.MustNew("topology.kubernetes.io/zone", requirements.In, "z2", "z3"),
		requirements.MustNew("example.com/gpu", requirements.DoesNotExist),
	)
	fmt.Println(nodePool.Compatible(pod, requirements.AllowUndefinedWellKnownLabels()))
	// Output:
	// label "zone" does not have known values (typo of "topology.kubernetes.io/zone"?)
	// key "topology.kubernetes.io/zone": topology.kubernetes.io/zone In [z3] not in topology.kubernetes.io/zone In [z1 z2]
	// <nil>
}

func ExampleForPod() {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"beta.kubernetes.io/arch": "arm64"},
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
					{MatchExpressions: []corev1.NodeSelectorRequirement{
						{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"z1", "z2"}},
					}},
				}},
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
					{Weight: 10, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
						{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"z2"}},
					}}},
				},
			}},
		},
	}
	rs, err := requirements.ForPod(pod)
	fmt.Println(rs, err)
	strict, err := requirements.ForPodStrict(pod)
	fmt.Println(strict, err)

	pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Operator = "Foo"
	_, err = requirements.ForPod(pod)
	fmt.Println(err)
	// Output:
	// kubernetes.io/arch In [arm64], topology.kubernetes.io/zone In [z2] <nil>
	// kubernetes.io/arch In [arm64], topology.kubernetes.io/zone In [z1 z2] <nil>
	// pod default/web: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: unsupported operator "Foo"
}
