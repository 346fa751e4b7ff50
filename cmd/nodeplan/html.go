package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/internal/htmlpage"
	"github.com/nodeplan/nodeplan/manifest"
	"github.com/nodeplan/nodeplan/scheduling"
)

// -o html is one self-contained page (internal/htmlpage): the totals, every node and
// NodeClaim as a card sized by its capacity (width by cpu, height by memory) and filled by
// its pods' cpu and memory requests, grouped by NodePool; the pods that cannot be scheduled
// with their causes; for disrupt each command drawn before → after with its $/hour.

// Card geometry, in CSS pixels.
const (
	pageWidth  = 1180.0
	cardGap    = 14.0
	cardHeader = 50.0
	minCardW   = 220.0
	maxCardW   = 480.0
)

// cardSize is a row's card: width grows with the square root of its cpu, the bars' height
// with that of its memory, so that a 96-cpu node is large but not 48 times a 2-cpu one.
func cardSize(r nodeRow) (w, h float64) {
	cores := float64(r.CPU.allocatable) / 1000
	gib := float64(r.Memory.allocatable) / (1 << 30)
	w = math.Min(maxCardW, math.Max(minCardW, 60+45*math.Sqrt(cores)))
	bars := math.Min(150, math.Max(40, 16+12*math.Sqrt(gib)))
	return w, cardHeader + bars + 8
}

// Card colours.
const (
	colorExisting = "#57606a"
	colorNew      = "#0969da"
	colorRemoved  = "#cf222e"
	colorFree     = "#eef1f4"
	colorDaemon   = "#8c959f"
)

// cardStyle is the border of a row's card: new dashed blue, removed red, else grey.
func cardStyle(r nodeRow) htmlpage.Style {
	switch {
	case r.Removed:
		return htmlpage.Style{Fill: "#fff", Stroke: colorRemoved, StrokeWidth: 2, Radius: 6}
	case r.New:
		return htmlpage.Style{Fill: "#fff", Stroke: colorNew, StrokeWidth: 2, Dash: "6 4", Radius: 6}
	}
	return htmlpage.Style{Fill: "#fff", Stroke: colorExisting, StrokeWidth: 1, Radius: 6}
}

// drawCard draws r's card at (x, y).
func drawCard(s *htmlpage.SVG, x, y float64, r nodeRow) {
	w, h := cardSize(r)
	s.Rect(x, y, w, h, cardStyle(r), fmt.Sprintf("%s (%s): %d pods", r.Name, r.Status, r.Pods))
	s.Text(x+8, y+16, htmlpage.TextStyle{Size: 12, Bold: true}, fit(r.Name, w-16, 6.8))
	s.Text(x+8, y+31, htmlpage.TextStyle{Size: 11, Color: "#1f2328"}, fit(strings.Join(nonEmpty(r.InstanceType, r.Capacity), " · "), w-90, 6))
	s.Text(x+w-8, y+31, htmlpage.TextStyle{Size: 12, Bold: true, Anchor: htmlpage.End, Color: statusColor(r)}, "$"+priceText(r.PricePerHour, r.Priced, r.Estimated)+"/h")
	s.Text(x+8, y+44, htmlpage.TextStyle{Size: 11, Color: "#59636e"}, fit(strings.Join(nonEmpty(r.Zone, r.Status), " · "), w-16, 6))
	barsY, barsH := y+cardHeader, h-cardHeader-8
	half := (barsH - 4) / 2
	drawBar(s, x+8, barsY, w-16, half, r.CPU.allocatable, r.Shares, func(p podShare) int64 { return p.CPU }, "cpu", usageText(r.CPU, cpuText))
	drawBar(s, x+8, barsY+half+4, w-16, half, r.Memory.allocatable, r.Shares, func(p podShare) int64 { return p.Memory }, "memory", usageText(r.Memory, bytesText))
}

// fit cuts text to what width holds at charW pixels a character (the full text stays in the
// card's title and in the page's lists).
func fit(text string, width, charW float64) string {
	n := int(width / charW)
	if r := []rune(text); len(r) > n && n > 1 {
		return string(r[:n-1]) + "…"
	}
	return text
}

func statusColor(r nodeRow) string {
	switch {
	case r.Removed:
		return colorRemoved
	case r.New:
		return colorNew
	}
	return "#1f2328"
}

