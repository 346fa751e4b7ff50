package fake

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"pgregory.net/rapid"
)

// HostileQuantity draws quantities a caller may pass though they are extreme or wrong, as
// well as ordinary ones: zero, small, the largest int64, beyond int64 in nodeplan's units
// (1e19, 1e30, 9223372036854775807 cores), and negative. Which of them nodeplan accepts
// (not negative, within an int64 of millicores for cpu or of units otherwise) is for the
// test to tell.
func HostileQuantity(cpu bool) *rapid.Generator[resource.Quantity] {
	return rapid.Custom(func(t *rapid.T) resource.Quantity {
		switch rapid.IntRange(0, 7).Draw(t, "kind") {
		case 0:
			return resource.MustParse("0")
		case 1:
			return resource.MustParse("9223372036854775807") // the largest int64: beyond for cpu
		case 2:
			return resource.MustParse("1e30")
		case 3:
			return resource.MustParse("1e19")
		case 4:
			return *resource.NewQuantity(-rapid.Int64Range(1, 1<<40).Draw(t, "negative"), resource.DecimalSI)
		case 5:
			if cpu {
				return *resource.NewMilliQuantity(rapid.Int64Range(1<<60, 1<<62).Draw(t, "huge-millis"), resource.DecimalSI)
			}
			return *resource.NewQuantity(rapid.Int64Range(1<<60, 1<<62).Draw(t, "huge"), resource.BinarySI)
		}
		if cpu {
			return *resource.NewMilliQuantity(rapid.Int64Range(1, 64000).Draw(t, "millis"), resource.DecimalSI)
		}
		return *resource.NewQuantity(rapid.Int64Range(1, 256<<30).Draw(t, "bytes"), resource.BinarySI)
	})
}
