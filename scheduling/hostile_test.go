package scheduling_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/internal/quantity"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Tests of inputs a caller should not give but may: Solve answers them with an error, never
// a panic or a plan built on them.

func typeWith(name, cpu, mem string) *cloudprovider.InstanceType {
	return fake.NewInstanceType(fake.InstanceTypeOptions{Name: name, Resources: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem), corev1.ResourcePods: resource.MustParse("110")}})
}

// oneType are pending pods and one NodePool "default" of one instance type.
func oneType(it *cloudprovider.InstanceType, pods ...*corev1.Pod) cluster.Objects {
	return cluster.Objects{
		Pods:          pods,
		NodePools:     []*v1.NodePool{fake.NodePool("default").Obj()},
		InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": {it}},
	}
}

// TestSolveRejectsInvalidInput: what Solve cannot read is an *InvalidInputError naming the
// call, the object and the field (what the snapshot refuses already is cluster.New's), never
// a panic.
func TestSolveRejectsInvalidInput(t *testing.T) {
	pod := fake.Pod("p").Requests("1", "1Gi").Obj()
	nilOffering := typeWith("small", "2", "4Gi")
	nilOffering.Offerings = append(cloudprovider.Offerings{nil}, nilOffering.Offerings...)
	nameless := typeWith("small", "2", "4Gi")
	nameless.Name = ""
	negative := typeWith("small", "2", "4Gi")
	negative.Offerings = cloudprovider.Offerings{cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, -0.1, true)}
	twoPools := oneType(typeWith("small", "2", "4Gi"), pod)
	twoPools.NodePools = append(twoPools.NodePools, fake.NodePool("default").Obj())
	for name, c := range map[string]struct {
		objs cluster.Objects
		want cluster.InvalidInputError // Op, Code, Kind, Name, Field
	}{
		"nil offering":              {oneType(nilOffering, pod), cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputNil, Kind: "InstanceType", Name: "small", Field: "offerings[0]"}},
		"nameless type":             {oneType(nameless, pod), cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputInvalid, Kind: "InstanceType", Field: `InstanceTypes["default"][0].name`}},
		"negative price":            {oneType(negative, pod), cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputInvalid, Kind: "InstanceType", Name: "small", Field: "offerings[0].price"}},
		"two NodePools of one name": {twoPools, cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputDuplicate, Kind: "NodePool", Name: "default"}},
		"two pods of one name":      {oneType(typeWith("small", "2", "4Gi"), pod, fake.Pod("p").Obj()), cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputDuplicate, Kind: "Pod", Name: "default/p"}},
		"nil pod":                   {oneType(typeWith("small", "2", "4Gi"), pod, nil), cluster.InvalidInputError{Op: "cluster.New", Code: cluster.InputNil, Kind: "Pod", Field: "Objects.Pods[1]"}},
		"unparsable NodePool": {withRequirement(oneType(typeWith("small", "2", "4Gi"), pod), "Bogus"),
			cluster.InvalidInputError{Op: "scheduling.Solve", Code: cluster.InputInvalid, Kind: "NodePool", Name: "default", Field: "spec.template.spec.requirements"}},
	} {
		t.Run(name, func(t *testing.T) {
			var res *scheduling.Result
			var err error
			require.NotPanics(t, func() {
				var snap *cluster.Snapshot
				if snap, err = cluster.New(c.objs); err == nil {
					res, err = scheduling.Solve(snap, scheduling.Options{})
				}
			})
			assertInvalid(t, err, c.want)
			assert.Nil(t, res)
		})
	}
	t.Run("nil snapshot", func(t *testing.T) {
		res, err := scheduling.Solve(nil, scheduling.Options{})
		assertInvalid(t, err, cluster.InvalidInputError{Op: "scheduling.Solve", Code: cluster.InputNil, Kind: "Snapshot"})
		assert.Nil(t, res)
	})
}

// assertInvalid: err is an *InvalidInputError with want's Op, Code, Kind, Name and Field.
func assertInvalid(t *testing.T, err error, want cluster.InvalidInputError) {
	t.Helper()
	var got *cluster.InvalidInputError
	if !errors.As(err, &got) {
		t.Fatalf("want an *InvalidInputError, got %T: %v", err, err)
	}
	g := *got
	g.Err = nil
	assert.Equal(t, want, g, "error: %v", err)
}

