package scheduling

import corev1 "k8s.io/api/core/v1"

// CachedPodVecLen is the length of the request vector c remembers for p (0: none), for the
// test in package scheduling_test that watches it grow with the resource index.
func CachedPodVecLen(c *Cache, p *corev1.Pod) int { return len(c.podVecs[p]) }
