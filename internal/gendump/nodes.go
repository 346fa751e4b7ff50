package gendump

import (
	"fmt"
	"strconv"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

const (
	clusterName    = "prod-use1"
	nodePoolHashV  = "v3"
	nodeClassHashV = "v4"
	amiID          = "ami-0c1f9f0a2b3c4d5e6"
	amiName        = "amazon-eks-node-al2023-x86_64-standard-1.32-v20250414"
	kubeletVersion = "v1.32.3-eks-473151a"
)

// requirements are a pool's NodeClaim requirements.
func (p *pool) requirements() []v1.NodeSelectorRequirementWithMinValues {
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirementWithMinValues {
		return v1.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values}
	}
	out := []v1.NodeSelectorRequirementWithMinValues{
		req(v1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, p.capacityType),
		req(v1.LabelArch, corev1.NodeSelectorOpIn, "amd64"),
		req(v1.LabelOS, corev1.NodeSelectorOpIn, "linux"),
	}
	switch p.name {
	case "system":
		out = append(out, req(v1.LabelInstanceType, corev1.NodeSelectorOpIn, "m5.large", "m6i.large"))
	case "batch":
		out = append(out, req("karpenter.k8s.aws/instance-category", corev1.NodeSelectorOpIn, "c", "m"),
			req("karpenter.k8s.aws/instance-generation", corev1.NodeSelectorOpGt, "5"))
	default:
		out = append(out, req("karpenter.k8s.aws/instance-category", corev1.NodeSelectorOpIn, "c", "m", "r"),
			req("karpenter.k8s.aws/instance-generation", corev1.NodeSelectorOpGt, "4"))
	}
	return out
}

func (p *pool) taints() []corev1.Taint {
	if !p.tainted {
		return nil
	}
	return []corev1.Taint{{Key: "CriticalAddonsOnly", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
}

func (c *cluster) nodePool(p *pool, created time.Time) *v1.NodePool {
	np := &v1.NodePool{
		TypeMeta: metav1.TypeMeta{APIVersion: v1.APIVersion, Kind: v1.KindNodePool},
		ObjectMeta: metav1.ObjectMeta{Name: p.name, UID: p.uid, ResourceVersion: c.resourceVersion(), Generation: 3,
			CreationTimestamp: mtime(created),
			Annotations: map[string]string{v1.NodePoolHashAnnotationKey: p.hash, v1.NodePoolHashVersionAnnotationKey: nodePoolHashV,
				"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"annotations":{},"name":"` + p.name + `"}}`},
			ManagedFields: []metav1.ManagedFieldsEntry{
				managed("kubectl-client-side-apply", "", created, fieldSet{}.set("f:metadata|f:annotations|f:kubectl.kubernetes.io/last-applied-configuration", "f:spec|f:template|f:spec|f:requirements", "f:spec|f:disruption|f:budgets", "f:spec|f:limits|f:cpu")),
				managed("karpenter", "", created.Add(time.Minute), fieldSet{}.set("f:metadata|f:annotations|f:"+v1.NodePoolHashAnnotationKey, "f:metadata|f:annotations|f:"+v1.NodePoolHashVersionAnnotationKey)),
				managed("karpenter", "status", DumpTime.Add(-time.Minute), fieldSet{}.set("f:status|f:conditions", "f:status|f:resources|f:cpu", "f:status|f:resources|f:memory", "f:status|f:resources|f:nodes")),
			}},
		Spec: v1.NodePoolSpec{
			Template: v1.NodeClaimTemplate{ObjectMeta: v1.ObjectMeta{Labels: p.labels}, Spec: v1.NodeClaimTemplateSpec{
				Taints: p.taints(), Requirements: p.requirements(), ExpireAfter: v1.MustParseNillableDuration("720h"),
				NodeClassRef: &v1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: p.nodeClass}}},
			Disruption: v1.Disruption{ConsolidationPolicy: v1.ConsolidationPolicyWhenEmptyOrUnderutilized,
				ConsolidateAfter: v1.MustParseNillableDuration("5m"), Budgets: []v1.Budget{{Nodes: "10%"}}},
			Limits: v1.Limits{corev1.ResourceCPU: resource.MustParse("20000"), corev1.ResourceMemory: resource.MustParse("80000Gi")},
		},
	}
	if p.tainted {
		np.Spec.Disruption.ConsolidationPolicy = v1.ConsolidationPolicyWhenEmpty
	}
	var cpu, mem, nodes int64
	for _, n := range c.nodes {
		if n.pool == p {
			cc, _ := n.typ.cpuMillis()
			mc, _ := n.typ.memoryKi()
			cpu, mem, nodes = cpu+cc, mem+mc, nodes+1
		}
	}
	np.Status = v1.NodePoolStatus{NodeClassObservedGeneration: 1, Nodes: &nodes,
		Resources: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(cpu, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(mem*1024, resource.BinarySI), "nodes": *resource.NewQuantity(nodes, resource.DecimalSI)},
		Conditions: readyConditions(created, v1.ConditionTypeValidationSucceeded, v1.ConditionTypeNodeClassReady, v1.ConditionTypeNodeRegistrationHealthy, v1.ConditionTypeReady)}
	return np
}

// readyConditions are True conditions of these types, in the form controllers write them.
func readyConditions(at time.Time, types ...string) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(types))
	for _, t := range types {
		out = append(out, metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t, LastTransitionTime: mtime(at), ObservedGeneration: 1})
	}
	return out
}

