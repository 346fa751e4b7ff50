// Package lp solves small linear programs: minimise c·x subject to rows Σ_j a_ij·x_j ≥, ≤ or
// = b_i and x ≥ 0, with the revised simplex method (a dense basis inverse, Dantzig's pricing,
// Bland's rule when pivots stall). Columns can be added after a Solve and the problem solved
// again from the last basis, which column generation needs; Dual gives the row prices that
// say which column to add next.
//
// It is meant for problems of up to a few hundred rows and some thousands of columns whose
// coefficients the caller has scaled to moderate magnitudes: its tolerances are absolute
// (Tolerance). It is pure and deterministic: no goroutines, no randomness, no map iteration;
// the same calls give bit-identical results. Bad numbers (NaN, infinities) are errors, never
// panics. It never decides anything about Kubernetes: scheduling builds its cost bound on it.
//
// gonum's lp.Simplex is the test oracle (internal/lp's tests compare the two on random
// programs); it is not used here because it keeps the whole constraint matrix dense, returns
// no duals and cannot add a column to a solved problem.
package lp

import (
	"fmt"
	"math"
)

// Sense is the direction of a row.
type Sense int8

// Row senses.
const (
	GreaterEq Sense = iota // Σ a·x ≥ b
	LessEq                 // Σ a·x ≤ b
	Equal                  // Σ a·x = b
)

// Status is the outcome of Solve.
type Status int8

// Outcomes.
const (
	Optimal        Status = iota
	Infeasible            // no x ≥ 0 satisfies the rows
	Unbounded             // the objective decreases without limit
	IterationLimit        // MaxIterations pivots without an answer (the basis is kept)
)

func (s Status) String() string {
	switch s {
	case Optimal:
		return "Optimal"
	case Infeasible:
		return "Infeasible"
	case Unbounded:
		return "Unbounded"
	case IterationLimit:
		return "IterationLimit"
	}
	return fmt.Sprintf("Status(%d)", int8(s))
}

// Tolerance is the absolute tolerance for feasibility, optimality and pivots.
const Tolerance = 1e-9

// stallLimit is how many pivots in a row may leave the objective unchanged before Bland's
// rule (which cannot cycle) replaces Dantzig's.
const stallLimit = 50

// refactorEvery is how many pivots the product-form updates of the basis inverse run
// before it is computed again from the basis columns.
const refactorEvery = 64

type kind int8

const (
	structural kind = iota
	slack
	artificial
)

type column struct {
	cost float64
	rows []int
	vals []float64
	kind kind
}

// Problem is a linear program being solved. The zero value is not usable; call New.
type Problem struct {
	// MaxIterations caps the pivots of one Solve (0: 50,000 + 50 per row and column).
	MaxIterations int

	m     int
	sense []Sense
	rhs   []float64 // flipped to b ≥ 0
	flip  []bool    // the row was multiplied by -1
	cols  []column  // slacks and artificials first, then the caller's columns
	user  []int     // the caller's column j is cols[user[j]]

	basis   []int // basis[r] is the column basic in position r
	pos     []int // pos[j] is the basis position of column j, or -1
	binv    []float64
	xb      []float64
	phase   int // 1 until the artificials are zero, then 2
	pivots  int // since the basis inverse was last computed
	stalled int
	status  Status
	y       []float64 // duals of the last Solve, in the flipped rows
}

