package scheduling

import (
	"slices"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// TestClaimOrderMatchesStableSort checks the incremental fewest-pods-first chain against what
// Karpenter does: before each pod, a stable sort of the previous order by pod count.
func TestClaimOrderMatchesStableSort(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := &solver{lastOfCount: map[int]*claim{}}
		var model []*claim
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			if len(model) == 0 || rapid.Bool().Draw(rt, "open") {
				c := &claim{pods: make([]*podData, 1)}
				s.insertClaim(c)
				model = append(model, c)
			} else {
				c := model[rapid.IntRange(0, len(model)-1).Draw(rt, "grow")]
				c.pods = append(c.pods, nil)
				s.bumpCount(c)
			}
			sort.SliceStable(model, func(a, b int) bool { return len(model[a].pods) < len(model[b].pods) })
			var chain []*claim
			for c := s.head; c != nil; c = c.next {
				chain = append(chain, c)
			}
			if len(chain) != len(model) {
				rt.Fatalf("chain has %d claims, want %d", len(chain), len(model))
			}
			for j := range chain {
				if chain[j] != model[j] {
					rt.Fatalf("step %d: position %d differs from a stable sort by pod count", i, j)
				}
			}
		}
	})
}

// TestQueueKeyIsTheQueueOrder: the queue's order on precomputed creation times is the one
// on the pods' timestamps: cpu and memory descending, then the older (metav1.Time's Before;
// Equal times tie), then UID, then namespace/name. Times include the zero time (unset) and
// ties to the second.
func TestQueueKeyIsTheQueueOrder(t *testing.T) {
	less := func(a, b *podData) bool {
		if a.cpu != b.cpu {
			return a.cpu > b.cpu
		}
		if a.mem != b.mem {
			return a.mem > b.mem
		}
		ta, tb := a.pod.CreationTimestamp, b.pod.CreationTimestamp
		if !ta.Equal(&tb) {
			return ta.Before(&tb)
		}
		if a.pod.UID != b.pod.UID {
			return a.pod.UID < b.pod.UID
		}
		return a.key < b.key
	}
	gen := rapid.Custom(func(rt *rapid.T) *podData {
		var created time.Time
		if rapid.Bool().Draw(rt, "set") {
			created = time.Unix(rapid.Int64Range(1_700_000_000, 1_700_000_001).Draw(rt, "sec"), rapid.Int64Range(0, 1).Draw(rt, "nsec"))
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created),
			UID: types.UID(rapid.SampledFrom([]string{"", "a", "b"}).Draw(rt, "uid"))}}
		p := &podData{pod: pod, key: rapid.SampledFrom([]string{"ns/a", "ns/b"}).Draw(rt, "key"),
			cpu: rapid.Int64Range(0, 1).Draw(rt, "cpu"), mem: rapid.Int64Range(0, 1).Draw(rt, "mem")}
		return p
	})
	t.Run("sortQueue is a stable sort", func(t *testing.T) {
		rapid.Check(t, func(rt *rapid.T) {
			queue := rapid.SliceOf(gen).Draw(rt, "queue") // few distinct values: ties
			want := slices.Clone(queue)
			slices.SortStableFunc(want, func(a, b *podData) int { ka, kb := a.queueKey(), b.queueKey(); return ka.compare(&kb) })
			sortQueue(queue)
			for i := range want {
				if queue[i] != want[i] {
					rt.Fatalf("position %d differs from a stable sort", i)
				}
			}
		})
	})
	rapid.Check(t, func(rt *rapid.T) {
		a, b := gen.Draw(rt, "a"), gen.Draw(rt, "b")
		if rapid.Bool().Draw(rt, "same size") {
			b.cpu, b.mem = a.cpu, a.mem // the timestamps decide
		}
		ka, kb := a.queueKey(), b.queueKey()
		if got, want := ka.compare(&kb) < 0, less(a, b); got != want {
			rt.Fatalf("compare(a, b) < 0 is %v, the timestamps' order says %v", got, want)
		}
		if got, want := ka.compare(&kb) == 0, !less(a, b) && !less(b, a); got != want {
			rt.Fatalf("compare(a, b) == 0 is %v, want %v", got, want)
		}
	})
}
