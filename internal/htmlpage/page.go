// Package htmlpage writes one self-contained HTML page: a shell with its own stylesheet,
// headings, paragraphs, tables and inline SVG drawings (boxes, bars, arrows, line charts).
// The page loads nothing: no script, no font, no image, no stylesheet from elsewhere, so it
// opens the same from a file, a mail or an artifact store. Every text is escaped. It never
// reads the clock or the environment: the same calls give byte-identical pages.
package htmlpage

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"
)

// Page is an HTML document being written.
type Page struct {
	title string
	body  bytes.Buffer
}

// New is an empty page with this title.
func New(title string) *Page { return &Page{title: title} }

// Heading adds a heading of level 1 to 3.
func (p *Page) Heading(level int, text string) {
	level = min(max(level, 1), 3)
	fmt.Fprintf(&p.body, "<h%d>%s</h%d>\n", level, html.EscapeString(text), level)
}

// Paragraph adds a paragraph of text; class (optional) is one of the stylesheet's: note,
// warn, muted.
func (p *Page) Paragraph(class, text string) {
	fmt.Fprintf(&p.body, "<p%s>%s</p>\n", classAttr(class), html.EscapeString(text))
}

// List adds a bulleted list, each item's text escaped.
func (p *Page) List(items []string) {
	p.body.WriteString("<ul>\n")
	for _, it := range items {
		fmt.Fprintf(&p.body, "<li>%s</li>\n", html.EscapeString(it))
	}
	p.body.WriteString("</ul>\n")
}

// Table adds a table with a header row; numeric columns (by index) are right-aligned.
func (p *Page) Table(header []string, rows [][]string, numeric ...int) {
	right := map[int]bool{}
	for _, i := range numeric {
		right[i] = true
	}
	cell := func(tag string, i int, text string) {
		cls := ""
		if right[i] {
			cls = ` class="num"`
		}
		fmt.Fprintf(&p.body, "<%s%s>%s</%s>", tag, cls, html.EscapeString(text), tag)
	}
	p.body.WriteString("<table>\n<thead><tr>")
	for i, h := range header {
		cell("th", i, h)
	}
	p.body.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range rows {
		p.body.WriteString("<tr>")
		for i, c := range r {
			cell("td", i, c)
		}
		p.body.WriteString("</tr>\n")
	}
	p.body.WriteString("</tbody>\n</table>\n")
}

// Details adds a collapsed section: summary always shown, the lines when opened.
func (p *Page) Details(summary string, lines []string) {
	fmt.Fprintf(&p.body, "<details><summary>%s</summary>\n<ul>\n", html.EscapeString(summary))
	for _, l := range lines {
		fmt.Fprintf(&p.body, "<li>%s</li>\n", html.EscapeString(l))
	}
	p.body.WriteString("</ul></details>\n")
}

// Figure adds a drawing with an optional caption.
func (p *Page) Figure(s *SVG, caption string) {
	p.body.WriteString("<figure>\n")
	s.writeTo(&p.body)
	if caption != "" {
		fmt.Fprintf(&p.body, "<figcaption>%s</figcaption>\n", html.EscapeString(caption))
	}
	p.body.WriteString("</figure>\n")
}

// Open and Close wrap what is added between them in a <section> (class optional: card).
func (p *Page) Open(class string) { fmt.Fprintf(&p.body, "<section%s>\n", classAttr(class)) }

// Close ends the section Open began.
func (p *Page) Close() { p.body.WriteString("</section>\n") }

// WriteTo writes the whole document.
func (p *Page) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n",
		html.EscapeString(p.title), stylesheet)
	b.Write(p.body.Bytes())
	b.WriteString("</body>\n</html>\n")
	return b.WriteTo(w)
}

func classAttr(class string) string {
	if class == "" {
		return ""
	}
	return ` class="` + html.EscapeString(class) + `"`
}

// Palette are the fill colours Color cycles through: distinguishable, readable under white
// text, and kind to the colour-blind (Okabe-Ito and Tableau hues).
var Palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#e15759", "#9c755f", "#bab0ac", "#0072b2", "#d55e00", "#009e73"}

// Color is a stable colour for key (the same key, the same colour on every page).
func Color(key string) string {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return Palette[h%uint32(len(Palette))]
}

// stylesheet is the page's only style: system fonts, no web font.
var stylesheet = strings.TrimLeft(`
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  margin: 24px auto; max-width: 1240px; padding: 0 16px; color: #1f2328; background: #f6f8fa; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
p { margin: 6px 0; }
p.muted, figcaption { color: #59636e; }
p.note { background: #ddf4ff; border-left: 4px solid #54aeff; padding: 6px 10px; }
p.warn { background: #fff8c5; border-left: 4px solid #d4a72c; padding: 6px 10px; }
section.card { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 12px 16px; margin: 12px 0; }
table { border-collapse: collapse; background: #fff; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; }
td.num, th.num { text-align: right; }
figure { margin: 8px 0; overflow-x: auto; }
svg { display: block; }
svg text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; }
details { margin: 4px 0; }
summary { cursor: pointer; }
ul { margin: 4px 0; padding-left: 22px; }
`, "\n")