// New returns a program with the given rows and no columns.
func New(senses []Sense, rhs []float64) (*Problem, error) {
	if len(senses) != len(rhs) {
		return nil, fmt.Errorf("lp: %d senses for %d right-hand sides", len(senses), len(rhs))
	}
	m := len(rhs)
	p := &Problem{m: m, sense: make([]Sense, m), rhs: make([]float64, m), flip: make([]bool, m), phase: 1}
	for i, b := range rhs {
		if math.IsNaN(b) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("lp: row %d: right-hand side %v", i, b)
		}
		s := senses[i]
		if s != GreaterEq && s != LessEq && s != Equal {
			return nil, fmt.Errorf("lp: row %d: unknown sense %d", i, s)
		}
		if b < 0 {
			b, p.flip[i] = -b, true
			switch s {
			case GreaterEq:
				s = LessEq
			case LessEq:
				s = GreaterEq
			}
		}
		p.sense[i], p.rhs[i] = s, b
	}
	// The starting basis: the slack of each ≤ row, an artificial for every other row; both
	// are unit columns, so the basis inverse starts as the identity.
	p.basis = make([]int, m)
	for i := range m {
		switch p.sense[i] {
		case LessEq:
			p.basis[i] = p.add(column{rows: []int{i}, vals: []float64{1}, kind: slack})
		case GreaterEq:
			p.add(column{rows: []int{i}, vals: []float64{-1}, kind: slack})
			p.basis[i] = p.add(column{rows: []int{i}, vals: []float64{1}, kind: artificial})
		case Equal:
			p.basis[i] = p.add(column{rows: []int{i}, vals: []float64{1}, kind: artificial})
		}
	}
	for i, j := range p.basis {
		p.pos[j] = i
	}
	p.binv = make([]float64, m*m)
	for i := range m {
		p.binv[i*m+i] = 1
	}
	p.xb = append([]float64(nil), p.rhs...)
	p.y = make([]float64, m)
	return p, nil
}

func (p *Problem) add(c column) int {
	p.cols = append(p.cols, c)
	p.pos = append(p.pos, -1)
	return len(p.cols) - 1
}

// AddColumn adds a variable x_j ≥ 0 with the given cost and its nonzero coefficients in the
// given rows, and returns j (0, 1, … in the order added). The current basis stays, so the
// next Solve starts from the last one.
func (p *Problem) AddColumn(cost float64, rows []int, values []float64) (int, error) {
	j := len(p.user)
	if len(rows) != len(values) {
		return 0, fmt.Errorf("lp: column %d: %d rows for %d values", j, len(rows), len(values))
	}
	if math.IsNaN(cost) || math.IsInf(cost, 0) {
		return 0, fmt.Errorf("lp: column %d: cost %v", j, cost)
	}
	c := column{cost: cost, kind: structural}
	seen := map[int]bool{}
	for k, r := range rows {
		v := values[k]
		if r < 0 || r >= p.m {
			return 0, fmt.Errorf("lp: column %d: row %d out of range [0, %d)", j, r, p.m)
		}
		if seen[r] {
			return 0, fmt.Errorf("lp: column %d: row %d given twice", j, r)
		}
		seen[r] = true
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("lp: column %d: row %d: coefficient %v", j, r, v)
		}
		if v == 0 {
			continue
		}
		if p.flip[r] {
			v = -v
		}
		c.rows = append(c.rows, r)
		c.vals = append(c.vals, v)
	}
	p.user = append(p.user, p.add(c))
	return j, nil
}

// Columns is the number of columns added.
func (p *Problem) Columns() int { return len(p.user) }

// Rows is the number of rows.
func (p *Problem) Rows() int { return p.m }

// Solve optimises from the current basis and returns the outcome.
func (p *Problem) Solve() Status {
	limit := p.MaxIterations
	if limit <= 0 {
		limit = 50000 + 50*(p.m+len(p.cols))
	}
	if p.phase == 1 {
		st, used := p.iterate(limit)
		limit -= used
		switch {
		case st == IterationLimit:
			p.status = st
			return st
		case p.infeasibility() > Tolerance*float64(1+p.m):
			p.status = Infeasible
			p.duals()
			return Infeasible
		}
		p.phase = 2
		p.driveOutArtificials()
	}
	st, _ := p.iterate(limit)
	p.status = st
	p.duals()
	return st
}

// Objective is c·x at the last Solve's basis.
func (p *Problem) Objective() float64 {
	z := 0.0
	for j := range p.user {
		z += p.cols[p.user[j]].cost * p.Value(j)
	}
	return z
}

// Value is x_j at the last Solve's basis.
func (p *Problem) Value(j int) float64 {
	if r := p.pos[p.user[j]]; r >= 0 {
		return max(p.xb[r], 0)
	}
	return 0
}

