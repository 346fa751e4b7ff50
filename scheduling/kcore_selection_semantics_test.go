package scheduling_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/fake"
)

// Karpenter-core reference 6.2 / 1.20: pods that are refused before scheduling.
func TestKCoreSemRefusedPods(t *testing.T) {
	static := func(name string) *v1.NodePool {
		np := kcPool(name).Obj()
		r := int64(2)
		np.Spec.Replicas = &r
		return np
	}
	deleting := kcPool("default").Obj()
	now := metav1.Now()
	deleting.DeletionTimestamp = &now
	notReady := kcPool("default").Obj()
	notReady.Status.Conditions = []metav1.Condition{{Type: v1.ConditionTypeReady, Status: metav1.ConditionFalse, Reason: "NodeClassNotReady"}}
	plain := fake.Pod("plain").Obj()

	kcRun(t, []kcCase{
		{
			name:   "nodeSelector on kubernetes.io/hostname is refused",
			pods:   []*corev1.Pod{fake.Pod("p").NodeSelector(kcHost, "red-node").Obj(), plain},
			failed: []string{"p"}, claims: kcInt(1), want: map[string]kcWant{"plain": {pool: "default"}},
		},
		{
			name:   "required affinity on kubernetes.io/hostname is refused",
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement(kcHost, kcIn, "red-node").Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "nodeSelector on a karpenter.sh key other than nodepool/capacity-type is refused",
			pods:   []*corev1.Pod{fake.Pod("p").NodeSelector("karpenter.sh/custom", "x").Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "requirement on a karpenter.sh subdomain is refused",
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement("sub.karpenter.sh/team", kcExists).Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "requirement on karpenter.sh/initialized is refused",
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement(v1.NodeInitializedLabelKey, kcIn, "true").Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "pod requiring karpenter.sh/nodepool DoesNotExist is not provisioned for",
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement(v1.NodePoolLabelKey, kcDoesNotExist).Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "matchFields in the required node affinity is refused",
			pods: []*corev1.Pod{kcMut(fake.Pod("p").Obj(), func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{kcTerm("metadata.name", kcIn, "n1")}}},
				}}}
			}), plain},
			failed: []string{"p"}, claims: kcInt(1),
		},
		{
			name:   "In without values is refused",
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement("kubernetes.io/team", kcIn).Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "Gt with a non-integer operand is refused",
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement(fake.IntegerInstanceLabelKey, kcGt, "abc").Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "unsupported operator is refused",
			pods:   []*corev1.Pod{fake.Pod("p").NodeRequirement(kcZone, corev1.NodeSelectorOperator("Near"), kcZ1).Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:   "capacity-type In with no known value is not scheduled",
			pods:   []*corev1.Pod{fake.Pod("p").NodeSelector(kcCT, "cheap").Obj()},
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "DRA claim on the pod is refused, non-DRA pod unaffected",
			pods: []*corev1.Pod{kcMut(fake.Pod("dra").Obj(), func(p *corev1.Pod) {
				p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: kcPtr("gpu-claim")}}
				p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
			}), plain},
			failed: []string{"dra"}, claims: kcInt(1), want: map[string]kcWant{"plain": {pool: "default"}},
		},
		{
			name: "DRA claim on a container only is refused",
			pods: []*corev1.Pod{kcMut(fake.Pod("dra").Obj(), func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
			})},
			failed: []string{"dra"}, claims: kcInt(0),
		},
		{
			name: "DRA claim on an init container is refused",
			pods: []*corev1.Pod{kcMut(fake.Pod("dra").Obj(), func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}}
			})},
			failed: []string{"dra"}, claims: kcInt(0),
		},
		{
			name:   "no NodePools: every pod unschedulable",
			pools:  kcPools(),
			pods:   []*corev1.Pod{plain, fake.Pod("other").CPU("1").Obj()},
			failed: []string{"plain", "other"}, claims: kcInt(0),
		},
		{
			name: "no NodePools: existing nodes are not used either",

			pools:  kcPools(),
			pods:   []*corev1.Pod{plain},
			nodes:  []*cluster.Node{kcNode("n1", nil, kcRL("cpu", "4", "memory", "4Gi", "pods", "10"))},
			failed: []string{"plain"}, claims: kcInt(0),
		},
		{
			name:   "only a static NodePool: not scheduled",
			pools:  []*v1.NodePool{static("static")},
			pods:   []*corev1.Pod{plain},
			failed: []string{"plain"}, claims: kcInt(0),
		},
		{
			name:   "static and dynamic NodePool: pod lands on the dynamic one",
			pools:  []*v1.NodePool{static("zzz-static"), kcPool("dynamic").Obj()},
			pods:   []*corev1.Pod{plain},
			claims: kcInt(1), want: map[string]kcWant{"plain": {pool: "dynamic"}},
		},
		{
			name:   "deleting NodePool is ignored",
			pools:  []*v1.NodePool{deleting},
			pods:   []*corev1.Pod{plain},
			failed: []string{"plain"}, claims: kcInt(0),
		},
		{
			name: "NodePool whose Ready condition is False is ignored",

			pools:  []*v1.NodePool{notReady},
			pods:   []*corev1.Pod{plain},
			failed: []string{"plain"}, claims: kcInt(0),
		},
		{
			name:   "nodeSelector on karpenter.sh/nodepool is allowed",
			pods:   []*corev1.Pod{fake.Pod("p").NodeSelector(v1.NodePoolLabelKey, "default").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {pool: "default"}},
		},
		{
			name:   "nodeSelector on karpenter.sh/capacity-type is allowed",
			pods:   []*corev1.Pod{fake.Pod("p").NodeSelector(kcCT, v1.CapacityTypeSpot).Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {ct: v1.CapacityTypeSpot}},
		},
		{
			name: "NodePool requirement keys in kubernetes.io and k8s.io subdomains are schedulable and labelled",
			pools: kcPools(kcPool("default").
				Requirement("team.kubernetes.io/name", kcIn, "a").
				Requirement("example.k8s.io/tier", kcIn, "gold")),
			pods:   []*corev1.Pod{fake.Pod("p").NodeSelector("team.kubernetes.io/name", "a").Obj()},
			claims: kcInt(1), want: map[string]kcWant{"p": {labels: map[string]string{"team.kubernetes.io/name": "a", "example.k8s.io/tier": "gold"}}},
		},
	})
}

