package disruption

import "fmt"

// VerifyPlan checks a Plan result with package verify. verify imports disruption, so the
// tests of this package cannot import it; verify_external_test.go (package
// disruption_test, compiled into the same test binary) sets it in an init function.
var VerifyPlan func(in *Input, res *Result) []string

// verified fails the test when verify.Plan finds a violation in res.
func verified(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, in *Input, res *Result) {
	t.Helper()
	if VerifyPlan == nil {
		t.Fatal("VerifyPlan is not set (verify_external_test.go missing?)")
	}
	if vs := VerifyPlan(in, res); len(vs) > 0 {
		var dest []string
		for _, c := range res.Commands {
			var pods []string
			for _, r := range c.Replacements {
				for _, p := range r.Pods {
					pods = append(pods, p.Name)
				}
			}
			dest = append(dest, fmt.Sprintf("%v -> %v + replacements holding %v", c.Candidates, c.Destinations, pods))
		}
		t.Fatalf("verify.Plan: %d violations: %v\ncommands: %v\n%v", len(vs), vs, cmdSummary(res), dest)
	}
}