// Dual is row i's price at the last Solve's basis: at an optimum, c_j − Σ_i Dual(i)·a_ij ≥ 0
// for every column, Dual ≥ 0 on ≥ rows and ≤ 0 on ≤ rows, and Σ_i Dual(i)·b_i is the optimum.
func (p *Problem) Dual(i int) float64 {
	if p.flip[i] {
		return -p.y[i]
	}
	return p.y[i]
}

// ReducedCost is c − Σ_i Dual(i)·a_i of a column not (yet) in the program, given as AddColumn
// takes it: negative means adding it would lower the objective.
func (p *Problem) ReducedCost(cost float64, rows []int, values []float64) float64 {
	d := cost
	for k, r := range rows {
		d -= p.Dual(r) * values[k]
	}
	return d
}

// cost is column j's cost in the current phase.
func (p *Problem) cost(j int) float64 {
	c := &p.cols[j]
	if p.phase == 1 {
		if c.kind == artificial {
			return 1
		}
		return 0
	}
	if c.kind == artificial {
		return 0
	}
	return c.cost
}

func (p *Problem) infeasibility() float64 {
	s := 0.0
	for r, j := range p.basis {
		if p.cols[j].kind == artificial {
			s += max(p.xb[r], 0)
		}
	}
	return s
}

// duals sets y = c_B·B⁻¹ for the current phase's costs.
func (p *Problem) duals() {
	m := p.m
	clear(p.y)
	for r, j := range p.basis {
		c := p.cost(j)
		if c == 0 {
			continue
		}
		row := p.binv[r*m : (r+1)*m]
		for i, v := range row {
			p.y[i] += c * v
		}
	}
}

// iterate pivots until the current phase is optimal, unbounded or out of iterations.
func (p *Problem) iterate(limit int) (Status, int) {
	alpha := make([]float64, p.m)
	for it := 0; ; it++ {
		if it >= limit {
			return IterationLimit, it
		}
		p.duals()
		q := p.entering()
		if q < 0 {
			return Optimal, it
		}
		p.direction(q, alpha)
		r, theta := p.leaving(alpha)
		if r < 0 {
			return Unbounded, it
		}
		if theta <= Tolerance {
			p.stalled++
		} else {
			p.stalled = 0
		}
		p.pivot(r, q, alpha, theta)
	}
}

// entering picks the column to enter the basis: the most negative reduced cost (Dantzig),
// or while stalled the first negative one (Bland); -1 when none is negative.
func (p *Problem) entering() int {
	bland := p.stalled > stallLimit
	best, bestD := -1, -Tolerance
	for j := range p.cols {
		if p.pos[j] >= 0 {
			continue
		}
		c := &p.cols[j]
		if c.kind == artificial {
			continue // an artificial that left never comes back
		}
		d := p.cost(j)
		for k, r := range c.rows {
			d -= p.y[r] * c.vals[k]
		}
		if d < bestD {
			best, bestD = j, d
			if bland {
				return j
			}
		}
	}
	return best
}

// direction sets alpha = B⁻¹·a_q.
func (p *Problem) direction(q int, alpha []float64) {
	m := p.m
	clear(alpha)
	c := &p.cols[q]
	for k, row := range c.rows {
		v := c.vals[k]
		for r := range m {
			alpha[r] += p.binv[r*m+row] * v
		}
	}
}

// leaving is the ratio test: the basis position whose variable reaches its bound first as
// the entering one grows, and the step. A basic artificial in phase 2 is fixed at zero, so
// any move of it blocks at once. Among ties it takes the largest pivot (or, while stalled,
// the lowest column index, as Bland's rule requires).
func (p *Problem) leaving(alpha []float64) (int, float64) {
	theta := math.Inf(1)
	ratio := func(r int) (float64, bool) {
		a := alpha[r]
		if p.phase == 2 && p.cols[p.basis[r]].kind == artificial {
			return 0, math.Abs(a) > Tolerance
		}
		if a > Tolerance {
			return max(p.xb[r], 0) / a, true
		}
		return 0, false
	}
	for r := range p.m {
		if t, ok := ratio(r); ok && t < theta {
			theta = t
		}
	}
	if math.IsInf(theta, 1) {
		return -1, 0
	}
	bland := p.stalled > stallLimit
	best := -1
	for r := range p.m {
		t, ok := ratio(r)
		if !ok || t > theta+Tolerance {
			continue
		}
		switch {
		case best < 0:
			best = r
		case bland:
			if p.basis[r] < p.basis[best] {
				best = r
			}
		case math.Abs(alpha[r]) > math.Abs(alpha[best]):
			best = r
		}
	}
	t, _ := ratio(best)
	return best, t
}

