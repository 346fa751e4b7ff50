package cloudprovider

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdjustedPrice(t *testing.T) {
	cases := []struct {
		price  float64
		change string
		want   float64
	}{
		{10, "-10%", 9},
		{10, "+100%", 20},
		{10, "-200%", 0},
		{10, "+5", 15},
		{10, "-15", 0},
		{1.25, "+0.75", 2.0},
		{10, "3.5", 3.5},
		{10, "0", 0},
		{10, "", 10},
		{10, " +10% ", 11},
		{10, "10%", 11},
		{0, "+50%", 0},
	}
	for _, tc := range cases {
		got, err := AdjustedPrice(tc.price, tc.change)
		require.NoError(t, err, tc.change)
		assert.InDelta(t, tc.want, got, 1e-9, "%v %q", tc.price, tc.change)
	}
}

func TestAdjustedPriceInvalid(t *testing.T) {
	for _, change := range []string{"abc", "+", "-", "%", "+%", "++1", "+-1", "NaN", "+Inf", "1e400", "--5%", "5%%"} {
		got, err := AdjustedPrice(7, change)
		assert.Error(t, err, change)
		assert.Equal(t, 7.0, got, change)
	}
}
