package catalog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseRejectsUncountableValues: every number of a catalog that nodeplan could not use
// exactly is an error naming the type and the field.
func TestParseRejectsUncountableValues(t *testing.T) {
	typ := func(capacity, price string) string {
		return "instanceTypes:\n- {name: a, capacity: " + capacity + ", offerings: [{zone: z, capacityType: spot, price: " + price + "}]}"
	}
	const cap1 = "{cpu: '1'}"
	for name, c := range map[string]struct{ yaml, want string }{
		"1e30 cpu":      {typ("{cpu: 1e30}", "1"), "cat.yaml: instanceTypes[0] (a): capacity.cpu: 1e+30: more than nodeplan can count"},
		"1e19 memory":   {typ("{cpu: '1', memory: 1e19}", "1"), "instanceTypes[0] (a): capacity.memory: 10E: more than nodeplan can count"},
		"1e30 overhead": {"instanceTypes:\n- {name: a, capacity: {cpu: '1'}, overhead: {cpu: 1e30}, offerings: [{zone: z, capacityType: spot, price: 1}]}", "instanceTypes[0] (a): overhead.cpu"},
		"price 1e308":   {typ(cap1, "1e308"), "instanceTypes[0] (a): offerings[0].price: must be a finite number >= 0 and at most 1e9, got 1e+308"},
		"price .nan":    {typ(cap1, ".nan"), "cat.yaml: instanceTypes[0] (a): offerings[0].price: must be a finite number, got NaN"},
		"price .inf":    {typ(cap1, ".inf"), "cat.yaml: instanceTypes[0] (a): offerings[0].price: must be a finite number, got +Inf"},
		"price quoted":  {typ(cap1, "'0.5'"), `instanceTypes[0] (a): offerings[0].price: a quoted string, not a number: "0.5"`},
		"price 1e400":   {typ(cap1, "1e400"), "instanceTypes[0] (a): offerings[0].price: out of range: 1e400"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := Parse([]byte(c.yaml), "cat.yaml")
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, _, err := Parse([]byte(typ("{cpu: '1', memory: 8Ei}", "1e9")), "cat.yaml")
	assert.NoError(t, err, "8Ei and the highest price are allowed")
}
