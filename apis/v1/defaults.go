package v1

// Defaults the CRDs apply.
const (
	// DefaultExpireAfter is spec.template.spec.expireAfter (and NodeClaim spec.expireAfter)
	// when unset.
	DefaultExpireAfter = "720h"
	// DefaultConsolidateAfter is spec.disruption.consolidateAfter when unset.
	DefaultConsolidateAfter = "0s"
	// DefaultBudgetNodes is a budget's nodes when unset, and the one default budget's.
	DefaultBudgetNodes = "10%"
	// DefaultConsolidationPolicy is spec.disruption.consolidationPolicy when unset.
	DefaultConsolidationPolicy = ConsolidationPolicyWhenEmptyOrUnderutilized
)

// SetDefaults fills the fields the NodePool CRD defaults, leaving set fields alone:
// consolidationPolicy WhenEmptyOrUnderutilized, consolidateAfter 0s, budgets [{nodes: 10%}]
// (only when budgets is absent: an explicit empty list stays empty, as in the API server),
// a budget's nodes 10%, and template expireAfter 720h ("Never" stays Never).
func (in *NodePool) SetDefaults() {
	d := &in.Spec.Disruption
	if d.ConsolidationPolicy == "" {
		d.ConsolidationPolicy = DefaultConsolidationPolicy
	}
	if d.ConsolidateAfter.IsZero() {
		d.ConsolidateAfter = MustParseNillableDuration(DefaultConsolidateAfter)
	}
	if d.Budgets == nil {
		d.Budgets = []Budget{{Nodes: DefaultBudgetNodes}}
	}
	for i := range d.Budgets {
		if d.Budgets[i].Nodes == "" {
			d.Budgets[i].Nodes = DefaultBudgetNodes
		}
	}
	if in.Spec.Template.Spec.ExpireAfter.IsZero() {
		in.Spec.Template.Spec.ExpireAfter = MustParseNillableDuration(DefaultExpireAfter)
	}
}

// SetDefaults fills the fields the NodeClaim CRD defaults: spec.expireAfter 720h when unset.
func (in *NodeClaim) SetDefaults() {
	if in.Spec.ExpireAfter.IsZero() {
		in.Spec.ExpireAfter = MustParseNillableDuration(DefaultExpireAfter)
	}
}
