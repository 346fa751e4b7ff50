package aws_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws"
	"github.com/nodeplan/nodeplan/aws/awstest"
	"github.com/nodeplan/nodeplan/aws/catalog"
)

var _ aws.PricingAPI = (*awstest.Pricing)(nil)

// karpenterFilters are the TERM_MATCH filters of Karpenter's two GetProducts queries.
func karpenterFilters(region, tenancy, family string) map[string]string {
	return map[string]string{
		"regionCode": region, "serviceCode": "AmazonEC2", "preInstalledSw": "NA", "operatingSystem": "Linux",
		"capacitystatus": "Used", "marketoption": "OnDemand", "tenancy": tenancy, "productFamily": family,
	}
}

func filtersOf(t *testing.T, in *pricing.GetProductsInput) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range in.Filters {
		assert.Equal(t, "TERM_MATCH", string(f.Type))
		out[sdkaws.ToString(f.Field)] = sdkaws.ToString(f.Value)
	}
	return out
}

// Entries the filters must exclude: another OS, region, capacity status and tenancy.
func decoys() []string {
	base := awstest.PriceListEntry("m5.large", "us-east-1", 9)
	return []string{
		strings.Replace(base, `"operatingSystem":"Linux"`, `"operatingSystem":"Windows"`, 1),
		strings.Replace(base, `"regionCode":"us-east-1"`, `"regionCode":"eu-west-1"`, 1),
		strings.Replace(base, `"capacitystatus":"Used"`, `"capacitystatus":"UnusedCapacityReservation"`, 1),
		strings.Replace(base, `"tenancy":"Shared"`, `"tenancy":"Dedicated"`, 1),
	}
}

// The refresh asks the Pricing API exactly what Karpenter asks and pages through the answer.
func TestLoadOnDemandPricesQueries(t *testing.T) {
	api := awstest.NewPricing(
		awstest.PriceListEntry("m5.large", "us-east-1", 0.1), awstest.PriceListEntry("c5.large", "us-east-1", 0.09),
		awstest.PriceListEntry("m5.metal", "us-east-1", 5), awstest.PriceListEntry("c5.metal", "us-east-1", 4.5))
	api.Products = append(api.Products, decoys()...)
	list, err := aws.LoadOnDemandPrices(context.Background(), api, "us-east-1")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"m5.large": 0.1, "c5.large": 0.09, "m5.metal": 5, "c5.metal": 4.5}, list.Prices)
	assert.Equal(t, 4, list.Entries)
	reqs := api.Requests()
	require.Len(t, reqs, 2)
	for i, want := range []map[string]string{karpenterFilters("us-east-1", "Shared", "Compute Instance"), karpenterFilters("us-east-1", "Dedicated", "Compute Instance (bare metal)")} {
		assert.Equal(t, want, filtersOf(t, reqs[i]))
		assert.Equal(t, "AmazonEC2", sdkaws.ToString(reqs[i].ServiceCode))
		assert.Equal(t, int32(100), sdkaws.ToInt32(reqs[i].MaxResults))
	}
}

func TestLoadOnDemandPricesRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("GovCloud has no Pricing API", func(t *testing.T) {
		api := awstest.NewPricing(awstest.PriceListEntry("m5.large", "us-gov-west-1", 0.1))
		_, err := aws.LoadOnDemandPrices(ctx, api, "us-gov-west-1")
		assert.ErrorIs(t, err, aws.ErrNoPricingAPI)
		assert.Empty(t, api.Requests())
	})
	t.Run("no metal prices", func(t *testing.T) {
		_, err := aws.LoadOnDemandPrices(ctx, awstest.NewPricing(awstest.PriceListEntry("m5.large", "us-east-1", 0.1)), "us-east-1")
		assert.ErrorContains(t, err, "bare metal")
	})
	t.Run("nothing but zero prices", func(t *testing.T) {
		_, err := aws.LoadOnDemandPrices(ctx, awstest.NewPricing(awstest.PriceListEntry("m5.large", "us-east-1", 0), awstest.PriceListEntry("m5.metal", "us-east-1", 5)), "us-east-1")
		assert.ErrorContains(t, err, "(1 entries skipped)")
	})
	t.Run("API error", func(t *testing.T) {
		api := awstest.NewPricing(awstest.PriceListEntry("m5.large", "us-east-1", 0.1), awstest.PriceListEntry("m5.metal", "us-east-1", 5))
		api.NextError = errors.New("boom")
		list, err := aws.LoadOnDemandPrices(ctx, api, "us-east-1")
		assert.ErrorContains(t, err, "boom")
		assert.Nil(t, list)
	})
}

func TestPricingEndpointRegion(t *testing.T) {
	for region, want := range map[string]string{
		"us-east-1": "us-east-1", "us-west-2": "us-east-1", "ca-central-1": "us-east-1", "sa-east-1": "us-east-1",
		"ap-southeast-2": "ap-south-1", "ap-south-1": "ap-south-1", "eu-west-1": "eu-central-1", "eu-central-1": "eu-central-1",
		"cn-north-1": "cn-northwest-1", "me-south-1": "us-east-1",
	} {
		assert.Equal(t, want, aws.PricingEndpointRegion(region), region)
	}
}

// pricingFromData serves every priced type of the data file at twice its embedded price,
// plus decoys and malformed entries.
func pricingFromData(t *testing.T) (*awstest.Pricing, []awstest.DataType) {
	t.Helper()
	data, err := dataFile()
	require.NoError(t, err)
	api := awstest.NewPricing(awstest.PriceListFromData(data, "us-east-1", 2)...)
	api.Products = append(api.Products, decoys()...)
	noType := strings.Replace(awstest.PriceListEntry("m5.large", "us-east-1", 1), `"instanceType":"m5.large",`, "", 1)
	require.NotContains(t, noType, "instanceType")
	api.Products = append(api.Products, `{"product":{"attributes":{"instanceType":`, noType)
	return api, data
}

