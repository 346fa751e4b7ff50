package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

func TestCrossProductDropsDisjointCombinations(t *testing.T) {
	zone := func(z string) requirements.Requirements {
		return requirements.NewRequirements(requirements.MustNew(v1.LabelTopologyZone, requirements.In, z))
	}
	got := crossProduct([][]requirements.Requirements{{zone("a"), zone("b")}, {zone("b")}})
	assert.Len(t, got, 1)
	assert.Equal(t, []string{"b"}, got[0].Get(v1.LabelTopologyZone).Values())
	all := crossProduct([][]requirements.Requirements{{zone("a")}, {zone("b")}})
	assert.Len(t, all, 1, "with no intersecting combination all are kept, so the pod fails clearly later")
}
