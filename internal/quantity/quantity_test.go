package quantity

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestInt64IsExactOrRefuses(t *testing.T) {
	for _, c := range []struct {
		name corev1.ResourceName
		q    string
		want int64
		ok   bool
	}{
		{corev1.ResourceCPU, "1500m", 1500, true},
		{corev1.ResourceCPU, "0.0001", 1, true}, // rounded up, as Kubernetes does
		{corev1.ResourceCPU, "9223372036854775", 9223372036854775000, true},
		{corev1.ResourceCPU, "9223372036854776", math.MaxInt64, false},
		{corev1.ResourceCPU, "9223372036854775807", math.MaxInt64, false},
		{corev1.ResourceCPU, "1e30", math.MaxInt64, false},
		{corev1.ResourceCPU, "-1e30", math.MinInt64, false},
		{corev1.ResourceMemory, "7Ei", 7 << 60, true},
		{corev1.ResourceMemory, "9223372036854775807", math.MaxInt64, true},
		{corev1.ResourceMemory, "8Ei", math.MaxInt64, true}, // the parser clamps binary suffixes
		{corev1.ResourceMemory, "1e19", math.MaxInt64, false},
		{corev1.ResourceMemory, "1e30", math.MaxInt64, false},
		{corev1.ResourcePods, "0", 0, true},
		{"example.com/gpu", "1e19", math.MaxInt64, false},
	} {
		got, ok := Int64(c.name, resource.MustParse(c.q))
		assert.Equal(t, c.want, got, "%s %s", c.name, c.q)
		assert.Equal(t, c.ok, ok, "%s %s", c.name, c.q)
	}
}

func TestCheck(t *testing.T) {
	assert.NoError(t, Check(corev1.ResourceCPU, resource.MustParse("64")))
	assert.EqualError(t, Check(corev1.ResourceCPU, resource.MustParse("-1")), "-1: must not be negative")
	assert.EqualError(t, Check(corev1.ResourceCPU, resource.MustParse("1e30")), "1e30: more than nodeplan can count (at most 9223372036854775807m)")
	assert.EqualError(t, Check(corev1.ResourceMemory, resource.MustParse("1e19")), "10e18: more than nodeplan can count (at most 9223372036854775807)")
}
