package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is nodeplan's version; a release build sets it with
// -ldflags "-X main.version=v1.2.3". Otherwise the module version `go install …@vX` records
// is used, else "devel".
var version = ""

// Karpenter's release whose behaviour nodeplan models: the oracle's kubernetes-sigs/karpenter
// commit (../shared/oracle) is 20 commits past this tag, and every conformance case and
// difftest comparison is against it.
const (
	karpenterRelease = "v1.14.0"
	karpenterCommit  = "2266468"
)

// versionString is what `nodeplan version` and `nodeplan --version` print (cobra's default
// version line, "nodeplan version " and the root command's Version).
func versionString() string { return "nodeplan version " + versionDetail() }

// versionDetail is the version and the Karpenter release nodeplan models.
func versionDetail() string {
	v := version
	if v == "" {
		v = "devel"
		if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
	}
	return fmt.Sprintf("%s (models Karpenter %s, kubernetes-sigs/karpenter %s)", v, karpenterRelease, karpenterCommit)
}

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print nodeplan's version and the Karpenter release whose behaviour it models",
		Example: "  nodeplan version\n  nodeplan --version",
		Args:    noArguments,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(stdout, versionString())
			return err
		},
	}
}

// newCompletionCommand writes a shell completion script (cobra's generators).
func newCompletionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script",
		Long: `Print a completion script for bash, zsh or fish. Load it in the current shell with
  source <(nodeplan completion bash)
or install it where your shell reads completions.`,
		Example: `  nodeplan completion bash > /etc/bash_completion.d/nodeplan
  nodeplan completion zsh > "${fpath[1]}/_nodeplan"
  nodeplan completion fish > ~/.config/fish/completions/nodeplan.fish`,
		ValidArgs: []string{"bash", "zsh", "fish"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(stdout, true)
			case "zsh":
				return root.GenZshCompletion(stdout)
			default:
				return root.GenFishCompletion(stdout, true)
			}
		},
	}
}
