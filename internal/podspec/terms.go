package podspec

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
)

type terms = struct {
	req  []corev1.PodAffinityTerm
	pref []corev1.WeightedPodAffinityTerm
}

func affinityTerms(a *corev1.PodAffinity) terms {
	if a == nil {
		return terms{}
	}
	return terms{a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution}
}

func antiAffinityTerms(a *corev1.PodAntiAffinity) terms {
	if a == nil {
		return terms{}
	}
	return terms{a.RequiredDuringSchedulingIgnoredDuringExecution, a.PreferredDuringSchedulingIgnoredDuringExecution}
}

func sortedNames(rl corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(rl))
	for n := range rl {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}