func withRequirement(in cluster.Objects, op corev1.NodeSelectorOperator) cluster.Objects {
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
	snap := snapOf(t, oneType(tiny, pod))
	first, err := snap.WithInstanceTypes(map[string]cloudprovider.InstanceTypes{"default": {tiny, small}})
	require.NoError(t, err)
	res, err := solveVerified(t, cache, first, scheduling.Options{})
	require.NoError(t, err)
	require.Len(t, res.PodErrors, 1, "nothing in the first list fits the pod")

	second, err := snap.WithInstanceTypes(map[string]cloudprovider.InstanceTypes{"default": {tiny, big}})
	require.NoError(t, err)
	res, err = solveVerified(t, cache, second, scheduling.Options{})
	require.NoError(t, err)
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
		variant := inA
		variant.InstanceTypes = map[string]cloudprovider.InstanceTypes{}
		for _, np := range inA.NodePools {
			its := rapid.Permutation(inA.InstanceTypes[np.Name]).Draw(t, np.Name+"/order")
			n := rapid.IntRange(0, len(its)).Draw(t, np.Name+"/keep")
			variant.InstanceTypes[np.Name] = its[:n]
		}
		inputs := []cluster.Objects{inA, inB, variant, inA, variant}
		want := make([]string, len(inputs))
		for i, in := range inputs {
			want[i] = render(mustSolve(t, snapOf(t, in), scheduling.Options{}))
		}
		refA, refB := a.build(), b.build()
		warm(inA)
		warm(inB)
		warm(refA)
		warm(refB)
		cache := scheduling.NewCache()
		for i, in := range inputs {
			res, err := solveVerified(t, cache, snapOf(t, in), scheduling.Options{})
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

func podRequesting(name string, rl corev1.ResourceList) *corev1.Pod {
	p := fake.Pod(name).Obj()
	p.Spec.Containers[0].Resources.Requests = rl
	return p
}

// TestOutOfRangeQuantitiesOfPodsArePodErrors: a pending pod whose quantities are negative or
// beyond int64 is a pod error naming the field, never placed (1e30 cpu was read as 0 and
// put on a 2-vCPU node).
func TestOutOfRangeQuantitiesOfPodsArePodErrors(t *testing.T) {
	twoCPU := typeWith("two", "2", "4Gi")
	big := func(name corev1.ResourceName, s string) corev1.ResourceList {
		return corev1.ResourceList{name: resource.MustParse(s)}
	}
	for name, c := range map[string]struct {
		pod  *corev1.Pod
		want string
	}{
		"1e30 cpu":        {podRequesting("p", big(corev1.ResourceCPU, "1e30")), "spec.containers[0].resources.requests.cpu"},
		"max int64 cpu":   {podRequesting("p", big(corev1.ResourceCPU, "9223372036854775807")), "spec.containers[0].resources.requests.cpu"},
		"1e30 memory":     {podRequesting("p", big(corev1.ResourceMemory, "1e30")), "spec.containers[0].resources.requests.memory"},
		"negative memory": {podRequesting("p", big(corev1.ResourceMemory, "-1Gi")), "spec.containers[0].resources.requests.memory"},
		"1e30 cpu limit": {func() *corev1.Pod {
			p := fake.Pod("p").Obj()
			p.Spec.Containers[0].Resources.Limits = big(corev1.ResourceCPU, "1e30")
			return p
		}(), "spec.containers[0].resources.limits.cpu"},
		"sum beyond int64": {func() *corev1.Pod {
			p := podRequesting("p", big(corev1.ResourceMemory, "5Ei"))
			p.Spec.Containers = append(p.Spec.Containers, *p.Spec.Containers[0].DeepCopy())
			p.Spec.Containers[1].Name = "second"
			return p
		}(), "requests.memory"},
	} {
		t.Run(name, func(t *testing.T) {
			res := mustSolve(t, snapOf(t, oneType(twoCPU, c.pod)), scheduling.Options{})
			assert.Empty(t, res.NewNodeClaims)
			require.Len(t, res.PodErrors, 1)
			assert.Equal(t, scheduling.ReasonInvalidPodSpec, res.PodErrors[0].Code)
			assert.Contains(t, res.PodErrors[0].Causes[0].Detail, c.want, "the validation error names the field")
		})
	}
}

// TestSumsCannotWrap: 16 pods of 1Ei memory do not fit a 7Ei node together (their sum
// wrapped to 0 once).
func TestSumsCannotWrap(t *testing.T) {
	huge := typeWith("huge", "64", "7Ei")
	huge.Overhead = nil // allocatable 7Ei exactly: a seventh pod fits, an eighth made 2^63
	var pods []*corev1.Pod
	for i := range 16 {
		pods = append(pods, fake.Pod(fmt.Sprintf("p%02d", i)).Requests("1", "1Ei").Obj())
	}
	res := mustSolve(t, snapOf(t, oneType(huge, pods...)), scheduling.Options{})
	placed := 0
	for _, c := range res.NewNodeClaims {
		total := resource.Quantity{}
		for _, p := range c.Pods {
			total.Add(p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory])
		}
		alloc := c.InstanceType.Allocatable()[corev1.ResourceMemory]
		assert.LessOrEqual(t, total.Cmp(alloc), 0, "claim %s holds %s of memory on %s allocatable", c.Hostname, total.String(), alloc.String())
		placed += len(c.Pods)
	}
	assert.Equal(t, 16, placed+len(res.PodErrors))
	assert.Len(t, res.NewNodeClaims, 3, "7 + 7 + 2 pods")
}

// TestOutOfRangeQuantitiesAreErrors: quantities of NodePools, instance types, nodes, bound
// pods and DaemonSets that do not fit, or are negative, are a Solve *InvalidInputError naming
// the object and the field.
func TestOutOfRangeQuantitiesAreErrors(t *testing.T) {
	q := resource.MustParse
	pod := fake.Pod("p").Requests("1", "1Gi").Obj()
	base := func() cluster.Objects { return oneType(typeWith("small", "2", "4Gi"), pod) }
	invalid := func(kind, name, field string) cluster.InvalidInputError {
		return cluster.InvalidInputError{Op: "scheduling.Solve", Code: cluster.InputInvalid, Kind: kind, Name: name, Field: field}
	}
	for name, c := range map[string]struct {
		mod  func(*cluster.Objects)
		want cluster.InvalidInputError
		msg  string // what the message says about the value
	}{
		"NodePool limit 1e30": {func(in *cluster.Objects) {
			in.NodePools[0].Spec.Limits = v1.Limits{corev1.ResourceCPU: q("1e30")}
		}, invalid("NodePool", "default", "spec.limits.cpu"), "1e30: more than nodeplan can count"},
		"negative NodePool limit": {func(in *cluster.Objects) {
			in.NodePools[0].Spec.Limits = v1.Limits{corev1.ResourceMemory: q("-1")}
		}, invalid("NodePool", "default", "spec.limits.memory"), "-1: must not be negative"},
		"type with 1e30 cpu": {func(in *cluster.Objects) {
			in.InstanceTypes["default"] = cloudprovider.InstanceTypes{typeWith("vast", "1e30", "4Gi")}
		}, invalid("InstanceType", "vast", "capacity.cpu"), "1e30: more than nodeplan can count"},
		"type with negative memory": {func(in *cluster.Objects) {
			minus := typeWith("minus", "2", "-4Gi") // fake prices it by its memory: negative
			minus.Offerings = cloudprovider.Offerings{cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, 0.1, true)}
			in.InstanceTypes["default"] = cloudprovider.InstanceTypes{minus}
		}, invalid("InstanceType", "minus", "capacity.memory"), "-4Gi: must not be negative"},
		"bound pod with 1e30 cpu": {func(in *cluster.Objects) {
			b := podRequesting("bound", corev1.ResourceList{corev1.ResourceCPU: q("1e30")})
			b.Spec.NodeName = "n"
			in.Nodes = []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n"}}}
			in.Pods = append(in.Pods, b)
		}, invalid("Pod", "default/bound", "spec.containers[0].resources.requests.cpu"), "1e30"},
		"node allocatable 1e30": {func(in *cluster.Objects) {
			in.Nodes = []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n"},
				Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourcePods: q("1e30")}}}}
		}, invalid("Node", "n", "status.allocatable.pods"), "1e30"},
		"DaemonSet with 1e30 memory": {func(in *cluster.Objects) {
			ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "kube-system"}}
			ds.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: q("1e30")}}}}
			in.DaemonSets = []*appsv1.DaemonSet{ds}
		}, invalid("DaemonSet", "kube-system/ds", "spec.template.spec.containers[0].resources.requests.memory"), "1e30"},
	} {
		t.Run(name, func(t *testing.T) {
			objs := base()
			c.mod(&objs)
			_, err := scheduling.Solve(snapOf(t, objs), scheduling.Options{})
			assertInvalid(t, err, c.want)
			assert.Contains(t, err.Error(), c.want.Field+": "+c.msg, "the message names the field and the value")
		})
	}
}

