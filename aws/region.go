package aws

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/nodeplan/nodeplan/aws/catalog"
)

// Region is what EC2 told us about a region's instance types: DescribeInstanceTypes,
// DescribeInstanceTypeOfferings (zones per type), DescribeSpotPriceHistory (latest price per
// type and zone) and DescribeCapacityReservations (active reservations). Load it with
// LoadRegion and refresh it as often as Karpenter would (types and offerings every 12 hours,
// spot prices too). It is immutable once loaded.
type Region struct {
	Name string
	// Types are the DescribeInstanceTypes entries, sorted by name.
	Types []ec2types.InstanceTypeInfo
	// Zones maps an instance type to the zones that offer it, sorted.
	Zones map[string][]string
	// AllZones are every zone that offers some type, sorted.
	AllZones []string
	// SpotPrices are the latest Linux spot prices; nil when DescribeSpotPriceHistory failed
	// (spot offerings then cost the on-demand price, as in Karpenter before its first
	// successful update).
	SpotPrices catalog.SpotPrices
	// SpotPriceError is why SpotPrices is nil.
	SpotPriceError error
	// Reservations are the active capacity reservations.
	Reservations []ec2types.CapacityReservation
	// OnDemandPrices are the hourly on-demand prices per instance type: the Pricing API's
	// merged over the embedded table (MergeOnDemandPrices). Nil means the embedded table, as
	// LoadRegion leaves it.
	OnDemandPrices map[string]float64
	// OnDemandPriceError is why the last Pricing API refresh failed, if it did (OnDemandPrices
	// then keep the prices known before).
	OnDemandPriceError error
}

// onDemandPrices are the prices on-demand and reserved offerings use.
func (r *Region) onDemandPrices() map[string]float64 {
	if r.OnDemandPrices != nil {
		return r.OnDemandPrices
	}
	return loadEmbedded().OnDemandPrices
}

// LoadRegion describes the region's instance types, offerings, spot prices and capacity
// reservations. Instance types and offerings are required; spot prices and reservations are
// best effort (their failure is recorded, not returned), as in Karpenter.
func LoadRegion(ctx context.Context, api EC2API, region string) (*Region, error) {
	r := &Region{Name: region, Zones: map[string][]string{}}
	typesIn := &ec2.DescribeInstanceTypesInput{
		MaxResults: sdkaws.Int32(100),
		Filters: []ec2types.Filter{
			{Name: sdkaws.String("supported-virtualization-type"), Values: []string{"hvm"}},
			{Name: sdkaws.String("processor-info.supported-architecture"), Values: []string{"x86_64", "arm64"}},
		},
	}
	for p := ec2.NewDescribeInstanceTypesPaginator(api, typesIn); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing instance types: %w", err)
		}
		r.Types = append(r.Types, out.InstanceTypes...)
	}
	sort.Slice(r.Types, func(i, j int) bool { return r.Types[i].InstanceType < r.Types[j].InstanceType })

	all := map[string]bool{}
	offIn := &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationTypeAvailabilityZone, MaxResults: sdkaws.Int32(1000)}
	for p := ec2.NewDescribeInstanceTypeOfferingsPaginator(api, offIn); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing instance type offerings: %w", err)
		}
		for _, o := range out.InstanceTypeOfferings {
			zone := sdkaws.ToString(o.Location)
			r.Zones[string(o.InstanceType)] = append(r.Zones[string(o.InstanceType)], zone)
			all[zone] = true
		}
	}
	for name, zs := range r.Zones {
		sort.Strings(zs)
		r.Zones[name] = slices.Compact(zs)
	}
	for z := range all {
		r.AllZones = append(r.AllZones, z)
	}
	sort.Strings(r.AllZones)
	if len(r.Types) == 0 || len(r.AllZones) == 0 {
		return nil, fmt.Errorf("region %s: EC2 reported %d instance types in %d zones", region, len(r.Types), len(r.AllZones))
	}

	r.SpotPrices, r.SpotPriceError = spotPrices(ctx, api)
	if res, err := reservations(ctx, api); err == nil {
		r.Reservations = res
	}
	return r, nil
}

// spotPrices reads the spot price history for Linux and keeps the latest price per type and
// zone (on equal timestamps the first one listed).
func spotPrices(ctx context.Context, api EC2API) (catalog.SpotPrices, error) {
	type seen struct {
		at    time.Time
		price float64
	}
	latest := map[string]map[string]seen{}
	in := &ec2.DescribeSpotPriceHistoryInput{
		ProductDescriptions: []string{"Linux/UNIX", "Linux/UNIX (Amazon VPC)"},
		MaxResults:          sdkaws.Int32(1000),
	}
	for p := ec2.NewDescribeSpotPriceHistoryPaginator(api, in); p.HasMorePages(); {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing spot price history: %w", err)
		}
		for _, sp := range out.SpotPriceHistory {
			price, err := strconv.ParseFloat(sdkaws.ToString(sp.SpotPrice), 64)
			if err != nil || price <= 0 {
				continue
			}
			it, zone, at := string(sp.InstanceType), sdkaws.ToString(sp.AvailabilityZone), sdkaws.ToTime(sp.Timestamp)
			if latest[it] == nil {
				latest[it] = map[string]seen{}
			}
			if prev, ok := latest[it][zone]; !ok || at.After(prev.at) {
				latest[it][zone] = seen{at: at, price: price}
			}
		}
	}
	out := catalog.SpotPrices{}
	for it, zones := range latest {
		out[it] = map[string]float64{}
		for z, s := range zones {
			out[it][z] = s.price
		}
	}
	return out, nil
}

func reservations(ctx context.Context, api EC2API) ([]ec2types.CapacityReservation, error) {
	var out []ec2types.CapacityReservation
	in := &ec2.DescribeCapacityReservationsInput{Filters: []ec2types.Filter{{Name: sdkaws.String("state"), Values: []string{"active"}}}}
	for p := ec2.NewDescribeCapacityReservationsPaginator(api, in); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing capacity reservations: %w", err)
		}
		out = append(out, page.CapacityReservations...)
	}
	return out, nil
}
