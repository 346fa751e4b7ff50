package cloudprovider

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// AdjustedPrice applies a price change, as written in a NodeOverlay, to price:
//   - "" leaves the price unchanged;
//   - a number without a sign ("0.5") replaces it;
//   - "+x%" / "-x%" multiplies it by (1 ± x/100) ("x%" reads as "+x%");
//   - "+x" / "-x" adds or subtracts x.
//
// The result is floored at 0. A change that is not a finite non-negative number after its
// sign is an error.
func AdjustedPrice(price float64, change string) (float64, error) {
	c := strings.TrimSpace(change)
	if c == "" {
		return price, nil
	}
	sign := 0.0
	switch c[0] {
	case '+':
		sign = 1
		c = c[1:]
	case '-':
		sign = -1
		c = c[1:]
	}
	percent := strings.HasSuffix(c, "%")
	if percent {
		c = strings.TrimSuffix(c, "%")
	}
	x, err := strconv.ParseFloat(c, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || c == "" || c[0] == '+' || c[0] == '-' {
		return price, fmt.Errorf("invalid price change %q: want \"\", a number, ±number or ±number%%", change)
	}
	var out float64
	switch {
	case sign == 0 && percent:
		out = price * (1 + x/100) // an unsigned percentage reads as an increase
	case sign == 0:
		out = x
	case percent:
		out = price * (1 + sign*x/100)
	default:
		out = price + sign*x
	}
	if out < 0 || math.IsNaN(out) {
		out = 0
	}
	return out, nil
}
