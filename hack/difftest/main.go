package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

type config struct {
	nodeplan, oracleDir, out, work string
	npArgs                         []string
	runs, extraRuns                int
	timeout                        time.Duration
}

func main() {
	var (
		planSeeds    = flag.Int("plan", 200, "number of plan seeds (0: none)")
		disruptSeeds = flag.Int("disrupt", 150, "number of disrupt seeds (0: none)")
		from         = flag.Uint64("from", 1, "first seed")
		only         = flag.String("seed", "", "run just these cases, e.g. plan:17 or plan:17,disrupt:4")
		nodeplan     = flag.String("nodeplan", "", "nodeplan binary (default: built from -main)")
		mainDir      = flag.String("main", "/work/main", "nodeplan checkout to build when -nodeplan is not given")
		oracleDir    = flag.String("oracle", "/work/oracle/bin", "folder with karpenter-plan and karpenter-disrupt")
		out          = flag.String("out", "/work/notes/diff", "folder for diverging inputs and summary.txt")
		runs         = flag.Int("runs", 3, "oracle runs per input (Karpenter breaks ties in map order)")
		extraRuns    = flag.Int("extra-runs", 5, "further oracle runs when none of the first -runs matches")
		jobs         = flag.Int("j", 1, "cases run in parallel")
		minimize     = flag.Bool("minimize", false, "shrink the first input of each divergence class into <out>/<kind>-<seed>-min")
		genOnly      = flag.String("gen", "", "only write the inputs into this folder, run nothing")
		npArgs       = flag.String("nodeplan-args", "", "extra arguments for nodeplan, e.g. '--packing Karpenter'")
		tally        = flag.String("tally", "", "only print the rates of earlier runs' progress.txt files (comma-separated)")
	)
	flag.Parse()
	if *tally != "" {
		for _, f := range strings.Split(*tally, ",") {
			b, err := os.ReadFile(f)
			if err != nil {
				fail(err.Error())
			}
			results, err := parseProgress(string(b))
			if err != nil {
				fail(f + ": " + err.Error())
			}
			fmt.Printf("== %s (%d cases)\n%s%s\n", f, len(results), planRates(results), shapeRates(results))
		}
		return
	}
	var cases []*input
	if *only != "" {
		for _, one := range strings.Split(*only, ",") {
			kind, s, ok := strings.Cut(one, ":")
			var seed uint64
			if _, err := fmt.Sscan(s, &seed); !ok || err != nil || (kind != "plan" && kind != "disrupt") {
				fail("-seed wants plan:N or disrupt:N (comma-separated)")
			}
			cases = append(cases, generate(kind, seed))
		}
	} else {
		for i := range uint64(*planSeeds) {
			cases = append(cases, genPlan(*from+i))
		}
		for i := range uint64(*disruptSeeds) {
			cases = append(cases, genDisrupt(*from+i))
		}
	}
	if *genOnly != "" {
		for _, in := range cases {
			if err := in.write(filepath.Join(*genOnly, fmt.Sprintf("%s-%d", in.Kind, in.Seed))); err != nil {
				fail(err.Error())
			}
		}
		return
	}
	work, err := os.MkdirTemp("", "difftest-")
	if err != nil {
		fail(err.Error())
	}
	defer os.RemoveAll(work)
	cfg := &config{nodeplan: *nodeplan, oracleDir: *oracleDir, out: *out, work: work, runs: *runs, extraRuns: *extraRuns, timeout: 2 * time.Minute}
	if *npArgs != "" {
		cfg.npArgs = strings.Fields(*npArgs)
	}
	commit := "?"
	if cfg.nodeplan == "" {
		cfg.nodeplan = filepath.Join(work, "nodeplan")
		build := exec.Command("go", "build", "-o", cfg.nodeplan, "./cmd/nodeplan")
		build.Dir, build.Stdout, build.Stderr = *mainDir, os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fail("building nodeplan: " + err.Error())
		}
		if b, err := exec.Command("git", "-C", *mainDir, "log", "-1", "--format=%h %s").Output(); err == nil {
			commit = strings.TrimSpace(string(b))
		}
	}
	if *only == "" {
		clearCases(cfg.out)
	}
	start := time.Now()
	results := make([]*caseResult, len(cases))
	progress := newProgressLog(cfg.out, *only == "")
	defer progress.close()
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, *jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = cfg.evaluate(cases[i])
				progress.add(results[i])
				if r := results[i]; r.Status == "diverge" || r.Status == "oracle-error" {
					if err := cfg.keep(cases[i], r, ""); err != nil {
						fmt.Fprintln(os.Stderr, err)
					}
				}
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	report := summarize(results, commit, time.Since(start))
	fmt.Print(report)
	if err := os.MkdirAll(cfg.out, 0o755); err == nil && *only == "" {
		_ = os.WriteFile(filepath.Join(cfg.out, "summary.txt"), []byte(report), 0o644)
	}
	if *minimize {
		done := map[string]bool{}
		for i, r := range results {
			if r.Status != "diverge" || done[r.Kind+r.Class] {
				continue
			}
			done[r.Kind+r.Class] = true
			small, sr := cfg.shrink(cases[i], r)
			if err := cfg.keep(small, sr, "-min"); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			fmt.Printf("minimized %s-%d [%s]: %d docs, %d types -> %s\n", r.Kind, r.Seed, r.Class, len(small.Docs),
				len(small.Catalog["instanceTypes"].([]any)), filepath.Join(cfg.out, fmt.Sprintf("%s-%d-min", r.Kind, r.Seed)))
		}
	}
}

