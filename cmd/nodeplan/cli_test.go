package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpExitsZeroWithExamples: --help, -h and `help` on every command print the command's
// usage with examples on stdout and exit 0.
func TestHelpExitsZeroWithExamples(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"help"},
		{"plan", "--help"}, {"plan", "-h"}, {"help", "plan"},
		{"disrupt", "--help"}, {"disrupt", "-h"}, {"simulate", "--help"},
		{"version", "--help"}, {"completion", "-h"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, stderr, code := nodeplan(t, args...)
			assert.Equal(t, 0, code, stderr)
			assert.Empty(t, stderr)
			assert.Contains(t, out, "Usage:")
			assert.Contains(t, out, "Examples:")
		})
	}
}

// TestUsageListsEveryFlagWithItsDefault: each flag of plan and disrupt is in its usage, with
// the default it had before the move to cobra.
func TestUsageListsEveryFlagWithItsDefault(t *testing.T) {
	common := map[string]string{
		"filename": "", "instance-types": "", "prices": "", "vm-memory-overhead-percent": "0.075", "reserved-enis": "0",
		"output": "table", "packing": "CostAware", "min-values-policy": "Strict", "preference-policy": "Respect",
		"max-input-bytes": "536870912", "max-pods": "100000", "cpuprofile": "", "memprofile": "",
	}
	disrupt := map[string]string{"now": "", "spot-to-spot": "false", "node-repair": "false"}
	for name, want := range map[string]map[string]string{"plan": common, "disrupt": disrupt} {
		cmd, _, err := newRootCommand(nil, nil).Find([]string{name})
		require.NoError(t, err)
		out, _, code := nodeplan(t, name, "--help")
		require.Equal(t, 0, code)
		for flag, def := range want {
			f := cmd.Flags().Lookup(flag)
			if assert.NotNil(t, f, "%s --%s", name, flag) {
				assert.Equal(t, def, strings.Trim(f.DefValue, "[]"), "%s --%s", name, flag)
			}
			assert.Contains(t, out, "--"+flag, "%s --help names --%s", name, flag)
		}
	}
	// disrupt has the common flags too
	out, _, _ := nodeplan(t, "disrupt", "--help")
	for flag := range common {
		assert.Contains(t, out, "--"+flag)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, stderr, code := nodeplan(t, args...)
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, versionString()+"\n", out)
		assert.True(t, strings.HasPrefix(out, "nodeplan version "), out)
		assert.Contains(t, out, "Karpenter "+karpenterRelease)
		assert.Contains(t, out, karpenterCommit)
	}
}

func TestCompletion(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "complete -o", "zsh": "#compdef nodeplan", "fish": "complete -c nodeplan"} {
		out, stderr, code := nodeplan(t, "completion", shell)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, marker, shell)
	}
	_, stderr, code := nodeplan(t, "completion", "tcsh")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "tcsh")
}

// TestFlagSpellingsOfTheFlagPackage: the command lines the standard flag package read
// (-instance-types, --f, --o) still mean what they meant.
func TestFlagSpellingsOfTheFlagPackage(t *testing.T) {
	in, types := scenario("team-taints")[1], scenario("team-taints")[3]
	want, _, code := nodeplan(t, "plan", "-f", in, "--instance-types", types, "-o", "json")
	require.Equal(t, 0, code)
	for _, args := range [][]string{
		{"plan", "--f", in, "-instance-types", types, "--o", "json"},
		{"plan", "-filename=" + in, "-instance-types=" + types, "-output=json"},
		{"plan", "--filename", in, "--instance-types", types, "-ojson"},
	} {
		got, stderr, code := nodeplan(t, args...)
		require.Equal(t, 0, code, "%q: %s", args, stderr)
		assert.Equal(t, want, got, "%q", args)
	}
	_, stderr, code := nodeplan(t, "plan", "-f", in, "--no-such-flag")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "--no-such-flag")
	_, stderr, code = nodeplan(t, "plan", in)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "inputs go after -f")
}

// TestStdoutIsTheAnswerOnly: warnings and the count of skipped objects go to stderr, and
// every format's last line ends with a newline.
func TestStdoutIsTheAnswerOnly(t *testing.T) {
	for _, cmd := range []string{"plan", "disrupt"} {
		for _, format := range []string{"table", "json", "yaml"} {
			out, stderr, code := nodeplan(t, cmd, "-f", "../../examples", "-o", format)
			require.Equal(t, 0, code, stderr)
			if format != "json" { // where "skipped" is a field
				assert.False(t, strings.Contains(out, "skipped"), "%s -o %s: stdout says skipped", cmd, format)
			}
			assert.Contains(t, stderr, "nodeplan: skipped 23 objects", "%s -o %s", cmd, format)
			assert.True(t, strings.HasSuffix(out, "\n"), "%s -o %s ends with a newline", cmd, format)
			if format == "json" {
				var v map[string]any
				assert.NoError(t, json.Unmarshal([]byte(out), &v))
			}
		}
	}
}

// TestCLINeverLinksTheAWSSDK: nothing of aws-sdk-go-v2 or smithy is in the CLI's build, so
// that `go run ./cmd/nodeplan` compiles in seconds (aws/imports_test.go checks the service
// packages module-wide; this is the stricter check for the CLI).
func TestCLINeverLinksTheAWSSDK(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/spf13/cobra")
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, "github.com/aws/"), "the CLI depends on %s", d)
	}
}

// TestProgressOnlyOnATerminal: a run says what it does on stderr only when stderr is a
// terminal and the input is large; never into a pipe or a file.
func TestProgressOnlyOnATerminal(t *testing.T) {
	var buf strings.Builder
	assert.Nil(t, newProgress(&buf).w, "a buffer is no terminal")
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	defer f.Close()
	assert.Nil(t, newProgress(f).w, "a file is no terminal")
	p := &progress{w: &buf}
	p.step(progressPods-1, "planning")
	assert.Empty(t, buf.String(), "small inputs say nothing")
	p.step(progressPods, "planning %d pods", progressPods)
	p.done()
	assert.Contains(t, buf.String(), "planning 2000 pods")
	assert.True(t, strings.HasSuffix(buf.String(), "\r\033[K"), "the line is cleared at the end")
}
