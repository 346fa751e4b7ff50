package scheduling

import (
	"testing"

	"pgregory.net/rapid"
)

// TestTypeFitAsEachTypeTested: the index of a template's types by allocatable keeps the types
// of any set that vec.fits says hold the requests, and finds their largest allocatable as
// raising from -1<<62 over each of them does (commit's loop before the index).
func TestTypeFitAsEachTypeTested(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		width := rapid.IntRange(1, 4).Draw(rt, "resources")
		n := rapid.IntRange(1, 300).Draw(rt, "types")
		amount := rapid.Int64Range(-3, 50) // few distinct values: ties and empty buckets
		tmpl := &template{}
		for i := 0; i < n; i++ {
			alloc := make(vec, width)
			for r := range alloc {
				alloc[r] = amount.Draw(rt, "alloc")
			}
			tmpl.types = append(tmpl.types, &templateType{alloc: alloc})
		}
		fit := tmpl.fit()
		for range rapid.IntRange(1, 20).Draw(rt, "queries") {
			set := newBitset(n)
			for i := 0; i < n; i++ {
				if rapid.IntRange(0, 3).Draw(rt, "in") > 0 {
					set.set(i)
				}
			}
			req := make(vec, width)
			for r := range req {
				req[r] = amount.Draw(rt, "req")
			}
			want, wantMax := newBitset(n), make(vec, width)
			for r := range wantMax {
				wantMax[r] = -1 << 62
			}
			set.each(func(i int) bool {
				if req.fits(tmpl.types[i].alloc) {
					want.set(i)
					wantMax.raise(tmpl.types[i].alloc)
				}
				return true
			})
			got, gotMax := set.clone(), make(vec, width)
			if !fit.fitting(got, req) {
				rt.Fatal("the index refuses types of one width")
			}
			fit.maxAlloc(got, gotMax)
			for i := range want {
				if got[i] != want[i] {
					rt.Fatalf("kept %b, want %b (word %d)", got[i], want[i], i)
				}
			}
			for r := range wantMax {
				if gotMax[r] != wantMax[r] {
					rt.Fatalf("largest allocatable of resource %d: %d, want %d", r, gotMax[r], wantMax[r])
				}
			}
		}
	})
}
