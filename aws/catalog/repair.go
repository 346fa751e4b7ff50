package catalog

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cloudprovider"
)

// RepairPolicies are the AWS provider's node repair policies (what aws.Provider.RepairPolicies
// returns; here without the SDK, for the CLI): Ready False or Unknown for 30 minutes, and the
// EKS node monitoring agent's conditions (accelerated hardware 10 minutes; storage,
// networking, kernel and container runtime 30 minutes).
func RepairPolicies() []cloudprovider.RepairPolicy {
	const m = 60
	return []cloudprovider.RepairPolicy{
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionFalse, TolerationDuration: 30 * m},
		{ConditionType: corev1.NodeReady, ConditionStatus: corev1.ConditionUnknown, TolerationDuration: 30 * m},
		{ConditionType: "AcceleratedHardwareReady", ConditionStatus: corev1.ConditionFalse, TolerationDuration: 10 * m},
		{ConditionType: "StorageReady", ConditionStatus: corev1.ConditionFalse, TolerationDuration: 30 * m},
		{ConditionType: "NetworkingReady", ConditionStatus: corev1.ConditionFalse, TolerationDuration: 30 * m},
		{ConditionType: "KernelReady", ConditionStatus: corev1.ConditionFalse, TolerationDuration: 30 * m},
		{ConditionType: "ContainerRuntimeReady", ConditionStatus: corev1.ConditionFalse, TolerationDuration: 30 * m},
	}
}