// TestPodsTheAPIServerRejectsArePodErrors: the library reports them as pod errors naming
// the field; they are never planned.
func TestPodsTheAPIServerRejectsArePodErrors(t *testing.T) {
	zero, neg := int32(0), int32(-1)
	spread := func(c corev1.TopologySpreadConstraint) *corev1.Pod {
		p := fake.Pod("p").Requests("1", "1Gi").Obj()
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{c}
		return p
	}
	zone := "topology.kubernetes.io/zone"
	for name, c := range map[string]struct {
		pod  *corev1.Pod
		want string
	}{
		"maxSkew 0":         {spread(corev1.TopologySpreadConstraint{MaxSkew: 0, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule}), "spec.topologySpreadConstraints[0].maxSkew"},
		"minDomains 0":      {spread(corev1.TopologySpreadConstraint{MaxSkew: 1, MinDomains: &zero, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule}), "spec.topologySpreadConstraints[0].minDomains"},
		"minDomains -1":     {spread(corev1.TopologySpreadConstraint{MaxSkew: 1, MinDomains: &neg, TopologyKey: zone, WhenUnsatisfiable: corev1.DoNotSchedule}), "spec.topologySpreadConstraints[0].minDomains"},
		"whenUnsatisfiable": {spread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: "Maybe"}), "spec.topologySpreadConstraints[0].whenUnsatisfiable"},
		"empty topologyKey": {spread(corev1.TopologySpreadConstraint{MaxSkew: 1, WhenUnsatisfiable: corev1.DoNotSchedule}), "spec.topologySpreadConstraints[0].topologyKey"},
		"toleration op":     {fake.Pod("p").Toleration(corev1.Toleration{Key: "k", Operator: "Like", Value: "v"}).Obj(), "spec.tolerations[0].operator"},
		"resource memroy":   {podRequesting("p", corev1.ResourceList{"memroy": resource.MustParse("1Gi")}), "spec.containers[0].resources.requests"},
		"name not DNS-1123": {fake.Pod("Not_Valid").Obj(), "metadata.name"},
		"affinity no key":   {fake.Pod("p").PodAntiAffinity("", map[string]string{"a": "b"}).Obj(), "topologyKey: is required"},
	} {
		t.Run(name, func(t *testing.T) {
			res := mustSolve(t, snapOf(t, oneType(typeWith("small", "2", "4Gi"), c.pod)), scheduling.Options{})
			assert.Empty(t, res.NewNodeClaims)
			require.Len(t, res.PodErrors, 1)
			assert.Equal(t, scheduling.ReasonInvalidPodSpec, res.PodErrors[0].Code)
			assert.Contains(t, res.PodErrors[0].Causes[0].Detail, c.want, "the validation error names the field")
		})
	}
}

