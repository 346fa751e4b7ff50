package scheduling

import "github.com/nodeplan/nodeplan/cluster"

// karpenterAnswer is Karpenter mode's plan of the input a default Solve plans, made at most
// once per Solve: the starved retry (starved.go) and the preference guard (preferences.go)
// both compare the default's plan with it. It is read on the canonical order, since Karpenter
// mode breaks ties in input order and the default's plan must not, and shares no Cache with
// the default: its forms differ.
type karpenterAnswer struct {
	snap *cluster.Snapshot
	opts Options
	tune []func(*solver)
	res  *Result
	err  error
	done bool
}

// newKarpenterAnswer is Karpenter mode's answer for snap under opts, made when first asked.
func newKarpenterAnswer(snap *cluster.Snapshot, opts Options, tune []func(*solver)) *karpenterAnswer {
	opts.Packing = PackingKarpenter
	return &karpenterAnswer{snap: snap, opts: opts, tune: tune}
}

// get plans Karpenter mode's answer the first time it is asked.
func (k *karpenterAnswer) get() (*Result, error) {
	if !k.done {
		k.res, _, k.err = solveOnce(k.snap.Canonical(), k.opts, nil, variant{}, k.tune)
		k.done = true
	}
	return k.res, k.err
}
