package disruption

// expiration deletes every node older than its expireAfter, one command per NodeClaim as
// Karpenter's expiration controller does: forceful, no budgets, no blockers, no simulation.
// The provisioner pass that follows plans their pods (Result.Provisioned).
func (s *state) expiration() {
	for _, n := range s.nodes {
		// Karpenter's expiration controller reads the NodeClaim: a Node being deleted whose
		// NodeClaim is not is still expired (and counted once against its budget). A
		// terminating instance's claim is being deleted (see cluster.Node.InstanceTerminating).
		claimDeleting := n.NodeClaim != nil && n.NodeClaim.DeletionTimestamp != nil || n.InstanceTerminating()
		if s.taken[n] || n.pool == nil || claimDeleting || n.MarkedDeleting() || n.expiresAt.IsZero() || s.now.Before(n.expiresAt) {
			continue
		}
		s.commit(Command{Method: MethodExpiration, Reason: ReasonExpired}, []*node{n}, nil)
	}
}
