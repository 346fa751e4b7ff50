package scheduling

import "github.com/nodeplan/nodeplan/cluster"

// baseNodes is what a Cache derives once from the node list many Solves' snapshots were
// made from by cluster.Snapshot.Without (disruption's simulations: one marked snapshot, each
// simulation's fork without its candidates): the nodes read with their facts, the Deleting
// ones, and the existing nodes as buildExisting lists them. A Solve of such a fork then drops
// the few nodes its snapshot dropped instead of reading every node again.
type baseNodes struct {
	parent []*cluster.Node
	// failed: reading the parent's nodes failed (a node neither Node nor NodeClaim, or one
	// checkNode refuses); its forks are read as any snapshot is.
	failed bool
	nodes  []*cluster.Node
	recs   []*nodeFacts
	// at is, per position in parent, the node's index in nodes (-1: not read).
	at []int
	// deleting are the indexes in nodes of the Deleting nodes, in order; inverse those of
	// the nodes with bound pods of a required pod anti-affinity.
	deleting, inverse []int
	// existing is existingOf the nodes for ctx, and existingAt the index in nodes of each.
	ctx        *existingContext
	existing   []*existingNode
	existingAt []int
	// room is the free-room index of existing (nil until a Solve needs one).
	room *roomIndex
}

// sameList reports whether a and b are one node list (the same backing array and length).
func sameList(a, b []*cluster.Node) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// readFromBase reads the snapshot's nodes as its parent's minus the ones it dropped, when
// Without made it and the Cache knows (or can read) the parent; it reports whether it did.
// The nodes and facts are those readList would give: the same nodes, in order, and facts
// are a function of the node.
func (s *solver) readFromBase() bool {
	if s.cache == nil {
		return false
	}
	parent, at, ok := s.snap.DroppedFrom()
	if !ok {
		return false
	}
	b := s.cache.base
	if b == nil || !sameList(b.parent, parent) {
		b = s.readBase(parent)
		s.cache.base = b
	}
	if b.failed {
		return false
	}
	gone := newBitset(len(b.nodes))
	for _, p := range at {
		if i := b.at[p]; i >= 0 {
			gone.set(i)
		}
	}
	s.nodes = make([]*cluster.Node, 0, len(b.nodes))
	s.recs = make([]*nodeFacts, 0, len(b.nodes))
	for i := range b.nodes {
		if !gone.has(i) {
			s.nodes = append(s.nodes, b.nodes[i])
			s.recs = append(s.recs, b.recs[i])
		}
	}
	s.base, s.gone = b, gone
	s.store.lastNodes, s.store.lastRecs = s.nodes, s.recs
	return true
}

// readBase reads parent's nodes (readList) into a baseNodes, failed when readList refuses
// one; s's own nodes are left unread.
func (s *solver) readBase(parent []*cluster.Node) *baseNodes {
	b := &baseNodes{parent: parent}
	if err := s.readList(parent); err != nil {
		b.failed = true
		return b
	}
	b.nodes, b.recs = s.nodes, s.recs
	b.at = make([]int, len(parent))
	j := 0
	for p, n := range parent {
		b.at[p] = -1
		if j < len(b.nodes) && b.nodes[j] == n {
			b.at[p] = j
			j++
		}
	}
	for i, n := range b.nodes {
		if n.MarkedDeleting() || b.recs[i].deleting {
			b.deleting = append(b.deleting, i)
		}
		if len(b.recs[i].inverse) > 0 {
			b.inverse = append(b.inverse, i)
		}
	}
	return b
}

// existingFromBase lists the existing nodes as the base's minus the dropped ones, when the
// Solve read its nodes from a base; it reports whether it did. Dropping nodes from a list in
// Karpenter's order (sorted stably) leaves the list existingOf gives the others.
func (s *solver) existingFromBase(ctx *existingContext) bool {
	b := s.base
	if b == nil {
		return false
	}
	if b.ctx != ctx {
		b.existing, b.existingAt = s.existingOf(ctx, b.nodes, b.recs, true)
		b.ctx, b.room = ctx, nil
	}
	s.existing = make([]*existingNode, 0, len(b.existing))
	s.dropped = nil
	for k, e := range b.existing {
		if s.gone.has(b.existingAt[k]) {
			s.dropped = append(s.dropped, k)
			continue
		}
		s.existing = append(s.existing, e)
	}
	return true
}

// roomFromBase is the free-room index of the Solve's existing nodes as a copy of the base's
// (built once), its dropped nodes skipped and the nodes the Solve placed pods on updated: the
// same answers as newRoomIndex of the Solve's nodes, for a copy of the base's tree. buf is
// reused when large enough.
func (s *solver) roomFromBase(buf []int64) *roomIndex {
	b := s.base
	dims := len(s.res.names)
	if b.room == nil || b.room.dims != dims {
		b.room = newRoomIndex(b.existing, dims, nil)
	}
	if cap(buf) < len(b.room.room) {
		buf = make([]int64, len(b.room.room))
	}
	t := &roomIndex{n: b.room.n, dims: dims, leaves: b.room.leaves, room: buf[:len(b.room.room)]}
	copy(t.room, b.room.room)
	t.without(s.dropped)
	for _, i := range s.placedOn {
		t.update(i, s.existing[i].available)
	}
	return t
}
