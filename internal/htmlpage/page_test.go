package htmlpage

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parse reads a page as XML (the page is well-formed) and returns its text and every element
// name with its attributes.
func parse(t *testing.T, page string) (text string, elems map[string][]xml.StartElement) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	elems = map[string][]xml.StartElement{}
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch x := tok.(type) {
		case xml.StartElement:
			elems[x.Name.Local] = append(elems[x.Name.Local], x.Copy())
		case xml.CharData:
			b.Write(x)
		}
	}
	return b.String(), elems
}

// TestPageIsSelfContainedAndEscaped: the page is well-formed, loads nothing from elsewhere
// (no script, no link, no src, no url()) and shows every text given, escaped.
func TestPageIsSelfContainedAndEscaped(t *testing.T) {
	p := New(`plan <"x"> & y`)
	p.Heading(1, "nodes & pods")
	p.Paragraph("note", "a <b> tag")
	p.Table([]string{"node", "$/h"}, [][]string{{"n-1", "0.1"}}, 1)
	p.Details("3 pods", []string{"default/a", "default/<b>"})
	s := NewSVG(200, 100)
	s.Rect(1, 2, 30, 40, Style{Fill: Color("a"), Stroke: "#000", Dash: "4 2", Radius: 3}, "pod default/a")
	s.Text(5, 20, TextStyle{Bold: true, Anchor: Middle}, "m5.large & <spot>")
	s.Arrow(0, 0, 50, 50, "#333")
	s.Group("group title", func() { s.Line(0, 0, 1, 1, Style{Stroke: "red"}) })
	p.Figure(s, "caption")
	p.Figure(LineChart{XLabel: "minutes", YLabel: "$/h", Series: []Series{{Name: "nodeplan", X: []float64{0, 1, 2}, Y: []float64{1, 3, 2}}}}.SVG(), "")
	var buf bytes.Buffer
	_, err := p.WriteTo(&buf)
	require.NoError(t, err)
	page := buf.String()
	text, elems := parse(t, page)
	for _, want := range []string{`plan <"x"> & y`, "nodes & pods", "a <b> tag", "default/<b>", "pod default/a", "m5.large & <spot>", "group title", "caption", "nodeplan"} {
		assert.Contains(t, text, want)
	}
	for _, tag := range []string{"script", "link", "img", "iframe", "object"} {
		assert.Empty(t, elems[tag], tag)
	}
	for _, es := range elems {
		for _, e := range es {
			for _, a := range e.Attr {
				assert.NotContains(t, []string{"src", "href"}, a.Name.Local, "%s loads %s", e.Name.Local, a.Value)
			}
		}
	}
	assert.NotContains(t, page, "url(")
	assert.NotContains(t, page, "@import")
	assert.Len(t, elems["svg"], 2)
	var again bytes.Buffer
	p.WriteTo(&again)
	assert.Equal(t, page, again.String(), "the same page twice")
}

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 10, []float64{0, 5, 10}},
		{0, 0.9, []float64{0, 0.5, 1}},
		{3, 97, []float64{0, 50, 100}},
		{5, 5, []float64{4, 6}},
	} {
		got := niceTicks(tc.lo, tc.hi, 5)
		assert.InDeltaSlice(t, tc.want, got, 1e-9, "%v..%v", tc.lo, tc.hi)
	}
}