// TestOnlyUnavailableOfferingsSaySo: a NodePool whose types all have unavailable offerings
// says that, not that its requirements filtered them out.
func TestOnlyUnavailableOfferingsSaySo(t *testing.T) {
	gone := fake.NewInstanceType(fake.InstanceTypeOptions{Name: "gone", Offerings: cloudprovider.Offerings{
		cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, 0.1, false)}})
	res := mustSolve(t, snapOf(t, oneType(gone, fake.Pod("p").Obj())), scheduling.Options{})
	require.Len(t, res.PodErrors, 1)
	require.Len(t, res.PodErrors[0].Causes, 1)
	c := res.PodErrors[0].Causes[0]
	assert.Equal(t, scheduling.ReasonOfferingUnavailable, c.Code)
	assert.Equal(t, "default", c.NodePool)
	assert.Equal(t, 1, c.InstanceTypes)
	assert.Equal(t, 1, c.Unavailable, "none filtered out by requirements")
}

// TestPropHostileInputs draws zero, huge, overflowing and negative quantities, negative
// prices and nil entries everywhere Solve reads them. Neither cluster.New nor Solve panics;
// New returns an *InvalidInputError exactly when a pod or offering is nil or a price
// negative, Solve exactly when a NodePool, instance type, node or bound pod is invalid;
// otherwise every pod comes back once, pods with invalid quantities as pod errors, and no
// NodeClaim's pods request more than its type's allocatable (summed exactly).
func TestPropHostileInputs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		invalid := false   // a Solve error is due
		refusedAt := false // a cluster.New error is due
		cpuQ, memQ := fake.HostileQuantity(true), fake.HostileQuantity(false)
		valid := func(name corev1.ResourceName, q resource.Quantity) bool { return quantity.Check(name, q) == nil }

		var types cloudprovider.InstanceTypes
		for i := range rapid.IntRange(1, 4).Draw(t, "types") {
			if rapid.IntRange(0, 9).Draw(t, fmt.Sprintf("type%d/nil", i)) == 0 {
				types = append(types, nil)
				continue
			}
			name := fmt.Sprintf("type-%d", i)
			cpu, mem := cpuQ.Draw(t, name+"/cpu"), memQ.Draw(t, name+"/memory")
			invalid = invalid || !valid(corev1.ResourceCPU, cpu) || !valid(corev1.ResourceMemory, mem)
			price := 0.1 * float64(i+1)
			if rapid.IntRange(0, 9).Draw(t, name+"/negative-price") == 0 {
				price, refusedAt = -price, true
			}
			offs := cloudprovider.Offerings{cloudprovider.NewOffering(fake.TestZone1, v1.CapacityTypeOnDemand, price, true)}
			if rapid.IntRange(0, 9).Draw(t, name+"/nil-offering") == 0 {
				offs = append(offs, nil)
				refusedAt = true
			}
			types = append(types, &cloudprovider.InstanceType{
				Name: name,
				Requirements: requirements.NewRequirements(
					requirements.MustNew(v1.LabelInstanceType, requirements.In, name),
					requirements.MustNew(v1.LabelArch, requirements.In, "amd64"),
					requirements.MustNew(v1.LabelOS, requirements.In, "linux"),
					requirements.MustNew(v1.LabelTopologyZone, requirements.In, fake.TestZone1),
					requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeOnDemand)),
				Offerings: offs,
				Capacity:  corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem, corev1.ResourcePods: resource.MustParse("110")},
			})
		}
		np := fake.NodePool("default").Obj()
		if rapid.Bool().Draw(t, "limit") {
			l := cpuQ.Draw(t, "limit/cpu")
			invalid = invalid || !valid(corev1.ResourceCPU, l)
			np.Spec.Limits = v1.Limits{corev1.ResourceCPU: l}
		}
		in := cluster.Objects{NodePools: []*v1.NodePool{np}, InstanceTypes: map[string]cloudprovider.InstanceTypes{"default": types}}
		badPods := map[*corev1.Pod]bool{}
		var pending []*corev1.Pod
		for i := range rapid.IntRange(0, 8).Draw(t, "pods") {
			if rapid.IntRange(0, 19).Draw(t, fmt.Sprintf("pod%d/nil", i)) == 0 {
				in.Pods = append(in.Pods, nil)
				refusedAt = true
				continue
			}
			cpu, mem := cpuQ.Draw(t, fmt.Sprintf("pod%d/cpu", i)), memQ.Draw(t, fmt.Sprintf("pod%d/memory", i))
			p := podRequesting(fmt.Sprintf("p%d", i), corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem})
			badPods[p] = !valid(corev1.ResourceCPU, cpu) || !valid(corev1.ResourceMemory, mem)
			in.Pods = append(in.Pods, p)
			pending = append(pending, p)
		}
		if rapid.Bool().Draw(t, "node") {
			alloc, req := memQ.Draw(t, "node/memory"), cpuQ.Draw(t, "bound/cpu")
			invalid = invalid || !valid(corev1.ResourceMemory, alloc) || !valid(corev1.ResourceCPU, req)
			b := podRequesting("bound", corev1.ResourceList{corev1.ResourceCPU: req})
			b.Spec.NodeName = "n"
			in.Nodes = []*corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n"},
				Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceMemory: alloc}}}}
			in.Pods = append(in.Pods, b)
		}

		snap, err := cluster.New(in)
		if refused(t, err, refusedAt, "cluster.New") {
			return
		}
		var res *scheduling.Result
		if invalid {
			res, err = scheduling.Solve(snap, scheduling.Options{}) // an error is due: nothing to verify
		} else {
			res, err = solveVerified(t, nil, snap, scheduling.Options{})
		}
		if refused(t, err, invalid, "Solve") {
			return
		}
		got := map[*corev1.Pod]int{}
		for _, c := range res.NewNodeClaims {
			for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				total := resource.Quantity{}
				for _, p := range c.Pods {
					total.Add(p.Spec.Containers[0].Resources.Requests[name])
				}
				if alloc := c.InstanceType.Allocatable()[name]; total.Cmp(alloc) > 0 {
					t.Fatalf("claim on %s: pods request %s %s, allocatable %s", c.InstanceType.Name, total.String(), name, alloc.String())
				}
			}
			for _, p := range c.Pods {
				got[p]++
			}
		}
		for _, b := range res.Bindings {
			got[b.Pod]++
		}
		for _, e := range res.PodErrors {
			got[e.Pod]++
		}
		for _, p := range pending {
			if got[p] != 1 {
				t.Fatalf("pod %s comes back %d times", p.Name, got[p])
			}
			if badPods[p] && !hasPodError(res, p) {
				t.Fatalf("pod %s with invalid quantities was placed", p.Name)
			}
		}
		if len(got) != len(pending) {
			t.Fatalf("%d pods in, %d out", len(pending), len(got))
		}
	})
}

