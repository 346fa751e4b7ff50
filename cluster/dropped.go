package cluster

// dropped is how Without made a snapshot: the parent's node list, the snapshot's as Without
// made it, and the positions in the parent of the nodes it dropped.
type dropped struct {
	parent, nodes []*Node
	at            []int
}

// DroppedFrom reports, for a snapshot Without made (or one made from it that keeps its node
// list, as WithMoving does), the node list it was made from and the positions there of the
// nodes it dropped, in increasing order: its nodes are the others, in the same order, the
// same pointers. ok is false for any other snapshot. A caller that derives something from
// every node of many such snapshots of one parent (scheduling.Cache, over disruption's
// simulations) can derive it once for the parent and drop the few. Neither slice may be
// changed.
func (s *Snapshot) DroppedFrom() (parent []*Node, at []int, ok bool) {
	d := s.dropped
	// Every fork that changes the node list makes a new one: the same list is Without's.
	if d == nil || len(d.nodes) != len(s.nodes) || len(s.nodes) > 0 && &d.nodes[0] != &s.nodes[0] {
		return nil, nil, false
	}
	return d.parent, d.at, true
}
