package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/requirements"
)

// TestAppendReqIDOfIsReqIDOfGet: the allocation-free key text of a requirement set's key is
// reqID of what Get returns, for defined keys (every operator, bounds) and undefined ones
// (Get's Exists), aliases normalised as Get does.
func TestAppendReqIDOfIsReqIDOfGet(t *testing.T) {
	reqs := requirements.Requirements{
		v1.LabelTopologyZone:    requirements.MustNew(v1.LabelTopologyZone, requirements.In, "b", "a"),
		v1.CapacityTypeLabelKey: requirements.MustNew(v1.CapacityTypeLabelKey, requirements.NotIn, "spot"),
		"example.com/cores":     requirements.MustNew("example.com/cores", requirements.Gt, "3"),
		"example.com/gone":      requirements.MustNew("example.com/gone", requirements.DoesNotExist),
		v1.LabelInstanceType:    requirements.MustNew(v1.LabelInstanceType, requirements.Exists),
	}
	for _, key := range []string{v1.LabelTopologyZone, v1.CapacityTypeLabelKey, "example.com/cores", "example.com/gone",
		v1.LabelInstanceType, "example.com/undefined", "beta.kubernetes.io/instance-type"} {
		assert.Equal(t, reqID(reqs.Get(key)), string(appendReqIDOf([]byte("x"), reqs, key))[1:], key)
	}
}