// drawBar fills a bar of allocatable with one segment per pod share, each titled with the
// pod and its request, and labels it with the resource and its usage.
func drawBar(s *htmlpage.SVG, x, y, w, h float64, allocatable int64, shares []podShare, amount func(podShare) int64, name, usage string) {
	s.Rect(x, y, w, h, htmlpage.Style{Fill: colorFree, Radius: 2}, "")
	if allocatable > 0 {
		at := x
		for _, p := range shares {
			sw := float64(amount(p)) / float64(allocatable) * w
			sw = math.Min(sw, x+w-at)
			if sw <= 0 {
				continue
			}
			fill := htmlpage.Color(shareKey(p))
			if p.Pod == daemonSetShare {
				fill = colorDaemon
			}
			req := cpuText(p.CPU) + " cpu, " + bytesText(p.Memory)
			s.Rect(at, y, sw, h, htmlpage.Style{Fill: fill, Stroke: "#fff", StrokeWidth: 1}, p.Pod+": "+req)
			at += sw
		}
	}
	if h >= 13 {
		s.Text(x+4, y+h/2+4, htmlpage.TextStyle{Size: 10.5, Color: "#1f2328", Halo: true}, name+" "+usage)
	}
}

// shareKey colours a pod by its owner, so that a Deployment's replicas share a colour.
func shareKey(p podShare) string {
	if p.Owner != "" {
		return p.Owner
	}
	return p.Pod
}

func nonEmpty(parts ...string) []string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// flowCards lays rows out left to right, wrapping at the page's width, and returns the drawing.
func flowCards(rows []nodeRow) *htmlpage.SVG {
	type placed struct {
		x, y float64
		r    nodeRow
	}
	var out []placed
	x, y, rowH := 0.0, 0.0, 0.0
	for _, r := range rows {
		w, h := cardSize(r)
		if x > 0 && x+w > pageWidth {
			x, y, rowH = 0, y+rowH+cardGap, 0
		}
		out = append(out, placed{x + 1, y + 1, r})
		x += w + cardGap
		rowH = math.Max(rowH, h)
	}
	s := htmlpage.NewSVG(pageWidth+2, y+rowH+2)
	for _, p := range out {
		drawCard(s, p.x, p.y, p.r)
	}
	return s
}

// byNodePool splits rows by NodePool, in order of the NodePools' names ("" last).
func byNodePool(rows []nodeRow) (names []string, groups map[string][]nodeRow) {
	groups = map[string][]nodeRow{}
	for _, r := range rows {
		if _, ok := groups[r.NodePool]; !ok {
			names = append(names, r.NodePool)
		}
		groups[r.NodePool] = append(groups[r.NodePool], r)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "") != (names[j] == "") {
			return names[j] == ""
		}
		return names[i] < names[j]
	})
	return names, groups
}

// writeTotalsHTML is the totals table: the cluster now, after the plan, the lower bound.
func writeTotalsHTML(p *htmlpage.Page, sum costSummary, afterLabel string) {
	row := func(label string, t totals) []string {
		return []string{label, fmt.Sprint(t.Nodes), usageText(t.CPU, cpuText), usageText(t.Memory, bytesText), fmt.Sprint(t.Pods), priceText(t.PricePerHour, true, t.Estimated)}
	}
	rows := [][]string{row("now", sum.Now), row(afterLabel, sum.After)}
	if sum.LowerBound != nil {
		rows = append(rows, []string{"lower bound", "", "", "", "", priceText(*sum.LowerBound, true, false)})
	}
	p.Table([]string{"cluster", "nodes", "cpu requested/allocatable", "memory requested/allocatable", "pods", "$/hour"}, rows, 1, 2, 3, 4, 5)
}

// writeNodesHTML draws the rows by NodePool, each group followed by its nodes' pods as text.
func writeNodesHTML(p *htmlpage.Page, rows []nodeRow) {
	names, groups := byNodePool(rows)
	for _, np := range names {
		g := groups[np]
		var t totals
		for _, r := range g {
			if !r.Removed {
				t.add(r)
			}
		}
		title := "NodePool " + np
		if np == "" {
			title = "Nodes without a NodePool"
		}
		p.Open("card")
		p.Heading(3, fmt.Sprintf("%s — %s after, $%s/hour", title, plural(t.Nodes, "node"), priceText(t.PricePerHour, true, t.Estimated)))
		p.Figure(flowCards(g), "")
		for _, r := range g {
			lines := make([]string, 0, len(r.Shares))
			for _, sh := range r.Shares {
				mark := ""
				if sh.Placed && !r.New {
					mark = " (placed by this plan)"
				}
				lines = append(lines, fmt.Sprintf("%s: %s cpu, %s%s", sh.Pod, cpuText(sh.CPU), bytesText(sh.Memory), mark))
			}
			p.Details(fmt.Sprintf("%s — %s, %s pods", r.Name, r.Status, fmt.Sprint(r.Pods)), lines)
		}
		p.Close()
	}
}