func (c *cluster) nodeClass(name string, created time.Time) *awsv1.EC2NodeClass {
	sel := map[string]string{"karpenter.sh/discovery": clusterName}
	hop, endpoint, ipv6, tokens := int64(1), "enabled", "disabled", "required"
	nc := &awsv1.EC2NodeClass{
		TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.k8s.aws/v1", Kind: "EC2NodeClass"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: c.newUID(), ResourceVersion: c.resourceVersion(), Generation: 1,
			CreationTimestamp: mtime(created), Finalizers: []string{"karpenter.k8s.aws/termination"},
			Annotations: map[string]string{"karpenter.k8s.aws/ec2nodeclass-hash": fmt.Sprint(c.rng.Uint64() >> 1), "karpenter.k8s.aws/ec2nodeclass-hash-version": nodeClassHashV},
			ManagedFields: []metav1.ManagedFieldsEntry{
				managed("kubectl-client-side-apply", "", created, fieldSet{}.set("f:spec|f:amiSelectorTerms", "f:spec|f:role", "f:spec|f:subnetSelectorTerms", "f:spec|f:securityGroupSelectorTerms", "f:spec|f:tags|f:team")),
				managed("karpenter", "status", DumpTime.Add(-2*time.Minute), fieldSet{}.set("f:status|f:amis", "f:status|f:conditions", "f:status|f:instanceProfile", "f:status|f:securityGroups", "f:status|f:subnets")),
			}},
		Spec: awsv1.EC2NodeClassSpec{
			AMISelectorTerms:           []awsv1.AMISelectorTerm{{Alias: "al2023@v20250414"}},
			Role:                       "KarpenterNodeRole-" + clusterName,
			SubnetSelectorTerms:        []awsv1.SubnetSelectorTerm{{Tags: sel}},
			SecurityGroupSelectorTerms: []awsv1.SecurityGroupSelectorTerm{{Tags: sel}},
			Tags:                       map[string]string{"team": "platform", "cost-center": "cc-1042"},
			MetadataOptions:            &awsv1.MetadataOptions{HTTPEndpoint: &endpoint, HTTPProtocolIPv6: &ipv6, HTTPPutResponseHopLimit: &hop, HTTPTokens: &tokens},
		},
	}
	for _, z := range zones {
		nc.Status.Subnets = append(nc.Status.Subnets, awsv1.Subnet{ID: z.subnet, Zone: z.name, ZoneID: z.id})
	}
	nc.Status.SecurityGroups = []awsv1.SecurityGroup{{ID: "sg-0d2c4e6f8a1b3c5d7", Name: "eks-cluster-sg-" + clusterName}}
	nc.Status.AMIs = []awsv1.AMI{{ID: amiID, Name: amiName, Requirements: []corev1.NodeSelectorRequirement{{Key: v1.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}}}}
	nc.Status.InstanceProfile = clusterName + "_" + fmt.Sprint(c.rng.Uint64()>>1)
	nc.Status.Conditions = readyConditions(created, "AMIsReady", "InstanceProfileReady", "SecurityGroupsReady", "SubnetsReady", "ValidationSucceeded", "Ready")
	return nc
}

