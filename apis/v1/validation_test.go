package v1

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type nodePoolCase struct {
	name   string
	mutate func(np *NodePool)
	// path is the field path the error must name; empty means the NodePool is valid.
	path string
	// msg is more text the error must contain.
	msg string
}

func req(key string, op corev1.NodeSelectorOperator, values ...string) NodeSelectorRequirementWithMinValues {
	return NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
}

func setReq(r NodeSelectorRequirementWithMinValues) func(*NodePool) {
	return func(np *NodePool) { np.Spec.Template.Spec.Requirements[0] = r }
}

func withMin(r NodeSelectorRequirementWithMinValues, m int) NodeSelectorRequirementWithMinValues {
	r.MinValues = &m
	return r
}

func setBudget(b Budget) func(*NodePool) {
	return func(np *NodePool) { np.Spec.Disruption.Budgets = []Budget{b} }
}

func metaDuration(s string) *metav1.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return &metav1.Duration{Duration: d}
}

const reqPath = "spec.template.spec.requirements[0]"

var nodePoolCases = []nodePoolCase{
	{name: "valid", mutate: func(*NodePool) {}},
	{name: "defaulted is valid", mutate: func(np *NodePool) { np.SetDefaults() }},
	// metadata.name
	{name: "name missing", mutate: func(np *NodePool) { np.Name = "" }, path: "metadata.name", msg: "Required"},
	{name: "name not a DNS subdomain", mutate: func(np *NodePool) { np.Name = "Bad_Name" }, path: "metadata.name", msg: "Bad_Name"},
	// operators
	{name: "operator Foo", mutate: setReq(req(LabelArch, "Foo", "amd64")), path: reqPath + ".operator", msg: `"Foo"`},
	{name: "operator empty", mutate: setReq(req(LabelArch, "", "amd64")), path: reqPath + ".operator", msg: "Unsupported value"},
	{name: "NotIn", mutate: setReq(req(LabelArch, corev1.NodeSelectorOpNotIn, "arm64"))},
	{name: "NotIn without values", mutate: setReq(req("example.com/x", corev1.NodeSelectorOpNotIn))},
	{name: "In without values", mutate: setReq(req(LabelArch, corev1.NodeSelectorOpIn)), path: reqPath + ".values", msg: "'In' must have a value"},
	{name: "Exists", mutate: setReq(req("example.com/gpu", corev1.NodeSelectorOpExists))},
	{name: "Exists with values", mutate: setReq(req("example.com/gpu", corev1.NodeSelectorOpExists, "a")), path: reqPath + ".values", msg: "must not have values"},
	{name: "DoesNotExist", mutate: setReq(req("example.com/gpu", corev1.NodeSelectorOpDoesNotExist))},
	{name: "DoesNotExist with values", mutate: setReq(req("example.com/gpu", corev1.NodeSelectorOpDoesNotExist, "a")), path: reqPath + ".values", msg: "must not have values"},
	{name: "Gt", mutate: setReq(req("example.com/gen", corev1.NodeSelectorOpGt, "2"))},
	{name: "Gt zero", mutate: setReq(req("example.com/gen", corev1.NodeSelectorOpGt, "0"))},
	{name: "Gt negative", mutate: setReq(req("example.com/gen", corev1.NodeSelectorOpGt, "-1")), path: reqPath + ".values[0]", msg: "non-negative integer"},
	{name: "Gt two values", mutate: setReq(req("example.com/gen", corev1.NodeSelectorOpGt, "1", "2")), path: reqPath + ".values", msg: "single non-negative integer"},
	{name: "Gt no value", mutate: setReq(req("example.com/gen", corev1.NodeSelectorOpGt)), path: reqPath + ".values", msg: "single non-negative integer"},
	{name: "Lt", mutate: setReq(req("example.com/gen", corev1.NodeSelectorOpLt, "9"))},
	{name: "Lt not an integer", mutate: setReq(req("example.com/gen", corev1.NodeSelectorOpLt, "abc")), path: reqPath + ".values[0]", msg: "'Lt'"},
	{name: "Gte", mutate: setReq(req("example.com/gen", NodeSelectorOpGte, "5"))},
	{name: "Gte float", mutate: setReq(req("example.com/gen", NodeSelectorOpGte, "1.5")), path: reqPath + ".values[0]", msg: "'Gte'"},
	{name: "Lte", mutate: setReq(req("example.com/gen", NodeSelectorOpLte, "5"))},
	{name: "Lte no value", mutate: setReq(req("example.com/gen", NodeSelectorOpLte)), path: reqPath + ".values", msg: "'Lte'"},
	// minValues
	{name: "minValues within values", mutate: setReq(withMin(req(LabelInstanceType, corev1.NodeSelectorOpIn, "a", "b"), 2))},
	{name: "minValues more than values", mutate: setReq(withMin(req(LabelInstanceType, corev1.NodeSelectorOpIn, "a", "b"), 3)), path: reqPath + ".minValues", msg: "at least that many values"},
	{name: "minValues zero", mutate: setReq(withMin(req(LabelInstanceType, corev1.NodeSelectorOpExists), 0)), path: reqPath + ".minValues", msg: "between 1 and 50"},
	{name: "minValues 50 with Exists", mutate: setReq(withMin(req(LabelInstanceType, corev1.NodeSelectorOpExists), 50))},
	{name: "minValues 51", mutate: setReq(withMin(req(LabelInstanceType, corev1.NodeSelectorOpExists), 51)), path: reqPath + ".minValues", msg: "between 1 and 50"},
	// requirement count
	{name: "100 requirements", mutate: func(np *NodePool) { np.Spec.Template.Spec.Requirements = manyRequirements(100) }},
	{name: "101 requirements", mutate: func(np *NodePool) { np.Spec.Template.Spec.Requirements = manyRequirements(101) }, path: "spec.template.spec.requirements", msg: "Too many"},
	// keys and values
	{name: "key not qualified", mutate: setReq(req("bad key!", corev1.NodeSelectorOpExists)), path: reqPath + ".key", msg: "bad key!"},
	{name: "key hostname", mutate: setReq(req(LabelHostname, corev1.NodeSelectorOpIn, "a")), path: reqPath + ".key", msg: "is restricted"},
	{name: "key karpenter.sh domain", mutate: setReq(req("karpenter.sh/foo", corev1.NodeSelectorOpIn, "a")), path: reqPath + ".key", msg: `label domain "karpenter.sh" is restricted`},
	{name: "key karpenter.sh subdomain", mutate: setReq(req("sub.karpenter.sh/foo", corev1.NodeSelectorOpIn, "a")), path: reqPath + ".key", msg: "restricted"},
	{name: "key karpenter.sh/nodepool", mutate: setReq(req(NodePoolLabelKey, corev1.NodeSelectorOpIn, "a")), path: reqPath + ".key", msg: "karpenter.sh/nodepool"},
	{name: "key kubernetes.io domain allowed", mutate: setReq(req("node.kubernetes.io/custom", corev1.NodeSelectorOpIn, "a"))},
	{name: "key beta label allowed", mutate: setReq(req("beta.kubernetes.io/arch", corev1.NodeSelectorOpIn, "amd64"))},
	{name: "value invalid", mutate: setReq(req(LabelArch, corev1.NodeSelectorOpIn, "amd64", "no spaces")), path: reqPath + ".values[1]", msg: "no spaces"},
	{name: "value too long", mutate: setReq(req(LabelArch, corev1.NodeSelectorOpIn, strings.Repeat("a", 64))), path: reqPath + ".values[0]", msg: "63"},
	// capacity type
	{name: "capacity-type spot", mutate: setReq(req(CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "spot", "unknown"))},
	{name: "capacity-type none known", mutate: setReq(req(CapacityTypeLabelKey, corev1.NodeSelectorOpIn, "cheap")), path: reqPath + ".values", msg: "on-demand"},
	{name: "capacity-type NotIn anything", mutate: setReq(req(CapacityTypeLabelKey, corev1.NodeSelectorOpNotIn, "cheap"))},
	// template labels and annotations
	{name: "label custom", mutate: func(np *NodePool) {
		np.Spec.Template.ObjectMeta.Labels = map[string]string{"kops.k8s.io/instancegroup": "x", "node.kubernetes.io/role": "w"}
	}},
	{name: "label nodepool", mutate: func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels = map[string]string{NodePoolLabelKey: "x"} }, path: "spec.template.metadata.labels[karpenter.sh/nodepool]", msg: "restricted"},
	{name: "label karpenter.sh domain", mutate: func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels = map[string]string{"karpenter.sh/custom": "x"} }, path: "spec.template.metadata.labels[karpenter.sh/custom]", msg: "restricted"},
	{name: "label capacity-type allowed", mutate: func(np *NodePool) {
		np.Spec.Template.ObjectMeta.Labels = map[string]string{CapacityTypeLabelKey: "spot"}
	}},
	{name: "label hostname", mutate: func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels = map[string]string{LabelHostname: "x"} }, path: "spec.template.metadata.labels[kubernetes.io/hostname]", msg: "restricted"},
	{name: "label bad key", mutate: func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels = map[string]string{"a/b/c": "x"} }, path: "spec.template.metadata.labels[a/b/c]", msg: "Invalid value"},
	{name: "label bad value", mutate: func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a b"} }, path: "spec.template.metadata.labels[team]", msg: `"a b"`},
	{name: "annotation bad key", mutate: func(np *NodePool) {
		np.Spec.Template.ObjectMeta.Annotations = map[string]string{"no spaces please": "x"}
	}, path: "spec.template.metadata.annotations[no spaces please]", msg: "Invalid value"},
	// taints
	{name: "taints", mutate: func(np *NodePool) {
		np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "team", Value: "a", Effect: corev1.TaintEffectNoSchedule}, {Key: "team", Value: "a", Effect: corev1.TaintEffectNoExecute}, {Key: "example.com/x", Effect: corev1.TaintEffectPreferNoSchedule}}
	}},
	{name: "taint bad effect", mutate: func(np *NodePool) {
		np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "team", Effect: "Sometimes"}}
	}, path: "spec.template.spec.taints[0].effect", msg: "Sometimes"},
	{name: "taint missing effect", mutate: func(np *NodePool) { np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "team"}} }, path: "spec.template.spec.taints[0].effect", msg: "Required"},
	{name: "taint bad key", mutate: func(np *NodePool) {
		np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "-team", Effect: corev1.TaintEffectNoSchedule}}
	}, path: "spec.template.spec.taints[0].key", msg: "-team"},
	{name: "taint missing key", mutate: func(np *NodePool) {
		np.Spec.Template.Spec.Taints = []corev1.Taint{{Effect: corev1.TaintEffectNoSchedule}}
	}, path: "spec.template.spec.taints[0].key", msg: "Required"},
	{name: "taint bad value", mutate: func(np *NodePool) {
		np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "team", Value: "a/b", Effect: corev1.TaintEffectNoSchedule}}
	}, path: "spec.template.spec.taints[0].value", msg: "a/b"},
	{name: "startupTaint", mutate: func(np *NodePool) {
		np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoExecute}}
	}},
	{name: "startupTaint bad effect", mutate: func(np *NodePool) {
		np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "x", Effect: "NoWay"}}
	}, path: "spec.template.spec.startupTaints[0].effect", msg: "NoWay"},
	// nodeClassRef
	{name: "nodeClassRef missing", mutate: func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef = nil }, path: "spec.template.spec.nodeClassRef", msg: "Required"},
	{name: "nodeClassRef group missing", mutate: func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Group = "" }, path: "spec.template.spec.nodeClassRef.group", msg: "Required"},
	{name: "nodeClassRef kind missing", mutate: func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Kind = "" }, path: "spec.template.spec.nodeClassRef.kind", msg: "Required"},
	{name: "nodeClassRef name missing", mutate: func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Name = "" }, path: "spec.template.spec.nodeClassRef.name", msg: "Required"},
	{name: "nodeClassRef group with version", mutate: func(np *NodePool) { np.Spec.Template.Spec.NodeClassRef.Group = "karpenter.k8s.aws/v1" }, path: "spec.template.spec.nodeClassRef.group", msg: "without a version"},
	// terminationGracePeriod and expireAfter
	{name: "terminationGracePeriod", mutate: func(np *NodePool) { np.Spec.Template.Spec.TerminationGracePeriod = metaDuration("1h30m") }},
	{name: "terminationGracePeriod negative", mutate: func(np *NodePool) { np.Spec.Template.Spec.TerminationGracePeriod = metaDuration("-1h") }, path: "spec.template.spec.terminationGracePeriod", msg: "non-negative"},
	{name: "terminationGracePeriod milliseconds", mutate: func(np *NodePool) { np.Spec.Template.Spec.TerminationGracePeriod = metaDuration("1500ms") }, path: "spec.template.spec.terminationGracePeriod", msg: "whole number of seconds"},
	{name: "expireAfter Never", mutate: func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = MustParseNillableDuration("Never") }},
	{name: "expireAfter 720h", mutate: func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = MustParseNillableDuration("720h") }},
	{name: "expireAfter fractional text", mutate: func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = MustParseNillableDuration("1.5h") }, path: "spec.template.spec.expireAfter", msg: "1.5h"},
	{name: "expireAfter negative", mutate: func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = NewNillableDuration(-time.Hour) }, path: "spec.template.spec.expireAfter", msg: "non-negative"},
	// disruption
	{name: "consolidateAfter Never", mutate: func(np *NodePool) { np.Spec.Disruption.ConsolidateAfter = NeverDuration() }},
	{name: "consolidateAfter 30s", mutate: func(np *NodePool) { np.Spec.Disruption.ConsolidateAfter = MustParseNillableDuration("30s") }},
	{name: "consolidateAfter negative", mutate: func(np *NodePool) { np.Spec.Disruption.ConsolidateAfter = MustParseNillableDuration("-30s") }, path: "spec.disruption.consolidateAfter", msg: "-30s"},
	{name: "consolidationPolicy Balanced", mutate: func(np *NodePool) { np.Spec.Disruption.ConsolidationPolicy = ConsolidationPolicyBalanced }},
	{name: "consolidationPolicy WhenEmpty", mutate: func(np *NodePool) { np.Spec.Disruption.ConsolidationPolicy = ConsolidationPolicyWhenEmpty }},
	{name: "consolidationPolicy WhenUnderutilized", mutate: func(np *NodePool) { np.Spec.Disruption.ConsolidationPolicy = "WhenUnderutilized" }, path: "spec.disruption.consolidationPolicy", msg: "WhenUnderutilized"},
	// budgets
	{name: "budget count", mutate: setBudget(Budget{Nodes: "5"})},
	{name: "budget 100%", mutate: setBudget(Budget{Nodes: "100%"})},
	{name: "budget 0%", mutate: setBudget(Budget{Nodes: "0%"})},
	{name: "budget 101%", mutate: setBudget(Budget{Nodes: "101%"}), path: "spec.disruption.budgets[0].nodes", msg: "101%"},
	{name: "budget negative", mutate: setBudget(Budget{Nodes: "-1"}), path: "spec.disruption.budgets[0].nodes", msg: "-1"},
	{name: "budget words", mutate: setBudget(Budget{Nodes: "ten"}), path: "spec.disruption.budgets[0].nodes", msg: "ten"},
	{name: "budget reasons", mutate: setBudget(Budget{Nodes: "1", Reasons: []DisruptionReason{DisruptionReasonDrifted, DisruptionReasonUnderutilized, DisruptionReasonEmpty}})},
	{name: "budget bad reason", mutate: setBudget(Budget{Nodes: "1", Reasons: []DisruptionReason{DisruptionReasonEmpty, "Expired"}}), path: "spec.disruption.budgets[0].reasons[1]", msg: "Expired"},
	{name: "budget schedule and duration", mutate: setBudget(Budget{Nodes: "0", Schedule: ptr("0 9 * * mon-fri"), Duration: metaDuration("8h")})},
	{name: "budget macro", mutate: setBudget(Budget{Nodes: "0", Schedule: ptr("@daily"), Duration: metaDuration("1h30m")})},
	{name: "budget schedule without duration", mutate: setBudget(Budget{Nodes: "0", Schedule: ptr("@daily")}), path: "spec.disruption.budgets[0]", msg: "'schedule' must be set with 'duration'"},
	{name: "budget duration without schedule", mutate: setBudget(Budget{Nodes: "0", Duration: metaDuration("1h")}), path: "spec.disruption.budgets[0]", msg: "'schedule' must be set with 'duration'"},
	{name: "budget bad cron", mutate: setBudget(Budget{Nodes: "0", Schedule: ptr("0 25 * * *"), Duration: metaDuration("1h")}), path: "spec.disruption.budgets[0].schedule", msg: "0 25 * * *"},
	{name: "budget six-field cron", mutate: setBudget(Budget{Nodes: "0", Schedule: ptr("0 0 9 * * *"), Duration: metaDuration("1h")}), path: "spec.disruption.budgets[0].schedule", msg: "want 5"},
	{name: "budget @every", mutate: setBudget(Budget{Nodes: "0", Schedule: ptr("@every 1h"), Duration: metaDuration("1h")}), path: "spec.disruption.budgets[0].schedule", msg: "@every"},
	{name: "budget time zone", mutate: setBudget(Budget{Nodes: "0", Schedule: ptr("CRON_TZ=Europe/Paris 0 9 * *"), Duration: metaDuration("1h")}), path: "spec.disruption.budgets[0].schedule", msg: "time zones are not supported"},
	{name: "budget duration seconds", mutate: setBudget(Budget{Nodes: "0", Schedule: ptr("@daily"), Duration: metaDuration("1h30s")}), path: "spec.disruption.budgets[0].duration", msg: "no seconds"},
	{name: "budget duration negative", mutate: setBudget(Budget{Nodes: "0", Schedule: ptr("@daily"), Duration: metaDuration("-1h")}), path: "spec.disruption.budgets[0].duration", msg: "non-negative"},
	{name: "50 budgets", mutate: func(np *NodePool) { np.Spec.Disruption.Budgets = make([]Budget, 50) }},
	{name: "51 budgets", mutate: func(np *NodePool) { np.Spec.Disruption.Budgets = make([]Budget, 51) }, path: "spec.disruption.budgets", msg: "Too many"},
	// weight
	{name: "weight 1", mutate: func(np *NodePool) { np.Spec.Weight = ptr[int32](1) }},
	{name: "weight 100", mutate: func(np *NodePool) { np.Spec.Weight = ptr[int32](100) }},
	{name: "weight 0", mutate: func(np *NodePool) { np.Spec.Weight = ptr[int32](0) }, path: "spec.weight", msg: "between 1 and 100"},
	{name: "weight 101", mutate: func(np *NodePool) { np.Spec.Weight = ptr[int32](101) }, path: "spec.weight", msg: "between 1 and 100"},
	// static NodePools
	{name: "replicas 0", mutate: func(np *NodePool) { np.Spec.Replicas = ptr[int64](0) }},
	{name: "static with limits.nodes", mutate: func(np *NodePool) {
		np.Spec.Replicas = ptr[int64](3)
		np.Spec.Limits = Limits{"nodes": resource.MustParse("5")}
	}},
	{name: "replicas negative", mutate: func(np *NodePool) { np.Spec.Replicas = ptr[int64](-1) }, path: "spec.replicas", msg: "greater than or equal to 0"},
	{name: "static with cpu limit", mutate: func(np *NodePool) {
		np.Spec.Replicas = ptr[int64](3)
		np.Spec.Limits = Limits{"nodes": resource.MustParse("5"), corev1.ResourceCPU: resource.MustParse("10")}
	}, path: "spec.limits[cpu]", msg: "only 'limits.nodes'"},
	{name: "static with weight", mutate: func(np *NodePool) {
		np.Spec.Replicas = ptr[int64](3)
		np.Spec.Weight = ptr[int32](10)
	}, path: "spec.weight", msg: "static"},
	{name: "dynamic with cpu limit", mutate: func(np *NodePool) {
		np.Spec.Limits = Limits{corev1.ResourceCPU: resource.MustParse("10"), corev1.ResourceMemory: resource.MustParse("10Gi")}
	}},
}

