package fake

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// DaemonSet is a DaemonSet named name in pod's namespace that runs pod (its labels, node
// selection, tolerations and requests) on every node it admits.
func DaemonSet(name string, pod *corev1.Pod) *appsv1.DaemonSet {
	lbls := map[string]string{"ds": name}
	for k, v := range pod.Labels {
		lbls[k] = v
	}
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: pod.Namespace},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"ds": name}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: lbls}, Spec: *pod.Spec.DeepCopy()}},
	}
}

// PDB is a PodDisruptionBudget named name in namespace selecting the pods with labels
// selector, allowing at most maxUnavailable of them to be disrupted (0: none). Its status
// is left empty, so readers compute the allowance from the pods.
func PDB(name, namespace string, selector map[string]string, maxUnavailable int) *policyv1.PodDisruptionBudget {
	mu := intstr.FromInt32(int32(maxUnavailable))
	return &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: copyMap(selector)},
			MaxUnavailable: &mu},
	}
}

// NodeAndClaim are an initialized Node named name of NodePool pool and its NodeClaim of the
// same name, launched at created on it in offering o (labels of the type, offering and
// pool; capacity and allocatable of the type; providerID fake:///<zone>/<name>; Launched,
// Registered and Initialized conditions).
func NodeAndClaim(name, pool string, it *cloudprovider.InstanceType, o *cloudprovider.Offering, created time.Time) (*corev1.Node, *v1.NodeClaim) {
	lbls := launchedLabels(name, pool, it, o)
	id := fmt.Sprintf("fake:///%s/%s", o.Zone(), name)
	at := metav1.NewTime(created)
	node := &corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls, CreationTimestamp: at},
		Spec:       corev1.NodeSpec{ProviderID: id},
		Status: corev1.NodeStatus{Capacity: it.Capacity.DeepCopy(), Allocatable: it.Allocatable().DeepCopy(),
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: at}}},
	}
	nc := &v1.NodeClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.APIVersion, Kind: v1.KindNodeClaim},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: copyMap(lbls), CreationTimestamp: at},
	}
	nc.Status.NodeName, nc.Status.ProviderID = name, id
	nc.Status.Capacity, nc.Status.Allocatable = it.Capacity.DeepCopy(), it.Allocatable().DeepCopy()
	for _, c := range []string{v1.ConditionTypeLaunched, v1.ConditionTypeRegistered, v1.ConditionTypeInitialized} {
		nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: c, Status: metav1.ConditionTrue, Reason: c, LastTransitionTime: at})
	}
	return node, nc
}

// launchedLabels are the labels of a node named name of pool ("" for none) on it in o.
func launchedLabels(name, pool string, it *cloudprovider.InstanceType, o *cloudprovider.Offering) map[string]string {
	lbls := map[string]string{v1.LabelHostname: name}
	for _, reqs := range []map[string]string{it.Requirements.Labels(), o.Requirements.Labels()} {
		for k, v := range reqs {
			lbls[k] = v
		}
	}
	if os := it.Requirements.Get(v1.LabelOS); os.Has("linux") {
		lbls[v1.LabelOS] = "linux"
	}
	if pool != "" {
		lbls[v1.NodePoolLabelKey] = pool
		lbls[v1.NodeInitializedLabelKey] = "true"
		lbls[v1.NodeRegisteredLabelKey] = "true"
	}
	return lbls
}

// Names hands out unique names: prefix-1, prefix-2, … per prefix. The zero value is ready.
// Not safe for concurrent use.
type Names struct{ next map[string]int }

// Next is the next unused name with prefix.
func (n *Names) Next(prefix string) string {
	if n.next == nil {
		n.next = map[string]int{}
	}
	n.next[prefix]++
	return fmt.Sprintf("%s-%d", prefix, n.next[prefix])
}
