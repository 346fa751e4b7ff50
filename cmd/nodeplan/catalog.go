package main

import (
	"fmt"
	"strings"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// instanceCatalog is where a run's instance types come from: a --instance-types file, or the
// embedded EC2 catalog with spot prices from --prices or estimated at the on-demand price.
type instanceCatalog struct {
	// file is the --instance-types catalog (nil for the embedded one).
	file       cloudprovider.InstanceTypes
	wellKnown  requirements.KeySet
	spotPrices catalog.SpotPrices
	// embedded is the embedded catalog with the default NodeClass, built on first use.
	embedded cloudprovider.InstanceTypes
}

// openCatalog reads --instance-types or prepares the embedded catalog with --prices; warn
// receives what the user should know (prices for types the catalog does not have).
func (c *commonFlags) openCatalog(warn func(string)) (*instanceCatalog, error) {
	if c.instanceTypes != "" {
		if c.prices != "" {
			return nil, fmt.Errorf("--prices %s: spot prices apply to the embedded EC2 catalog; an --instance-types file gives each offering its own price", c.prices)
		}
		types, wellKnown, err := c.parseCatalogFile(c.instanceTypes)
		if err != nil {
			return nil, err
		}
		return &instanceCatalog{file: types, wellKnown: wellKnown}, nil
	}
	ic := &instanceCatalog{wellKnown: catalog.EC2WellKnownLabels()}
	if c.prices != "" {
		sp, err := c.parsePricesFile(c.prices)
		if err != nil {
			return nil, err
		}
		unknown, err := sp.Unknown()
		if err != nil {
			return nil, err
		}
		if len(unknown) > 0 {
			warn(fmt.Sprintf("--prices %s: %d instance types are not in the embedded catalog and were ignored: %s",
				c.prices, len(unknown), abbreviate(unknown, 5)))
		}
		ic.spotPrices = sp
	}
	return ic, nil
}

// defaultTypes are the types every NodePool gets without a NodeClass of its own.
func (ic *instanceCatalog) defaultTypes() (cloudprovider.InstanceTypes, error) {
	if ic.file != nil {
		return ic.file, nil
	}
	if ic.embedded == nil {
		types, err := catalog.BuildEC2(catalog.EC2Options{SpotPrices: ic.spotPrices})
		if err != nil {
			return nil, err
		}
		ic.embedded = types
	}
	return ic.embedded, nil
}

// estimated reports whether an offering's price is a guess: a spot offering of the embedded
// catalog without --prices is priced at the on-demand price, as Karpenter does until it has
// read spot prices.
func (ic *instanceCatalog) estimated(o *cloudprovider.Offering) bool {
	return ic != nil && ic.file == nil && ic.spotPrices == nil && o != nil && o.CapacityType() == v1.CapacityTypeSpot
}

// estimateNote explains estimated prices in the table output.
const estimateNote = "* spot price estimated at the on-demand price, as Karpenter does without spot prices; " +
	"pass real ones with --prices FILE (the JSON of `aws ec2 describe-spot-price-history`)"

// abbreviate joins the first n names and says how many more there are.
func abbreviate(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// markEstimates flags the claims whose chosen offering's price is an estimate.
func markEstimates(out *planOutput, res *scheduling.Result, ic *instanceCatalog) {
	for i, c := range res.NewNodeClaims {
		if ic.estimated(c.Offering) {
			out.NodeClaims[i].PriceEstimated = true
			out.PriceEstimated = true
		}
	}
}

// estimateMark is the table's mark on an estimated price.
func estimateMark(estimated bool) string {
	if estimated {
		return "*"
	}
	return ""
}
