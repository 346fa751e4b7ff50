package htmlpage

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// SVG is an inline drawing of a fixed size in CSS pixels. Shapes may carry a title: the
// browser shows it on hover, and it keeps the drawing's content in the page's text.
type SVG struct {
	W, H float64
	buf  bytes.Buffer
}

// NewSVG is an empty drawing w by h pixels.
func NewSVG(w, h float64) *SVG { return &SVG{W: w, H: h} }

// Style is how a shape is painted; empty fields are SVG's defaults (no stroke, black fill).
type Style struct {
	Fill, Stroke string
	StrokeWidth  float64
	// Dash is a stroke-dasharray ("4 3"); Opacity a fill-opacity (0: opaque).
	Dash    string
	Opacity float64
	// Radius rounds a rectangle's corners.
	Radius float64
}

func (st Style) attrs() string {
	var b strings.Builder
	if st.Fill != "" {
		fmt.Fprintf(&b, ` fill="%s"`, html.EscapeString(st.Fill))
	}
	if st.Stroke != "" {
		fmt.Fprintf(&b, ` stroke="%s" stroke-width="%s"`, html.EscapeString(st.Stroke), num(max(st.StrokeWidth, 1)))
	}
	if st.Dash != "" {
		fmt.Fprintf(&b, ` stroke-dasharray="%s"`, html.EscapeString(st.Dash))
	}
	if st.Opacity > 0 {
		fmt.Fprintf(&b, ` fill-opacity="%s"`, num(st.Opacity))
	}
	if st.Radius > 0 {
		fmt.Fprintf(&b, ` rx="%s"`, num(st.Radius))
	}
	return b.String()
}

// num prints a coordinate with at most two decimals.
func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// shape writes an element, with a <title> child when title is not empty.
func (s *SVG) shape(tag, attrs, title string) {
	if title == "" {
		fmt.Fprintf(&s.buf, "<%s%s/>\n", tag, attrs)
		return
	}
	fmt.Fprintf(&s.buf, "<%s%s><title>%s</title></%s>\n", tag, attrs, html.EscapeString(title), tag)
}

// Rect draws a rectangle.
func (s *SVG) Rect(x, y, w, h float64, st Style, title string) {
	s.shape("rect", fmt.Sprintf(` x="%s" y="%s" width="%s" height="%s"%s`, num(x), num(y), num(max(w, 0)), num(max(h, 0)), st.attrs()), title)
}

// Line draws a segment.
func (s *SVG) Line(x1, y1, x2, y2 float64, st Style) {
	s.shape("line", fmt.Sprintf(` x1="%s" y1="%s" x2="%s" y2="%s"%s`, num(x1), num(y1), num(x2), num(y2), st.attrs()), "")
}

// Arrow draws a segment with a filled head at (x2, y2).
func (s *SVG) Arrow(x1, y1, x2, y2 float64, color string) {
	s.Line(x1, y1, x2, y2, Style{Stroke: color, StrokeWidth: 2})
	a := math.Atan2(y2-y1, x2-x1)
	const l, w = 10.0, 5.0
	bx, by := x2-l*math.Cos(a), y2-l*math.Sin(a)
	p := [][2]float64{{x2, y2}, {bx + w*math.Sin(a), by - w*math.Cos(a)}, {bx - w*math.Sin(a), by + w*math.Cos(a)}}
	s.shape("polygon", fmt.Sprintf(` points="%s,%s %s,%s %s,%s" fill="%s"`, num(p[0][0]), num(p[0][1]), num(p[1][0]), num(p[1][1]), num(p[2][0]), num(p[2][1]), html.EscapeString(color)), "")
}

// Anchor is where a text sits relative to its x.
type Anchor string

// Text anchors.
const (
	Start  Anchor = "start"
	Middle Anchor = "middle"
	End    Anchor = "end"
)

// TextStyle is how a text is written.
type TextStyle struct {
	Size   float64 // px; 0: 12
	Color  string
	Bold   bool
	Anchor Anchor
	// Halo outlines the letters in white, readable over any fill.
	Halo bool
}

// Text writes one line of text with its baseline at y.
func (s *SVG) Text(x, y float64, ts TextStyle, text string) {
	size := ts.Size
	if size == 0 {
		size = 12
	}
	attrs := fmt.Sprintf(` x="%s" y="%s" font-size="%s"`, num(x), num(y), num(size))
	if ts.Color != "" {
		attrs += ` fill="` + html.EscapeString(ts.Color) + `"`
	}
	if ts.Bold {
		attrs += ` font-weight="600"`
	}
	if ts.Halo {
		attrs += ` paint-order="stroke" stroke="#fff" stroke-width="3" stroke-linejoin="round"`
	}
	if ts.Anchor != "" && ts.Anchor != Start {
		attrs += ` text-anchor="` + string(ts.Anchor) + `"`
	}
	fmt.Fprintf(&s.buf, "<text%s>%s</text>\n", attrs, html.EscapeString(text))
}

// Polyline draws the points joined, unfilled.
func (s *SVG) Polyline(xs, ys []float64, color string, width float64, title string) {
	var pts []string
	for i := range min(len(xs), len(ys)) {
		pts = append(pts, num(xs[i])+","+num(ys[i]))
	}
	s.shape("polyline", fmt.Sprintf(` points="%s" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round"`,
		strings.Join(pts, " "), html.EscapeString(color), num(max(width, 1))), title)
}

// Group wraps what draw adds in a <g> with a title (hovering anywhere in it shows it).
func (s *SVG) Group(title string, draw func()) {
	s.buf.WriteString("<g>")
	if title != "" {
		fmt.Fprintf(&s.buf, "<title>%s</title>", html.EscapeString(title))
	}
	s.buf.WriteString("\n")
	draw()
	s.buf.WriteString("</g>\n")
}

func (s *SVG) writeTo(w io.Writer) {
	fmt.Fprintf(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" role=\"img\">\n",
		num(s.W), num(s.H), num(s.W), num(s.H))
	w.Write(s.buf.Bytes())
	io.WriteString(w, "</svg>\n")
}

// String is the drawing as an <svg> element.
func (s *SVG) String() string {
	var b bytes.Buffer
	s.writeTo(&b)
	return b.String()
}