// nodeLabels are the labels Karpenter, the kubelet and the cloud controller put on n (the
// NodeClaim carries most of them too).
func nodeLabels(n *node) map[string]string {
	t := n.typ
	l := map[string]string{
		"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": t.name, "beta.kubernetes.io/os": "linux",
		"failure-domain.beta.kubernetes.io/region": "us-east-1", "failure-domain.beta.kubernetes.io/zone": n.zone.name,
		"k8s.io/cloud-provider-aws":                                  "a94967527effcefb5f5829f529c0a1b9",
		"karpenter.k8s.aws/instance-category":                        t.category,
		"karpenter.k8s.aws/instance-cpu":                             strconv.Itoa(t.vcpu),
		"karpenter.k8s.aws/instance-cpu-manufacturer":                t.manufacturer,
		"karpenter.k8s.aws/instance-ebs-bandwidth":                   strconv.Itoa(t.ebsBandwidth),
		"karpenter.k8s.aws/instance-encryption-in-transit-supported": strconv.FormatBool(t.generation >= 6),
		"karpenter.k8s.aws/instance-family":                          t.family,
		"karpenter.k8s.aws/instance-generation":                      strconv.Itoa(t.generation),
		"karpenter.k8s.aws/instance-hypervisor":                      "nitro",
		"karpenter.k8s.aws/instance-memory":                          strconv.Itoa(t.memoryMiB),
		"karpenter.k8s.aws/instance-network-bandwidth":               strconv.Itoa(t.networkBandwidth),
		"karpenter.k8s.aws/instance-size":                            t.size,
		v1.CapacityTypeLabelKey:                                      n.capacityType,
		v1.NodeInitializedLabelKey:                                   "true",
		v1.NodePoolLabelKey:                                          n.pool.name,
		v1.NodeRegisteredLabelKey:                                    "true",
		v1.LabelArch:                                                 "amd64",
		v1.LabelHostname:                                             n.name,
		v1.LabelOS:                                                   "linux",
		v1.LabelInstanceType:                                         t.name,
		"topology.ebs.csi.aws.com/zone":                              n.zone.name,
		"topology.k8s.aws/zone-id":                                   n.zone.id,
		"topology.kubernetes.io/region":                              "us-east-1",
		v1.LabelTopologyZone:                                         n.zone.name,
	}
	for k, v := range n.pool.labels {
		l[k] = v
	}
	return l
}

func (n *node) providerID() string { return "aws:///" + n.zone.name + "/" + n.instanceID }

func (n *node) resources() (capacity, allocatable corev1.ResourceList) {
	cc, ca := n.typ.cpuMillis()
	mc, ma := n.typ.memoryKi()
	pods := resource.MustParse(strconv.Itoa(n.typ.maxPods))
	capacity = corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(cc, resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse(strconv.FormatInt(mc, 10) + "Ki"), corev1.ResourcePods: pods,
		corev1.ResourceEphemeralStorage: resource.MustParse("20959212Ki"), "hugepages-1Gi": resource.MustParse("0"), "hugepages-2Mi": resource.MustParse("0")}
	allocatable = corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(ca, resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse(strconv.FormatInt(ma, 10) + "Ki"), corev1.ResourcePods: pods,
		corev1.ResourceEphemeralStorage: resource.MustParse("18242267924"), "hugepages-1Gi": resource.MustParse("0"), "hugepages-2Mi": resource.MustParse("0")}
	return capacity, allocatable
}

