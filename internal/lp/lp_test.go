package lp

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	gonumlp "gonum.org/v1/gonum/optimize/convex/lp"
	"pgregory.net/rapid"
)

// tb is what the helpers need of a *testing.T or *rapid.T.
type tb interface {
	require.TestingT
	Helper()
}

type col struct {
	cost float64
	rows []int
	vals []float64
}

// dense is a column with a coefficient in every row (zeros skipped by AddColumn).
func dense(cost float64, vals ...float64) col {
	c := col{cost: cost}
	for i, v := range vals {
		c.rows = append(c.rows, i)
		c.vals = append(c.vals, v)
	}
	return c
}

func build(t tb, senses []Sense, rhs []float64, cols []col) *Problem {
	p, err := New(senses, rhs)
	require.NoError(t, err)
	for _, c := range cols {
		_, err := p.AddColumn(c.cost, c.rows, c.vals)
		require.NoError(t, err)
	}
	return p
}

// TestHandSolved: small programs solved by hand (optimum, solution and row prices).
func TestHandSolved(t *testing.T) {
	G, L, E := GreaterEq, LessEq, Equal
	for _, tc := range []struct {
		name   string
		senses []Sense
		rhs    []float64
		cols   []col
		status Status
		obj    float64
		x      []float64
		duals  []float64
	}{
		{name: "covering: two rows meet at (8/5, 6/5)", senses: []Sense{G, G}, rhs: []float64{4, 6},
			cols: []col{dense(1, 1, 3), dense(1, 2, 1)}, status: Optimal, obj: 2.8, x: []float64{1.6, 1.2}, duals: []float64{0.4, 0.2}},
		{name: "packing (Hillier-Lieberman's Wyndor): max 3x+5y", senses: []Sense{L, L, L}, rhs: []float64{4, 12, 18},
			cols: []col{dense(-3, 1, 0, 3), dense(-5, 0, 2, 2)}, status: Optimal, obj: -36, x: []float64{2, 6}, duals: []float64{0, -1.5, -1}},
		{name: "equalities", senses: []Sense{E, E}, rhs: []float64{3, 1},
			cols: []col{dense(1, 1, 1), dense(1, 1, -1)}, status: Optimal, obj: 3, x: []float64{2, 1}, duals: []float64{1, 0}},
		{name: "negative right-hand side: -x <= -2 is x >= 2", senses: []Sense{L}, rhs: []float64{-2},
			cols: []col{dense(1, -1)}, status: Optimal, obj: 2, x: []float64{2}, duals: []float64{-1}},
		{name: "infeasible: x >= 2 and x <= 1", senses: []Sense{G, L}, rhs: []float64{2, 1},
			cols: []col{dense(1, 1, 1)}, status: Infeasible},
		{name: "infeasible without columns", senses: []Sense{G}, rhs: []float64{1}, status: Infeasible},
		{name: "no columns, zero right-hand side", senses: []Sense{G, E}, rhs: []float64{0, 0}, status: Optimal, obj: 0, duals: []float64{0, 0}},
		{name: "unbounded: min -x, x >= 1", senses: []Sense{G}, rhs: []float64{1},
			cols: []col{dense(-1, 1)}, status: Unbounded},
		// Beale's example cycles under Dantzig's rule with the textbook tie-break.
		{name: "Beale's cycling example", senses: []Sense{L, L, L}, rhs: []float64{0, 0, 1},
			cols:   []col{dense(-0.75, 0.25, 0.5, 0), dense(150, -60, -90, 0), dense(-0.02, -0.04, -0.02, 1), dense(6, 9, 3, 0)},
			status: Optimal, obj: -0.05, x: []float64{0.04, 0, 1, 0}},
		{name: "redundant equality rows", senses: []Sense{E, E}, rhs: []float64{2, 4},
			cols: []col{dense(1, 1, 2), dense(2, 1, 2)}, status: Optimal, obj: 2, x: []float64{2, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, tc.senses, tc.rhs, tc.cols)
			require.Equal(t, tc.status, p.Solve())
			if tc.status != Optimal {
				return
			}
			require.InDelta(t, tc.obj, p.Objective(), 1e-9)
			for j, want := range tc.x {
				require.InDelta(t, want, p.Value(j), 1e-9, "x[%d]", j)
			}
			for i, want := range tc.duals {
				require.InDelta(t, want, p.Dual(i), 1e-9, "dual[%d]", i)
			}
			requireCertificate(t, tc.senses, tc.rhs, tc.cols, p)
		})
	}
}