func kcPtr[T any](v T) *T { return &v }

// Karpenter-core reference 6.3: node selection by labels and requirements (F1, one NodePool).
func TestKCoreSemNodeSelection(t *testing.T) {
	np := func(b *fake.NodePoolBuilder) []*v1.NodePool { return kcPools(b) }
	pod := func(b *fake.PodBuilder) []*corev1.Pod { return []*corev1.Pod{b.Obj()} }
	tk := "test-key"
	withTV := kcPool("default").Requirement(tk, kcIn, "test-value")

	kcRun(t, []kcCase{
		{
			name:  "NodePool label is put on the node of an unconstrained pod",
			pools: np(kcPool("default").Label(tk, "test-value")),
			pods:  pod(fake.Pod("p")), claims: kcInt(1),
			want: map[string]kcWant{"p": {labels: map[string]string{tk: "test-value"}}},
		},
		{
			name:  "pod selecting a different value of a NodePool label is not scheduled",
			pools: np(kcPool("default").Label(tk, "test-value")),
			pods:  pod(fake.Pod("p").NodeSelector(tk, "different-value")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "pod selecting a custom key the NodePool does not define is not scheduled",
			pods: pod(fake.Pod("p").NodeSelector(tk, "test-value")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name:  "pod In [test-value, another-value] matches the NodePool label test-value",
			pools: np(kcPool("default").Label(tk, "test-value")),
			pods:  pod(fake.Pod("p").NodeRequirement(tk, kcIn, "test-value", "another-value")), claims: kcInt(1),
			want: map[string]kcWant{"p": {labels: map[string]string{tk: "test-value"}}},
		},
		{
			name:  "NodePool zone z2 puts an unconstrained pod in z2",
			pools: np(kcPool("default").Requirement(kcZone, kcIn, kcZ2)),
			pods:  pod(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {zone: kcZ2}},
		},
		{
			name:  "NodePool z1,z2 and pod selector z2 gives z2",
			pools: np(kcPool("default").Requirement(kcZone, kcIn, kcZ1, kcZ2)),
			pods:  pod(fake.Pod("p").NodeSelector(kcZone, kcZ2)), claims: kcInt(1), want: map[string]kcWant{"p": {zone: kcZ2}},
		},
		{
			name:  "NodePool z1 and pod selector z2 is not scheduled",
			pools: np(kcPool("default").Requirement(kcZone, kcIn, kcZ1)),
			pods:  pod(fake.Pod("p").NodeSelector(kcZone, kcZ2)), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "pod selecting an unknown zone is not scheduled",
			pods: pod(fake.Pod("p").NodeSelector(kcZone, "unknown")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "pod zone In [z3] lands in the on-demand-only zone z3",
			pods: pod(fake.Pod("p").NodeRequirement(kcZone, kcIn, kcZ3)), claims: kcInt(1),
			want: map[string]kcWant{"p": {zone: kcZ3, ct: v1.CapacityTypeOnDemand}},
		},
		{
			name: "beta zone alias in the nodeSelector is normalised",
			pods: pod(fake.Pod("p").NodeSelector(v1.LabelFailureDomainZone, kcZ2)), claims: kcInt(1),
			want: map[string]kcWant{"p": {zone: kcZ2}},
		},
		{
			name:  "NodePool integer Gt 8 gives the 16-cpu type",
			pools: np(kcPool("default").Requirement(fake.IntegerInstanceLabelKey, kcGt, "8")),
			pods:  pod(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcArm}},
		},
		{
			name:  "NodePool integer Lt 8 gives the 2-cpu type (cheapest)",
			pools: np(kcPool("default").Requirement(fake.IntegerInstanceLabelKey, kcLt, "8")),
			pods:  pod(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcSmall}},
		},
		{
			name:  "NodePool integer Lt 8 with a 3-cpu pod gives a 4-cpu type, never the 16-cpu one",
			pools: np(kcPool("default").Requirement(fake.IntegerInstanceLabelKey, kcLt, "8")),
			pods:  pod(fake.Pod("p").CPU("3")), claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcDefault}},
			check: func(t *testing.T, r *kcRes) {
				for _, it := range r.claimOf("p").InstanceTypeOptions {
					if it.Name == kcArm {
						t.Errorf("arm type (integer 16) must not be an option under integer Lt 8")
					}
				}
			},
		},
		{
			name:  "NodePool integer Gte 16 gives the 16-cpu type",
			pools: np(kcPool("default").Requirement(fake.IntegerInstanceLabelKey, kcGte, "16")),
			pods:  pod(fake.Pod("p")), claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcArm}},
		},
		{
			name:  "NodePool integer Lte 2 gives the 2-cpu type even for a pod that prefers more",
			pools: np(kcPool("default").Requirement(fake.IntegerInstanceLabelKey, kcLte, "2")),
			pods:  pod(fake.Pod("p").PreferredNodeRequirement(10, kcIT, kcIn, kcDefault)), claims: kcInt(1), want: map[string]kcWant{"p": {itype: kcSmall}},
		},
		{
			name:  "NodePool integer Lte 2 with a 3-cpu pod is not scheduled",
			pools: np(kcPool("default").Requirement(fake.IntegerInstanceLabelKey, kcLte, "2")),
			pods:  pod(fake.Pod("p").CPU("3")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "pod integer Gt 8 gives the 16-cpu type",
			pods: pod(fake.Pod("p").NodeRequirement(fake.IntegerInstanceLabelKey, kcGt, "8")), claims: kcInt(1),
			want: map[string]kcWant{"p": {itype: kcArm}},
		},
		{
			name: "pod zone NotIn [z1, z2, unknown] gives z3",
			pods: pod(fake.Pod("p").NodeRequirement(kcZone, kcNotIn, kcZ1, kcZ2, "unknown")), claims: kcInt(1),
			want: map[string]kcWant{"p": {zone: kcZ3}},
		},
		{
			name: "pod zone NotIn every zone is not scheduled",
			pods: pod(fake.Pod("p").NodeRequirement(kcZone, kcNotIn, kcZ1, kcZ2, kcZ3, "unknown")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "required all zones + preferred In [z2, unknown] gives z2",
			pods: pod(fake.Pod("p").NodeRequirement(kcZone, kcIn, kcZ1, kcZ2, kcZ3, "unknown").
				PreferredNodeRequirement(1, kcZone, kcIn, kcZ2, "unknown")), claims: kcInt(1),
			want: map[string]kcWant{"p": {zone: kcZ2}},
		},
		{
			name: "preferred zone In [unknown] is relaxed and the pod still scheduled",
			pods: pod(fake.Pod("p").NodeRequirement(kcZone, kcIn, kcZ1, kcZ2, kcZ3, "unknown").
				PreferredNodeRequirement(1, kcZone, kcIn, "unknown")), claims: kcInt(1),
		},
		{
			name: "required all zones + preferred NotIn [z1, z3] gives z2",
			pods: pod(fake.Pod("p").NodeRequirement(kcZone, kcIn, kcZ1, kcZ2, kcZ3).
				PreferredNodeRequirement(1, kcZone, kcNotIn, kcZ1, kcZ3)), claims: kcInt(1),
			want: map[string]kcWant{"p": {zone: kcZ2}},
		},
		{
			name: "preferred NotIn every zone is relaxed and the pod still scheduled",
			pods: pod(fake.Pod("p").NodeRequirement(kcZone, kcIn, kcZ1, kcZ2, kcZ3).
				PreferredNodeRequirement(1, kcZone, kcNotIn, kcZ1, kcZ2, kcZ3)), claims: kcInt(1),
		},
		{
			name: "selector z3 + required all zones + preferred all zones gives z3",
			pods: pod(fake.Pod("p").NodeSelector(kcZone, kcZ3).NodeRequirement(kcZone, kcIn, kcZ1, kcZ2, kcZ3).
				PreferredNodeRequirement(1, kcZone, kcIn, kcZ1, kcZ2, kcZ3)), claims: kcInt(1),
			want: map[string]kcWant{"p": {zone: kcZ3}},
		},
		{
			name: "selector z3 and arm type + required [z1,z3]/[default,arm] gives z3 and arm",
			pods: pod(fake.Pod("p").NodeSelector(kcZone, kcZ3).NodeSelector(kcIT, kcArm).
				NodeRequirement(kcZone, kcIn, kcZ1, kcZ3).NodeRequirement(kcIT, kcIn, kcDefault, kcArm).
				PreferredNodeRequirement(1, kcZone, kcNotIn, "unknown")), claims: kcInt(1),
			want: map[string]kcWant{"p": {zone: kcZ3, itype: kcArm}},
		},
		{
			name: "custom key undefined in NodePool: pod In is not scheduled",
			pods: pod(fake.Pod("p").NodeRequirement(tk, kcIn, "test-value")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "custom key undefined in NodePool: pod NotIn is scheduled, never labelled with the excluded value",
			pods: pod(fake.Pod("p").NodeRequirement(tk, kcNotIn, "test-value")), claims: kcInt(1),
			want: map[string]kcWant{"p": {notValues: map[string]string{tk: "test-value"}}},
		},
		{
			name: "custom key undefined in NodePool: pod Exists is not scheduled",
			pods: pod(fake.Pod("p").NodeRequirement(tk, kcExists)), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "custom key undefined in NodePool: pod DoesNotExist is scheduled without the label",
			pods: pod(fake.Pod("p").NodeRequirement(tk, kcDoesNotExist)), claims: kcInt(1),
			want: map[string]kcWant{"p": {noLabels: []string{tk}}},
		},
		{
			name: "NodePool In [test-value]: pod NotIn test-value is not scheduled", pools: np(withTV),
			pods: pod(fake.Pod("p").NodeRequirement(tk, kcNotIn, "test-value")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "NodePool In [test-value]: pod Exists is scheduled with the label", pools: np(withTV),
			pods: pod(fake.Pod("p").NodeRequirement(tk, kcExists)), claims: kcInt(1),
			want: map[string]kcWant{"p": {labels: map[string]string{tk: "test-value"}}},
		},
		{
			name: "NodePool In [test-value]: pod DoesNotExist is not scheduled", pools: np(withTV),
			pods: pod(fake.Pod("p").NodeRequirement(tk, kcDoesNotExist)), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "NodePool In [test-value]: pod In another value is not scheduled", pools: np(withTV),
			pods: pod(fake.Pod("p").NodeRequirement(tk, kcIn, "another-value")), failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "NodePool In [test-value]: pod NotIn another value is scheduled with test-value", pools: np(withTV),
			pods: pod(fake.Pod("p").NodeRequirement(tk, kcNotIn, "another-value")), claims: kcInt(1),
			want: map[string]kcWant{"p": {labels: map[string]string{tk: "test-value"}}},
		},
		{
			name:  "NodePool In [test-value, another]: In test-value and NotIn another share a node",
			pools: np(kcPool("default").Requirement(tk, kcIn, "test-value", "another-value")),
			pods: []*corev1.Pod{fake.Pod("a").NodeRequirement(tk, kcIn, "test-value").Obj(),
				fake.Pod("b").NodeRequirement(tk, kcNotIn, "another-value").Obj()},
			claims: kcInt(1), together: [][]string{{"a", "b"}},
			want: map[string]kcWant{"a": {labels: map[string]string{tk: "test-value"}}},
		},
		{
			name:  "NodePool In [test-value, another]: In test-value and In another get two labelled nodes",
			pools: np(kcPool("default").Requirement(tk, kcIn, "test-value", "another-value")),
			pods: []*corev1.Pod{fake.Pod("a").NodeRequirement(tk, kcIn, "test-value").Obj(),
				fake.Pod("b").NodeRequirement(tk, kcIn, "another-value").Obj()},
			claims: kcInt(2), apart: [][]string{{"a", "b"}},
			want: map[string]kcWant{"a": {labels: map[string]string{tk: "test-value"}}, "b": {labels: map[string]string{tk: "another-value"}}},
		},
		{
			name:   "zone In [non-existent] and zone Exists in one term is not scheduled (Exists never widens)",
			pods:   pod(fake.Pod("p").NodeRequirement(kcZone, kcIn, "non-existent").NodeRequirement(kcZone, kcExists)),
			failed: []string{"p"}, claims: kcInt(0),
		},
		{
			name: "separate pods selecting zone, instance type, arch, os and capacity type are all scheduled accordingly",
			pods: []*corev1.Pod{
				fake.Pod("zone").NodeSelector(kcZone, kcZ1).Obj(),
				fake.Pod("type").NodeSelector(kcIT, kcDefault).Obj(),
				fake.Pod("arch").NodeSelector(kcArch, v1.ArchitectureArm64).Obj(),
				fake.Pod("os").NodeSelector(kcOS, "linux").Obj(),
				fake.Pod("ct").NodeSelector(kcCT, v1.CapacityTypeSpot).Obj(),
			},
			want: map[string]kcWant{
				"zone": {zone: kcZ1}, "type": {itype: kcDefault}, "arch": {itype: kcArm, arch: v1.ArchitectureArm64},
				"os": {}, "ct": {ct: v1.CapacityTypeSpot},
			},
			apart: [][]string{{"type", "arch"}},
		},
	})
}
