package disruption

import (
	"math"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
	"github.com/nodeplan/nodeplan/scheduling"
)

// minSpotToSpotTypes is Karpenter's MinInstanceTypesForSpotToSpotConsolidation.
const minSpotToSpotTypes = 15

// replacementRules are what a consolidation method adds to the price rules every
// replacement passes (cheaper): Karpenter's single- and multi-node consolidation differ only
// here.
type replacementRules struct {
	// minSpotTypes: a spot-to-spot replacement needs at least this many cheaper spot types,
	// and keeps no more of them than this (or than minValues asks); 0: no such rule.
	minSpotTypes int
	// differentType: a type of one of the candidates must be cheaper than the cheapest such
	// candidate (Karpenter's filterOutSameInstanceType: no "delete 2×A, launch 1×A").
	differentType bool
}

// oneCheaper is Karpenter's replacement: the candidates, whose pods the simulation placed on
// claims, are replaced by one NodeClaim strictly cheaper than them, narrowed by rules. It
// returns the replacement and the savings, or why there is none.
func (s *state) oneCheaper(claims []*scheduling.NodeClaim, cands []*node, candPrice float64, rules replacementRules) ([]*scheduling.NodeClaim, float64, Blocker) {
	if len(claims) > 1 {
		return nil, 0, Blocker{Code: BlockTooManyReplacements, NewNodes: len(claims)}
	}
	r, why := s.cheaper(claims[0], cands, candPrice, rules)
	if r == nil {
		return nil, 0, why
	}
	return []*scheduling.NodeClaim{r}, candPrice - r.Offering.Price, Blocker{}
}

// byPrice keeps the types whose worst-case launch price for reqs is below maxPrice.
func byPrice(its cloudprovider.InstanceTypes, reqs requirements.Requirements, maxPrice float64) cloudprovider.InstanceTypes {
	var out cloudprovider.InstanceTypes
	for _, it := range its {
		if it != nil && it.Offerings.Available().WorstLaunchPrice(reqs) < maxPrice {
			out = append(out, it)
		}
	}
	return out
}

func launchable(its cloudprovider.InstanceTypes, reqs requirements.Requirements) cloudprovider.InstanceTypes {
	var out cloudprovider.InstanceTypes
	for _, it := range its {
		if it != nil && it.Offerings.Available().HasCompatible(reqs) {
			out = append(out, it)
		}
	}
	return out
}

// minValuesError is how many instance types minValues needs of its, or the
// ReplacementMinValues blocker when its break them.
func minValuesError(its cloudprovider.InstanceTypes, reqs requirements.Requirements) (int, *Blocker) {
	if !cloudprovider.HasMinValues(reqs) {
		return 0, nil
	}
	n, _, err := its.SatisfiesMinValues(reqs)
	if err != nil {
		return n, noReplacement(ReplacementMinValues, func(b *Blocker) { b.Detail = err.Error() })
	}
	return n, nil
}

// noReplacement is the NoCheaperReplacement blocker of code, with set's facts.
func noReplacement(code ReplacementCode, set func(*Blocker)) *Blocker {
	b := &Blocker{Code: BlockNoCheaperReplacement, Replacement: code}
	if set != nil {
		set(b)
	}
	return b
}