// requireCertificate checks an optimal answer without trusting the solver: x is feasible,
// the duals are feasible (signs and reduced costs) and b·y equals c·x.
func requireCertificate(t tb, senses []Sense, rhs []float64, cols []col, p *Problem) {
	t.Helper()
	const tol = 1e-6
	lhs := make([]float64, len(rhs))
	for j, c := range cols {
		x := p.Value(j)
		require.GreaterOrEqual(t, x, 0.0)
		for k, r := range c.rows {
			lhs[r] += c.vals[k] * x
		}
		require.GreaterOrEqual(t, p.ReducedCost(c.cost, c.rows, c.vals), -tol, "reduced cost of column %d", j)
	}
	by := 0.0
	for i, s := range senses {
		y := p.Dual(i)
		by += y * rhs[i]
		switch s {
		case GreaterEq:
			require.GreaterOrEqual(t, lhs[i], rhs[i]-tol, "row %d", i)
			require.GreaterOrEqual(t, y, -tol, "dual of >= row %d", i)
		case LessEq:
			require.LessOrEqual(t, lhs[i], rhs[i]+tol, "row %d", i)
			require.LessOrEqual(t, y, tol, "dual of <= row %d", i)
		case Equal:
			require.InDelta(t, rhs[i], lhs[i], tol, "row %d", i)
		}
	}
	require.InDelta(t, p.Objective(), by, tol*(1+math.Abs(by)), "strong duality")
}

func TestBadInput(t *testing.T) {
	_, err := New([]Sense{GreaterEq}, []float64{math.NaN()})
	require.Error(t, err)
	_, err = New([]Sense{GreaterEq}, nil)
	require.Error(t, err)
	_, err = New([]Sense{7}, []float64{1})
	require.Error(t, err)
	p, err := New([]Sense{GreaterEq}, []float64{1})
	require.NoError(t, err)
	for _, c := range []col{
		{cost: math.Inf(1), rows: []int{0}, vals: []float64{1}},
		{cost: 1, rows: []int{1}, vals: []float64{1}},
		{cost: 1, rows: []int{0, 0}, vals: []float64{1, 1}},
		{cost: 1, rows: []int{0}, vals: []float64{math.NaN()}},
		{cost: 1, rows: []int{0}},
	} {
		_, err := p.AddColumn(c.cost, c.rows, c.vals)
		require.Error(t, err, "%+v", c)
	}
	require.Equal(t, 0, p.Columns())
}

// program draws a random small LP with ≤ and ≥ rows (gonum's Convert takes only those with a
// full-rank standard form) whose every column has a nonzero coefficient.
func program(t *rapid.T) ([]Sense, []float64, []col) {
	m := rapid.IntRange(1, 5).Draw(t, "rows")
	n := rapid.IntRange(1, 6).Draw(t, "columns")
	senses := make([]Sense, m)
	rhs := make([]float64, m)
	for i := range m {
		senses[i] = rapid.SampledFrom([]Sense{GreaterEq, LessEq}).Draw(t, "sense")
		rhs[i] = float64(rapid.IntRange(-4, 10).Draw(t, "rhs"))
	}
	cols := make([]col, n)
	for j := range n {
		c := col{cost: float64(rapid.IntRange(-3, 6).Draw(t, "cost"))}
		for i := range m {
			if v := rapid.IntRange(-3, 5).Draw(t, "a"); v != 0 {
				c.rows = append(c.rows, i)
				c.vals = append(c.vals, float64(v))
			}
		}
		if len(c.rows) == 0 {
			c.rows, c.vals = []int{rapid.IntRange(0, m-1).Draw(t, "row")}, []float64{1}
		}
		cols[j] = c
	}
	return senses, rhs, cols
}

