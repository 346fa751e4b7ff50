package aws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
)

// OnDemandPriceList is what the Pricing API answered for a region's Linux on-demand prices.
type OnDemandPriceList struct {
	Region string
	// Prices are hourly prices per instance type (USD; CNY in China), all positive.
	Prices map[string]float64
	// Entries is how many price list entries were read.
	Entries int
	// Malformed counts entries that were skipped because they are not JSON or name no
	// instance type; Unpriced counts entries without a positive price in the currency
	// (Karpenter ignores zero prices too). Neither fails the refresh.
	Malformed, Unpriced int
}

// ErrNoPricingAPI is returned for regions the Pricing API does not serve (GovCloud), where
// Karpenter keeps its static prices too.
var ErrNoPricingAPI = errors.New("the Pricing API does not serve this region")

// PricingEndpointRegion is the region whose Pricing API endpoint a host in region should call
// (the API has endpoints only in a few regions): ap-south-1 for ap-*, eu-central-1 for eu-*,
// cn-northwest-1 for cn-*, us-east-1 otherwise, as Karpenter chooses. Pass it as the
// pricing client's region: pricing.NewFromConfig(cfg, func(o *pricing.Options) { o.Region = ... }).
func PricingEndpointRegion(region string) string {
	switch {
	case strings.HasPrefix(region, "ap-"):
		return "ap-south-1"
	case strings.HasPrefix(region, "eu-"):
		return "eu-central-1"
	case strings.HasPrefix(region, "cn-"):
		return "cn-northwest-1"
	}
	return "us-east-1"
}

// onDemandQueries are Karpenter's two GetProducts queries: shared-tenancy instances, and
// bare-metal instances (which the Pricing API lists under dedicated tenancy).
var onDemandQueries = [][2]string{
	{"Shared", "Compute Instance"},
	{"Dedicated", "Compute Instance (bare metal)"},
}

// LoadOnDemandPrices reads the region's Linux on-demand prices from the Pricing API with
// Karpenter's filters (regionCode, tenancy, productFamily, preInstalledSw NA, operatingSystem
// Linux, capacitystatus Used, marketoption OnDemand), 100 products a page, one query for
// shared-tenancy and one for bare-metal instances. When an instance type appears more than
// once, the last price read wins, as in Karpenter (within one entry, the last in key order,
// where Karpenter's map order is random). An API error, or a query that yields no price, is an
// error and no list: the caller keeps the prices it had (MergeOnDemandPrices), as Karpenter
// keeps its static ones.
func LoadOnDemandPrices(ctx context.Context, api PricingAPI, region string) (*OnDemandPriceList, error) {
	if strings.HasPrefix(region, "us-gov-") {
		return nil, fmt.Errorf("on-demand prices for %s: %w", region, ErrNoPricingAPI)
	}
	currency := "USD"
	if strings.HasPrefix(region, "cn-") {
		currency = "CNY"
	}
	list := &OnDemandPriceList{Region: region, Prices: map[string]float64{}}
	for _, q := range onDemandQueries {
		in := &pricing.GetProductsInput{
			ServiceCode: sdkaws.String("AmazonEC2"),
			MaxResults:  sdkaws.Int32(100),
			Filters: termMatch(
				"regionCode", region, "serviceCode", "AmazonEC2", "preInstalledSw", "NA", "operatingSystem", "Linux",
				"capacitystatus", "Used", "marketoption", "OnDemand", "tenancy", q[0], "productFamily", q[1]),
		}
		before := list.Unpriced + list.Malformed
		found := 0
		for p := pricing.NewGetProductsPaginator(api, in); p.HasMorePages(); {
			out, err := p.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("on-demand prices for %s (%s): %w", region, q[1], err)
			}
			found += list.add(out.PriceList, currency)
		}
		if found == 0 {
			return nil, fmt.Errorf("on-demand prices for %s (%s): the Pricing API returned no price (%d entries skipped)",
				region, q[1], list.Unpriced+list.Malformed-before)
		}
	}
	return list, nil
}

func termMatch(fieldValues ...string) []pricingtypes.Filter {
	var fs []pricingtypes.Filter
	for i := 0; i+1 < len(fieldValues); i += 2 {
		fs = append(fs, pricingtypes.Filter{Type: pricingtypes.FilterTypeTermMatch, Field: sdkaws.String(fieldValues[i]), Value: sdkaws.String(fieldValues[i+1])})
	}
	return fs
}

// priceListEntry is the part of a Pricing API product document the refresh reads.
type priceListEntry struct {
	Product struct {
		Attributes struct {
			InstanceType string `json:"instanceType"`
		} `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]struct {
			PriceDimensions map[string]struct {
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
		} `json:"OnDemand"`
	} `json:"terms"`
}

// add reads one page of price list entries into the list and returns how many gave a price.
func (l *OnDemandPriceList) add(entries []string, currency string) int {
	found := 0
	for _, raw := range entries {
		l.Entries++
		var e priceListEntry
		if err := json.Unmarshal([]byte(raw), &e); err != nil || e.Product.Attributes.InstanceType == "" {
			l.Malformed++
			continue
		}
		price, ok := entryPrice(e, currency)
		if !ok {
			l.Unpriced++
			continue
		}
		l.Prices[e.Product.Attributes.InstanceType] = price
		found++
	}
	return found
}

// entryPrice is the last positive price of the entry's on-demand terms, in key order.
func entryPrice(e priceListEntry, currency string) (float64, bool) {
	var price float64
	ok := false
	for _, tk := range slices.Sorted(maps.Keys(e.Terms.OnDemand)) {
		dims := e.Terms.OnDemand[tk].PriceDimensions
		for _, dk := range slices.Sorted(maps.Keys(dims)) {
			p, err := strconv.ParseFloat(dims[dk].PricePerUnit[currency], 64)
			if err == nil && p > 0 && !math.IsInf(p, 1) {
				price, ok = p, true
			}
		}
	}
	return price, ok
}

// MergeOnDemandPrices returns base with the list's prices laid over it, as Karpenter keeps the
// prices it had for types the Pricing API did not name. A nil base is the embedded table; a
// nil list returns a copy of base.
func MergeOnDemandPrices(base map[string]float64, list *OnDemandPriceList) map[string]float64 {
	if base == nil {
		base = loadEmbedded().OnDemandPrices
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]float64{}
	}
	if list != nil {
		maps.Copy(out, list.Prices)
	}
	return out
}