// cheaper narrows the simulation's replacement to instance types strictly cheaper than the
// candidates (Karpenter's price filter, spot-to-spot rules, spot or nothing for a claim open
// to both) and the method's rules. It returns nil and why when none is left.
func (s *state) cheaper(claim *scheduling.NodeClaim, cands []*node, candPrice float64, rules replacementRules) (*scheduling.NodeClaim, Blocker) {
	reqs := claim.Requirements.Copy()
	// Prices are judged as Karpenter sees the claim: open where nodeplan's settlement pinned it.
	priced := reqs
	if claim.PriceRequirements != nil {
		priced = claim.PriceRequirements.Copy()
	}
	// spotOnly narrows the replacement, and the prices judged, to spot capacity.
	spotOnly := func() {
		spot := requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, v1.CapacityTypeSpot)
		reqs.Add(spot)
		if claim.PriceRequirements != nil { // else priced is reqs
			priced.Add(spot)
		}
	}
	opts := claim.InstanceTypeOptions.OrderByPrice(reqs)
	allSpot := true
	for _, c := range cands {
		allSpot = allSpot && c.isSpot()
	}
	// Karpenter decides on spot by the claim's capacity types before they were narrowed to
	// what its options offer: a pool of both gets a spot replacement or none.
	ct := reqs.Get(v1.CapacityTypeLabelKey)
	if claim.CapacityType != nil {
		ct = claim.CapacityType
	}
	noCheaper := noReplacement(ReplacementNotCheaper, func(b *Blocker) {
		b.Price = candPrice
		if len(opts) > 0 {
			if p, ok := cheapestOffering(opts[:1], reqs); ok {
				b.CheapestType, b.CheapestPrice = opts[0].Name, p.Price
			}
		}
	})
	// held are the options Karpenter's claim still lists when multi-node consolidation looks
	// for a candidate's own type among them: narrowing a claim of both capacity types to spot
	// (below) only adds the requirement there, so a type without a spot offering is still
	// listed, and still makes its candidate's price the ceiling.
	var held cloudprovider.InstanceTypes
	if allSpot && ct.Has(v1.CapacityTypeSpot) {
		if !s.opts.SpotToSpotConsolidation {
			return nil, *noReplacement(ReplacementSpotToSpotDisabled, nil)
		}
		spotOnly()
		opts = byPrice(launchable(opts, reqs), priced, candPrice)
		if len(opts) == 0 {
			return nil, *noCheaper
		}
		need, why := minValuesError(opts, reqs)
		if why != nil {
			return nil, *why
		}
		if rules.minSpotTypes > 0 {
			if len(opts) < rules.minSpotTypes {
				found := len(opts)
				return nil, *noReplacement(ReplacementTooFewSpotTypes, func(b *Blocker) { b.InstanceTypes = found })
			}
			opts = opts[:min(len(opts), max(rules.minSpotTypes, need))]
		}
	} else {
		opts = byPrice(opts, priced, candPrice)
		if len(opts) == 0 {
			return nil, *noCheaper
		}
		if _, why := minValuesError(opts, reqs); why != nil {
			return nil, *why
		}
		if ct.Has(v1.CapacityTypeSpot) && ct.Has(v1.CapacityTypeOnDemand) {
			// Karpenter's computeConsolidation: the cheaper replacement was judged assuming spot
			// launches, so it must be spot; with no spot option the launch fails and the
			// candidates stay (multi-node: the prefix fails).
			spotOnly()
			held = opts
			if opts = launchable(opts, reqs); len(opts) == 0 {
				return nil, *noCheaper
			}
		}
	}
	if rules.differentType {
		var why *Blocker
		if held == nil {
			held = opts
		}
		if opts, why = filterOutSameInstanceType(opts, held, reqs, priced, cands); why != nil {
			return nil, *why
		}
	}
	names := make([]string, 0, len(opts))
	for _, it := range opts {
		names = append(names, it.Name)
	}
	reqs.Add(requirements.MustNew(v1.LabelInstanceType, requirements.In, names...))
	r := *claim
	r.Requirements = reqs
	r.InstanceTypeOptions = opts
	var best *cloudprovider.Offering
	for _, it := range opts {
		if o, ok := cheapestOffering(cloudprovider.InstanceTypes{it}, reqs); ok && (best == nil || o.Price < best.Price) {
			best, r.InstanceType = o, it
		}
	}
	if best == nil {
		return nil, *noCheaper
	}
	r.Offering = best
	return &r, Blocker{}
}

func cheapestOffering(its cloudprovider.InstanceTypes, reqs requirements.Requirements) (*cloudprovider.Offering, bool) {
	var best *cloudprovider.Offering
	for _, it := range its {
		if o := it.Offerings.Available().Compatible(reqs).Cheapest(); o != nil && (best == nil || o.Price < best.Price) {
			best = o
		}
	}
	return best, best != nil
}