func manyRequirements(n int) []NodeSelectorRequirementWithMinValues {
	out := make([]NodeSelectorRequirementWithMinValues, n)
	for i := range out {
		out[i] = req("example.com/key-"+string(rune('a'+i%26))+strings.Repeat("x", i/26), corev1.NodeSelectorOpExists)
	}
	return out
}

func TestNodePoolValidate(t *testing.T) {
	for _, tc := range nodePoolCases {
		t.Run(tc.name, func(t *testing.T) {
			np := validNodePool()
			tc.mutate(np)
			err := np.Validate()
			if tc.path == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			var verr *ValidationError
			require.ErrorAs(t, err, &verr)
			name := np.Name
			found := false
			for _, line := range strings.Split(err.Error(), "\n") {
				assert.True(t, strings.HasPrefix(line, `NodePool "`+name+`": `), "line %q does not name the NodePool", line)
				if strings.Contains(line, ": "+tc.path+": ") && strings.Contains(line, tc.msg) {
					found = true
				}
			}
			assert.True(t, found, "no line names %q with %q in:\n%s", tc.path, tc.msg, err)
		})
	}
}

func TestNodePoolValidateAggregatesAllProblems(t *testing.T) {
	np := validNodePool()
	np.Spec.Template.Spec.Requirements[0].Operator = "Foo"
	np.Spec.Template.Spec.Requirements[1].Values = []string{"cheap"}
	np.Spec.Disruption.ConsolidationPolicy = "Sometimes"
	np.Spec.Weight = ptr[int32](0)
	np.Spec.Template.Spec.NodeClassRef = nil
	err := np.Validate()
	require.Error(t, err)
	var verr *ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Len(t, verr.Errs, 5)
	for _, want := range []string{
		`NodePool "default": spec.template.spec.requirements[0].operator: Unsupported value: "Foo"`,
		`NodePool "default": spec.template.spec.requirements[1].values`,
		`NodePool "default": spec.disruption.consolidationPolicy: Unsupported value: "Sometimes"`,
		`NodePool "default": spec.weight`,
		`NodePool "default": spec.template.spec.nodeClassRef: Required value`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	// The individual field errors are reachable with errors.As.
	var fe *field.Error
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "spec.template.spec.requirements[0].operator", fe.Field)
}

