// Command nodeplan answers "what would Karpenter do?" from ordinary Kubernetes YAML:
//
//	nodeplan plan    -f PATH... [--instance-types FILE | --prices FILE] [-o table|json|yaml]
//	nodeplan disrupt -f PATH... [--instance-types FILE | --prices FILE] [--now RFC3339] [-o table|json|yaml]
//
// Without --instance-types the embedded EC2 catalog is used: us-east-1 on-demand prices, spot
// estimated at the on-demand price unless --prices gives real ones.
// Exit status: 0 when the command ran (unschedulable pods are data), 1 for bad input or usage.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  nodeplan plan    -f PATH... [--instance-types FILE | --prices FILE] [-o table|json|yaml]
  nodeplan disrupt -f PATH... [--instance-types FILE | --prices FILE] [--now RFC3339] [--spot-to-spot] [-o table|json|yaml]
options of both:
  --prices FILE                        spot prices for the embedded catalog, the JSON of
                                       'aws ec2 describe-spot-price-history' (default: spot
                                       estimated at the on-demand price, as Karpenter without them)
  --reserved-enis N                    ENIs kept from pods (VPC CNI custom networking), as Karpenter's (default 0)
  --vm-memory-overhead-percent F       memory the hypervisor keeps, as Karpenter's (default 0.075)
  --packing CostAware|Karpenter        CostAware: nodeplan's plan (default); Karpenter: Karpenter's own answer, with the rules it breaks
  --min-values-policy Strict|BestEffort
  --preference-policy Respect|Ignore
  --max-input-bytes N                  the most read from one file or stdin (default 536870912, 512 MiB)
  --max-pods N                         the most Pod objects read, and pods expanded (default 100000)
`

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 1
	}
	var err error
	switch args[0] {
	case "plan":
		err = runPlan(args[1:], stdout, stderr)
	case "disrupt":
		err = runDisrupt(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
	if err != nil {
		fmt.Fprintln(stderr, "nodeplan:", err)
		return 1
	}
	return 0
}