// lastPodEvent is when a pod last bound to or left n: the newest pod start on it.
func (n *node) lastPodEvent() time.Time {
	last := n.created.Add(90 * time.Second)
	for _, r := range n.pods {
		if t := r.started(); t.After(last) {
			last = t
		}
	}
	return last
}

func (c *cluster) nodeClaim(n *node) *v1.NodeClaim {
	labels := nodeLabels(n)
	for _, k := range []string{"beta.kubernetes.io/arch", "beta.kubernetes.io/instance-type", "beta.kubernetes.io/os",
		"failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone", "k8s.io/cloud-provider-aws",
		v1.LabelHostname, "topology.ebs.csi.aws.com/zone", v1.NodeInitializedLabelKey, v1.NodeRegisteredLabelKey} {
		delete(labels, k)
	}
	hash := n.pool.hash
	if n.drifted {
		hash = fmt.Sprint(c.rng.Uint64() >> 1)
	}
	capacity, allocatable := n.resources()
	reqs := append(n.pool.requirements(),
		v1.NodeSelectorRequirementWithMinValues{Key: v1.NodePoolLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{n.pool.name}},
		v1.NodeSelectorRequirementWithMinValues{Key: v1.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: c.claimOptions(n)})
	launched := n.created.Add(-40 * time.Second)
	nc := &v1.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: v1.APIVersion, Kind: v1.KindNodeClaim},
		ObjectMeta: metav1.ObjectMeta{Name: n.claimName, GenerateName: n.pool.name + "-", UID: types.UID(n.claimUID), ResourceVersion: c.resourceVersion(),
			Generation: 1, CreationTimestamp: mtime(launched), Labels: labels, Finalizers: []string{"karpenter.sh/termination"},
			Annotations: map[string]string{"karpenter.k8s.aws/ec2nodeclass-hash": "15616957348189460630", "karpenter.k8s.aws/ec2nodeclass-hash-version": nodeClassHashV,
				"karpenter.k8s.aws/tagged": "true", v1.NodePoolHashAnnotationKey: hash, v1.NodePoolHashVersionAnnotationKey: nodePoolHashV},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: v1.APIVersion, Kind: v1.KindNodePool, Name: n.pool.name, UID: n.pool.uid, BlockOwnerDeletion: ptr(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				managed("karpenter", "", launched, fieldSet{}.set(append(labelFields(labels), "f:metadata|f:finalizers|v:\"karpenter.sh/termination\"", "f:metadata|f:generateName",
					"f:spec|f:expireAfter", "f:spec|f:nodeClassRef|f:group", "f:spec|f:nodeClassRef|f:kind", "f:spec|f:nodeClassRef|f:name", "f:spec|f:requirements", "f:spec|f:resources|f:requests|f:cpu", "f:spec|f:resources|f:requests|f:pods")...)),
				managed("karpenter", "status", n.lastPodEvent(), fieldSet{}.set("f:status|f:allocatable|f:cpu", "f:status|f:allocatable|f:memory", "f:status|f:allocatable|f:pods",
					"f:status|f:capacity|f:cpu", "f:status|f:capacity|f:memory", "f:status|f:conditions", "f:status|f:imageID", "f:status|f:lastPodEventTime", "f:status|f:nodeName", "f:status|f:providerID")),
			}},
		Spec: v1.NodeClaimSpec{Taints: n.pool.taints(), Requirements: reqs,
			Resources:    v1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1910m"), corev1.ResourcePods: resource.MustParse("12")}},
			NodeClassRef: &v1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: n.pool.nodeClass},
			ExpireAfter:  v1.MustParseNillableDuration("720h")},
		Status: v1.NodeClaimStatus{NodeName: n.name, ProviderID: n.providerID(), ImageID: amiID, Capacity: capacity, Allocatable: allocatable,
			LastPodEventTime: mtime(n.lastPodEvent()),
			Conditions:       readyConditions(n.created, v1.ConditionTypeLaunched, v1.ConditionTypeRegistered, v1.ConditionTypeInitialized, "Ready")},
	}
	if n.drifted {
		nc.Status.Conditions = append(nc.Status.Conditions, metav1.Condition{Type: v1.ConditionTypeDrifted, Status: metav1.ConditionTrue, Reason: "NodePoolDrifted",
			LastTransitionTime: mtime(DumpTime.Add(-time.Hour)), ObservedGeneration: 1})
	}
	return nc
}

