package gendump

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const sidecarImage = "envoyproxy/envoy:v1.33.2"

func (d *deployment) image() string {
	return fmt.Sprintf("123456789012.dkr.ecr.us-east-1.amazonaws.com/%s/%s:%s", d.team, d.role, d.version)
}

// selector are the labels d selects its pods by.
func (d *deployment) selector() map[string]string {
	return map[string]string{"app.kubernetes.io/name": d.name, "app.kubernetes.io/instance": d.name + "-prod"}
}

// labels are the long label set of d's pod template, as Helm charts and platform policies
// write them.
func (d *deployment) labels() map[string]string {
	l := d.selector()
	for k, v := range map[string]string{
		"app.kubernetes.io/component": d.role, "app.kubernetes.io/part-of": d.team, "app.kubernetes.io/managed-by": "Helm",
		"app.kubernetes.io/version": d.version, "helm.sh/chart": d.role + "-" + d.version, "team": d.team, "tier": d.tier,
		"env": "production", "cost-center": "cc-" + strconv.Itoa(1000+len(d.team)*37),
	} {
		l[k] = v
	}
	return l
}

var envNames = []string{"LOG_LEVEL", "SERVICE_NAME", "POD_NAME", "POD_NAMESPACE", "NODE_NAME", "DB_PASSWORD", "OTEL_EXPORTER_OTLP_ENDPOINT",
	"JAVA_TOOL_OPTIONS", "GOMAXPROCS", "FEATURE_FLAGS", "REDIS_URL", "KAFKA_BROKERS"}

func (d *deployment) envVars() []corev1.EnvVar {
	out := make([]corev1.EnvVar, 0, d.env)
	for _, name := range envNames[:d.env] {
		e := corev1.EnvVar{Name: name}
		switch name {
		case "POD_NAME":
			e.ValueFrom = &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}
		case "POD_NAMESPACE":
			e.ValueFrom = &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}
		case "NODE_NAME":
			e.ValueFrom = &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}}
		case "DB_PASSWORD":
			e.ValueFrom = &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: d.name + "-db"}, Key: "password"}}
		case "SERVICE_NAME":
			e.Value = d.name
		case "OTEL_EXPORTER_OTLP_ENDPOINT":
			e.Value = "http://otel-collector.observability.svc.cluster.local:4317"
		case "JAVA_TOOL_OPTIONS":
			e.Value = "-XX:MaxRAMPercentage=75.0 -XX:+UseG1GC -Dfile.encoding=UTF-8"
		default:
			e.Value = "info"
		}
		out = append(out, e)
	}
	return out
}

func probe(path string) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("http"), Scheme: corev1.URISchemeHTTP}},
		InitialDelaySeconds: 10, TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
}

