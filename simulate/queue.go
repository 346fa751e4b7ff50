package simulate

import (
	"container/heap"
	"time"
)

// itemKind orders what happens at one instant: the world first (timeline, the cloud, nodes),
// then the controllers that react to it (provisioning, then disruption).
type itemKind int

const (
	kindTimeline    itemKind = iota // a timeline event (*Event)
	kindAvailable                   // an offering's unavailability ends (offering key)
	kindInstanceEnd                 // an interrupted instance ends (node name)
	kindTerminate                   // a drained node's instance is gone (node name)
	kindRegister                    // a NodeClaim's Node registers (NodeClaim name)
	kindInitialize                  // a registered node becomes ready (NodeClaim name)
	kindBatch                       // a provisioning batch may close
	kindValidate                    // commands waiting for validation are planned again
	kindTick                        // the disruption controller's period
)

// item is one queued thing to do.
type item struct {
	at      time.Time
	kind    itemKind
	seq     int
	payload any
}

// queue orders items by time, kind, then the order they were queued (deterministic).
type queue struct {
	items []*item
	seq   int
}

func (q *queue) push(at time.Time, kind itemKind, payload any) {
	q.seq++
	heap.Push((*itemHeap)(q), &item{at: at, kind: kind, seq: q.seq, payload: payload})
}

func (q *queue) pop() *item  { return heap.Pop((*itemHeap)(q)).(*item) }
func (q *queue) peek() *item { return q.items[0] }
func (q *queue) len() int    { return len(q.items) }

type itemHeap queue

func (h *itemHeap) Len() int { return len(h.items) }
func (h *itemHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}
func (h *itemHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *itemHeap) Push(x any)    { h.items = append(h.items, x.(*item)) }
func (h *itemHeap) Pop() any {
	old := h.items
	it := old[len(old)-1]
	h.items = old[:len(old)-1]
	return it
}