// caseDir matches the folders keep writes for a full run's divergences.
var caseDir = regexp.MustCompile(`^(plan|disrupt)-[0-9]+$`)

// clearCases removes the divergences of an earlier full run (not the minimised -min folders),
// so the folder holds exactly this run's.
func clearCases(out string) {
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if e.IsDir() && caseDir.MatchString(e.Name()) {
			_ = os.RemoveAll(filepath.Join(out, e.Name()))
		}
	}
}

func generate(kind string, seed uint64) *input {
	if kind == "plan" {
		return genPlan(seed)
	}
	return genDisrupt(seed)
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "difftest:", msg)
	os.Exit(2)
}

type caseResult struct {
	Kind    string
	Seed    uint64
	Status  string // match, equivalent, diverge, oracle-error, both-error
	Class   string
	Details []string
	NP      result
	Oracle  []result
	Best    int // index of the closest oracle run
	// Verdict is the comparison with the closest oracle run (plan).
	Verdict verdict
	Took    time.Duration
	// Features are the constraint kinds the input exercises.
	Features []string
}

// evaluate runs nodeplan once and the oracle up to cfg.runs times, stopping at a match.
func (cfg *config) evaluate(in *input) *caseResult {
	start := time.Now()
	dir := filepath.Join(cfg.work, fmt.Sprintf("%s-%d-%d", in.Kind, in.Seed, time.Now().UnixNano()))
	defer os.RemoveAll(dir)
	cr := &caseResult{Kind: in.Kind, Seed: in.Seed, Features: in.Features}
	if err := in.write(dir); err != nil {
		cr.Status, cr.Class = "diverge", "difftest-error: "+err.Error()
		return cr
	}
	cr.NP = run(cfg.nodeplan, append(in.args(dir), cfg.npArgs...), cfg.timeout)
	oracle := filepath.Join(cfg.oracleDir, "karpenter-"+in.Kind)
	var w *world
	var npPlan *planOutput
	var npViol []violation
	var npSum planSummary
	var npDis disruptSummary
	if cr.NP.Exit == 0 {
		switch in.Kind {
		case "plan":
			var err error
			if w, err = loadWorld(dir); err != nil {
				cr.Details = append(cr.Details, "checker cannot load the input: "+err.Error())
			}
			if npPlan, err = parsePlan(cr.NP.Stdout); err != nil {
				cr.Status, cr.Class = "diverge", "nodeplan-bad-json"
				return cr
			}
			if w != nil {
				npViol = w.validatePlan(npPlan)
			}
			npSum = summarizePlan(npPlan, nodeNames(w))
		case "disrupt":
			o, err := parseDisrupt(cr.NP.Stdout)
			if err != nil {
				cr.Status, cr.Class = "diverge", "nodeplan-bad-json"
				return cr
			}
			npDis = summarizeDisrupt(o)
		}
	}
	best := verdict{score: 1 << 30}
	for i := range cfg.runs + cfg.extraRuns {
		if i >= cfg.runs && (best.Match || best.Equivalent) {
			break
		}
		or := run(oracle, in.oracleArgs(dir), cfg.timeout)
		cr.Oracle = append(cr.Oracle, or)
		if or.Exit != 0 {
			if cr.NP.Exit != 0 {
				cr.Status, cr.Class = "both-error", ""
			} else {
				cr.Status, cr.Class = "oracle-error", "oracle-rejects: "+firstLine(or.Stderr)
			}
			cr.Took = time.Since(start)
			return cr
		}
		if cr.NP.Exit != 0 {
			cr.Status, cr.Class = "diverge", "nodeplan-rejects"
			cr.Details = append(cr.Details, "nodeplan: "+firstLine(cr.NP.Stderr))
			cr.Took = time.Since(start)
			return cr
		}
		var v verdict
		switch in.Kind {
		case "plan":
			o, err := parsePlan(or.Stdout)
			if err != nil {
				cr.Status, cr.Class = "oracle-error", "oracle-bad-json"
				return cr
			}
			var orViol []violation
			if w != nil {
				orViol = w.validatePlan(o)
			}
			v = comparePlan(npSum, summarizePlan(o, nodeNames(w)), npViol, orViol)
		case "disrupt":
			o, err := parseDisrupt(or.Stdout)
			if err != nil {
				cr.Status, cr.Class = "oracle-error", "oracle-bad-json"
				return cr
			}
			v = compareDisrupt(npDis, summarizeDisrupt(o))
		}
		if v.Match || v.Equivalent && !best.Match {
			best, cr.Best = v, i
			if v.Match {
				break
			}
		} else if !best.Equivalent && !best.Match && v.score < best.score {
			best, cr.Best = v, i
		}
	}
	switch {
	case best.Match:
		cr.Status = "match"
	case best.Equivalent:
		cr.Status, cr.Class = "equivalent", best.Class
	default:
		cr.Status, cr.Class = "diverge", best.Class
		if in.Kind == "plan" && w != nil && !slices.Contains(cfg.npArgs, "--packing") && cfg.packingMatches(in, dir, w, cr.Oracle) {
			// nodeplan's deliberate cost-aware packing is the whole difference.
			cr.Class = "packing:" + cr.Class
		}
		if in.Kind == "plan" && w != nil && !strings.HasPrefix(cr.Class, "packing:") && cfg.ignorePolicyMatches(in, w, cr.Oracle) {
			// nodeplan's deliberate minimum under nodeAffinityPolicy Ignore is the whole difference.
			cr.Class = "ignore-policy:" + cr.Class
		}
		if in.Kind == "plan" && !strings.HasPrefix(cr.Class, "packing:") && !strings.HasPrefix(cr.Class, "ignore-policy:") && cfg.startupTaintMatches(in, cr.NP) {
			// nodeplan's deliberate reading of an uninitialized Node without its claim is the whole difference.
			cr.Class = "startup-taint:" + cr.Class
		}
		if in.Kind == "disrupt" && cfg.deletingNodeMatches(in, cr.Oracle) {
			// nodeplan's deliberate reading of a deleting Node without its claim is the whole difference.
			cr.Class = "deleting-node:" + cr.Class
		} else if in.Kind == "disrupt" && cfg.mirrorAnnotationMatches(in, cr.Oracle) {
			// nodeplan's deliberate reading of a mirror-annotated pod without a Node owner is the whole difference.
			cr.Class = "mirror-annotation:" + cr.Class
		} else if in.Kind == "disrupt" && cfg.deletingNodeAndMirrorMatches(in, cr.Oracle) {
			// both deliberate readings together are the whole difference.
			cr.Class = "deleting-node+mirror-annotation:" + cr.Class
		} else if in.Kind == "disrupt" {
			if changes, ok := cfg.defaultPackingMatches(in, cr.Oracle); ok {
				// the default packing's rules in the simulations (with those readings) are
				// the whole difference: named, not counted as deliberate.
				if changes != "" {
					changes += "+"
				}
				cr.Class = changes + "default-packing:" + cr.Class
			}
		}
	}
	cr.Details = append(cr.Details, best.Details...)
	cr.Verdict = best
	cr.Took = time.Since(start)
	return cr
}

