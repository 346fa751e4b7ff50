package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's samples of each output format are the real output of the bundled example,
// regenerated here: TestReadmeSamples fails when one differs, and NODEPLAN_UPDATE_README=1
// rewrites them (go test ./cmd/nodeplan -run TestReadmeSamples). A sample sits between
// <!-- sample NAME --> and <!-- end sample --> in a fenced block.

const readmePath = "../../README.md"

// exampleArgs is the README's set-up command line.
var exampleArgs = []string{"plan", "-f", "../../examples"}

// readmeSamples are the samples by name: the command line after `nodeplan` as the README
// shows it, and the output (abridged where the real one is long, as the README says).
func readmeSamples(t *testing.T) map[string]string {
	t.Helper()
	if version == "" { // as a checkout builds it, whatever the build stamps
		version = "devel"
		t.Cleanup(func() { version = "" })
	}
	run := func(extra ...string) string {
		out, stderr, code := nodeplan(t, append(append([]string{}, exampleArgs...), extra...)...)
		require.Equal(t, 0, code, stderr)
		return out
	}
	samples := map[string]string{
		"table": "$ nodeplan plan -f examples/\n" + run(),
		"wide":  "$ nodeplan plan -f examples/ -o wide | cut -c1-160\n" + cutLines(run("-o", "wide"), 160),
		"json":  "$ nodeplan plan -f examples/ -o json   # abridged: the first of the NodeClaims, 3 of each of its lists\n" + abridgeJSON(t, run("-o", "json")),
		"yaml":  "$ nodeplan plan -f examples/ -o yaml   # abridged: the first NodeClaim and the first Events\n" + abridgeYAML(run("-o", "yaml")),
		"html":  "$ nodeplan plan -f examples/ -o html > plan.html   # the page's first lines after its stylesheet\n" + firstLines(afterStyle(run("-o", "html")), 14),
	}
	repack := func(extra ...string) string {
		args := append([]string{"disrupt", "-f", "../../tutorial/repack.yaml", "--instance-types", "../../tutorial/repack-types.yaml", "--now", "2026-01-01T06:00:00Z"}, extra...)
		out, stderr, code := nodeplan(t, args...)
		require.Equal(t, 0, code, stderr)
		return out
	}
	const repackArgs = "$ nodeplan disrupt -f tutorial/repack.yaml --instance-types tutorial/repack-types.yaml --now 2026-01-01T06:00:00Z"
	samples["repack"] = repackArgs + " --explain | tail -7\n" + lastLines(repack("--explain"), 7) +
		"\n" + repackArgs + " --repack\n" + repack("--repack")
	for name, sample := range tutorialSamples(t) {
		samples[name] = sample
	}
	return samples
}

func cutLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if r := []rune(strings.TrimSuffix(l, "\n")); len(r) > n {
			lines[i] = string(r[:n]) + "\n"
		}
	}
	return strings.Join(lines, "")
}

func lastLines(s string, n int) string {
	lines := strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "") + "\n"
}

// afterStyle is a page from its <body> on.
func afterStyle(page string) string {
	if _, body, ok := strings.Cut(page, "</head>\n"); ok {
		return body
	}
	return page
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "") + "…\n"
}

// abridgeJSON keeps the first NodeClaim, with 3 of its instance-type options, of the values
// of each requirement and of its pods, and the rest of the answer as it is, indented.
func abridgeJSON(t *testing.T, out string) string {
	var doc planOutput
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	cut := func(list []string) []string {
		if len(list) <= 3 {
			return list
		}
		return append(list[:3:3], fmt.Sprintf("… %d more", len(list)-3))
	}
	c := doc.NodeClaims[0]
	c.InstanceTypeOptions, c.Pods = cut(c.InstanceTypeOptions), cut(c.Pods)
	for i := range c.Requirements {
		c.Requirements[i].Values = cut(c.Requirements[i].Values)
	}
	doc.NodeClaims = doc.NodeClaims[:1]
	doc.NodeClaims[0] = c
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(doc))
	return b.String()
}

// abridgeYAML keeps the first NodeClaim document (its long value lists cut to 3) and the head
// of the Events list.
func abridgeYAML(out string) string {
	docs := strings.Split(out, "---\n")
	var b strings.Builder
	b.WriteString("---\n")
	skipping := false
	kept := 0
	for _, l := range strings.SplitAfter(docs[1], "\n") {
		item := strings.HasPrefix(l, "    - ") // a requirement's value
		switch {
		case item && kept >= 3:
			if !skipping {
				b.WriteString(strings.Repeat(" ", len(l)-len(strings.TrimLeft(l, " "))) + "- …\n")
			}
			skipping = true
			continue
		case item:
			kept++
		default:
			kept, skipping = 0, false
		}
		b.WriteString(l)
	}
	events := docs[len(docs)-1]
	b.WriteString("---\n")
	b.WriteString(firstLines(events, 24))
	return b.String()
}

var sampleBlock = regexp.MustCompile("(?s)(<!-- sample ([a-z]+) -->\n```[a-z]*\n)(.*?)(```\n<!-- end sample -->)")

func TestReadmeSamples(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	require.NoError(t, err)
	samples := readmeSamples(t)
	seen := map[string]bool{}
	updated := sampleBlock.ReplaceAllStringFunc(string(readme), func(block string) string {
		m := sampleBlock.FindStringSubmatch(block)
		name := m[2]
		want, ok := samples[name]
		if !ok {
			t.Errorf("README sample %q: no such sample", name)
			return block
		}
		seen[name] = true
		if m[3] != want {
			if os.Getenv("NODEPLAN_UPDATE_README") == "" {
				t.Errorf("README sample %q is not the real output (NODEPLAN_UPDATE_README=1 go test ./cmd/nodeplan -run TestReadmeSamples rewrites it):\n--- README\n%s--- real\n%s", name, m[3], want)
			}
		}
		return m[1] + want + m[4]
	})
	for name := range samples {
		if !seen[name] {
			t.Errorf("README has no sample %q", name)
		}
	}
	if os.Getenv("NODEPLAN_UPDATE_README") != "" && updated != string(readme) {
		require.NoError(t, os.WriteFile(readmePath, []byte(updated), 0o644))
		t.Log("README samples rewritten")
	}
}
