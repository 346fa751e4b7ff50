package cloudprovider

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/nodeplan/nodeplan/requirements"
)

// TestDocumentedErrors: every "is an error" of the package's godoc is.
func TestDocumentedErrors(t *testing.T) {
	for _, change := range []string{"cheap", "+-1", "--5%", "+NaN", "+Inf%", "-x"} {
		_, err := AdjustedPrice(1, change)
		assert.Error(t, err, "AdjustedPrice(1, %q)", change)
	}
	p, err := AdjustedPrice(1, "-5")
	assert.NoError(t, err)
	assert.Equal(t, 0.0, p, "floored at 0")
	assert.False(t, math.IsNaN(p))

	its := InstanceTypes{{Name: "a"}}
	_, err = its.Truncate(requirements.Requirements{}, -1)
	assert.Error(t, err, "a negative max")
}
