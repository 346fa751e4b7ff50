package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

type disruptOutput struct {
	Commands []struct {
		Method       string   `json:"method"`
		Reason       string   `json:"reason"`
		Candidates   []string `json:"candidates"`
		Replacements []struct {
			NodePool     string  `json:"nodePool"`
			InstanceType string  `json:"instanceType"`
			PricePerHour float64 `json:"pricePerHour"`
		} `json:"replacements"`
		SavingsPerHour float64 `json:"savingsPerHour"`
	} `json:"commands"`
	Blocked []struct {
		Node   string `json:"node"`
		Reason string `json:"reason"`
	} `json:"blocked"`
}

type disruptSummary struct {
	ByMethod map[string][]string // method -> disrupted nodes, sorted
	Nodes    map[string]string   // node -> method
	Commands []string            // "method[a,b]->N replacements", sorted
	Count    int
	Savings  float64
	Blocked  map[string]bool
	// per method: its commands and savings
	MethodCommands map[string][]string
	MethodSavings  map[string]float64
}

func summarizeDisrupt(o *disruptOutput) disruptSummary {
	s := disruptSummary{ByMethod: map[string][]string{}, Nodes: map[string]string{}, Blocked: map[string]bool{}, Count: len(o.Commands),
		MethodCommands: map[string][]string{}, MethodSavings: map[string]float64{}}
	for _, c := range o.Commands {
		cands := slices.Clone(c.Candidates)
		sort.Strings(cands)
		s.ByMethod[c.Method] = append(s.ByMethod[c.Method], cands...)
		for _, n := range cands {
			s.Nodes[n] = c.Method
		}
		cmd := fmt.Sprintf("%s%v->%d", c.Method, cands, len(c.Replacements))
		s.Commands = append(s.Commands, cmd)
		s.MethodCommands[c.Method] = append(s.MethodCommands[c.Method], cmd)
		s.Savings += c.SavingsPerHour
		s.MethodSavings[c.Method] += c.SavingsPerHour
	}
	for m := range s.ByMethod {
		sort.Strings(s.ByMethod[m])
	}
	sort.Strings(s.Commands)
	for _, b := range o.Blocked {
		s.Blocked[b.Node] = true
	}
	return s
}

// compareDisrupt compares nodeplan's commands with one oracle run's: which nodes each method
// disrupts, the commands (grouping and replacement count) and the savings. Blocked lists are
// reported but not compared (nodeplan lists every node it keeps; Karpenter only those it
// published an event for).
func compareDisrupt(np, or disruptSummary) verdict {
	var v verdict
	var extra, missing, moved []string
	for n, m := range np.Nodes {
		if om, ok := or.Nodes[n]; !ok {
			extra = append(extra, n+"("+m+")")
		} else if om != m {
			moved = append(moved, fmt.Sprintf("%s(%s, karpenter %s)", n, m, om))
		}
	}
	for n, m := range or.Nodes {
		if _, ok := np.Nodes[n]; !ok {
			missing = append(missing, n+"("+m+")")
		}
	}
	sort.Strings(extra)
	sort.Strings(missing)
	sort.Strings(moved)
	methodsOf := func(xs []string) string {
		var ms []string
		for _, x := range xs {
			ms = append(ms, x[strings.IndexByte(x, '(')+1:strings.IndexByte(x, ')')])
		}
		return strings.Join(uniq(ms), "+")
	}
	switch {
	case len(extra) > 0 && len(missing) == 0:
		v.Class = "disrupts-extra:" + methodsOf(extra)
	case len(missing) > 0 && len(extra) == 0:
		v.Class = "keeps:" + methodsOf(missing)
	case len(missing) > 0:
		v.Class = "other-nodes:" + methodsOf(extra) + "/karpenter:" + methodsOf(missing)
	case len(moved) > 0:
		v.Class = "method-differs"
	}
	v.score = 100 * (len(extra) + len(missing) + len(moved))
	if len(extra)+len(missing)+len(moved) > 0 {
		v.Details = append(v.Details, fmt.Sprintf("only nodeplan: %v; only karpenter: %v; method differs: %v", extra, missing, moved))
	}
	if !slices.Equal(np.Commands, or.Commands) {
		if v.Class == "" {
			var ms []string
			for _, m := range methods(np, or) {
				a, b := slices.Clone(np.MethodCommands[m]), slices.Clone(or.MethodCommands[m])
				sort.Strings(a)
				sort.Strings(b)
				if !slices.Equal(a, b) {
					ms = append(ms, m)
				}
			}
			v.Class = "command-shape:" + strings.Join(ms, "+")
		}
		v.score += 10
		v.Details = append(v.Details, fmt.Sprintf("commands: nodeplan %v, karpenter %v", np.Commands, or.Commands))
	}
	if !priceClose(np.Savings, or.Savings) {
		if v.Class == "" {
			var ms []string
			for _, m := range methods(np, or) {
				if !priceClose(np.MethodSavings[m], or.MethodSavings[m]) {
					ms = append(ms, m)
				}
			}
			v.Class = "savings:" + strings.Join(ms, "+")
		}
		v.score += 5
		v.Details = append(v.Details, fmt.Sprintf("savings: nodeplan %.4f, karpenter %.4f", np.Savings, or.Savings))
	}
	if v.Class == "" {
		v.Match = true
	}
	return v
}

func methods(a, b disruptSummary) []string {
	var ms []string
	for m := range a.MethodCommands {
		ms = append(ms, m)
	}
	for m := range b.MethodCommands {
		ms = append(ms, m)
	}
	return uniq(ms)
}

func parseDisrupt(b []byte) (*disruptOutput, error) {
	var o disruptOutput
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	return &o, nil
}