// template is d's pod template as the API server stores it (every default written).
func (d *deployment) template() corev1.PodTemplateSpec {
	labels := d.labels()
	labels["pod-template-hash"] = d.hash
	cpu := *resource.NewMilliQuantity(d.cpuMillis, resource.DecimalSI)
	mem := resource.MustParse(strconv.FormatInt(d.memoryMiB, 10) + "Mi")
	app := corev1.Container{
		Name: d.role, Image: d.image(), ImagePullPolicy: corev1.PullIfNotPresent, Env: d.envVars(),
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: d.port, Protocol: corev1.ProtocolTCP}},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: mem},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(strconv.FormatInt(d.limitMiB, 10) + "Mi")}},
		VolumeMounts:           []corev1.VolumeMount{{Name: d.tokenVolume, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
		TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}
	if d.probes {
		app.ReadinessProbe = probe("/ready")
	}
	spec := corev1.PodSpec{
		Containers: []corev1.Container{app}, DNSPolicy: corev1.DNSClusterFirst, EnableServiceLinks: ptr(true),
		PreemptionPolicy: ptr(corev1.PreemptLowerPriority), Priority: ptr(int32(0)), RestartPolicy: corev1.RestartPolicyAlways,
		SchedulerName: corev1.DefaultSchedulerName, SecurityContext: &corev1.PodSecurityContext{},
		ServiceAccountName: d.name, DeprecatedServiceAccount: d.name, TerminationGracePeriodSeconds: ptr(d.grace),
		Tolerations: []corev1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
			{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))}},
		Volumes: []corev1.Volume{
			{Name: d.tokenVolume, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: ptr(int32(420)), Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr(int64(3607)), Path: "token"}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
				{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
			}}}},
		},
		NodeSelector: map[string]string{"workload-class": d.pool.labels["workload-class"]},
	}
	if d.pool.tainted {
		spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists})
		spec.PriorityClassName, spec.Priority = "system-cluster-critical", ptr(int32(2000000000))
	}
	if d.sidecar {
		spec.Containers = append(spec.Containers, corev1.Container{Name: "envoy", Image: sidecarImage, ImagePullPolicy: corev1.PullIfNotPresent,
			Args:                   []string{"--config-path", "/etc/envoy/envoy.yaml", "--log-level", "warn"},
			Ports:                  []corev1.ContainerPort{{Name: "envoy-admin", ContainerPort: 9901, Protocol: corev1.ProtocolTCP}},
			Resources:              corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")}},
			TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile})
	}
	if d.initContainer {
		spec.InitContainers = []corev1.Container{{Name: "migrate", Image: d.image(), Command: []string{"/bin/migrate", "--wait"}, ImagePullPolicy: corev1.PullIfNotPresent,
			Resources:              corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}},
			TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile}}
	}
	sel := &metav1.LabelSelector{MatchLabels: d.selector()}
	if d.zoneSpread {
		spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: sel}}
	}
	if d.antiAffinity || d.preferSpread {
		spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{}}
		if d.antiAffinity {
			spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = []corev1.PodAffinityTerm{{LabelSelector: sel, TopologyKey: corev1.LabelHostname}}
		}
		if d.preferSpread {
			spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: 100,
				PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: sel, TopologyKey: corev1.LabelHostname}}}
		}
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{
			"kubectl.kubernetes.io/restartedAt": d.created}},
		Spec: spec,
	}
}

// started is when r started (or, pending, was created).
func (r *replica) started() time.Time {
	h := hash32(r.uid)
	if r.node == nil {
		return DumpTime.Add(-time.Duration(30+h%240) * time.Second)
	}
	return r.node.created.Add(time.Duration(60+h%(20*24*3600)) * time.Second).Add(-time.Duration(h%3600) * time.Second)
}

func hash32(s string) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() >> 1)
}

// podIP is an address of the node's zone for pod name.
func podIP(n *node, name string) string {
	h := hash32(name)
	return fmt.Sprintf("10.0.%d.%d", n.zone.third+h%64, 4+(h>>8)%250)
}

// podManaged are a pod's managedFields: the controller that created it, the scheduler's
// binding, the kubelet's status.
func podManaged(owner string, labels map[string]string, containers []corev1.Container, created, started time.Time, ip string, bound bool) []metav1.ManagedFieldsEntry {
	spec := fieldSet{}.set(append(labelFields(labels), "f:metadata|f:generateName", "f:metadata|f:ownerReferences|"+keyed("uid", owner),
		"f:spec|f:dnsPolicy", "f:spec|f:restartPolicy", "f:spec|f:terminationGracePeriodSeconds")...)
	for _, c := range containers {
		k := "f:spec|f:containers|" + keyed("name", c.Name) + "|"
		spec.set(k+"f:image", k+"f:name", k+"f:resources")
	}
	out := []metav1.ManagedFieldsEntry{managed("kube-controller-manager", "", created, spec)}
	status := fieldSet{}.set("f:status|f:conditions|" + keyed("type", "PodScheduled") + "|f:status")
	if !bound {
		return append(out, managed("kube-scheduler", "status", created, status.set("f:status|f:conditions|"+keyed("type", "PodScheduled")+"|f:message",
			"f:status|f:conditions|"+keyed("type", "PodScheduled")+"|f:reason")))
	}
	kubelet := fieldSet{}
	kubelet.set("f:status|f:conditions|"+keyed("type", "Ready")+"|f:status", "f:status|f:containerStatuses", "f:status|f:phase",
		"f:status|f:podIP", "f:status|f:startTime")
	return append(out, managed("kubelet", "status", started.Add(12*time.Second), kubelet))
}