// filterOutSameInstanceType: when a replacement option (one of held, the options Karpenter's
// claim lists; opts are those of them it can launch) is the instance type of a candidate, the
// replacement must be cheaper than the cheapest such candidate (no "delete 2×A, launch 1×A"
// when "delete 1×A" would do).
func filterOutSameInstanceType(opts, held cloudprovider.InstanceTypes, reqs, priced requirements.Requirements, cands []*node) (cloudprovider.InstanceTypes, *Blocker) {
	names := map[string]bool{}
	for _, it := range held {
		names[it.Name] = true
	}
	maxPrice, same := math.Inf(1), false
	for _, c := range cands {
		if c.it != nil && names[c.it.Name] {
			same = true
			maxPrice = math.Min(maxPrice, c.price)
		}
	}
	if !same {
		return opts, nil
	}
	opts = byPrice(opts, priced, maxPrice)
	if len(opts) == 0 {
		return nil, noReplacement(ReplacementSameInstanceType, nil)
	}
	if _, why := minValuesError(opts, reqs); why != nil {
		return nil, why
	}
	return opts, nil
}

// severalCheaper is the replacement of the moves Karpenter cannot make (split, repack): the
// candidates are replaced by every NodeClaim the simulation opened, each narrowed as cheaper
// narrows Karpenter's one (price filter, spot rules, the method's rules) below its share of
// the candidates' price, so that the claims' worst-case launch prices (Karpenter's pricing of
// a replacement) stay below candPrice together. The shares are proportional to each claim's
// least worst-case price, which leaves every claim the types it can afford. It returns the
// replacements and the savings (candPrice less their cheapest launchable offerings), or why
// there are none.
func (s *state) severalCheaper(claims []*scheduling.NodeClaim, cands []*node, candPrice float64, rules replacementRules) ([]*scheduling.NodeClaim, float64, Blocker) {
	least := make([]float64, len(claims))
	sum := 0.0
	for i, c := range claims {
		r, why := s.cheaper(c, cands, candPrice, rules)
		if r == nil {
			return nil, 0, why
		}
		least[i] = math.Inf(1)
		priced := launchPricing(c, r)
		for _, it := range r.InstanceTypeOptions {
			least[i] = math.Min(least[i], it.Offerings.Available().WorstLaunchPrice(priced))
		}
		sum += least[i]
	}
	notCheaper := func(price float64) Blocker {
		return *noReplacement(ReplacementNotCheaper, func(b *Blocker) { b.Price, b.CheapestPrice = candPrice, price })
	}
	if !(sum < candPrice) {
		return nil, 0, notCheaper(sum)
	}
	out := make([]*scheduling.NodeClaim, 0, len(claims))
	worst, cheapest := 0.0, 0.0
	for i, c := range claims {
		r, why := s.cheaper(c, cands, least[i]*candPrice/sum, rules)
		if r == nil {
			return nil, 0, why
		}
		w := 0.0
		priced := launchPricing(c, r)
		for _, it := range r.InstanceTypeOptions {
			w = math.Max(w, it.Offerings.Available().WorstLaunchPrice(priced))
		}
		worst += w
		cheapest += r.Offering.Price
		out = append(out, r)
	}
	if !(worst < candPrice) { // the shares' rounding
		return nil, 0, notCheaper(worst)
	}
	return out, candPrice - cheapest, Blocker{}
}

// launchPricing are the requirements r (cheaper's narrowing of the simulation's claim) is
// priced by, as cheaper prices it: the claim's PriceRequirements when it has them, else its
// requirements, with r's capacity type. Built once per claim, not per instance type.
func launchPricing(claim, r *scheduling.NodeClaim) requirements.Requirements {
	priced := claim.Requirements
	if claim.PriceRequirements != nil {
		priced = claim.PriceRequirements
	}
	priced = priced.Copy()
	if ct := r.Requirements.Get(v1.CapacityTypeLabelKey); ct != nil {
		priced.Add(ct)
	}
	return priced
}
