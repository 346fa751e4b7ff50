package main

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
	"github.com/nodeplan/nodeplan/verify"
)

// TestClaimJSONAsEncoder: claimJSON's entry is what encoding/json writes for claimOutputOf,
// byte for byte, with and without --option-sets, for the claims of real plans (shared option
// slices, minValues, Karpenter mode's rounds) and for hand-made claims whose strings hold
// the field names entry looks for.
func TestClaimJSONAsEncoder(t *testing.T) {
	var claims []*scheduling.NodeClaim
	for _, args := range [][]string{
		{"-f", "../../examples/"},
		scenario("zone-spread"),
		scenario("team-taints"),
		scenario("spot-when-allowed"),
		{"-f", "../../scheduling/testdata/recount-minvalues/input.yaml", "--instance-types", filepath.Join(scenarios, "instance-types.yaml")},
		append(scenario("zone-spread"), "--packing", "Karpenter"),
	} {
		c, _, snap, err := loadPlan(args, io.Discard)
		require.NoError(t, err, args)
		res, err := scheduling.Solve(snap, c.options())
		require.NoError(t, err, args)
		for _, v := range verify.Solve(snap, c.options(), res) {
			t.Errorf("%q: verify: %v", args, v)
		}
		require.NotEmpty(t, res.NewNodeClaims, args)
		claims = append(claims, res.NewNodeClaims...)
	}
	claims = append(claims, handMadeClaims()...)
	for _, withSets := range []bool{false, true} {
		var wantSets, gotSets *optionSets
		if withSets {
			wantSets, gotSets = &optionSets{}, &optionSets{}
		}
		w := newClaimJSON(gotSets)
		for i, c := range claims {
			estimated := i%3 == 1
			want := claimOutputOf(c, "claim-"+c.NodePool, wantSets)
			want.PriceEstimated = estimated
			wantJSON, err := json.Marshal(want)
			require.NoError(t, err)
			got, err := w.entry(c, "claim-"+c.NodePool, estimated)
			require.NoError(t, err)
			require.Equal(t, string(wantJSON), string(bytes.Clone(got)), "claim %d (sets %v)", i, withSets)
		}
		require.Equal(t, wantSets.all(), gotSets.all())
	}
}

// handMadeClaims are claims the solver does not make: no options, no labels, taints or
// requests, every requirement operator, and strings holding `,"labels":` and
// `,"requirements":null`.
func handMadeClaims() []*scheduling.NodeClaim {
	it := &cloudprovider.InstanceType{Name: `odd,"labels":{}`}
	tricky := `x,"requirements":null,"labels":<&>`
	reqs := requirements.NewRequirements(
		requirements.MustNew(v1.LabelInstanceType, requirements.In, it.Name),
		requirements.MustNew("team", requirements.NotIn, tricky),
		requirements.MustNew("gen", requirements.Gt, "3"),
		requirements.MustNew("absent", requirements.DoesNotExist),
		requirements.MustNew("present", requirements.Exists),
		requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, "spot", "on-demand").WithMinValues(2),
	)
	return []*scheduling.NodeClaim{
		{NodePool: "bare", Requirements: requirements.Requirements{}},
		{NodePool: tricky, InstanceTypeOptions: cloudprovider.InstanceTypes{it}, InstanceType: it, Requirements: reqs,
			Labels: map[string]string{"requirements": tricky, "a": `"labels":`}, Round: 2,
			Taints:   []corev1.Taint{{Key: tricky, Value: tricky, Effect: corev1.TaintEffectNoSchedule}},
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m")},
			Pods:     []*corev1.Pod{{}}},
	}
}
