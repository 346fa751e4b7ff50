package awstest

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
)

// Pricing is an in-memory AWS Price List API serving GetProducts over a list of product
// documents, filtered and paginated as the real API does. It is safe for concurrent use.
type Pricing struct {
	// Products are the PriceList JSON documents served, in order. An entry that is not a JSON
	// object matches every query: that is how a malformed entry reaches a client.
	Products []string
	// NextError, when set, is returned by the next GetProducts call instead of an answer.
	NextError error

	mu       sync.Mutex
	parsed   map[string]*pricingProduct
	requests []*pricing.GetProductsInput
}

// NewPricing returns a Pricing API serving products.
func NewPricing(products ...string) *Pricing { return &Pricing{Products: products} }

// pricingProduct is the part of a product document filters look at.
type pricingProduct struct {
	ServiceCode string `json:"serviceCode"`
	Product     struct {
		ProductFamily string            `json:"productFamily"`
		Attributes    map[string]string `json:"attributes"`
	} `json:"product"`
}

// field is the product's value for a filter field (attribute names are case-insensitive).
func (p *pricingProduct) field(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "productfamily":
		return p.Product.ProductFamily, true
	case "servicecode":
		return p.ServiceCode, true
	}
	for k, v := range p.Product.Attributes {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// Requests are the GetProducts requests received, in order (copies).
func (p *Pricing) Requests() []*pricing.GetProductsInput {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*pricing.GetProductsInput(nil), p.requests...)
}

const pricingPageMax = 100

// GetProducts returns the products of ServiceCode AmazonEC2 that match every filter
// (TERM_MATCH or EQUALS, values compared case-insensitively), MaxResults (1..100, default
// 100) at a time, with an opaque NextToken while more remain.
func (p *Pricing) GetProducts(_ context.Context, in *pricing.GetProductsInput, _ ...func(*pricing.Options)) (*pricing.GetProductsOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cp := *in
	cp.Filters = append([]pricingtypes.Filter(nil), in.Filters...)
	p.requests = append(p.requests, &cp)
	if err := p.NextError; err != nil {
		p.NextError = nil
		return nil, err
	}
	switch code := sdkaws.ToString(in.ServiceCode); code {
	case "":
		return nil, apiError("InvalidParameterException", "ServiceCode is required")
	case "AmazonEC2":
	default:
		return nil, apiError("NotFoundException", "service code %s not found", code)
	}
	size := int(sdkaws.ToInt32(in.MaxResults))
	if in.MaxResults == nil {
		size = pricingPageMax
	}
	if size < 1 || size > pricingPageMax {
		return nil, apiError("InvalidParameterException", "MaxResults must be 1..%d", pricingPageMax)
	}
	for _, f := range in.Filters {
		if f.Type != pricingtypes.FilterTypeTermMatch && f.Type != pricingtypes.FilterTypeEquals {
			return nil, apiError("InvalidParameterException", "awstest serves TERM_MATCH and EQUALS filters, not %s", f.Type)
		}
	}
	var matched []string
	for _, raw := range p.Products {
		if p.matches(raw, in.Filters) {
			matched = append(matched, raw)
		}
	}
	from := 0
	if tok := sdkaws.ToString(in.NextToken); tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "page-from-"))
		if err != nil || !strings.HasPrefix(tok, "page-from-") || n < 0 || n > len(matched) {
			return nil, apiError("InvalidNextTokenException", "the next token is not valid")
		}
		from = n
	}
	to := min(from+size, len(matched))
	out := &pricing.GetProductsOutput{FormatVersion: sdkaws.String("aws_v1"), PriceList: append([]string{}, matched[from:to]...)}
	if to < len(matched) {
		out.NextToken = sdkaws.String(fmt.Sprintf("page-from-%d", to))
	}
	return out, nil
}

func (p *Pricing) matches(raw string, filters []pricingtypes.Filter) bool {
	if p.parsed == nil {
		p.parsed = map[string]*pricingProduct{}
	}
	prod, seen := p.parsed[raw]
	if !seen {
		prod = &pricingProduct{}
		if err := json.Unmarshal([]byte(raw), prod); err != nil {
			prod = nil
		}
		p.parsed[raw] = prod
	}
	if prod == nil {
		return true
	}
	for _, f := range filters {
		v, ok := prod.field(sdkaws.ToString(f.Field))
		if !ok || !strings.EqualFold(v, sdkaws.ToString(f.Value)) {
			return false
		}
	}
	return true
}

// PriceListEntry is a Pricing API product document for a Linux on-demand instance type in
// region, priced at usd an hour, shaped as the API answers: metal types under productFamily
// "Compute Instance (bare metal)" and tenancy Dedicated, others "Compute Instance" and Shared.
func PriceListEntry(instanceType, region string, usd float64) string {
	family, tenancy := "Compute Instance", "Shared"
	if strings.Contains(instanceType, "metal") {
		family, tenancy = "Compute Instance (bare metal)", "Dedicated"
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(instanceType + "/" + region))
	sku := fmt.Sprintf("SKU%08X", h.Sum32())
	doc := map[string]any{
		"serviceCode": "AmazonEC2",
		"product": map[string]any{
			"productFamily": family,
			"sku":           sku,
			"attributes": map[string]string{
				"servicecode": "AmazonEC2", "instanceType": instanceType, "regionCode": region, "tenancy": tenancy,
				"operatingSystem": "Linux", "preInstalledSw": "NA", "capacitystatus": "Used", "marketoption": "OnDemand",
				"licenseModel": "No License required", "operation": "RunInstances", "usagetype": "BoxUsage:" + instanceType,
			},
		},
		"terms": map[string]any{"OnDemand": map[string]any{
			sku + ".JRTCKXETXF": map[string]any{
				"offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": "2026-11-01T00:00:00Z",
				"priceDimensions": map[string]any{
					sku + ".JRTCKXETXF.6YS6EN2CT7": map[string]any{
						"unit": "Hrs", "rateCode": sku + ".JRTCKXETXF.6YS6EN2CT7",
						"description":  fmt.Sprintf("$%.4f per On Demand Linux %s Instance Hour", usd, instanceType),
						"pricePerUnit": map[string]string{"USD": strconv.FormatFloat(usd, 'f', 10, 64)},
					},
				},
			},
		}},
		"version":         "20261101000000",
		"publicationDate": "2026-11-01T00:00:00Z",
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

// PriceListFromData is a PriceListEntry for every type of the data file priced in region,
// each at its price times factor (so tests can tell refreshed prices from embedded ones).
func PriceListFromData(data []DataType, region string, factor float64) []string {
	var out []string
	for _, d := range data {
		if price, ok := d.OnDemandPricePerHour[region]; ok {
			out = append(out, PriceListEntry(d.Name, region, price*factor))
		}
	}
	return out
}
