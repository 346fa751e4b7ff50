package disruption_test

import (
	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/verify"
)

func init() {
	disruption.VerifyPlan = func(in *disruption.Input, res *disruption.Result) []string {
		var out []string
		for _, v := range verify.PlanInput(in, res) {
			out = append(out, v.String())
		}
		return out
	}
}