// pivot makes column q basic in position r.
func (p *Problem) pivot(r, q int, alpha []float64, theta float64) {
	m := p.m
	for i := range m {
		if i != r {
			p.xb[i] -= theta * alpha[i]
		}
	}
	p.xb[r] = theta
	pr := p.binv[r*m : (r+1)*m]
	inv := 1 / alpha[r]
	for k := range pr {
		pr[k] *= inv
	}
	for i := range m {
		if i == r || alpha[i] == 0 {
			continue
		}
		a := alpha[i]
		row := p.binv[i*m : (i+1)*m]
		for k, v := range pr {
			row[k] -= a * v
		}
	}
	p.pos[p.basis[r]] = -1
	p.basis[r] = q
	p.pos[q] = r
	p.pivots++
	if p.pivots >= refactorEvery {
		p.refactor()
	}
}

// driveOutArtificials pivots the artificials still basic (at zero) after phase 1 out of the
// basis where some other column can take their place; the rest stay fixed at zero.
func (p *Problem) driveOutArtificials() {
	alpha := make([]float64, p.m)
	for r := range p.m {
		if p.cols[p.basis[r]].kind != artificial {
			continue
		}
		for j := range p.cols {
			if p.pos[j] >= 0 || p.cols[j].kind == artificial {
				continue
			}
			p.direction(j, alpha)
			if math.Abs(alpha[r]) > 1e-7 {
				p.pivot(r, j, alpha, 0)
				break
			}
		}
	}
}

// refactor computes the basis inverse again from the basis columns (Gauss-Jordan with
// partial pivoting) and the basic values from it, shedding the updates' rounding. A basis
// that proves singular keeps the updated inverse.
func (p *Problem) refactor() {
	m := p.m
	a := make([]float64, m*m) // B, column r is the basis column of position r
	for r, j := range p.basis {
		c := &p.cols[j]
		for k, row := range c.rows {
			a[row*m+r] = c.vals[k]
		}
	}
	inv := make([]float64, m*m)
	for i := range m {
		inv[i*m+i] = 1
	}
	for col := range m {
		piv, best := -1, 0.0
		for i := col; i < m; i++ {
			if v := math.Abs(a[i*m+col]); v > best {
				piv, best = i, v
			}
		}
		if piv < 0 || best < 1e-12 {
			return
		}
		if piv != col {
			swapRows(a, m, piv, col)
			swapRows(inv, m, piv, col)
		}
		d := 1 / a[col*m+col]
		for k := range m {
			a[col*m+k] *= d
			inv[col*m+k] *= d
		}
		for i := range m {
			if i == col {
				continue
			}
			f := a[i*m+col]
			if f == 0 {
				continue
			}
			for k := range m {
				a[i*m+k] -= f * a[col*m+k]
				inv[i*m+k] -= f * inv[col*m+k]
			}
		}
	}
	// inv is B⁻¹ with rows in basis-position order: B·e_r is position r's column, so row r of
	// B⁻¹ gives position r's value.
	p.binv = inv
	for r := range m {
		v := 0.0
		row := inv[r*m : (r+1)*m]
		for i, b := range p.rhs {
			v += row[i] * b
		}
		if v < 0 && v > -Tolerance {
			v = 0
		}
		p.xb[r] = v
	}
	p.pivots = 0
}

func swapRows(a []float64, m, i, j int) {
	ri, rj := a[i*m:(i+1)*m], a[j*m:(j+1)*m]
	for k := range ri {
		ri[k], rj[k] = rj[k], ri[k]
	}
}
