package htmlpage_test

import (
	"os"

	"github.com/nodeplan/nodeplan/internal/htmlpage"
)

// A page with a chart of two curves: what `nodeplan simulate -o html` draws.
func Example() {
	p := htmlpage.New("simulation")
	p.Heading(1, "Cost over time")
	chart := htmlpage.LineChart{XLabel: "minutes", YLabel: "$/hour", Series: []htmlpage.Series{
		{Name: "nodeplan", X: []float64{0, 10, 20}, Y: []float64{1.2, 0.9, 0.8}},
		{Name: "Karpenter", X: []float64{0, 10, 20}, Y: []float64{1.2, 1.1, 1.0}},
	}}
	p.Figure(chart.SVG(), "the cluster's price after each step")
	f, err := os.CreateTemp("", "page-*.html")
	if err != nil {
		return
	}
	defer os.Remove(f.Name())
	p.WriteTo(f)
	f.Close()
	// Output:
}
