package scheduling_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Tests of inputs a caller should not give but may: Solve answers them with an error, never
// a panic or a plan built on them.

func typeWith(name, cpu, mem string) *cloudprovider.InstanceType {
	return fake.NewInstanceType(fake.InstanceTypeOptions{Name: name, Resources: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem), corev1.ResourcePods: resource.MustParse("110")}})
}

func oneType(it *cloudprovider.InstanceType, pods ...*corev1.Pod) *scheduling.Input {
	return &scheduling.Input{
		Pods:          pods,
		NodePools:     []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": {it}},
	}
}

func TestSolveRejectsInvalidInput(t *testing.T) {
	pod := fake.Pod("p").Requests("1", "1Gi").Obj()
	nilOffering := typeWith("small", "2", "4Gi")
	nilOffering.Offerings = append(cloudprovider.Offerings{nil}, nilOffering.Offerings...)
	nameless := typeWith("small", "2", "4Gi")
	nameless.Name = ""
	for name, in := range map[string]*scheduling.Input{
		"nil input":           nil,
		"nil pod":             oneType(typeWith("small", "2", "4Gi"), pod, nil),
		"nil offering":        oneType(nilOffering, pod),
		"nameless type":       oneType(nameless, pod),
		"unparsable NodePool": withRequirement(oneType(typeWith("small", "2", "4Gi"), pod), "Bogus"),
	} {
		t.Run(name, func(t *testing.T) {
			var res *scheduling.Result
			var err error
			require.NotPanics(t, func() { res, err = scheduling.Solve(in) })
			assert.Error(t, err)
			assert.Nil(t, res)
		})
	}
}

func withRequirement(in *scheduling.Input, op corev1.NodeSelectorOperator) *scheduling.Input {
	in.NodePools[0].Spec.Template.Spec.Requirements = append(in.NodePools[0].Spec.Template.Spec.Requirements,
		v1.NodeSelectorRequirementWithMinValues{Key: "example.com/x", Operator: op, Values: []string{"a"}})
	return in
}

// TestCacheKeysTemplatesByContent: a second Solve with the same NodePool, the same first
// instance type and the same number of types, but another second type, must see that type.
func TestCacheKeysTemplatesByContent(t *testing.T) {
	tiny, small, big := typeWith("tiny", "1", "1Gi"), typeWith("small", "2", "2Gi"), typeWith("big", "16", "64Gi")
	pod := fake.Pod("p").Requests("8", "16Gi").Obj()
	cache := scheduling.NewCache()
	in := oneType(tiny, pod)
	in.Cache = cache
	in.InstanceTypes["default"] = cloudprovider.InstanceTypes{tiny, small}
	res := mustSolve(t, in)
	require.Len(t, res.PodErrors, 1, "nothing in the first list fits the pod")

	in.InstanceTypes["default"] = cloudprovider.InstanceTypes{tiny, big}
	res = mustSolve(t, in)
	require.Empty(t, res.PodErrors, "the second list has a type that fits")
	require.Len(t, res.NewNodeClaims, 1)
	assert.Equal(t, "big", res.NewNodeClaims[0].InstanceType.Name)
}

// TestPropCacheChangesNothing: one Cache shared across Solves of two scenarios, and of the
// first scenario with its instance-type lists shuffled and cut, gives each Solve the result
// it gets without a cache, and modifies no input.
func TestPropCacheChangesNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := scenarioGen().Draw(t, "a"), scenarioGen().Draw(t, "b")
		inA, inB := a.build(), b.build()
		// The variant shares inA's objects but not its lists.
		variant := *inA
		variant.InstanceTypes = map[string]cloudprovider.InstanceTypes{}
		for _, np := range inA.NodePools {
			its := rapid.Permutation(inA.InstanceTypes[np.Name]).Draw(t, np.Name+"/order")
			n := rapid.IntRange(0, len(its)).Draw(t, np.Name+"/keep")
			variant.InstanceTypes[np.Name] = its[:n]
		}
		inputs := []*scheduling.Input{inA, inB, &variant, inA, &variant}
		want := make([]string, len(inputs))
		for i, in := range inputs {
			res, err := scheduling.Solve(in)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = render(res)
		}
		refA, refB := a.build(), b.build()
		warm(inA)
		warm(inB)
		warm(refA)
		warm(refB)
		cache := scheduling.NewCache()
		for i, in := range inputs {
			c := *in
			c.Cache = cache
			res, err := scheduling.Solve(&c)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(res); got != want[i] {
				t.Fatalf("Solve %d with a shared cache differs:\n--- without\n%s--- with\n%s", i, want[i], got)
			}
		}
		if !reflect.DeepEqual(inA, refA) {
			t.Fatalf("Solve with a cache modified its input: %s", firstDiff(inA, refA))
		}
		if !reflect.DeepEqual(inB, refB) {
			t.Fatalf("Solve with a cache modified its input: %s", firstDiff(inB, refB))
		}
	})
}
