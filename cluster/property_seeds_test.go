package cluster_test

import (
	"flag"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestUserPropertySeeds replays the draws of TestUserProperty that once found a broken rule,
// as a fuzz corpus does: the seeds of the rapid generators, one check each.
func TestUserPropertySeeds(t *testing.T) {
	for _, seed := range []string{
		"7208094370189301959", // a zone no offering launches in held the spread cap at zero
		"7536890186669937141", // a carrier that moved a NodeClaim's counted pod, skew 3 > 2
	} {
		t.Run(seed, func(t *testing.T) {
			for name, value := range map[string]string{"rapid.seed": seed, "rapid.checks": "1"} {
				old := flag.Lookup(name).Value.String()
				require.NoError(t, flag.Set(name, value))
				t.Cleanup(func() { _ = flag.Set(name, old) })
			}
			rapid.Check(t, solveKeepsEveryRule)
		})
	}
}