// claimOptions are the instance types Karpenter offered the node's NodeClaim: its own and
// others of its pool, as a claim lists up to 60 cheapest options.
func (c *cluster) claimOptions(n *node) []string {
	seen := map[string]bool{n.typ.name: true}
	out := []string{n.typ.name}
	for _, t := range n.pool.types {
		if !seen[t.Value.name] && t.Value.vcpu >= n.typ.vcpu {
			seen[t.Value.name] = true
			out = append(out, t.Value.name)
		}
	}
	return out
}

// labelFields are managedFields paths of labels.
func labelFields(labels map[string]string) []string {
	out := make([]string, 0, len(labels))
	for k := range labels {
		out = append(out, "f:metadata|f:labels|f:"+k)
	}
	return out
}

func (c *cluster) nodeObject(n *node) *corev1.Node {
	capacity, allocatable := n.resources()
	labels := nodeLabels(n)
	heartbeat := DumpTime.Add(-time.Duration(5+c.rng.IntN(40)) * time.Second)
	cond := func(t corev1.NodeConditionType, status corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: status, Reason: reason, Message: msg, LastHeartbeatTime: mtime(heartbeat), LastTransitionTime: mtime(n.created.Add(30 * time.Second))}
	}
	node := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: n.name, UID: types.UID(n.uid), ResourceVersion: c.resourceVersion(), CreationTimestamp: mtime(n.created),
			Labels: labels, Finalizers: []string{"karpenter.sh/termination"},
			Annotations: map[string]string{"alpha.kubernetes.io/provided-node-ip": n.ip,
				"csi.volume.kubernetes.io/nodeid":                        `{"ebs.csi.aws.com":"` + n.instanceID + `"}`,
				"karpenter.k8s.aws/ec2nodeclass-hash":                    "15616957348189460630",
				"karpenter.k8s.aws/ec2nodeclass-hash-version":            nodeClassHashV,
				v1.NodePoolHashAnnotationKey:                             n.pool.hash,
				v1.NodePoolHashVersionAnnotationKey:                      nodePoolHashV,
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: v1.APIVersion, Kind: v1.KindNodeClaim, Name: n.claimName, UID: types.UID(n.claimUID), BlockOwnerDeletion: ptr(true)}},
			ManagedFields: []metav1.ManagedFieldsEntry{
				managed("karpenter", "", n.created, fieldSet{}.set("f:metadata|f:finalizers|v:\"karpenter.sh/termination\"", "f:metadata|f:ownerReferences|"+keyed("uid", n.claimUID))),
				managed("kubelet", "", n.created, fieldSet{}.set(append(labelFields(labels), "f:metadata|f:annotations|f:alpha.kubernetes.io/provided-node-ip", "f:spec|f:providerID")...)),
				managed("kube-controller-manager", "", n.created.Add(10*time.Second), fieldSet{}.set("f:metadata|f:annotations|f:node.alpha.kubernetes.io/ttl")),
				managed("kubelet", "status", heartbeat, fieldSet{}.set(
					"f:status|f:allocatable|f:cpu", "f:status|f:allocatable|f:memory", "f:status|f:capacity|f:cpu", "f:status|f:capacity|f:memory",
					"f:status|f:conditions|"+keyed("type", "DiskPressure")+"|f:lastHeartbeatTime", "f:status|f:conditions|"+keyed("type", "MemoryPressure")+"|f:lastHeartbeatTime",
					"f:status|f:conditions|"+keyed("type", "PIDPressure")+"|f:lastHeartbeatTime", "f:status|f:conditions|"+keyed("type", "Ready")+"|f:lastHeartbeatTime",
					"f:status|f:conditions|"+keyed("type", "Ready")+"|f:lastTransitionTime", "f:status|f:images", "f:status|f:nodeInfo|f:bootID")),
			}},
		Spec: corev1.NodeSpec{ProviderID: n.providerID(), Taints: n.pool.taints()},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: allocatable,
			Conditions: []corev1.NodeCondition{
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			},
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: n.ip}, {Type: corev1.NodeInternalDNS, Address: n.name}, {Type: corev1.NodeHostName, Address: n.name}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{MachineID: hexString(c.rng, 32), SystemUUID: "ec2" + hexString(c.rng, 29), BootID: n.bootID,
				KernelVersion: "6.1.132-147.221.amzn2023.x86_64", OSImage: "Amazon Linux 2023.7.20250414", ContainerRuntimeVersion: "containerd://1.7.27",
				//lint:ignore SA1019 kubelets still report kubeProxyVersion, and kubectl prints it
				KubeletVersion: kubeletVersion, KubeProxyVersion: kubeletVersion, OperatingSystem: "linux", Architecture: "amd64"},
			Images: c.nodeImages(n),
		},
	}
	return node
}

