package main

import (
	"encoding/json"
	"encoding/xml"
	"flag"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var chromium = flag.Bool("chromium", false, "open the -o html pages in headless Chromium (/usr/bin/chromium) and keep screenshots in $NODEPLAN_SCREENSHOTS or a temporary folder")

// pageText parses an -o html page as XML (it is well-formed) and returns its text, titles
// included; the test fails on anything that loads from elsewhere.
func pageText(t *testing.T, page string) string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	var b strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch x := tok.(type) {
		case xml.StartElement:
			assert.NotContains(t, []string{"script", "link", "img", "iframe"}, x.Name.Local)
			for _, a := range x.Attr {
				assert.NotContains(t, []string{"src", "href"}, a.Name.Local)
			}
		case xml.CharData:
			b.Write(x)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestPlanHTMLShowsEveryPodNodeAndClaim: every pod, existing node and NodeClaim of the JSON
// answer is in the page, and every unplaced pod with its reason.
func TestPlanHTMLShowsEveryPodNodeAndClaim(t *testing.T) {
	for name, args := range map[string][]string{
		"example":              {"-f", "../../examples"},
		"existing node":        scenario("existing-node-first"),
		"unschedulable pods":   {"-f", writeInput(t, "in.yaml", explainInput)},
		"real cluster":         realClusterArgs("dump.yaml", "karpenter.yaml", "new-workloads.yaml"),
		"taints and two pools": scenario("team-taints"),
	} {
		t.Run(name, func(t *testing.T) {
			got := planJSON(t, args...)
			page, stderr, code := nodeplan(t, append(append([]string{"plan"}, args...), "-o", "html")...)
			require.Equal(t, 0, code, stderr)
			text := pageText(t, page)
			for _, c := range got.NodeClaims {
				assert.Contains(t, text, c.Name)
				assert.Contains(t, text, c.InstanceType)
				for _, p := range c.Pods {
					assert.Contains(t, text, p)
				}
			}
			for _, n := range got.ExistingNodes {
				assert.Contains(t, text, n.Name)
				for _, p := range n.Pods {
					assert.Contains(t, text, p)
				}
			}
			for _, e := range got.PodErrors {
				assert.Contains(t, text, e.Pod)
			}
			for _, p := range got.NotPlanned {
				assert.Contains(t, text, p.Pod)
			}
		})
	}
}

// TestDisruptHTMLShowsEveryCommandAndNode: every command's candidates and replacements, the
// provisioned claims, the kept nodes and the displaced pods are in the page.
func TestDisruptHTMLShowsEveryCommandAndNode(t *testing.T) {
	args := append([]string{"disrupt"}, realClusterArgs("dump.yaml", "karpenter.yaml")...)
	out, stderr, code := nodeplan(t, append(args, "-o", "json")...)
	require.Equal(t, 0, code, stderr)
	var got disruptOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	page, _, code := nodeplan(t, append(args, "-o", "html")...)
	require.Equal(t, 0, code)
	text := pageText(t, page)
	require.NotEmpty(t, got.Commands)
	for i, c := range got.Commands {
		assert.Contains(t, text, "Command "+string(rune('1'+i)))
		for _, n := range c.Candidates {
			assert.Contains(t, text, n)
		}
		for _, r := range c.Replacements {
			assert.Contains(t, text, r.Name)
		}
		for _, m := range c.Moves {
			assert.Contains(t, text, m.Pod)
		}
	}
	for _, c := range got.Provisioned {
		assert.Contains(t, text, c.Name)
		for _, p := range c.Pods {
			assert.Contains(t, text, p)
		}
	}
	for _, b := range got.Blocked {
		assert.Contains(t, text, b.Node)
	}
}

// TestHTMLInChromium opens the pages in headless Chromium and keeps screenshots to look at
// (go test ./cmd/nodeplan -run TestHTMLInChromium -chromium; NODEPLAN_SCREENSHOTS=DIR keeps
// them there).
func TestHTMLInChromium(t *testing.T) {
	if !*chromium {
		t.Skip("-chromium not set")
	}
	bin, err := exec.LookPath("chromium")
	require.NoError(t, err, "apt-get install -y chromium")
	dir := os.Getenv("NODEPLAN_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for name, args := range map[string][]string{
		"plan-example":       {"plan", "-f", "../../examples"},
		"plan-unschedulable": {"plan", "-f", writeInput(t, "in.yaml", explainInput)},
		"disrupt-real":       append([]string{"disrupt"}, realClusterArgs("dump.yaml", "karpenter.yaml")...),
	} {
		page, stderr, code := nodeplan(t, append(args, "-o", "html")...)
		require.Equal(t, 0, code, stderr)
		html, shot := filepath.Join(dir, name+".html"), filepath.Join(dir, name+".png")
		require.NoError(t, os.WriteFile(html, []byte(page), 0o644))
		cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
			"--user-data-dir="+t.TempDir(), "--window-size=1280,1600", "--screenshot="+shot, "file://"+html)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		f, err := os.Open(shot)
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err)
		colors := map[[3]uint32]bool{}
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y += 7 {
			for x := b.Min.X; x < b.Max.X; x += 7 {
				r, g, bl, _ := img.At(x, y).RGBA()
				colors[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
			}
		}
		assert.Greater(t, len(colors), 8, "%s: the screenshot shows a drawing, not a blank page", name)
		t.Logf("%s: %s", name, shot)
	}
}