// writeLegendHTML explains the cards.
func writeLegendHTML(p *htmlpage.Page) {
	s := htmlpage.NewSVG(pageWidth, 26)
	x := 0.0
	item := func(st htmlpage.Style, label string) {
		s.Rect(x+1, 5, 28, 16, st, "")
		s.Text(x+36, 18, htmlpage.TextStyle{Size: 12}, label)
		x += 48 + 8*float64(len(label))
	}
	item(htmlpage.Style{Fill: "#fff", Stroke: colorExisting, Radius: 3}, "existing node")
	item(htmlpage.Style{Fill: "#fff", Stroke: colorNew, StrokeWidth: 2, Dash: "6 4", Radius: 3}, "NodeClaim to launch")
	item(htmlpage.Style{Fill: "#fff", Stroke: colorRemoved, StrokeWidth: 2, Radius: 3}, "node deleted")
	item(htmlpage.Style{Fill: colorDaemon}, "DaemonSets")
	item(htmlpage.Style{Fill: colorFree}, "free")
	p.Figure(s, "Each card is sized by its capacity (width: cpu, height: memory); the upper bar is cpu, the lower memory, one segment per pod (hover for its name and requests), a colour per owner.")
}

// writeUnplacedHTML lists the pods that cannot be scheduled, grouped, with every cause.
func writeUnplacedHTML(p *htmlpage.Page, errs []scheduling.PodError, set *manifest.Set) {
	if len(errs) == 0 {
		return
	}
	pools := map[string]*v1.NodePool{}
	for _, np := range set.NodePools {
		pools[np.Name] = np
	}
	p.Heading(2, fmt.Sprintf("%s cannot be scheduled", plural(len(errs), "pod")))
	p.Paragraph("muted", "Per group, the cause to fix first is on top: NodePools, then existing nodes.")
	for _, g := range groupPodErrors(errs, set, true) {
		p.Open("card")
		p.Paragraph("warn", g.title())
		p.List(explainPodError(g.err, pools))
		if len(g.pods) > 1 {
			p.Details(fmt.Sprintf("the %d pods", len(g.pods)), g.pods)
		}
		p.Close()
	}
}

// writeNotPlannedHTML lists the input pods nodeplan does not plan, with why.
func writeNotPlannedHTML(p *htmlpage.Page, pods []notPlannedPod) {
	if len(pods) == 0 {
		return
	}
	lines := make([]string, len(pods))
	for i, np := range pods {
		lines[i] = np.Pod + ": " + np.Reason + " (" + np.Message + ")"
	}
	p.Details(fmt.Sprintf("%s not planned", plural(len(pods), "input pod")), lines)
}

// writePlanHTML is plan's page.
func writePlanHTML(w io.Writer, v planView) error {
	rows := planRows(v.snap, v.res, v.flags.catalog)
	sum := summarizeRows(rows, v.out.LowerBoundPerHour)
	p := htmlpage.New("nodeplan plan")
	p.Heading(1, "nodeplan plan")
	p.Paragraph("muted", fmt.Sprintf("%s: %s to launch for %d pending pods; the cluster goes from $%s to $%s per hour.",
		versionString(), plural(len(v.res.NewNodeClaims), "NodeClaim"), len(v.snap.Pending()),
		priceText(sum.Now.PricePerHour, true, sum.Now.Estimated), priceText(sum.After.PricePerHour, true, sum.After.Estimated)))
	writeTotalsHTML(p, sum, "after the plan")
	if sum.After.Estimated {
		p.Paragraph("note", estimateNote)
	}
	writeLegendHTML(p)
	writeUnplacedHTML(p, v.res.PodErrors, v.set)
	writeViolationsHTML(p, v.out.Violations)
	p.Heading(2, "Nodes and NodeClaims")
	writeNodesHTML(p, rows)
	writeNotPlannedHTML(p, v.out.NotPlanned)
	_, err := p.WriteTo(w)
	return err
}

