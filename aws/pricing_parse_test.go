package aws

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPriceListParsing reads Pricing API entries as Karpenter does: instanceType and the
// on-demand terms' pricePerUnit in the region's currency; zero or unparseable prices are
// skipped, entries that are not JSON or name no type are skipped and counted.
func TestPriceListParsing(t *testing.T) {
	entry := func(it, dims string) string {
		return `{"product":{"productFamily":"Compute Instance","attributes":{"instanceType":"` + it + `"}},"terms":{"OnDemand":{"T1":{"priceDimensions":{` + dims + `}}}}}`
	}
	usd := func(p string) string { return `"D1":{"unit":"Hrs","pricePerUnit":{"USD":"` + p + `"}}` }
	for _, tc := range []struct {
		name                string
		currency            string
		entries             []string
		want                map[string]float64
		malformed, unpriced int
	}{
		{name: "one entry", entries: []string{entry("m5.large", usd("0.0960000000"))}, want: map[string]float64{"m5.large": 0.096}},
		{name: "China prices in CNY", currency: "CNY",
			entries: []string{entry("m5.large", `"D1":{"pricePerUnit":{"USD":"0.1","CNY":"0.6"}}`), entry("c5.large", usd("0.085"))},
			want:    map[string]float64{"m5.large": 0.6}, unpriced: 1},
		{name: "zero price ignored", entries: []string{entry("m5.large", usd("0.0000000000"))}, want: map[string]float64{}, unpriced: 1},
		{name: "negative, NaN, Inf and text ignored",
			entries: []string{entry("a.large", usd("-1")), entry("b.large", usd("NaN")), entry("c.large", usd("+Inf")), entry("d.large", usd("ten"))},
			want:    map[string]float64{}, unpriced: 4},
		{name: "no on-demand terms", entries: []string{`{"product":{"attributes":{"instanceType":"m5.large"}},"terms":{"Reserved":{}}}`}, want: map[string]float64{}, unpriced: 1},
		{name: "not JSON", entries: []string{`{"product":`, "<<<", entry("m5.large", usd("0.096"))}, want: map[string]float64{"m5.large": 0.096}, malformed: 2},
		{name: "no instance type", entries: []string{entry("", usd("0.5")), `{}`, `[]`, `"text"`}, want: map[string]float64{}, malformed: 4},
		{name: "price of the wrong JSON type", entries: []string{entry("m5.large", `"D1":{"pricePerUnit":{"USD":0.096}}`)}, want: map[string]float64{}, malformed: 1},
		{name: "later entry wins", entries: []string{entry("m5.large", usd("0.096")), entry("m5.large", usd("0.1"))}, want: map[string]float64{"m5.large": 0.1}},
		{name: "several dimensions: last positive in key order",
			entries: []string{entry("m5.large", `"D2":{"pricePerUnit":{"USD":"0.2"}},"D3":{"pricePerUnit":{"USD":"0"}},"D1":{"pricePerUnit":{"USD":"0.1"}}`)},
			want:    map[string]float64{"m5.large": 0.2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := tc.currency
			if cur == "" {
				cur = "USD"
			}
			l := &OnDemandPriceList{Prices: map[string]float64{}}
			found := l.add(tc.entries, cur)
			assert.Equal(t, tc.want, l.Prices)
			assert.Equal(t, len(tc.entries), l.Entries)
			assert.Equal(t, tc.malformed, l.Malformed, "malformed")
			assert.Equal(t, tc.unpriced, l.Unpriced, "unpriced")
			assert.Equal(t, len(tc.entries)-tc.malformed-tc.unpriced, found)
		})
	}
}
