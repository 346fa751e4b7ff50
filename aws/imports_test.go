package aws_test

import (
	"os/exec"
	"strings"
	"testing"
)

// sdkServices are the SDK's service clients nodeplan uses, each a large build.
var sdkServices = map[string]bool{
	"github.com/aws/aws-sdk-go-v2/service/ec2":     true,
	"github.com/aws/aws-sdk-go-v2/service/sqs":     true,
	"github.com/aws/aws-sdk-go-v2/service/pricing": true,
	"github.com/aws/aws-sdk-go-v2/service/iam":     true,
	"github.com/aws/aws-sdk-go-v2/service/ssm":     true,
}

// TestOnlyAWSImportsTheSDK checks the import graph: service/ec2, service/sqs,
// service/pricing, service/iam and service/ssm may only be reached from package aws, its test
// support aws/awstest and the AWS host example, so that the CLI and the core packages build in
// seconds. The other packages under aws/ (catalog, ec2capacity, interruption, apis/...) are
// AWS's but SDK-free: the CLI uses them.
func TestOnlyAWSImportsTheSDK(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "github.com/nodeplan/nodeplan/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := func(pkg string) bool {
		return pkg == "github.com/nodeplan/nodeplan/aws" ||
			pkg == "github.com/nodeplan/nodeplan/aws/awstest" ||
			strings.HasPrefix(pkg, "github.com/nodeplan/nodeplan/examples/")
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		checked++
		if allowed(pkg) {
			continue
		}
		for _, d := range deps {
			if sdkServices[d] {
				t.Errorf("%s depends on %s; only package aws and aws/awstest may", pkg, d)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("go list saw only %d packages", checked)
	}
}
