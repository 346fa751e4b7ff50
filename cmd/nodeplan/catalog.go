package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
	awsv1beta1 "github.com/nodeplan/nodeplan/aws/apis/v1beta1"
	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/aws/ec2capacity"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/manifest"
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
	// capacity are --vm-memory-overhead-percent and --reserved-enis.
	capacity *ec2capacity.Options
	// embedded is the embedded catalog with the default NodeClass, built on first use.
	embedded cloudprovider.InstanceTypes
}

// openCatalog reads --instance-types or prepares the embedded catalog with --prices; warn
// receives what the user should know (prices for types the catalog does not have).
func (c *commonFlags) openCatalog(warn func(string)) (*instanceCatalog, error) {
	capacity := &ec2capacity.Options{VMMemoryOverheadPercent: c.vmMemoryOverhead, ReservedENIs: c.reservedENIs}
	if c.instanceTypes != "" {
		if c.prices != "" {
			return nil, fmt.Errorf("--prices %s: spot prices apply to the embedded EC2 catalog; an --instance-types file gives each offering its own price", c.prices)
		}
		if *capacity != ec2capacity.DefaultOptions {
			return nil, errors.New("--vm-memory-overhead-percent and --reserved-enis apply to the embedded EC2 catalog; an --instance-types file gives each type its own capacity")
		}
		types, wellKnown, err := c.parseCatalogFile(c.instanceTypes)
		if err != nil {
			return nil, err
		}
		return &instanceCatalog{file: types, wellKnown: wellKnown}, nil
	}
	ic := &instanceCatalog{wellKnown: catalog.EC2WellKnownLabels(), capacity: capacity}
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
		if zones, known := sp.UnknownZones(); len(zones) > 0 {
			msg := fmt.Sprintf("--prices %s: %d zones are not the embedded catalog's (%s) and were ignored: %s",
				c.prices, len(zones), strings.Join(catalog.EC2Zones(), ", "), abbreviate(zones, 5))
			if known == 0 {
				msg += "; no price is left for any of its zones, so no spot offering is available (a zone without a price has none)"
			}
			warn(msg)
		}
		ic.spotPrices = sp
	}
	return ic, nil
}

// nodeClasses are the NodeClass kinds the catalog's cloud launches: the embedded EC2
// catalog's AWS provider launches with EC2NodeClasses only; a catalog file (or none read yet)
// launches with any.
func (ic *instanceCatalog) nodeClasses() []schema.GroupKind {
	if ic == nil || ic.file != nil {
		return nil
	}
	return []schema.GroupKind{{Group: awsv1.Group, Kind: awsv1.KindEC2NodeClass}}
}