// packingMatches says whether nodeplan with Karpenter's packing rule matches one of the oracle
// runs (or is equivalent to it).
func (cfg *config) packingMatches(in *input, dir string, w *world, oracle []result) bool {
	res := run(cfg.nodeplan, append(in.args(dir), "--packing", "Karpenter"), cfg.timeout)
	if res.Exit != 0 {
		return false
	}
	o, err := parsePlan(res.Stdout)
	if err != nil {
		return false
	}
	return planMatchesAny(o, w, oracle)
}

// planMatchesAny says whether plan o matches or is equivalent to one of the oracle runs, both
// judged in world w.
func planMatchesAny(o *planOutput, w *world, oracle []result) bool {
	sum, viol := summarizePlan(o, w.nodes), w.validatePlan(o)
	for _, or := range oracle {
		oo, err := parsePlan(or.Stdout)
		if err != nil {
			continue
		}
		if v := comparePlan(sum, summarizePlan(oo, w.nodes), viol, w.validatePlan(oo)); v.Match || v.Equivalent {
			return true
		}
	}
	return false
}

func nodeNames(w *world) map[string]bool {
	if w == nil {
		return nil
	}
	return w.nodes
}

// keep writes a case and both tools' outputs into cfg.out/<kind>-<seed><suffix>.
func (cfg *config) keep(in *input, r *caseResult, suffix string) error {
	dir := filepath.Join(cfg.out, fmt.Sprintf("%s-%d%s", in.Kind, in.Seed, suffix))
	_ = os.RemoveAll(dir)
	if err := in.write(dir); err != nil {
		return err
	}
	files := map[string][]byte{"nodeplan.json": r.NP.Stdout, "nodeplan.stderr": r.NP.Stderr}
	for i, o := range r.Oracle {
		files[fmt.Sprintf("karpenter-%d.json", i)] = o.Stdout
		if len(o.Stderr) > 0 {
			files[fmt.Sprintf("karpenter-%d.stderr", i)] = o.Stderr
		}
	}
	files["verdict.txt"] = []byte(fmt.Sprintf("%s %s (closest oracle run: %d)\n%s\nreplay: %s %s\n", r.Status, r.Class, r.Best,
		strings.Join(r.Details, "\n"), "nodeplan", strings.Join(in.args(dir), " ")))
	for name, b := range files {
		if len(b) == 0 {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func summarize(results []*caseResult, commit string, took time.Duration) string {
	var b strings.Builder
	type tally struct{ n, match, equiv, oracleErr, bothErr int }
	t := map[string]*tally{"plan": {}, "disrupt": {}}
	classes := map[string][]uint64{}
	var lines []string
	for _, r := range results {
		x := t[r.Kind]
		x.n++
		switch r.Status {
		case "match":
			x.match++
		case "equivalent":
			x.equiv++
		case "oracle-error":
			x.oracleErr++
		case "both-error":
			x.bothErr++
		}
		if r.Status == "diverge" || r.Status == "oracle-error" {
			c := r.Kind + " " + r.Class
			classes[c] = append(classes[c], r.Seed)
			lines = append(lines, fmt.Sprintf("%s-%d [%s] %s", r.Kind, r.Seed, r.Class, strings.Join(r.Details, " | ")))
		}
	}
	line := func(k string) string {
		x := t[k]
		valid := x.n - x.oracleErr - x.bothErr
		return fmt.Sprintf("%s: %d/%d match", k, x.match+x.equiv, valid) + fmt.Sprintf(" (%d exact, %d equivalent; %d oracle-rejects, %d both reject)", x.match, x.equiv, x.oracleErr, x.bothErr)
	}
	fmt.Fprintf(&b, "%s; %s\n", line("plan"), line("disrupt"))
	b.WriteString(planRates(results))
	fmt.Fprintf(&b, "nodeplan: main %s; %s, %s\n", commit, took.Round(time.Second), time.Now().UTC().Format(time.RFC3339))
	var keys []string
	for c := range classes {
		keys = append(keys, c)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(classes[keys[i]]) != len(classes[keys[j]]) {
			return len(classes[keys[i]]) > len(classes[keys[j]])
		}
		return keys[i] < keys[j]
	})
	b.WriteString("\nclasses:\n")
	for _, c := range keys {
		fmt.Fprintf(&b, "  %3d  %s  seeds %v\n", len(classes[c]), c, firstN(classes[c], 12))
	}
	b.WriteString("\n" + featureRates(results))
	b.WriteString("\n" + shapeRates(results))
	b.WriteString("\ndivergences:\n")
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// planRates are the plan inputs' rates against the closest Karpenter run: matching (or
// equivalent), nodeplan breaking a rule Karpenter keeps, Karpenter breaking a rule nodeplan
// keeps (then fewer pods or a higher price are not held against nodeplan), nodeplan placing
// fewer pods, dearer without placing more, and the other divergences classed deliberate
// (packing:, startup-taint:, ignore-policy:); each input counts once, in that order.
func planRates(results []*caseResult) string {
	var n, match, fewer, dearer, invalid, karpBreaks, deliberate int
	for _, r := range results {
		if r.Kind != "plan" || r.Status == "oracle-error" || r.Status == "both-error" {
			continue
		}
		n++
		v := r.Verdict
		switch {
		case r.Status == "match" || r.Status == "equivalent":
			match++
			continue
		case v.Invalid:
			invalid++
		case v.KarpenterBreaks:
			karpBreaks++
		case v.Fewer:
			fewer++
		case v.Dearer:
			dearer++
		case strings.HasPrefix(r.Class, "packing:") || strings.HasPrefix(r.Class, "startup-taint:") || strings.HasPrefix(r.Class, "ignore-policy:"):
			deliberate++
		}
	}
	if n == 0 {
		return ""
	}
	pct := func(x int) string { return fmt.Sprintf("%d (%.1f%%)", x, 100*float64(x)/float64(n)) }
	return fmt.Sprintf("plan rates over %d inputs: match %s; fewer pods %s; dearer %s; nodeplan breaks a rule Karpenter keeps %s; Karpenter breaks a rule nodeplan keeps %s; deliberate %s\n",
		n, pct(match), pct(fewer), pct(dearer), pct(invalid), pct(karpBreaks), pct(deliberate))
}

// featureRates lists, per kind and feature, how many inputs with it diverge for a reason that is
// not deliberate (packing, limits.nodes within a Solve), highest rate first: where to look.
func featureRates(results []*caseResult) string {
	type rate struct{ n, bad int }
	rates := map[string]*rate{}
	for _, r := range results {
		deliberate := deliberateClass(r.Class) || strings.Contains(r.Class, "karpenter breaks limits-nodes")
		for _, f := range r.Features {
			k := r.Kind + " " + f
			if rates[k] == nil {
				rates[k] = &rate{}
			}
			rates[k].n++
			if r.Status == "diverge" && !deliberate {
				rates[k].bad++
			}
		}
	}
	var keys []string
	for k, x := range rates {
		if x.bad > 0 {
			keys = append(keys, k)
		}
	}
	share := func(k string) float64 { return float64(rates[k].bad) / float64(rates[k].n) }
	sort.Slice(keys, func(i, j int) bool {
		if share(keys[i]) != share(keys[j]) {
			return share(keys[i]) > share(keys[j])
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	b.WriteString("features by share of inputs diverging (not counting packing:, deleting-node:, mirror-annotation:, both, startup-taint:, ignore-policy: and limits.nodes):\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  %3.0f%%  %3d/%-3d  %s\n", 100*share(k), rates[k].bad, rates[k].n, k)
	}
	return b.String()
}

// shapeRates tabulates, per kind and feature (shape), the inputs with it and how they came out
// against the closest Karpenter run, each input counted once in the first that applies: agree
// (match or equivalent), nodeplan breaks a rule Karpenter keeps, Karpenter breaks one nodeplan
// keeps, fewer pods, dearer, deliberate (packing:, startup-taint:, ignore-policy:,
// deleting-node:, mirror-annotation:), other divergences (plan: cheaper, other pods or claims; disrupt: any).
func shapeRates(results []*caseResult) string {
	type row struct{ n, agree, invalid, kbreaks, fewer, dearer, deliberate, other int }
	rows := map[string]*row{}
	for _, r := range results {
		if r.Status == "oracle-error" || r.Status == "both-error" {
			continue
		}
		for _, f := range append([]string{"(all)"}, r.Features...) {
			k := r.Kind + " " + f
			x := rows[k]
			if x == nil {
				x = &row{}
				rows[k] = x
			}
			x.n++
			v := r.Verdict
			switch {
			case r.Status == "match" || r.Status == "equivalent":
				x.agree++
			case v.Invalid:
				x.invalid++
			case v.KarpenterBreaks:
				x.kbreaks++
			case v.Fewer:
				x.fewer++
			case v.Dearer:
				x.dearer++
			case deliberateClass(r.Class):
				x.deliberate++
			default:
				x.other++
			}
		}
	}
	keys := slices.Sorted(maps.Keys(rows))
	var b strings.Builder
	b.WriteString("rates per shape (n, agree %, then counts: nodeplan-breaks karpenter-breaks fewer dearer deliberate other):\n")
	for _, k := range keys {
		x := rows[k]
		fmt.Fprintf(&b, "  %-52s %5d %6.1f%%  %3d %3d %3d %3d %3d %3d\n", k, x.n, 100*float64(x.agree)/float64(x.n),
			x.invalid, x.kbreaks, x.fewer, x.dearer, x.deliberate, x.other)
	}
	return b.String()
}

// deliberateClass says whether a divergence class is one of nodeplan's deliberate differences.
func deliberateClass(c string) bool {
	for _, p := range []string{"packing:", "startup-taint:", "ignore-policy:", "deleting-node:", "mirror-annotation:", "deleting-node+mirror-annotation:"} {
		if strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
}

func firstN(xs []uint64, n int) []uint64 {
	if len(xs) > n {
		return xs[:n]
	}
	return xs
}