// runningStatus is the status of a pod running on n since started.
func runningStatus(n *node, containers []corev1.Container, started time.Time, ip string, qos corev1.PodQOSClass, rng func(int) string) corev1.PodStatus {
	st := mtime(started)
	conds := []corev1.PodCondition{}
	for _, t := range []corev1.PodConditionType{corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled} {
		conds = append(conds, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: st})
	}
	status := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: conds, HostIP: n.ip, HostIPs: []corev1.HostIP{{IP: n.ip}},
		PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, QOSClass: qos, StartTime: &st}
	for _, c := range containers {
		status.ContainerStatuses = append(status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name, Image: c.Image,
			ImageID: c.Image + "@sha256:" + rng(64), ContainerID: "containerd://" + rng(64), Ready: true, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: mtime(started.Add(8 * time.Second))}}})
	}
	return status
}

func (c *cluster) replicaPod(r *replica, tmpl corev1.PodTemplateSpec) *corev1.Pod {
	d := r.deployment
	created := r.started().Add(-5 * time.Second)
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: r.name, GenerateName: d.replicaSetName() + "-", Namespace: d.namespace, UID: types.UID(r.uid),
			ResourceVersion: c.resourceVersion(), CreationTimestamp: mtime(created), Labels: tmpl.Labels, Annotations: tmpl.Annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: d.replicaSetName(), UID: types.UID(d.rsUID),
				Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	if r.node == nil {
		pod.ManagedFields = podManaged(d.rsUID, tmpl.Labels, tmpl.Spec.Containers, created, created, "", false)
		pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBurstable, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, LastTransitionTime: mtime(created),
			Message: fmt.Sprintf("0/%d nodes are available: %d Insufficient cpu, %d node(s) didn't match Pod's node affinity/selector. preemption: 0/%d nodes are available: %d No preemption victims found for incoming pod.",
				len(c.nodes), len(c.nodes)/2, len(c.nodes)-len(c.nodes)/2, len(c.nodes), len(c.nodes))}}}
		return pod
	}
	ip := podIP(r.node, r.name)
	pod.Spec.NodeName = r.node.name
	pod.ManagedFields = podManaged(d.rsUID, tmpl.Labels, tmpl.Spec.Containers, created, r.started(), ip, true)
	pod.Status = runningStatus(r.node, pod.Spec.Containers, r.started(), ip, corev1.PodQOSBurstable, func(n int) string { return hexString(c.rng, n) })
	return pod
}

func (ds *daemonSet) template() corev1.PodTemplateSpec {
	labels := map[string]string{"app.kubernetes.io/name": ds.name, "k8s-app": ds.name, "controller-revision-hash": ds.hash, "pod-template-generation": "4"}
	requests := corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(ds.cpuMillis, resource.DecimalSI)}
	if ds.memoryMiB > 0 {
		requests[corev1.ResourceMemory] = resource.MustParse(strconv.FormatInt(ds.memoryMiB, 10) + "Mi")
	}
	tolerations := []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	if !ds.tolerateAll {
		tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
	}
	for _, k := range []string{"node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure", "node.kubernetes.io/pid-pressure", "node.kubernetes.io/unschedulable", "node.kubernetes.io/network-unavailable"} {
		tolerations = append(tolerations, corev1.Toleration{Key: k, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: ds.name, Image: ds.image, ImagePullPolicy: corev1.PullIfNotPresent, Resources: corev1.ResourceRequirements{Requests: requests},
			TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile}},
		DNSPolicy: corev1.DNSClusterFirst, EnableServiceLinks: ptr(true), HostNetwork: true, NodeSelector: map[string]string{corev1.LabelOSStable: "linux"},
		PreemptionPolicy: ptr(corev1.PreemptLowerPriority), Priority: ptr(int32(2000001000)), PriorityClassName: "system-node-critical",
		RestartPolicy: corev1.RestartPolicyAlways, SchedulerName: corev1.DefaultSchedulerName, SecurityContext: &corev1.PodSecurityContext{},
		ServiceAccountName: ds.name, DeprecatedServiceAccount: ds.name, TerminationGracePeriodSeconds: ptr(int64(30)), Tolerations: tolerations,
	}}
}