// The real SDK client against the local Price List server (AWS JSON 1.1): throttling and
// 5xx are retried by the SDK, pages are followed, malformed entries are skipped and counted.
func TestLoadOnDemandPricesOverPricingProtocol(t *testing.T) {
	api, data := pricingFromData(t)
	srv := awstest.NewPricingServer(api)
	defer srv.Close()
	srv.Faults.Inject("GetProducts", awstest.Throttle, 1)
	srv.Faults.Inject("GetProducts", awstest.ServerError, 1)
	list, err := aws.LoadOnDemandPrices(context.Background(), awstest.PricingClient(awstest.Config(), srv.URL), "us-east-1")
	require.NoError(t, err)
	assert.Equal(t, []string{"GetProducts:Throttle", "GetProducts:ServerError"}, srv.Faults.Served())

	want := map[string]float64{}
	for _, d := range data {
		if p, ok := d.OnDemandPricePerHour["us-east-1"]; ok {
			want[d.Name] = p * 2
		}
	}
	require.Greater(t, len(want), 500)
	assert.InDeltaMapValues(t, want, list.Prices, 1e-9)
	// The truncated entry reaches both queries (nothing to filter it by), the one without
	// an instance type the shared-tenancy query.
	assert.Equal(t, 3, list.Malformed)
	pages := len(api.Requests())
	assert.Greater(t, pages, 10, "a page holds at most 100 products")
	assert.Equal(t, int64(pages+2), srv.Requests.Load(), "every fault cost one retry")
}

func TestLoadOnDemandPricesServerFailures(t *testing.T) {
	api, _ := pricingFromData(t)
	srv := awstest.NewPricingServer(api)
	defer srv.Close()
	client := awstest.PricingClient(awstest.Config(), srv.URL)
	for _, f := range []awstest.Fault{awstest.ServerError, awstest.Throttle, awstest.MalformedBody} {
		srv.Faults.Clear()
		srv.Faults.Inject("GetProducts", f, 10)
		list, err := aws.LoadOnDemandPrices(context.Background(), client, "us-east-1")
		assert.Error(t, err, f.String())
		assert.Nil(t, list)
	}
}

// Refreshed prices reach the instance types' on-demand (and reserved) offerings; a failed
// refresh keeps what was known, and types the Pricing API did not name keep the embedded price.
func TestRefreshedPricesReachOfferings(t *testing.T) {
	f := newFixture(t)
	tables, err := catalog.LoadEC2Tables()
	require.NoError(t, err)
	embedded := tables.OnDemandPrices
	var products []string
	for _, n := range fixtureTypes {
		if n != "r5.large" { // r5.large keeps its embedded price
			products = append(products, awstest.PriceListEntry(n, "us-east-1", embedded[n]*2))
		}
	}
	api := awstest.NewPricing(products...)
	srv := awstest.NewPricingServer(api)
	defer srv.Close()
	p := f.provider(t, f.ec2, func(c *aws.Config) { c.Pricing = awstest.PricingClient(awstest.Config(), srv.URL) })
	require.NoError(t, p.Region().OnDemandPriceError)

	np := &v1.NodePool{}
	np.Name = "general"
	np.Spec.Template.Spec.NodeClassRef = &v1.NodeClassReference{Name: "default"}
	onDemandPrices := func() map[string]float64 {
		its, err := p.GetInstanceTypes(context.Background(), np)
		require.NoError(t, err)
		out := map[string]float64{}
		for _, it := range its {
			for _, o := range it.Offerings {
				if o.CapacityType() == v1.CapacityTypeOnDemand {
					out[it.Name] = o.Price
				}
			}
		}
		return out
	}
	want := map[string]float64{}
	for _, n := range fixtureTypes {
		want[n] = embedded[n] * 2
	}
	want["r5.large"] = embedded["r5.large"]
	got := onDemandPrices()
	require.Len(t, got, len(fixtureTypes))
	assert.InDeltaMapValues(t, want, got, 1e-9)

	// The next refresh fails: the refreshed prices stay, the error is reported.
	srv.Faults.Inject("GetProducts", awstest.ServerError, 10)
	require.NoError(t, p.Refresh(context.Background(), "us-east-1"))
	assert.Error(t, p.Region().OnDemandPriceError)
	assert.InDeltaMapValues(t, want, onDemandPrices(), 1e-9)

	// Without a Pricing client the embedded prices apply.
	plain := f.provider(t, f.ec2)
	assert.Nil(t, plain.Region().OnDemandPrices)
	its, err := plain.GetInstanceTypes(context.Background(), np)
	require.NoError(t, err)
	for _, it := range its {
		for _, o := range it.Offerings {
			if o.CapacityType() == v1.CapacityTypeOnDemand {
				assert.InDelta(t, embedded[it.Name], o.Price, 1e-12, it.Name)
			}
		}
	}
}

// A failed first refresh keeps the embedded table.
func TestFailedFirstRefreshKeepsEmbeddedPrices(t *testing.T) {
	f := newFixture(t)
	api := awstest.NewPricing() // empty answer
	p := f.provider(t, f.ec2, func(c *aws.Config) { c.Pricing = api })
	assert.ErrorContains(t, p.Region().OnDemandPriceError, "no price")
	tables, err := catalog.LoadEC2Tables()
	require.NoError(t, err)
	assert.Equal(t, tables.OnDemandPrices, p.Region().OnDemandPrices)
}
