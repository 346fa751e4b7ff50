package manifest

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Fields nodeplan reads nothing of are dropped from an object once it has been decoded and
// checked, as strictly as the rest (Set's documentation lists them): in a kubectl dump they
// are a large part of what would stay in memory through planning (a container's environment,
// probes and mounts, a projected volume's sources, a running container's state and image, a
// Node's image list), and nothing in nodeplan's answers depends on them.

// trim drops the unread fields of obj, whatever its kind.
func trim(obj any) {
	switch o := obj.(type) {
	case *corev1.Pod:
		trimPodSpec(&o.Spec)
		trimPodStatus(&o.Status)
	case *corev1.Node:
		o.Status.Images = nil
	case *appsv1.Deployment:
		trimPodSpec(&o.Spec.Template.Spec)
	case *appsv1.ReplicaSet:
		trimPodSpec(&o.Spec.Template.Spec)
	case *appsv1.StatefulSet:
		trimPodSpec(&o.Spec.Template.Spec)
	case *appsv1.DaemonSet:
		trimPodSpec(&o.Spec.Template.Spec)
	case *batchv1.Job:
		trimPodSpec(&o.Spec.Template.Spec)
	}
}

// trimPodSpec keeps of each container its name, ports, requests (and limits, if one has
// no request) and restart and resize policies, and of each volume its name and kind (a projected, ConfigMap, Secret or downward
// API volume without its items).
func trimPodSpec(s *corev1.PodSpec) {
	for _, cs := range [][]corev1.Container{s.InitContainers, s.Containers} {
		for i := range cs {
			trimContainer(&cs[i])
		}
	}
	for i := range s.Volumes {
		v := &s.Volumes[i].VolumeSource
		switch {
		case v.Projected != nil:
			v.Projected = &corev1.ProjectedVolumeSource{}
		case v.ConfigMap != nil:
			v.ConfigMap = &corev1.ConfigMapVolumeSource{}
		case v.Secret != nil:
			v.Secret = &corev1.SecretVolumeSource{}
		case v.DownwardAPI != nil:
			v.DownwardAPI = &corev1.DownwardAPIVolumeSource{}
		}
	}
}

// trimContainer drops what nodeplan never reads of c, and its limits when every one of them
// has a request (a limit is read only to default a missing request, scheduling.podRequests).
func trimContainer(c *corev1.Container) {
	c.Image, c.Command, c.Args, c.WorkingDir = "", nil, nil, ""
	c.Env, c.EnvFrom, c.VolumeMounts, c.VolumeDevices = nil, nil, nil, nil
	c.LivenessProbe, c.ReadinessProbe, c.StartupProbe, c.Lifecycle = nil, nil, nil, nil
	c.TerminationMessagePath, c.TerminationMessagePolicy, c.ImagePullPolicy = "", "", ""
	c.SecurityContext = nil
	for name := range c.Resources.Limits {
		if _, ok := c.Resources.Requests[name]; !ok {
			return
		}
	}
	c.Resources.Limits = nil
}

// trimPodStatus keeps the conditions without their messages and of each container status
// its name and resources (what a resize reads).
func trimPodStatus(s *corev1.PodStatus) {
	for i := range s.Conditions {
		s.Conditions[i].Message = ""
	}
	for _, ss := range [][]corev1.ContainerStatus{s.InitContainerStatuses, s.ContainerStatuses} {
		for i := range ss {
			c := &ss[i]
			*c = corev1.ContainerStatus{Name: c.Name, Resources: c.Resources, AllocatedResources: c.AllocatedResources,
				AllocatedResourcesStatus: c.AllocatedResourcesStatus, Ready: c.Ready, Started: c.Started, RestartCount: c.RestartCount}
		}
	}
}
