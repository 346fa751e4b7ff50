package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// TestPlanRowsCountNowAndAfter: an existing node's row counts its bound pods and those the
// plan places there; the cluster now counts only the bound ones, after the plan both.
func TestPlanRowsCountNowAndAfter(t *testing.T) {
	p, _, snap, err := loadPlan(scenario("existing-node-first"), io.Discard)
	require.NoError(t, err)
	res, err := scheduling.Solve(snap, p.options())
	require.NoError(t, err)
	rows := planRows(snap, res, p.catalog)
	require.Len(t, rows, 1, "the web pod goes to node-a, no new claim")
	r := rows[0]
	assert.Equal(t, "node-a", r.Name)
	assert.Equal(t, []string{"default/web"}, r.PodNames)
	// node-a: 8 cpu, 16Gi; running asks 2 cpu 2Gi, web 2 cpu 2Gi; s-8x16 on-demand at 0.32
	assert.Equal(t, usage{4000, 8000}, r.CPU)
	assert.Equal(t, usage{4 << 30, 16 << 30}, r.Memory)
	sum := summarizeRows(rows, nil)
	assert.Equal(t, totals{Nodes: 1, CPU: usage{2000, 8000}, Memory: usage{2 << 30, 16 << 30}, Pods: 1, PricePerHour: 0.32}, sum.Now)
	assert.Equal(t, totals{Nodes: 1, CPU: usage{4000, 8000}, Memory: usage{4 << 30, 16 << 30}, Pods: 2, PricePerHour: 0.32}, sum.After)
}

// TestDisruptRowsLeaveTheDeletedOut: after a disrupt plan the cluster is the nodes no command
// deletes plus the NodeClaims launched; each node says what happens to it.
func TestDisruptRowsLeaveTheDeletedOut(t *testing.T) {
	in, err := loadDisrupt(realClusterArgs("dump.yaml", "karpenter.yaml"), io.Discard)
	require.NoError(t, err)
	res, err := disruption.Plan(in.snap, in.at.Time, in.opts)
	require.NoError(t, err)
	rows := disruptRows(in.snap, res, in.flags.catalog)
	candidates := map[string]int{}
	for i, c := range res.Commands {
		for _, n := range c.Candidates {
			candidates[n] = i + 1
		}
	}
	require.NotEmpty(t, candidates)
	var now, after, claims int
	var afterPrice float64
	for _, r := range rows {
		if r.New {
			claims++
		} else {
			now++
			_, deleted := candidates[r.Name]
			assert.Equal(t, deleted, r.Removed, r.Name)
		}
		if !r.Removed {
			after++
			afterPrice += r.PricePerHour
		}
	}
	assert.Equal(t, len(in.snap.Nodes()), now)
	assert.Equal(t, len(res.Provisioned)+len(res.Commands[1].Replacements), claims)
	sum := summarizeRows(rows, nil)
	assert.Equal(t, now, sum.Now.Nodes)
	assert.Equal(t, now-len(candidates)+claims, sum.After.Nodes)
	assert.InDelta(t, afterPrice, sum.After.PricePerHour, 1e-9)
	// Consolidation saves what the command says: the now and after prices differ by the
	// savings less the provisioned claims (expiration saves nothing and re-launches its pods).
	provisioned := 0.0
	for _, c := range res.Provisioned {
		provisioned += c.Offering.Price
	}
	saved := 0.0
	for _, c := range res.Commands {
		saved += c.SavingsPerHour
	}
	expired := 0.0
	for _, r := range rows {
		if candidates[r.Name] > 0 && res.Commands[candidates[r.Name]-1].Reason == disruption.ReasonExpired {
			expired += r.PricePerHour
		}
	}
	assert.InDelta(t, sum.Now.PricePerHour-saved-expired+provisioned, sum.After.PricePerHour, 1e-6)
}