// gonumSolve solves the program with gonum's simplex: x ≥ 0 as -x ≤ 0 rows, ≥ rows negated.
func gonumSolve(senses []Sense, rhs []float64, cols []col) (float64, error) {
	m, n := len(rhs), len(cols)
	g := mat.NewDense(m+n, n, nil)
	h := make([]float64, m+n)
	c := make([]float64, n)
	for j, cl := range cols {
		c[j] = cl.cost
		for k, r := range cl.rows {
			v := cl.vals[k]
			if senses[r] == GreaterEq {
				v = -v
			}
			g.Set(r, j, v)
		}
		g.Set(m+j, j, -1)
	}
	for i, b := range rhs {
		if senses[i] == GreaterEq {
			b = -b
		}
		h[i] = b
	}
	cNew, aNew, bNew := gonumlp.Convert(c, g, h, nil, nil)
	f, _, err := gonumlp.Simplex(cNew, aNew, bNew, 1e-10, nil)
	return f, err
}

// TestAgreesWithGonum: on random programs both solvers find the same status and optimum,
// and every optimum comes with a valid certificate.
func TestAgreesWithGonum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		senses, rhs, cols := program(t)
		p := build(t, senses, rhs, cols)
		st := p.Solve()
		want, err := gonumSolve(senses, rhs, cols)
		switch {
		case errors.Is(err, gonumlp.ErrInfeasible):
			require.Equal(t, Infeasible, st)
		case errors.Is(err, gonumlp.ErrUnbounded):
			require.Equal(t, Unbounded, st)
		case err != nil:
			t.Skipf("gonum: %v", err) // its numerical failures say nothing about this solver
		default:
			require.Equal(t, Optimal, st)
			require.InDelta(t, want, p.Objective(), 1e-7*(1+math.Abs(want)))
			requireCertificate(t, senses, rhs, cols, p)
		}
	})
}

// TestAddingColumnsResumes: adding columns one at a time and solving after each reaches the
// optimum of solving them all at once (column generation's use), and solving again without
// a change changes nothing.
func TestAddingColumnsResumes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		senses, rhs, cols := program(t)
		all := build(t, senses, rhs, cols)
		st := all.Solve()
		p := build(t, senses, rhs, nil)
		var last Status
		for _, c := range cols {
			_, err := p.AddColumn(c.cost, c.rows, c.vals)
			require.NoError(t, err)
			last = p.Solve()
			if last == Unbounded {
				break
			}
		}
		if st == Unbounded {
			return // an earlier prefix may be infeasible or bounded: only the end is comparable
		}
		require.Equal(t, st, last)
		if st == Optimal {
			require.InDelta(t, all.Objective(), p.Objective(), 1e-7*(1+math.Abs(all.Objective())))
			requireCertificate(t, senses, rhs, cols, p)
			before := p.Objective()
			require.Equal(t, Optimal, p.Solve())
			require.Equal(t, before, p.Objective())
		}
	})
}

// TestDeterministic: the same calls give bit-identical answers.
func TestDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		senses, rhs, cols := program(t)
		a, b := build(t, senses, rhs, cols), build(t, senses, rhs, cols)
		require.Equal(t, a.Solve(), b.Solve())
		require.Equal(t, a.Objective(), b.Objective())
		for i := range rhs {
			require.Equal(t, a.Dual(i), b.Dual(i))
		}
	})
}

// TestLargerCoveringProgram: a covering program of the bound's shape (200 rows, 2,000
// columns) solves to a certified optimum, through several refactorisations.
func TestLargerCoveringProgram(t *testing.T) {
	const m, n = 200, 2000
	senses := make([]Sense, m)
	rhs := make([]float64, m)
	for i := range rhs {
		rhs[i] = 1 + float64(i%7)/7
	}
	var cols []col
	seed := uint64(7)
	next := func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed >> 33 }
	for j := range n {
		c := col{cost: 1 + float64(next()%1000)/100}
		for _, r := range []int{j % m, int(next() % m), int(next() % m)} {
			if !containsInt(c.rows, r) {
				c.rows = append(c.rows, r)
				c.vals = append(c.vals, 0.5+float64(next()%100)/50)
			}
		}
		cols = append(cols, c)
	}
	p := build(t, senses, rhs, cols)
	require.Equal(t, Optimal, p.Solve())
	requireCertificate(t, senses, rhs, cols, p)
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