func (c *cluster) daemonSetPod(ds *daemonSet, n *node, tmpl corev1.PodTemplateSpec) *corev1.Pod {
	name := ds.podName(n)
	started := n.created.Add(20 * time.Second)
	spec := *tmpl.Spec.DeepCopy()
	spec.NodeName = n.name
	spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{n.name}}}}}}}}
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, GenerateName: ds.name + "-", Namespace: ds.namespace, UID: c.newUID(), ResourceVersion: c.resourceVersion(),
			CreationTimestamp: mtime(n.created.Add(5 * time.Second)), Labels: tmpl.Labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.name, UID: types.UID(ds.uid), Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
			ManagedFields:   podManaged(ds.uid, tmpl.Labels, spec.Containers, n.created.Add(5*time.Second), started, n.ip, true)},
		Spec:   spec,
		Status: runningStatus(n, spec.Containers, started, n.ip, corev1.PodQOSBurstable, func(k int) string { return hexString(c.rng, k) }),
	}
}

// jobPod is a finished pod of a CronJob's Job on r's node.
func (c *cluster) jobPod(r *replica) *corev1.Pod {
	started := DumpTime.Add(-time.Duration(10+r.index) * time.Minute)
	job, jobUID := "report-"+strconv.Itoa(29000000+r.index), c.newUID()
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: r.name, GenerateName: job + "-", Namespace: "analytics", UID: types.UID(r.uid), ResourceVersion: c.resourceVersion(),
			CreationTimestamp: mtime(started.Add(-3 * time.Second)), Labels: map[string]string{"batch.kubernetes.io/job-name": job, "job-name": job,
				"batch.kubernetes.io/controller-uid": string(jobUID), "controller-uid": string(jobUID)},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job, UID: jobUID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "report", Image: "123456789012.dkr.ecr.us-east-1.amazonaws.com/analytics/report:2.4.1",
			Resources:              corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
			TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}},
			RestartPolicy: corev1.RestartPolicyNever, NodeName: r.node.name, SchedulerName: corev1.DefaultSchedulerName, DNSPolicy: corev1.DNSClusterFirst,
			TerminationGracePeriodSeconds: ptr(int64(30)), NodeSelector: map[string]string{"workload-class": r.node.pool.labels["workload-class"]}},
	}
	if r.node.pool.tainted {
		pod.Spec.Tolerations = []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}}
	}
	ip := podIP(r.node, r.name)
	pod.ManagedFields = podManaged(string(jobUID), pod.Labels, pod.Spec.Containers, started, started, ip, true)
	pod.Status = runningStatus(r.node, pod.Spec.Containers, started, ip, corev1.PodQOSBurstable, func(k int) string { return hexString(c.rng, k) })
	pod.Status.Phase = corev1.PodSucceeded
	for i := range pod.Status.ContainerStatuses {
		cs := &pod.Status.ContainerStatuses[i]
		cs.Ready, cs.Started = false, ptr(false)
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
			StartedAt: mtime(started), FinishedAt: mtime(started.Add(4 * time.Minute)), ContainerID: cs.ContainerID}}
	}
	return pod
}

func (c *cluster) daemonSetObject(ds *daemonSet, tmpl corev1.PodTemplateSpec) *appsv1.DaemonSet {
	n := int32(0)
	for _, node := range c.nodes {
		if ds.runsOn(node) {
			n++
		}
	}
	return &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: ds.name, Namespace: ds.namespace, UID: types.UID(ds.uid), ResourceVersion: c.resourceVersion(), Generation: 4,
			CreationTimestamp: mtime(DumpTime.Add(-200 * 24 * time.Hour)), Labels: map[string]string{"app.kubernetes.io/name": ds.name, "k8s-app": ds.name},
			Annotations: map[string]string{"deprecated.daemonset.template.generation": "4"}},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": ds.name}}, Template: tmpl,
			UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr(intstr.FromString("10%")), MaxSurge: ptr(intstr.FromInt32(0))}},
			RevisionHistoryLimit: ptr(int32(10))},
		Status: appsv1.DaemonSetStatus{CurrentNumberScheduled: n, DesiredNumberScheduled: n, NumberAvailable: n, NumberReady: n, UpdatedNumberScheduled: n, ObservedGeneration: 4},
	}
}

