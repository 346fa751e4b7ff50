package catalog_test

import (
	"errors"
	"fmt"

	"github.com/samber/lo"

	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/cloudprovider"
)

// The embedded EC2 catalog needs no AWS account: each type's allocatable under Karpenter's
// default EC2NodeClass, and its offerings in us-east-1's three zones at the on-demand price
// (spot at that price too until spot prices are given; see BuildEC2).
func ExampleEC2() {
	its, err := catalog.EC2()
	if err != nil {
		panic(err)
	}
	m5, _ := lo.Find(its, func(it *cloudprovider.InstanceType) bool { return it.Name == "m5.large" })
	alloc := m5.Allocatable()
	fmt.Println(m5.Name, alloc.Cpu(), alloc.Memory(), alloc.Pods())
	for _, o := range m5.Offerings[:2] {
		fmt.Printf("%s %s $%.3f/h\n", o.Zone(), o.CapacityType(), o.Price)
	}
	// Output:
	// m5.large 1930m 6903Mi 29
	// us-east-1a spot $0.096/h
	// us-east-1a on-demand $0.096/h
}

// Spot prices as `aws ec2 describe-spot-price-history` prints them replace the estimates:
// a type and zone without a price has no spot offering.
func ExampleBuildEC2_spotPrices() {
	prices, err := catalog.ParseSpotPrices([]byte(`{"SpotPriceHistory": [
		{"AvailabilityZone": "us-east-1a", "InstanceType": "m5.large", "ProductDescription": "Linux/UNIX",
		 "SpotPrice": "0.039100", "Timestamp": "2026-12-01T06:00:00+00:00"}]}`), "spot.json")
	if err != nil {
		panic(err)
	}
	its, err := catalog.BuildEC2(catalog.EC2Options{SpotPrices: prices, Zones: []string{"us-east-1a", "us-east-1b"}})
	if err != nil {
		panic(err)
	}
	m5, _ := lo.Find(its, func(it *cloudprovider.InstanceType) bool { return it.Name == "m5.large" })
	for _, o := range m5.Offerings {
		fmt.Printf("%s %s $%.4f/h available=%v\n", o.Zone(), o.CapacityType(), o.Price, o.Available)
	}
	// Output:
	// us-east-1a spot $0.0391/h available=true
	// us-east-1a on-demand $0.0960/h available=true
	// us-east-1b spot $0.0000/h available=false
	// us-east-1b on-demand $0.0960/h available=true
	// us-east-1c spot $0.0000/h available=false
	// us-east-1c on-demand $0.0960/h available=false
}

// An instance-type catalog file (`nodeplan --instance-types FILE`) describes a cloud of
// your own: capacity is allocatable unless overhead is given, labels become requirements.
func ExampleParse() {
	its, wellKnown, err := catalog.Parse([]byte(`
instanceTypes:
- name: small
  labels: {kubernetes.io/arch: amd64, example.com/family: s}
  capacity: {cpu: "2", memory: 4Gi, pods: "20"}
  offerings:
  - {zone: zone-a, capacityType: on-demand, price: 0.08}
  - {zone: zone-a, capacityType: spot, price: 0.03}
`), "types.yaml")
	if err != nil {
		panic(err)
	}
	alloc := its[0].Allocatable()
	fmt.Println(its[0].Name, alloc.Cpu(), alloc.Memory(), alloc.Pods(), len(its[0].Offerings), "offerings")
	fmt.Println("example.com/family is well known:", wellKnown["example.com/family"])
	// Output:
	// small 2 4Gi 20 2 offerings
	// example.com/family is well known: true
}

// A value no node has is refused with a *FieldError naming the file, the entry, the type
// and the field, wrapping ErrQuantity or ErrPrice.
func ExampleParse_error() {
	_, _, err := catalog.Parse([]byte(`
instanceTypes:
- name: small
  capacity: {cpu: 4Gi, memory: 4Gi, pods: "20"}
  offerings: [{zone: zone-a, capacityType: on-demand, price: 0.08}]
`), "types.yaml")
	var fe *catalog.FieldError
	if errors.As(err, &fe) {
		fmt.Println(fe.Source, fe.Entry, fe.InstanceType, fe.Field, errors.Is(err, catalog.ErrQuantity))
	}
	// Output:
	// types.yaml instanceTypes[0] small capacity.cpu true
}
