package v1

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNillableDurationStates(t *testing.T) {
	var unset NillableDuration
	assert.True(t, unset.IsZero())
	assert.False(t, unset.IsNever())
	assert.Equal(t, "", unset.String())

	never := MustParseNillableDuration("Never")
	assert.True(t, never.IsNever())
	assert.False(t, never.IsZero())
	assert.Equal(t, "Never", never.String())
	assert.Equal(t, NeverDuration(), never)

	d := MustParseNillableDuration("720h")
	assert.False(t, d.IsZero())
	assert.False(t, d.IsNever())
	assert.Equal(t, 720*time.Hour, *d.Duration)
	assert.Equal(t, "720h", d.String(), "keeps the text it was written as")

	n := NewNillableDuration(90 * time.Minute)
	assert.Equal(t, "1h30m0s", n.String())

	_, err := ParseNillableDuration("forever")
	assert.ErrorContains(t, err, `invalid duration "forever"`)
	assert.Panics(t, func() { MustParseNillableDuration("") })
}

func TestNillableDurationJSON(t *testing.T) {
	type holder struct {
		D NillableDuration `json:"d,omitzero"`
	}
	cases := []struct {
		in, out string
	}{
		{`{}`, `{}`},
		{`{"d":null}`, `{}`},
		{`{"d":"Never"}`, `{"d":"Never"}`},
		{`{"d":"0s"}`, `{"d":"0s"}`},
		{`{"d":"720h"}`, `{"d":"720h"}`},
		{`{"d":"1h30m"}`, `{"d":"1h30m"}`},
	}
	for _, tc := range cases {
		var h holder
		require.NoError(t, json.Unmarshal([]byte(tc.in), &h), tc.in)
		out, err := json.Marshal(h)
		require.NoError(t, err)
		assert.JSONEq(t, tc.out, string(out), tc.in)
		var again holder
		require.NoError(t, json.Unmarshal(out, &again))
		assert.Equal(t, h, again, "round-trip of %s", tc.in)
	}
	for _, bad := range []string{`{"d":30}`, `{"d":"soon"}`, `{"d":""}`, `{"d":true}`} {
		var h holder
		assert.Error(t, json.Unmarshal([]byte(bad), &h), bad)
	}

	// An unset duration encodes as null without omitzero, and null decodes as unset.
	b, err := json.Marshal(NillableDuration{})
	require.NoError(t, err)
	assert.Equal(t, "null", string(b))

	// Changing Duration after decoding wins over the stale text.
	var h holder
	require.NoError(t, json.Unmarshal([]byte(`{"d":"720h"}`), &h))
	*h.D.Duration = 2 * time.Hour
	b, err = json.Marshal(h)
	require.NoError(t, err)
	assert.JSONEq(t, `{"d":"2h0m0s"}`, string(b))
}