func (c *cluster) deploymentObject(d *deployment, tmpl corev1.PodTemplateSpec) *appsv1.Deployment {
	replicas := int32(d.replicas)
	ready := replicas - int32(d.pending)
	tmpl = *tmpl.DeepCopy()
	delete(tmpl.Labels, "pod-template-hash")
	return &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: d.namespace, UID: types.UID(d.uid), ResourceVersion: c.resourceVersion(), Generation: 7,
			CreationTimestamp: mustTime(d.created), Labels: d.selector(),
			Annotations: map[string]string{"deployment.kubernetes.io/revision": "7", "meta.helm.sh/release-name": d.name, "meta.helm.sh/release-namespace": d.namespace}},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: d.selector()}, Template: tmpl,
			Strategy:             appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr(intstr.FromString("25%")), MaxSurge: ptr(intstr.FromString("25%"))}},
			RevisionHistoryLimit: ptr(int32(10)), ProgressDeadlineSeconds: ptr(int32(600))},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 7, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready, UnavailableReplicas: replicas - ready},
	}
}

func (c *cluster) replicaSetObject(d *deployment, tmpl corev1.PodTemplateSpec) *appsv1.ReplicaSet {
	replicas := int32(d.replicas)
	ready := replicas - int32(d.pending)
	sel := d.selector()
	sel["pod-template-hash"] = d.hash
	return &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Name: d.replicaSetName(), Namespace: d.namespace, UID: types.UID(d.rsUID), ResourceVersion: c.resourceVersion(), Generation: 2,
			CreationTimestamp: mustTime(d.created), Labels: tmpl.Labels,
			Annotations:     map[string]string{"deployment.kubernetes.io/desired-replicas": strconv.Itoa(d.replicas), "deployment.kubernetes.io/max-replicas": strconv.Itoa(d.replicas + (d.replicas+3)/4), "deployment.kubernetes.io/revision": "7"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: d.name, UID: types.UID(d.uid), Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: tmpl},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, FullyLabeledReplicas: replicas, ReadyReplicas: ready, AvailableReplicas: ready, ObservedGeneration: 2},
	}
}

func (c *cluster) pdbObject(d *deployment) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{
		TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: d.name, Namespace: d.namespace, UID: c.newUID(), ResourceVersion: c.resourceVersion(), Generation: 1,
			CreationTimestamp: mustTime(d.created), Labels: d.selector()},
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: d.selector()}},
	}
	healthy := int32(d.replicas - d.pending)
	desired := int32(d.replicas - 1)
	if d.pdb == "minAvailable" {
		pdb.Spec.MinAvailable = ptr(intstr.FromString("50%"))
		desired = int32((d.replicas + 1) / 2)
	} else {
		pdb.Spec.MaxUnavailable = ptr(intstr.FromInt32(1))
	}
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, CurrentHealthy: healthy, DesiredHealthy: desired,
		DisruptionsAllowed: max(healthy-desired, 0), ExpectedPods: int32(d.replicas),
		Conditions: []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionTrue, Reason: policyv1.SufficientPodsReason,
			LastTransitionTime: mustTime(d.created), ObservedGeneration: 1}}}
	if pdb.Status.DisruptionsAllowed == 0 {
		pdb.Status.Conditions[0].Status, pdb.Status.Conditions[0].Reason = metav1.ConditionFalse, policyv1.InsufficientPodsReason
	}
	return pdb
}

func mustTime(s string) metav1.Time {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		panic(err)
	}
	return mtime(t)
}
