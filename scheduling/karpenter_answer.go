package scheduling

import "github.com/nodeplan/nodeplan/cluster"

// newKarpenterAnswer is Karpenter mode's plan of the input a default Solve plans, made when
// first asked: the starved retry (starved.go) and the preference guard (preferences.go) both
// compare the default's plan with it. It is read on the canonical order, since Karpenter
// mode breaks ties in input order and the default's plan must not, and shares no Cache with
// the default: its forms differ.
func newKarpenterAnswer(snap *cluster.Snapshot, opts Options, tune []func(*solver)) *lazyPlan {
	opts.Packing = PackingKarpenter
	return &lazyPlan{plan: func() (*Result, error) {
		res, _, err := solveOnce(snap.Canonical(), opts, nil, variant{}, tune)
		return res, err
	}}
}
