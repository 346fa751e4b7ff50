// Command nodeplan answers "what would Karpenter do?" from ordinary Kubernetes YAML:
//
//	nodeplan plan    -f PATH... [--instance-types FILE | --prices FILE] [-o table|json|yaml]
//	nodeplan disrupt -f PATH... [--instance-types FILE | --prices FILE] [--now RFC3339] [--node-repair] [-o table|json|yaml]
//	nodeplan version
//	nodeplan completion bash|zsh|fish
//
// Without --instance-types the embedded EC2 catalog is used: us-east-1 on-demand prices, spot
// estimated at the on-demand price unless --prices gives real ones.
// Exit status: 0 when the command ran (unschedulable pods are data), 1 for bad input or usage,
// 3 with --fail-on-unschedulable when a pod is not placed.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// exitError ends the process with its code after the command printed its answer.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCommand(stdout, stderr)
	if len(args) == 0 {
		root.InitDefaultHelpCmd()
		root.InitDefaultHelpFlag()
		root.InitDefaultVersionFlag()
		root.SetOut(stderr)
		root.Usage()
		return 1
	}
	root.SetArgs(normalizeFlags(root, args))
	err := root.Execute()
	var exit *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		if exit.msg != "" {
			fmt.Fprintln(stderr, "nodeplan:", exit.msg)
		}
		return exit.code
	}
	fmt.Fprintln(stderr, "nodeplan:", err)
	return 1
}

// newRootCommand is the nodeplan command tree writing to stdout and stderr.
func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "nodeplan",
		Short: "What would Karpenter do? Its provisioning and disruption decisions from Kubernetes YAML",
		Long: `nodeplan answers "what would Karpenter do?" from ordinary Kubernetes YAML (files, folders,
kubectl get -o yaml dumps): which NodeClaims it would launch for the pending pods (plan), and
which nodes it would interrupt, repair, expire, replace for drift or consolidate now (disrupt).
Without --instance-types the embedded EC2 catalog is used (us-east-1 on-demand prices; spot
estimated at the on-demand price unless --prices gives real ones).`,
		Example: `  nodeplan plan -f examples/
  kubectl get nodepools,ec2nodeclasses,nodeclaims,nodes,pods,daemonsets,pdb,pvc,pv,storageclass -A -o yaml > cluster.yaml
  nodeplan disrupt -f cluster.yaml --now 2026-01-01T06:00:00Z`,
		Version:           versionDetail(),
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	// No Set*Template: executing a text/template keeps every exported method of every type
	// in the binary (the linker cannot prove it unused), 10 MB more for the CLI.
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return fmt.Errorf("%s: %v (see '%s --help')", cmd.Name(), err, cmd.CommandPath())
	})
	root.AddCommand(newPlanCommand(stdout, stderr), newDisruptCommand(stdout, stderr), newSimulateCommand(stdout, stderr), newVersionCommand(stdout), newCompletionCommand(stdout))
	return root
}

// noArguments refuses positional arguments: inputs are named with -f.
func noArguments(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s: unexpected argument %q (inputs go after -f)", cmd.Name(), args[0])
	}
	return nil
}

// normalizeFlags keeps the command lines of the standard flag package working: it accepted
// a long flag with one dash (-instance-types) and a one-letter flag with two (--f); pflag
// takes --instance-types and -f. Only names the command defines are rewritten.
func normalizeFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root {
		return args
	}
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		dashes := len(a) - len(strings.TrimLeft(a, "-"))
		if dashes == 0 || dashes > 2 || name == "" {
			out = append(out, a)
			continue
		}
		want := "--"
		if f := cmd.Flags().ShorthandLookup(name[:1]); len(name) == 1 && f != nil {
			want = "-"
		} else if cmd.Flags().Lookup(name) == nil {
			out = append(out, a)
			continue
		}
		if hasValue {
			name += "=" + value
		}
		out = append(out, want+name)
	}
	return out
}