// writeDisruptHTML is disrupt's page.
func writeDisruptHTML(w io.Writer, in *disruptRun, res *disruption.Result, prices disruption.Prices) error {
	rows := disruptRows(in.snap, res, in.flags.catalog)
	lowerBound := roundPrice(prices.LowerBound)
	sum := summarizeRows(rows, &lowerBound)
	p := htmlpage.New("nodeplan disrupt")
	p.Heading(1, "nodeplan disrupt")
	p.Paragraph("muted", fmt.Sprintf("%s. %s.", versionString(), capitalize(in.at.String())))
	if in.at.Warning != "" {
		p.Paragraph("warn", in.at.Warning)
	}
	writeTotalsHTML(p, sum, "after the commands")
	if sum.Now.Estimated || sum.After.Estimated {
		p.Paragraph("note", estimateNote)
	}
	writeLegendHTML(p)
	byName := map[string]nodeRow{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	p.Heading(2, plural(len(res.Commands), "command"))
	for i, c := range res.Commands {
		var before, after []nodeRow
		was, will := 0.0, 0.0
		for _, n := range c.Candidates {
			before = append(before, byName[n])
			was += byName[n].PricePerHour
		}
		for j := range c.Replacements {
			r := byName[disruption.ReplacementName(i+1, j+1)]
			after = append(after, r)
			will += r.PricePerHour
		}
		p.Open("card")
		p.Heading(3, fmt.Sprintf("Command %d: %s (%s) — $%.4f/hour → $%.4f/hour, saves $%.4f/hour", i+1, c.Method, c.Reason, was, will, c.SavingsPerHour))
		if c.Detail() != "" {
			p.Paragraph("muted", c.Detail())
		}
		p.Figure(beforeAfter(before, after), "")
		var moves []string
		for _, m := range c.Moves {
			moves = append(moves, podName(m.Pod)+" → "+moveTarget(m, i+1))
		}
		if len(moves) > 0 {
			p.Details(fmt.Sprintf("%s displaced", plural(len(moves), "pod")), moves)
		}
		p.Close()
	}
	writeUnplacedHTML(p, disruptPodErrors(res), in.set)
	if len(res.Blocked) > 0 {
		p.Heading(2, fmt.Sprintf("%s not disrupted", plural(len(res.Blocked), "node")))
		for _, b := range res.Blocked {
			var lines []string
			for _, x := range b.Blockers {
				lines = append(lines, x.String())
			}
			head := b.Node + ": " + b.Message()
			if b.Drift.Reason != "" {
				head = b.Node + " [drifted (" + b.Drift.String() + ")]: " + b.Message()
			}
			p.Details(head, lines)
		}
	}
	p.Heading(2, "Nodes and NodeClaims after the commands")
	writeNodesHTML(p, rows)
	writeNotPlannedHTML(p, in.flags.notPlanned)
	_, err := p.WriteTo(w)
	return err
}

// beforeAfter draws a command's candidates, an arrow, and its replacements (or "deleted").
func beforeAfter(before, after []nodeRow) *htmlpage.SVG {
	column := func(rows []nodeRow) (w, h float64) {
		for _, r := range rows {
			cw, ch := cardSize(r)
			w = math.Max(w, cw)
			h += ch + cardGap
		}
		return w, h
	}
	bw, bh := column(before)
	aw, ah := column(after)
	if len(after) == 0 {
		aw, ah = minCardW, 40
	}
	const arrowW = 90.0
	s := htmlpage.NewSVG(bw+arrowW+aw+4, math.Max(bh, ah)+2)
	y := 1.0
	for _, r := range before {
		drawCard(s, 1, y, r)
		_, ch := cardSize(r)
		y += ch + cardGap
	}
	mid := math.Max(bh, ah) / 2
	s.Arrow(bw+14, mid, bw+arrowW-14, mid, "#57606a")
	x := bw + arrowW
	y = 1
	if len(after) == 0 {
		s.Text(x+8, mid+4, htmlpage.TextStyle{Size: 13, Color: colorRemoved, Bold: true}, "deleted, no replacement")
	}
	for _, r := range after {
		drawCard(s, x, y, r)
		_, ch := cardSize(r)
		y += ch + cardGap
	}
	return s
}