// nodeImages are the images the node's kubelet reports: the DaemonSets' and its pods'.
func (c *cluster) nodeImages(n *node) []corev1.ContainerImage {
	var out []corev1.ContainerImage
	seen := map[string]bool{}
	add := func(image string) {
		if seen[image] {
			return
		}
		seen[image] = true
		repo := image
		if i := lastIndex(image, ':'); i > 0 {
			repo = image[:i]
		}
		out = append(out, corev1.ContainerImage{Names: []string{repo + "@sha256:" + hexString(c.rng, 64), image}, SizeBytes: int64(20e6 + c.rng.IntN(400e6))})
	}
	for _, ds := range c.daemonSets {
		if ds.runsOn(n) {
			add(ds.image)
		}
	}
	for _, r := range n.pods {
		if len(out) >= 8 {
			break // the kubelet reports the images it keeps; many are garbage-collected
		}
		add(r.deployment.image())
	}
	return out
}

func (c *cluster) lease(n *node) *coordinationv1.Lease {
	renew := metav1.NewMicroTime(DumpTime.Add(-time.Duration(1+c.rng.IntN(9)) * time.Second))
	holder, duration := n.name, int32(40)
	return &coordinationv1.Lease{
		TypeMeta: metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: metav1.ObjectMeta{Name: n.name, Namespace: "kube-node-lease", UID: c.newUID(), ResourceVersion: c.resourceVersion(), CreationTimestamp: mtime(n.created),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.name, UID: types.UID(n.uid)}},
			ManagedFields: []metav1.ManagedFieldsEntry{managed("kubelet", "", renew.Time, fieldSet{}.set("f:metadata|f:ownerReferences|"+keyed("uid", n.uid),
				"f:spec|f:holderIdentity", "f:spec|f:leaseDurationSeconds", "f:spec|f:renewTime"))}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &duration, RenewTime: &renew},
	}
}

func lastIndex(s string, b byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == b {
			return i
		}
	}
	return -1
}

func ptr[T any](v T) *T { return &v }