// refused reports whether err ends the case, failing the test unless err comes exactly
// when due, as a *cluster.InvalidInputError.
func refused(t *rapid.T, err error, due bool, what string) bool {
	var invalid *cluster.InvalidInputError
	switch {
	case due && err == nil:
		t.Fatalf("%s accepted invalid input", what)
	case !due && err != nil:
		t.Fatalf("%s refused valid input: %v", what, err)
	case due && !errors.As(err, &invalid):
		t.Fatalf("%s refused with %T, not an *InvalidInputError: %v", what, err, err)
	}
	return due
}

func hasPodError(res *scheduling.Result, p *corev1.Pod) bool {
	for _, e := range res.PodErrors {
		if e.Pod == p {
			return true
		}
	}
	return false
}

// TestPropCacheChangesNothingOverForks: one Cache shared by Solves of forks of one snapshot
// (drawn nodes marked Deleting, their pods rescheduled unless a PodDisruptionBudget, drawn
// per fork, keeps them), preferences respected or ignored from one Solve to the next, and
// pods preferring a zone, gives each Solve the
// result it gets without a cache: what the Cache remembers per node (the pods a deleting
// node lets go) and per pod (its prepared data) holds for every fork and both policies.
func TestPropCacheChangesNothingOverForks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := scenarioGen().Draw(t, "scenario").build()
		for i, p := range in.Pods { // a preference a Solve ignoring preferences ignores
			if p.Spec.NodeName != "" { // healthy, so that a PodDisruptionBudget counts them
				p.Status.Phase = corev1.PodRunning
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
			}
			if zone := rapid.IntRange(-1, len(propZones)-1).Draw(t, fmt.Sprintf("prefers-%d", i)); zone >= 0 && p.Spec.Affinity == nil {
				p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
					Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
						Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{propZones[zone]}}}}}}}}
			}
		}
		base := snapOf(t, in)
		var names []string
		for _, n := range base.Nodes() {
			names = append(names, n.Name())
		}
		cache := scheduling.NewCache()
		for i := range 4 {
			snap := base
			if budget := rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("pdb-%d", i)); budget < 2 {
				maxUnavailable := intstr.FromInt32(int32(budget))
				var err error
				snap, err = snap.WithPodDisruptionBudgets(&policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "all", Namespace: "default"},
					Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &maxUnavailable, Selector: &metav1.LabelSelector{}}})
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(names) > 0 {
				snap = snap.Deleting(rapid.SliceOfDistinct(rapid.SampledFrom(names), rapid.ID[string]).Draw(t, fmt.Sprintf("deleting-%d", i))...)
			}
			opts := scheduling.Options{PreferencePolicy: rapid.SampledFrom([]scheduling.PreferencePolicy{scheduling.PreferencesRespect, scheduling.PreferencesIgnore}).Draw(t, fmt.Sprintf("policy-%d", i))}
			sameWithCache(t, i, cache, snap, opts)
		}
	})
}
