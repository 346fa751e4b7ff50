package htmlpage

import (
	"math"
	"strconv"
)

// Series is one named curve of a LineChart: Y[i] at X[i], X increasing.
type Series struct {
	Name  string
	X, Y  []float64
	Color string // "" : Color(Name)
}

// LineChart is curves over a shared x axis (time, pods, …) with axes, ticks and a legend.
type LineChart struct {
	Width, Height  float64 // 0: 720 by 280
	XLabel, YLabel string
	Series         []Series
}

// SVG draws the chart.
func (c LineChart) SVG() *SVG {
	w, h := c.Width, c.Height
	if w == 0 {
		w = 720
	}
	if h == 0 {
		h = 280
	}
	const left, right, top, bottom = 64.0, 16.0, 28.0, 44.0
	s := NewSVG(w, h)
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), 0.0, math.Inf(-1)
	for _, se := range c.Series {
		for i := range min(len(se.X), len(se.Y)) {
			xmin, xmax = math.Min(xmin, se.X[i]), math.Max(xmax, se.X[i])
			ymin, ymax = math.Min(ymin, se.Y[i]), math.Max(ymax, se.Y[i])
		}
	}
	if math.IsInf(xmin, 1) {
		xmin, xmax, ymax = 0, 1, 1
	}
	if xmax == xmin {
		xmax = xmin + 1
	}
	ticks := niceTicks(ymin, ymax, 5)
	ymin, ymax = ticks[0], ticks[len(ticks)-1]
	if ymax == ymin {
		ymax = ymin + 1
	}
	px := func(x float64) float64 { return left + (x-xmin)/(xmax-xmin)*(w-left-right) }
	py := func(y float64) float64 { return h - bottom - (y-ymin)/(ymax-ymin)*(h-top-bottom) }
	axis := Style{Stroke: "#8c959f"}
	grid := Style{Stroke: "#d8dee4", Dash: "3 3"}
	for _, t := range ticks {
		s.Line(left, py(t), w-right, py(t), grid)
		s.Text(left-6, py(t)+4, TextStyle{Size: 11, Color: "#59636e", Anchor: End}, tickText(t))
	}
	for _, t := range niceTicks(xmin, xmax, 6) {
		if t < xmin || t > xmax {
			continue
		}
		s.Line(px(t), h-bottom, px(t), h-bottom+4, axis)
		s.Text(px(t), h-bottom+16, TextStyle{Size: 11, Color: "#59636e", Anchor: Middle}, tickText(t))
	}
	s.Line(left, h-bottom, w-right, h-bottom, axis)
	s.Line(left, top, left, h-bottom, axis)
	s.Text((left+w-right)/2, h-8, TextStyle{Size: 12, Anchor: Middle}, c.XLabel)
	s.Text(left, top-10, TextStyle{Size: 12, Anchor: Start}, c.YLabel)
	lx := w - right
	for i := len(c.Series) - 1; i >= 0; i-- {
		se := c.Series[i]
		color := se.Color
		if color == "" {
			color = Color(se.Name)
		}
		xs, ys := make([]float64, 0, len(se.X)), make([]float64, 0, len(se.Y))
		for j := range min(len(se.X), len(se.Y)) {
			xs, ys = append(xs, px(se.X[j])), append(ys, py(se.Y[j]))
		}
		s.Polyline(xs, ys, color, 2, se.Name)
		lx -= 8 + 7*float64(len(se.Name))
		s.Rect(lx, top-19, 10, 10, Style{Fill: color}, "")
		s.Text(lx+14, top-10, TextStyle{Size: 11}, se.Name)
		lx -= 14
	}
	return s
}

// niceTicks are about n round values covering [lo, hi] (steps of 1, 2 or 5 times a power of
// ten).
func niceTicks(lo, hi float64, n int) []float64 {
	if hi < lo {
		lo, hi = hi, lo
	}
	span := hi - lo
	if span == 0 {
		span = math.Max(math.Abs(hi), 1)
	}
	raw := span / float64(max(n-1, 1))
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := p
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var out []float64
	for t := math.Floor(lo/step) * step; t <= hi+step/2; t += step {
		out = append(out, math.Round(t/step)*step)
		if len(out) > 4*n {
			break
		}
	}
	if out[len(out)-1] < hi {
		out = append(out, out[len(out)-1]+step)
	}
	return out
}

func tickText(t float64) string { return strconv.FormatFloat(t, 'g', 6, 64) }
