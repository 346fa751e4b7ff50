package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"
)

// SpotPrices are spot prices in dollars per hour, by instance type and zone.
type SpotPrices map[string]map[string]float64

// spotPriceFile is the output of `aws ec2 describe-spot-price-history` (the AWS CLI's JSON).
type spotPriceFile struct {
	SpotPriceHistory *[]spotPriceEntry `json:"SpotPriceHistory"`
	NextToken        string            `json:"NextToken"`
}

type spotPriceEntry struct {
	AvailabilityZone   string `json:"AvailabilityZone"`
	InstanceType       string `json:"InstanceType"`
	ProductDescription string `json:"ProductDescription"`
	SpotPrice          string `json:"SpotPrice"`
	Timestamp          string `json:"Timestamp"`
}

// linuxProducts are the product descriptions Karpenter asks EC2 for: other operating systems'
// spot prices (Windows, SUSE, Red Hat) are not what a Linux node pays.
var linuxProducts = map[string]bool{"Linux/UNIX": true, "Linux/UNIX (Amazon VPC)": true}

// ParseSpotPricesFile reads a spot-price file (see ParseSpotPrices); errors name the file.
func ParseSpotPricesFile(path string) (SpotPrices, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ParseSpotPrices(data, path)
}

// ParseSpotPrices reads the JSON the AWS CLI prints for `aws ec2 describe-spot-price-history`
// as it is: {"SpotPriceHistory": [{"AvailabilityZone", "InstanceType", "ProductDescription",
// "SpotPrice", "Timestamp"}, ...]}. For each type and zone the latest Linux/UNIX price wins
// (on equal timestamps the first listed, as the CLI lists newest first). Other fields are
// ignored, as the CLI's output grows new ones; entries for other operating systems are
// skipped. source names the input in errors.
func ParseSpotPrices(data []byte, source string) (SpotPrices, error) {
	var f spotPriceFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: not the JSON of `aws ec2 describe-spot-price-history`: %w", source, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: unexpected data after the JSON object", source)
	}
	if f.SpotPriceHistory == nil {
		return nil, fmt.Errorf("%s: SpotPriceHistory: missing (want the JSON of `aws ec2 describe-spot-price-history`)", source)
	}
	out := SpotPrices{}
	latest := map[[2]string]time.Time{}
	var errs []error
	for i, e := range *f.SpotPriceHistory {
		fail := func(field string, err error) {
			errs = append(errs, &FieldError{Source: source, Entry: fmt.Sprintf("SpotPriceHistory[%d]", i),
				InstanceType: e.InstanceType, Zone: e.AvailabilityZone, Field: field, Err: err})
		}
		at := func(field, format string, args ...any) { fail(field, fmt.Errorf(format, args...)) }
		if e.ProductDescription != "" && !linuxProducts[e.ProductDescription] {
			continue
		}
		switch {
		case e.InstanceType == "":
			at("InstanceType", "required")
			continue
		case e.AvailabilityZone == "":
			at("AvailabilityZone", "required")
			continue
		}
		price, err := parsePrice(e.SpotPrice, true)
		if err != nil {
			fail("SpotPrice", err)
			continue
		}
		ts, err := time.Parse(time.RFC3339, e.Timestamp)
		if err != nil {
			at("Timestamp", "%q is not an RFC 3339 time", e.Timestamp)
			continue
		}
		key := [2]string{e.InstanceType, e.AvailabilityZone}
		if seen, ok := latest[key]; ok && !ts.After(seen) {
			continue
		}
		latest[key] = ts
		if out[e.InstanceType] == nil {
			out[e.InstanceType] = map[string]float64{}
		}
		out[e.InstanceType][e.AvailabilityZone] = price
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// Unknown returns, sorted, the types of the prices that the embedded catalog does not have.
func (sp SpotPrices) Unknown() ([]string, error) {
	c, err := loadEC2()
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, e := range c.entries {
		known[e.name] = true
	}
	var out []string
	for name := range sp {
		if !known[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// UnknownZones returns, sorted, the zones of the prices that the embedded catalog does not
// offer (EC2Zones): their prices price nothing. known is how many prices fall in its zones.
func (sp SpotPrices) UnknownZones() (unknown []string, known int) {
	ours := map[string]bool{}
	for _, z := range ec2Zones {
		ours[z] = true
	}
	seen := map[string]bool{}
	for _, zones := range sp {
		for z := range zones {
			switch {
			case ours[z]:
				known++
			case !seen[z]:
				seen[z] = true
				unknown = append(unknown, z)
			}
		}
	}
	sort.Strings(unknown)
	return unknown, known
}
