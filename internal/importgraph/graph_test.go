package importgraph

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/nodeplan/nodeplan/"

// TestDesignGraphIsTheImportGraph: every package of the module has a line in DESIGN.md's
// package graph, and that line lists exactly what the package imports (its non-test Go
// files): every nodeplan package by its path in the module, every other module by a name
// that is a run of path elements of the import (`k8s` stands for k8s.io/api and
// k8s.io/apimachinery); the standard library is left out. A name that matches no import is
// as wrong as an import that matches no name.
func TestDesignGraphIsTheImportGraph(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	design, err := os.ReadFile(filepath.Join("..", "..", "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	graph := designGraph(t, string(design))
	out, err := exec.Command(goBin, "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		seen[pkg] = true
		names, ok := graph[pkg]
		if !ok {
			t.Errorf("DESIGN.md's package graph has no line for %s", pkg)
			continue
		}
		used := make([]bool, len(names))
		for _, imp := range fields[1:] {
			if !strings.Contains(strings.Split(imp, "/")[0], ".") {
				continue // standard library
			}
			i := slices.IndexFunc(names, func(n string) bool { return matches(graph, n, imp) })
			if i < 0 {
				t.Errorf("%s imports %s, which its line in DESIGN.md does not list", pkg, strings.TrimPrefix(imp, module))
				continue
			}
			for j, n := range names {
				used[j] = used[j] || matches(graph, n, imp)
			}
		}
		for i, n := range names {
			if !used[i] {
				t.Errorf("DESIGN.md says %s imports %s; it does not", pkg, n)
			}
		}
	}
	for pkg := range graph {
		if !seen[pkg] {
			t.Errorf("DESIGN.md's package graph has a line for %s, which is no package of the module", pkg)
		}
	}
	if len(seen) < 10 {
		t.Fatalf("go list saw only %d packages", len(seen))
	}
}

// matches reports whether the import path imp is what the graph's name n stands for: a
// package of the module (a name with a line of its own) by its path, another module's
// package by a run of its path elements.
func matches(graph map[string][]string, n, imp string) bool {
	if _, local := graph[n]; local || strings.HasPrefix(imp, module) {
		return imp == module+n
	}
	if n == "k8s" {
		return strings.HasPrefix(imp, "k8s.io/api/") || strings.HasPrefix(imp, "k8s.io/apimachinery/")
	}
	return strings.Contains("/"+imp+"/", "/"+n+"/")
}

// designGraph reads the package graph of DESIGN.md: the first fenced block after the
// "## Package graph" heading, one `a, b ──> x, y (comment)` line per package or group.
func designGraph(t *testing.T, design string) map[string][]string {
	t.Helper()
	_, rest, ok := strings.Cut(design, "## Package graph")
	if !ok {
		t.Fatal(`DESIGN.md has no "## Package graph" section`)
	}
	_, rest, _ = strings.Cut(rest, "```\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("DESIGN.md's package graph has no fenced block")
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		left, right, ok := strings.Cut(line, "──>")
		if !ok {
			t.Fatalf("DESIGN.md package graph: line without an arrow: %q", line)
		}
		names := []string{}
		for _, n := range splitTop(right) {
			if n = strings.TrimSpace(dropComments(n)); n != "" {
				names = append(names, n)
			}
		}
		for _, pkg := range strings.Split(left, ",") {
			pkg = strings.TrimSpace(pkg)
			if _, dup := graph[pkg]; dup {
				t.Errorf("DESIGN.md package graph: two lines for %s", pkg)
			}
			graph[pkg] = names
		}
	}
	return graph
}

// splitTop splits s at the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// dropComments removes the parenthesised parts of s.
func dropComments(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}
