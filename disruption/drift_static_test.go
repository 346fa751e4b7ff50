package disruption

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

func TestStaticDrift(t *testing.T) {
	taint := corev1.Taint{Key: "team", Value: "a", Effect: corev1.TaintEffectPreferNoSchedule} // the pod may move to a replacement
	for _, tc := range []struct {
		name  string
		pool  func(*v1.NodePool) // changes made to the NodePool after the NodeClaim launched
		claim func(*v1.NodeClaim)
		drift Drift // its reason and field (the Detail is an error's text), zero for none
	}{
		{"unchanged", nil, nil, Drift{}},
		{"template label added", func(np *v1.NodePool) { np.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"} }, nil, Drift{Reason: NodePoolDrifted, Field: "spec.template.metadata.labels[team]"}},
		{"template label the claim carries", func(np *v1.NodePool) { np.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"} },
			func(nc *v1.NodeClaim) { nc.Labels["team"] = "a" }, Drift{}},
		{"template annotation changed", func(np *v1.NodePool) { np.Spec.Template.ObjectMeta.Annotations = map[string]string{"x": "2"} },
			func(nc *v1.NodeClaim) { nc.Annotations["x"] = "1" }, Drift{Reason: NodePoolDrifted, Field: "spec.template.metadata.annotations[x]"}},
		{"taint added", func(np *v1.NodePool) { np.Spec.Template.Spec.Taints = []corev1.Taint{taint} }, nil, Drift{Reason: NodePoolDrifted, Field: "spec.template.spec.taints"}},
		{"taints in another order", func(np *v1.NodePool) {
			np.Spec.Template.Spec.Taints = []corev1.Taint{taint, {Key: "b", Effect: corev1.TaintEffectNoExecute}}
		}, func(nc *v1.NodeClaim) {
			nc.Spec.Taints = []corev1.Taint{{Key: "b", Effect: corev1.TaintEffectNoExecute}, taint}
		}, Drift{}},
		{"startup taint added", func(np *v1.NodePool) { np.Spec.Template.Spec.StartupTaints = []corev1.Taint{taint} }, nil, Drift{Reason: NodePoolDrifted, Field: "spec.template.spec.startupTaints"}},
		{"nodeClassRef changed", func(np *v1.NodePool) { np.Spec.Template.Spec.NodeClassRef.Name = "other" }, nil, Drift{Reason: NodePoolDrifted, Field: "spec.template.spec.nodeClassRef"}},
		{"terminationGracePeriod set", func(np *v1.NodePool) {
			np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Hour}
		}, nil, Drift{Reason: NodePoolDrifted, Field: "spec.template.spec.terminationGracePeriod"}},
		{"expireAfter changed", func(np *v1.NodePool) { np.Spec.Template.Spec.ExpireAfter = v1.MustParseNillableDuration("1000h") },
			func(nc *v1.NodeClaim) { nc.Spec.ExpireAfter = v1.MustParseNillableDuration("720h") }, Drift{Reason: NodePoolDrifted, Field: "spec.template.spec.expireAfter"}},
		// fields outside the hash
		{"requirement widened: no drift", func(np *v1.NodePool) { spotToo(np) }, nil, Drift{}},
		{"weight and limits: no drift", func(np *v1.NodePool) {
			np.Spec.Weight = ptr(int32(50))
			np.Spec.Limits = v1.Limits{corev1.ResourceCPU: *cpu("100")}
		}, nil, Drift{}},
		{"requirement narrowed away from the node: RequirementsDrifted", func(np *v1.NodePool) {
			np.Spec.Template.Spec.Requirements[0].Values = []string{v1.CapacityTypeSpot}
		}, nil, Drift{Reason: RequirementsDrifted}},
		// hash annotations decide when the NodePool has them
		{"hashes differ, same version", func(np *v1.NodePool) { hashed(&np.ObjectMeta, "1", "v3") },
			func(nc *v1.NodeClaim) { hashed(&nc.ObjectMeta, "2", "v3") }, Drift{Reason: NodePoolDrifted}},
		{"hashes differ, other version: cannot tell", func(np *v1.NodePool) { hashed(&np.ObjectMeta, "1", "v3") },
			func(nc *v1.NodeClaim) { hashed(&nc.ObjectMeta, "2", "v2") }, Drift{}},
		{"NodeClaim without a hash: no NodePoolDrifted", func(np *v1.NodePool) { np.Spec.Template.Spec.Taints = []corev1.Taint{taint} },
			func(nc *v1.NodeClaim) { nc.Annotations = nil }, Drift{}},
		{"equal hashes win over a changed field", func(np *v1.NodePool) {
			hashed(&np.ObjectMeta, "1", "v3")
			np.Spec.Template.Spec.Taints = []corev1.Taint{taint}
		}, func(nc *v1.NodeClaim) { hashed(&nc.ObjectMeta, "1", "v3") }, Drift{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := pool("p", budget("100%"))
			n := claimed(testNode("n", "p", "small", "", bound("n1", "1")), 0)
			n.NodeClaim.Spec.NodeClassRef = ptr(*np.Spec.Template.Spec.NodeClassRef)
			hashed(&n.NodeClaim.ObjectMeta, "launched", "v3") // stamped at launch
			if tc.claim != nil {
				tc.claim(n.NodeClaim)
			}
			if tc.pool != nil {
				tc.pool(np)
			}
			in := input([]*v1.NodePool{np}, n, testNode("big", "p", "large", ""))
			res, err := plan(t, in)
			require.NoError(t, err)
			got := driftOf(res, "n")
			assert.Equal(t, tc.drift, Drift{Reason: got.Reason, Field: got.Field}, "%v", cmdSummary(res))
		})
	}
}

func TestProviderDrift(t *testing.T) {
	np := pool("p")
	n := claimed(testNode("n", "p", "small", "", bound("n1", "1")), 0)
	n.NodeClaim.Name = "claim-n"
	n.NodeClaim.Spec.NodeClassRef = ptr(*np.Spec.Template.Spec.NodeClassRef)
	in := input([]*v1.NodePool{np}, n, testNode("big", "p", "large", ""))
	in.ProviderDrift = map[string]cloudprovider.DriftReason{"claim-n": "AMIDrift"}
	res, err := plan(t, in)
	require.NoError(t, err)
	assert.Equal(t, Drift{Reason: "AMIDrift"}, driftOf(res, "n"))
	// an empty answer is no drift
	in.ProviderDrift = map[string]cloudprovider.DriftReason{"claim-n": ""}
	res, err = plan(t, in)
	require.NoError(t, err)
	assert.Zero(t, driftOf(res, "n"))
}

// driftOf is the drift of the drift command that takes node, the zero Drift if none does.
func driftOf(res *Result, node string) Drift {
	for _, c := range res.Commands {
		if c.Method == MethodDrift && len(c.Candidates) == 1 && c.Candidates[0] == node {
			return c.Drift
		}
	}
	return Drift{}
}

func cpu(q string) *resource.Quantity {
	v := resource.MustParse(q)
	return &v
}

func hashed(m *metav1.ObjectMeta, hash, version string) {
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[v1.NodePoolHashAnnotationKey] = hash
	m.Annotations[v1.NodePoolHashVersionAnnotationKey] = version
}

// RequirementsDrifted: the node's labels no longer meet the NodePool's requirements.
func TestRequirementsDrift(t *testing.T) {
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) func(*v1.NodePool) {
		return func(np *v1.NodePool) {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
				v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
		}
	}
	for _, tc := range []struct {
		name    string
		change  func(*v1.NodePool)
		drifted bool
	}{
		{"instance type dropped", req(v1.LabelInstanceType, corev1.NodeSelectorOpIn, "medium", "large"), true},
		{"instance type still allowed", req(v1.LabelInstanceType, corev1.NodeSelectorOpIn, "small", "large"), false},
		{"zone excluded", req(v1.LabelTopologyZone, corev1.NodeSelectorOpNotIn, "test-zone-1"), true},
		{"other zone excluded", req(v1.LabelTopologyZone, corev1.NodeSelectorOpNotIn, "test-zone-2"), false},
		{"custom label the node lacks", req("example.com/team", corev1.NodeSelectorOpIn, "a"), true},
		{"custom label must not exist", req("example.com/team", corev1.NodeSelectorOpDoesNotExist), false},
		{"capacity type narrowed away", func(np *v1.NodePool) { np.Spec.Template.Spec.Requirements[0].Values = []string{v1.CapacityTypeSpot} }, true},
		{"capacity type widened", spotToo, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			np := pool("p")
			tc.change(np)
			n := claimed(testNode("n", "p", "small", "", bound("n1", "1")), 0)
			in := input([]*v1.NodePool{np}, n)
			res, err := plan(t, in)
			require.NoError(t, err)
			got := driftOf(res, "n")
			if !tc.drifted {
				assert.Zero(t, got)
				return
			}
			assert.Equal(t, RequirementsDrifted, got.Reason, "%v", cmdSummary(res))
			assert.NotEmpty(t, got.Detail, "the requirement the labels break")
		})
	}
}
