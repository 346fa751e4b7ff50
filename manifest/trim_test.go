package manifest

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

const trimPod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec:
  nodeName: node-a
  initContainers:
  - name: proxy
    image: envoy:1
    restartPolicy: Always
    resources: {limits: {memory: 1Gi}}
  containers:
  - name: app
    image: app:1
    command: [run]
    args: [--fast]
    workingDir: /app
    env: [{name: A, value: b}]
    envFrom: [{configMapRef: {name: cm}}]
    ports: [{containerPort: 8080, hostPort: 80}]
    volumeMounts: [{name: token, mountPath: /t}]
    livenessProbe: {httpGet: {path: /, port: 8080}}
    readinessProbe: {httpGet: {path: /, port: 8080}}
    startupProbe: {httpGet: {path: /, port: 8080}}
    lifecycle: {preStop: {exec: {command: [sleep, "5"]}}}
    terminationMessagePath: /dev/termination-log
    terminationMessagePolicy: File
    imagePullPolicy: IfNotPresent
    securityContext: {runAsNonRoot: true}
    resources: {requests: {cpu: 250m, memory: 1Gi}, limits: {memory: 2Gi}}
  volumes:
  - name: token
    projected: {sources: [{serviceAccountToken: {path: token}}]}
  - name: data
    persistentVolumeClaim: {claimName: data-web}
status:
  phase: Running
  conditions:
  - {type: Ready, status: "True", reason: Ready, message: all good}
  containerStatuses:
  - name: app
    image: app:1
    imageID: app@sha256:00
    containerID: containerd://00
    ready: true
    started: true
    restartCount: 2
    state: {running: {startedAt: "2026-01-01T00:00:00Z"}}
    allocatedResources: {cpu: 250m}
`

// TestTrimDropsOnlyUnreadFields: the fields Set's documentation lists are dropped from a
// decoded pod, and what nodeplan reads stays: names, ports, requests, a limit without a
// request, restart policies, a claim's volume, the kinds of the other volumes, conditions
// without messages, container statuses' readiness and resources.
func TestTrimDropsOnlyUnreadFields(t *testing.T) {
	s := parse(t, trimPod)
	require.Len(t, s.Pods, 1)
	p := s.Pods[0]
	app := p.Spec.Containers[0]
	require.Equal(t, corev1.Container{
		Name:  "app",
		Ports: []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 80}},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("1Gi")}},
	}, normalized(app), "app container: limits whose every resource has a request go too")
	proxy := p.Spec.InitContainers[0]
	require.Equal(t, "proxy", proxy.Name)
	require.Equal(t, corev1.ContainerRestartPolicyAlways, *proxy.RestartPolicy)
	require.Equal(t, "1Gi", ptrQ(proxy.Resources.Limits[corev1.ResourceMemory]), "a limit without a request is kept: it is the request")
	require.Empty(t, proxy.Image)

	require.Len(t, p.Spec.Volumes, 2)
	require.NotNil(t, p.Spec.Volumes[0].Projected, "a projected volume keeps its kind")
	require.Empty(t, p.Spec.Volumes[0].Projected.Sources)
	require.Equal(t, "data-web", p.Spec.Volumes[1].PersistentVolumeClaim.ClaimName)

	require.Equal(t, corev1.PodRunning, p.Status.Phase)
	require.Equal(t, []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, Reason: "Ready"}}, p.Status.Conditions)
	cs := p.Status.ContainerStatuses[0]
	require.Equal(t, corev1.ContainerStatus{Name: "app", Ready: true, Started: cs.Started, RestartCount: 2,
		AllocatedResources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}, normalizedStatus(cs))
	require.True(t, *cs.Started)
}

// normalized is c with its quantities re-parsed (a decoded Quantity caches its text).
func normalized(c corev1.Container) corev1.Container {
	c.Resources.Requests = reparsed(c.Resources.Requests)
	c.Resources.Limits = reparsed(c.Resources.Limits)
	return c
}

func normalizedStatus(c corev1.ContainerStatus) corev1.ContainerStatus {
	c.AllocatedResources = reparsed(c.AllocatedResources)
	return c
}

func reparsed(rl corev1.ResourceList) corev1.ResourceList {
	if rl == nil {
		return nil
	}
	out := corev1.ResourceList{}
	for k, q := range rl {
		out[k] = resource.MustParse(q.String())
	}
	return out
}

func ptrQ(q resource.Quantity) string { return q.String() }