// defaultTypes are the types every NodePool gets without a NodeClass of its own.
func (ic *instanceCatalog) defaultTypes() (cloudprovider.InstanceTypes, error) {
	if ic.file != nil {
		return ic.file, nil
	}
	if ic.embedded == nil {
		types, err := catalog.BuildEC2(catalog.EC2Options{Capacity: ic.capacity, SpotPrices: ic.spotPrices})
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
	return o != nil && ic.estimates(o.CapacityType())
}

// estimates reports whether prices of a capacity type are guesses (spot, without --prices, in
// the embedded catalog).
func (ic *instanceCatalog) estimates(capacityType string) bool {
	return ic != nil && ic.file == nil && ic.spotPrices == nil && capacityType == v1.CapacityTypeSpot
}

// estimateNote explains estimated prices in the table outputs.
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
			out.claims.estimated[i] = true
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

// assign gives each NodePool of in (every one with an entry in in.InstanceTypes) its instance types: those of its EC2NodeClass, else the
// default types (the --instance-types file, or the embedded catalog with Karpenter's
// defaults, built only when some NodePool needs it). With an --instance-types file, or no
// EC2NodeClass in the input, every NodePool gets the default types. A NodePool whose nodeClassRef names an EC2NodeClass that is missing, not ready
// (status Ready not True) or incompatible is marked not ready, as Karpenter marks it, and
// launches nothing; warn says why.
func (ic *instanceCatalog) assign(in *cluster.Objects, set *manifest.Set, warn func(string)) error {
	classes := map[string]*awsv1.EC2NodeClass{}
	for _, nc := range set.NodeClasses {
		classes[nc.Name] = nc
	}
	cache := map[string]cloudprovider.InstanceTypes{}
	warned := map[string]bool{}
	in.NodePools = append([]*v1.NodePool(nil), in.NodePools...) // the set's own stay as read
	for i, np := range in.NodePools {
		if ic.file != nil {
			in.InstanceTypes[np.Name] = ic.file
			continue
		}
		ref := np.Spec.Template.Spec.NodeClassRef
		if ref != nil && (ref.Kind != awsv1.KindEC2NodeClass || ref.Group != awsv1.Group) {
			// scheduling.Options.NodeClasses keeps it from launching (ReasonNodeClassUnsupported).
			warn(fmt.Sprintf("NodePool %q: its nodeClassRef names %s %q of group %q, not an %s of %s: Karpenter's AWS provider does not manage it and launches nothing from it",
				np.Name, ref.Kind, ref.Name, ref.Group, awsv1.KindEC2NodeClass, awsv1.Group))
			continue
		}
		var nc *awsv1.EC2NodeClass
		if len(classes) > 0 && ref != nil {
			nc = classes[ref.Name]
			if why := nodeClassNotReady(nc, ref.Name); why != "" {
				warn(fmt.Sprintf("NodePool %q: %s, so Karpenter launches nothing from this NodePool", np.Name, why))
				in.NodePools[i] = markNotReady(np, why)
				continue
			}
		}
		kubelet, err := awsv1.KubeletFor(np, nc)
		if err != nil {
			return err
		}
		if nc == nil && kubelet == nil {
			if in.InstanceTypes[np.Name], err = ic.defaultTypes(); err != nil {
				return err
			}
			continue
		}
		key, err := json.Marshal(struct {
			Class   string
			Kubelet *awsv1.KubeletConfiguration
		}{nodeClassName(nc), kubelet})
		if err != nil {
			return err
		}
		types, ok := cache[string(key)]
		if !ok {
			zones := subnetZones(nc, warned, warn)
			types, err = catalog.BuildEC2(catalog.EC2Options{NodeClass: ec2capacity.FromEC2NodeClass(nc, kubelet), Capacity: ic.capacity, Zones: zones, SpotPrices: ic.spotPrices})
			if err != nil {
				return fmt.Errorf("NodePool %q: %w", np.Name, err)
			}
			cache[string(key)] = types
		}
		in.InstanceTypes[np.Name] = types
	}
	return nil
}

// subnetZones are the zones of the NodeClass's resolved subnets (status.subnets, as in a dump
// of a live cluster), where Karpenter launches its nodes; nil, all zones, when the status has
// none or only zones the embedded catalog lacks (then warn says so, once per NodeClass).
func subnetZones(nc *awsv1.EC2NodeClass, warned map[string]bool, warn func(string)) []string {
	if nc == nil || len(nc.Status.Subnets) == 0 {
		return nil
	}
	known := map[string]bool{}
	for _, z := range catalog.EC2Zones() {
		known[z] = true
	}
	var zones, other []string
	for _, s := range nc.Status.Subnets {
		if known[s.Zone] {
			zones = append(zones, s.Zone)
		} else {
			other = append(other, s.Zone)
		}
	}
	if len(zones) == 0 && !warned[nc.Name] {
		warned[nc.Name] = true
		warn(fmt.Sprintf("EC2NodeClass %q: its subnets are in %s, which the embedded catalog (%s) does not have; planning in all of the catalog's zones",
			nc.Name, strings.Join(other, ", "), strings.Join(catalog.EC2Zones(), ", ")))
	}
	if len(zones) == 0 {
		return nil
	}
	return zones
}

func nodeClassName(nc *awsv1.EC2NodeClass) string {
	if nc == nil {
		return ""
	}
	return nc.Name
}

// nodeClassNotReady says why Karpenter would not launch with the named EC2NodeClass, or "".
func nodeClassNotReady(nc *awsv1.EC2NodeClass, name string) string {
	switch {
	case nc == nil:
		return fmt.Sprintf("its EC2NodeClass %q is not in the input (Karpenter: NodeClass not found, NodePool not ready)", name)
	case awsv1beta1.Incompatible(nc):
		return fmt.Sprintf("its EC2NodeClass %q (Ubuntu, converted from v1beta1 without amiSelectorTerms) is incompatible with Karpenter 1.0", name)
	}
	for _, c := range nc.Status.Conditions {
		if c.Type == awsv1.ConditionTypeReady && c.Status != metav1.ConditionTrue {
			return fmt.Sprintf("its EC2NodeClass %q is not ready (status Ready %s: %s)", name, c.Status, c.Message)
		}
	}
	return ""
}

// markNotReady is a copy of np whose Ready condition is False for reason why.
func markNotReady(np *v1.NodePool, why string) *v1.NodePool {
	c := np.DeepCopy()
	cond := metav1.Condition{Type: v1.ConditionTypeReady, Status: metav1.ConditionFalse, Reason: "NodeClassNotReady", Message: why}
	kept := c.Status.Conditions[:0]
	for _, old := range c.Status.Conditions {
		if old.Type != v1.ConditionTypeReady {
			kept = append(kept, old)
		}
	}
	c.Status.Conditions = append(kept, cond)
	return c
}

// markDisruptEstimates flags the replacement and provisioned claims whose chosen offering's
// price is an estimate, and the whole answer when one is, or when a node of the cluster is
// spot (its price, and so every saving, is then an estimate).
func markDisruptEstimates(out *disruptOutput, res *disruption.Result, snap *cluster.Snapshot, ic *instanceCatalog) bool {
	mark := func(c *claimOutput, o *cloudprovider.Offering) {
		if ic.estimated(o) {
			c.PriceEstimated, out.PriceEstimated = true, true
		}
	}
	for i, c := range res.Provisioned {
		mark(&out.Provisioned[i], c.Offering)
	}
	for i, cmd := range res.Commands {
		for j, r := range cmd.Replacements {
			mark(&out.Commands[i].Replacements[j], r.Offering)
		}
	}
	for _, n := range snap.Nodes() {
		if ic.estimates(nodeCapacityType(n)) {
			out.PriceEstimated = true
		}
	}
	return out.PriceEstimated
}

// nodeCapacityType is the karpenter.sh/capacity-type label of a node or its NodeClaim.
func nodeCapacityType(n *cluster.Node) string {
	if n.Node != nil {
		return n.Node.Labels[v1.CapacityTypeLabelKey]
	}
	if n.NodeClaim != nil {
		return n.NodeClaim.Labels[v1.CapacityTypeLabelKey]
	}
	return ""
}
