package scheduling

import (
	"cmp"
	"math"
	"slices"

	"github.com/nodeplan/nodeplan/internal/lp"
)

// The bound's program, for classes c, resources k (the dims) and columns j (an offering at
// price p_j with allocatable a_jk, or a group of existing nodes with room a_jk at price 0):
//
//	minimise Σ_j p_j·y_j
//	such that Σ_{j serving c} z_cjk ≥ D_ck   for every class c and resource k
//	          Σ_c z_cjk ≤ a_jk·y_j           for every column j and resource k
//	          Σ_{j in group g} y_j ≤ L_g      for every existing-node group and reservation
//
// (D_ck the class's requests summed). Any plan gives a solution: y_j the nodes it launches on
// offering j, z the requests its pods of class c put there; so the optimum is a lower bound.
// It is solved by column generation: a master column is one node of j with each resource
// given whole to one class (a mix of them splits it), rows are scaled to a demand of 1, and
// the column to add is found from the master's row prices w_ck (per unit of resource): j's
// best use is Σ_k a_jk·max_c w_ck.

// maxBoundRounds caps column generation; the bound is valid wherever it stops.
const maxBoundRounds = 300

// boundSolution is the solved program: the certified bound and the nodes bought per column.
type boundSolution struct {
	bound  float64
	nodes  []float64
	rounds int
}

func (prog *boundProgram) solve() boundSolution {
	K := len(prog.dims)
	var senses []lp.Sense
	var rhs []float64
	rowOf := make([]int, len(prog.classes)*K)
	for c, cl := range prog.classes {
		for k, d := range cl.demand {
			rowOf[c*K+k] = -1
			if d > 0 {
				rowOf[c*K+k] = len(rhs)
				senses, rhs = append(senses, lp.GreaterEq), append(rhs, 1)
			}
		}
	}
	limitRow := make([]int, len(prog.limits))
	for g, l := range prog.limits {
		limitRow[g] = len(rhs)
		senses, rhs = append(senses, lp.LessEq), append(rhs, l)
	}
	master, err := lp.New(senses, rhs)
	if err != nil {
		return boundSolution{nodes: make([]float64, len(prog.columns))} // only from NaN limits: no bound
	}
	type masterColumn struct {
		column int
		scale  float64
	}
	var added []masterColumn
	add := func(j int, assign []int32) {
		col := &prog.columns[j]
		var rows []int
		var vals []float64
		scale := 0.0
		for k, c := range assign {
			if c < 0 || rowOf[int(c)*K+k] < 0 || col.capacity[k] <= 0 {
				continue
			}
			v := col.capacity[k] / prog.classes[c].demand[k]
			rows, vals = append(rows, rowOf[int(c)*K+k]), append(vals, v)
			scale = max(scale, v)
		}
		if len(rows) == 0 {
			return
		}
		if col.limit >= 0 {
			rows, vals = append(rows, limitRow[col.limit]), append(vals, 1)
			scale = max(scale, 1)
		}
		for i := range vals {
			vals[i] /= scale
		}
		if _, err := master.AddColumn(col.price/scale, rows, vals); err == nil {
			added = append(added, masterColumn{j, scale})
		}
	}
	// Start with each class served alone by the offering that covers its demand cheapest.
	for c, cl := range prog.classes {
		best, bestCost := -1, math.Inf(1)
		for _, j := range cl.columns {
			col := &prog.columns[j]
			if col.limit >= 0 {
				continue
			}
			need := 0.0
			for k, d := range cl.demand {
				if d > 0 {
					need = max(need, d/col.capacity[k])
				}
			}
			if cost := col.price * need; cost < bestCost {
				best, bestCost = j, cost
			}
		}
		if best >= 0 {
			assign := make([]int32, K)
			for k := range assign {
				assign[k] = int32(c)
			}
			add(best, assign)
		}
	}
	maxPrice := 0.0
	for _, col := range prog.columns {
		maxPrice = max(maxPrice, col.price)
	}
	eps := 1e-9 * max(maxPrice, 1e-9)
	w := make([]float64, len(prog.classes)*K)
	zl := make([]float64, len(prog.limits))
	type candidate struct {
		column int
		rc     float64
		assign []int32
	}
	sol := boundSolution{nodes: make([]float64, len(prog.columns))}
	solved := false
	for sol.rounds < maxBoundRounds {
		sol.rounds++
		if master.Solve() != lp.Optimal {
			break
		}
		solved = true
		for c, cl := range prog.classes {
			for k, d := range cl.demand {
				w[c*K+k] = 0
				if r := rowOf[c*K+k]; r >= 0 {
					w[c*K+k] = max(master.Dual(r), 0) / d
				}
			}
		}
		for g, r := range limitRow {
			zl[g] = max(-master.Dual(r), 0)
		}
		var cands []candidate
		for j := range prog.columns {
			col := &prog.columns[j]
			assign, use := prog.bestUse(col, w)
			rc := col.price - use
			if col.limit >= 0 {
				rc += zl[col.limit]
			}
			if rc < -eps {
				cands = append(cands, candidate{j, rc, assign})
			}
		}
		if len(cands) == 0 {
			break
		}
		slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(a.rc, b.rc) })
		for _, cd := range cands[:min(len(cands), len(rhs))] {
			add(cd.column, cd.assign)
		}
	}
	if !solved {
		return sol
	}
	for i, mc := range added {
		sol.nodes[mc.column] += master.Value(i) / mc.scale
	}
	sol.bound = prog.certify(w)
	return sol
}

// bestUse is what one node of col is worth at the row prices w: each resource given to the
// class that values it most (the first of equals), and the total.
func (prog *boundProgram) bestUse(col *boundColumn, w []float64) ([]int32, float64) {
	K := len(prog.dims)
	assign := make([]int32, K)
	total := 0.0
	for k := range assign {
		assign[k] = -1
		best := 0.0
		for _, c := range col.classes {
			if v := w[int(c)*K+k]; v > best {
				best, assign[k] = v, c
			}
		}
		total += col.capacity[k] * best
	}
	return assign, total
}

// certify turns row prices w (per unit of resource, ≥ 0) into a lower bound by weak
// duality: scaled down until no offering is worth more than its price, they price the
// classes' demand, less what the limited columns (existing nodes, reservations) are worth
// beyond their price times their limit. Valid for any w, so a program cut short, or solved
// only to tolerance, still gives a true bound.
func (prog *boundProgram) certify(w []float64) float64 {
	K := len(prog.dims)
	w = slices.Clone(w)
	// A class a free unlimited offering serves is worth nothing.
	for _, col := range prog.columns {
		if col.limit < 0 && col.price <= 0 {
			for _, c := range col.classes {
				clear(w[int(c)*K : int(c+1)*K])
			}
		}
	}
	theta := 1.0
	for j := range prog.columns {
		col := &prog.columns[j]
		if col.limit >= 0 {
			continue
		}
		if _, use := prog.bestUse(col, w); use > col.price*theta {
			theta = use / col.price
		}
	}
	for i := range w {
		w[i] /= theta
	}
	bound := 0.0
	for c, cl := range prog.classes {
		for k, d := range cl.demand {
			bound += d * w[c*K+k]
		}
	}
	excess := make([]float64, len(prog.limits))
	for j := range prog.columns {
		col := &prog.columns[j]
		if col.limit < 0 {
			continue
		}
		if _, use := prog.bestUse(col, w); use-col.price > excess[col.limit] {
			excess[col.limit] = use - col.price
		}
	}
	for g, x := range excess {
		bound -= prog.limits[g] * x
	}
	return max(bound, 0)
}