func TestNodePoolValidateDoesNotMutate(t *testing.T) {
	np := validNodePool()
	np.Spec.Template.Spec.Requirements[0].Key = "beta.kubernetes.io/arch"
	before := np.DeepCopy()
	require.NoError(t, np.Validate())
	assert.Equal(t, before, np)
}

func TestNodeClaimValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*NodeClaim)
		path   string
		msg    string
	}{
		{name: "valid", mutate: func(*NodeClaim) {}},
		{name: "defaulted", mutate: func(nc *NodeClaim) { nc.SetDefaults() }},
		{name: "unnamed", mutate: func(nc *NodeClaim) { nc.Name = "" }},
		{name: "bad name", mutate: func(nc *NodeClaim) { nc.Name = "UPPER" }, path: "metadata.name", msg: "UPPER"},
		{name: "nodepool requirement allowed", mutate: func(nc *NodeClaim) {
			nc.Spec.Requirements = append(nc.Spec.Requirements, req(NodePoolLabelKey, corev1.NodeSelectorOpIn, "other"))
		}},
		{name: "bad operator", mutate: func(nc *NodeClaim) { nc.Spec.Requirements[1].Operator = "Foo" }, path: "spec.requirements[1].operator", msg: `"Foo"`},
		{name: "restricted key", mutate: func(nc *NodeClaim) { nc.Spec.Requirements[0].Key = "karpenter.sh/other" }, path: "spec.requirements[0].key", msg: "restricted"},
		{name: "minValues", mutate: func(nc *NodeClaim) { nc.Spec.Requirements[1].MinValues = ptr(3) }, path: "spec.requirements[1].minValues", msg: "at least that many"},
		{name: "nodeClassRef missing", mutate: func(nc *NodeClaim) { nc.Spec.NodeClassRef = nil }, path: "spec.nodeClassRef", msg: "Required"},
		{name: "nodeClassRef kind empty", mutate: func(nc *NodeClaim) { nc.Spec.NodeClassRef.Kind = "" }, path: "spec.nodeClassRef.kind", msg: "Required"},
		{name: "taint", mutate: func(nc *NodeClaim) { nc.Spec.Taints = []corev1.Taint{{Key: "a", Effect: "Bad"}} }, path: "spec.taints[0].effect", msg: "Bad"},
		{name: "startup taint", mutate: func(nc *NodeClaim) {
			nc.Spec.StartupTaints = []corev1.Taint{{Key: "a b", Effect: corev1.TaintEffectNoSchedule}}
		}, path: "spec.startupTaints[0].key", msg: "a b"},
		{name: "expireAfter", mutate: func(nc *NodeClaim) { nc.Spec.ExpireAfter = MustParseNillableDuration("10ms") }, path: "spec.expireAfter", msg: "10ms"},
		{name: "terminationGracePeriod", mutate: func(nc *NodeClaim) { nc.Spec.TerminationGracePeriod = metaDuration("-1s") }, path: "spec.terminationGracePeriod", msg: "non-negative"},
		{name: "101 requirements", mutate: func(nc *NodeClaim) { nc.Spec.Requirements = manyRequirements(101) }, path: "spec.requirements", msg: "Too many"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nc := validNodeClaim()
			tc.mutate(nc)
			err := nc.Validate()
			if tc.path == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), `NodeClaim "`+nc.Name+`": `+tc.path+": ")
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}
