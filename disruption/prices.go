package disruption

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/cluster"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Prices are what a cluster costs per hour now, once a Plan's commands are carried out, and at
// least, however its pods are placed: the gap between After and LowerBound is what
// consolidation leaves unsaved.
type Prices struct {
	// Now is the snapshot's price (cluster.Snapshot.Price): every node it can price, deleting
	// ones included.
	Now float64
	// After is Now without the nodes the commands delete and the nodes already deleting, plus
	// the commands' replacements and the NodeClaims the provisioner launches first, each at
	// its cheapest launchable offering.
	After float64
	// LowerBound is scheduling.LowerBound of the same pods from scratch: the pending pods and
	// every pod Karpenter would reschedule from a node the snapshot can price (do-not-disrupt
	// and PodDisruptionBudgets aside), with those nodes gone; the nodes it cannot price stay,
	// with their pods and their room. Now and After can be below it when nodes run on
	// offerings their NodePools no longer allow.
	LowerBound float64
	// Unpriced are the nodes none of the three counts (no NodePool, instance type or offering
	// the snapshot knows), by name.
	Unpriced []string
}

// PricesOf are snap's Prices after res, the Plan of snap with opts. Like Plan it is pure; its
// only errors are scheduling.LowerBound's.
func PricesOf(snap *cluster.Snapshot, res *Result, opts Options) (Prices, error) {
	now, unpriced := snap.Price()
	p := Prices{Now: now, After: now, Unpriced: unpriced}
	gone := map[string]bool{}
	for _, c := range res.Commands {
		for _, name := range c.Candidates {
			gone[name] = true
		}
	}
	var priced []string
	var moving []*corev1.Pod
	for _, n := range snap.Nodes() {
		price, ok := snap.NodePrice(n.Name())
		if !ok {
			continue
		}
		if gone[n.Name()] || n.Deleting() {
			p.After -= price
		}
		priced = append(priced, n.Name())
		for _, pod := range n.Pods {
			if pod != nil && cluster.IsReschedulable(pod) {
				moving = append(moving, pod)
			}
		}
	}
	for _, c := range res.Commands {
		p.After += launchPrice(c.Replacements)
	}
	p.After += launchPrice(res.Provisioned)
	b, err := scheduling.LowerBound(snap.Without(priced...).WithMoving(moving...), opts.Scheduling)
	if err != nil {
		return Prices{}, err
	}
	p.LowerBound = b.PerHour
	return p, nil
}

// launchPrice is the claims' price at their cheapest launchable offerings.
func launchPrice(claims []*scheduling.NodeClaim) float64 {
	return (&scheduling.Result{NewNodeClaims: claims}).Price()
}
