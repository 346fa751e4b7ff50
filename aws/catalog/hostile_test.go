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

// TestParseRefusesWhatNoNodeHas: numbers a catalog file could only mean by mistake are
// *FieldErrors naming the type and the field: prices YAML reads as other numbers than their
// text (hex, octal, underscores), cpu in bytes, memory without its unit, fractions of counts.
func TestParseRefusesWhatNoNodeHas(t *testing.T) {
	typ := func(capacity, price string) string {
		return "instanceTypes:\n- {name: a, capacity: " + capacity + ", offerings: [{zone: z, capacityType: spot, price: " + price + "}]}"
	}
	const cap1 = "{cpu: '1', memory: 1Gi}"
	for name, c := range map[string]struct {
		yaml, field string
		kind        error
	}{
		"hex price":            {typ(cap1, "0x10"), "offerings[0].price", ErrPrice},
		"octal price":          {typ(cap1, "017"), "offerings[0].price", ErrPrice},
		"price with _":         {typ(cap1, "1_000"), "offerings[0].price", ErrPrice},
		"hex float price":      {typ(cap1, "0x1p-3"), "offerings[0].price", ErrPrice},
		"cpu in bytes":         {typ("{cpu: 4Gi, memory: 1Gi}", "1"), "capacity.cpu", ErrQuantity},
		"memory in bytes":      {typ("{cpu: '1', memory: '8'}", "1"), "capacity.memory", ErrQuantity},
		"memory under 1Mi":     {typ("{cpu: '1', memory: 1048575}", "1"), "capacity.memory", ErrQuantity},
		"half a pod":           {typ("{cpu: '1', memory: 1Gi, pods: '1.5'}", "1"), "capacity.pods", ErrQuantity},
		"half a GPU":           {typ("{cpu: '1', memory: 1Gi, nvidia.com/gpu: 500m}", "1"), "capacity.nvidia.com/gpu", ErrQuantity},
		"overhead cpu in Ki":   {"instanceTypes:\n- {name: a, capacity: {cpu: '2', memory: 1Gi}, overhead: {cpu: 1Ki}, offerings: [{zone: z, capacityType: spot, price: 1}]}", "overhead.cpu", ErrQuantity},
		"overhead half a byte": {"instanceTypes:\n- {name: a, capacity: {cpu: '2', memory: 1Gi}, overhead: {memory: 500m}, offerings: [{zone: z, capacityType: spot, price: 1}]}", "overhead.memory", ErrQuantity},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := Parse([]byte(c.yaml), "cat.yaml")
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, [4]string{"cat.yaml", "instanceTypes[0]", "a", c.field}, [4]string{fe.Source, fe.Entry, fe.InstanceType, fe.Field}, "%v", err)
			assert.ErrorIs(t, err, c.kind)
		})
	}
	for name, capacity := range map[string]string{
		"1Mi of memory, 1.5Gi, 0.5 cpu": "{cpu: 500m, memory: 1Mi, ephemeral-storage: 1.5Gi, pods: '3'}",
		"cpu in decimal units":          "{cpu: 4k, memory: 1Gi}",
	} {
		_, _, err := Parse([]byte(typ(capacity, "0.5")), "cat.yaml")
		assert.NoError(t, err, name)
	}
}
