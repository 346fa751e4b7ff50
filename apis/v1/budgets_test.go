package v1

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func scheduled(nodes, schedule, duration string, reasons ...DisruptionReason) Budget {
	return Budget{Nodes: nodes, Schedule: ptr(schedule), Duration: metaDuration(duration), Reasons: reasons}
}

func TestBudgetIsActive(t *testing.T) {
	plus5 := time.FixedZone("UTC+5", 5*3600)
	cases := []struct {
		name   string
		budget Budget
		now    time.Time
		want   bool
	}{
		{"no schedule is always active", Budget{Nodes: "1"}, utc("2026-01-01T00:00:00Z"), true},
		{"at the hit", scheduled("0", "0 9 * * *", "1h"), utc("2026-03-02T09:00:00Z"), true},
		{"inside the window", scheduled("0", "0 9 * * *", "1h"), utc("2026-03-02T09:59:59Z"), true},
		{"at hit+duration it has ended", scheduled("0", "0 9 * * *", "1h"), utc("2026-03-02T10:00:00Z"), false},
		{"just before the hit", scheduled("0", "0 9 * * *", "1h"), utc("2026-03-02T08:59:59Z"), false},
		{"sub-second before the end", scheduled("0", "0 9 * * *", "1h"), utc("2026-03-02T09:59:59.999Z"), true},
		{"evaluated in UTC: 14:30 at UTC+5 is 09:30 UTC", scheduled("0", "0 9 * * *", "1h"), time.Date(2026, 3, 2, 14, 30, 0, 0, plus5), true},
		{"evaluated in UTC: 09:30 at UTC+5 is 04:30 UTC", scheduled("0", "0 9 * * *", "1h"), time.Date(2026, 3, 2, 9, 30, 0, 0, plus5), false},
		{"duration longer than the recurrence", scheduled("0", "@hourly", "2h"), utc("2026-03-02T17:42:00Z"), true},
		{"zero duration is never active", scheduled("0", "0 9 * * *", "0m"), utc("2026-03-02T09:00:00Z"), false},
		{"@daily window", scheduled("0", "@daily", "10m"), utc("2026-03-02T00:05:00Z"), true},
		{"@daily after window", scheduled("0", "@daily", "10m"), utc("2026-03-02T00:10:00Z"), false},
		{"weekdays on a Saturday", scheduled("0", "0 9 * * mon-fri", "8h"), utc("2026-03-07T10:00:00Z"), false},
		{"weekdays on a Friday afternoon", scheduled("0", "0 9 * * mon-fri", "8h"), utc("2026-03-06T16:59:00Z"), true},
		{"window spanning midnight", scheduled("0", "0 22 * * *", "4h"), utc("2026-03-03T01:30:00Z"), true},
		{"a schedule that never fires", scheduled("0", "0 0 30 2 *", "24h"), utc("2026-02-28T12:00:00Z"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.budget.IsActive(tc.now)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestBudgetIsActiveErrors(t *testing.T) {
	now := utc("2026-03-02T09:00:00Z")
	for name, b := range map[string]Budget{
		"schedule without duration": {Nodes: "1", Schedule: ptr("@daily")},
		"duration without schedule": {Nodes: "1", Duration: metaDuration("1h")},
		"invalid cron":              scheduled("1", "not a cron", "1h"),
		"six fields":                scheduled("1", "0 0 9 * * *", "1h"),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := b.IsActive(now)
			assert.Error(t, err)
		})
	}
}

func TestBudgetAllowedDisruptions(t *testing.T) {
	now := utc("2026-03-02T12:00:00Z")
	cases := []struct {
		nodes    string
		numNodes int
		want     int
	}{
		{"10%", 10, 1},
		{"10%", 11, 2}, // 1.1 rounds up
		{"10%", 1, 1},
		{"10%", 0, 0},
		{"30%", 10, 3},
		{"15%", 3, 1}, // 0.45 rounds up
		{"0%", 100, 0},
		{"100%", 7, 7},
		{"99%", 100, 99},
		{"10", 3, 10}, // a count is not capped by the node count
		{"0", 10, 0},
		{"5%", -4, 0},
	}
	for _, tc := range cases {
		got, err := Budget{Nodes: tc.nodes}.AllowedDisruptions(now, tc.numNodes)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%s of %d", tc.nodes, tc.numNodes)
	}
	got, err := scheduled("0", "0 9 * * *", "1h").AllowedDisruptions(now, 10)
	require.NoError(t, err)
	assert.Equal(t, Unlimited, got, "an inactive budget allows everything")

	for _, bad := range []string{"", "ten", "101%", "-1", "99999999999999999999999"} {
		got, err := Budget{Nodes: bad}.AllowedDisruptions(now, 10)
		assert.Error(t, err, bad)
		assert.Zero(t, got, bad)
	}
}

func TestNodePoolAllowedDisruptions(t *testing.T) {
	now := utc("2026-03-02T12:00:00Z") // a Monday
	cases := []struct {
		name     string
		budgets  []Budget
		numNodes int
		reason   DisruptionReason
		want     int
	}{
		{"no budgets", nil, 10, DisruptionReasonEmpty, Unlimited},
		{"default budget", []Budget{{Nodes: "10%"}}, 25, DisruptionReasonUnderutilized, 3},
		{"minimum of several", []Budget{{Nodes: "50%"}, {Nodes: "3"}, {Nodes: "40%"}}, 10, DisruptionReasonEmpty, 3},
		{"reason-specific applies to its reason", []Budget{{Nodes: "5"}, {Nodes: "0", Reasons: []DisruptionReason{DisruptionReasonDrifted}}}, 10, DisruptionReasonDrifted, 0},
		{"reason-specific ignored for other reasons", []Budget{{Nodes: "5"}, {Nodes: "0", Reasons: []DisruptionReason{DisruptionReasonDrifted}}}, 10, DisruptionReasonEmpty, 5},
		{"only reason-specific for other reasons", []Budget{{Nodes: "1", Reasons: []DisruptionReason{DisruptionReasonEmpty, DisruptionReasonDrifted}}}, 10, DisruptionReasonUnderutilized, Unlimited},
		{"reasonless zero blocks all", []Budget{{Nodes: "0"}, {Nodes: "5", Reasons: []DisruptionReason{DisruptionReasonEmpty}}}, 10, DisruptionReasonEmpty, 0},
		{"inactive schedule ignored", []Budget{{Nodes: "20%"}, scheduled("0", "0 9 * * *", "2h")}, 10, DisruptionReasonEmpty, 2},
		{"active schedule applies", []Budget{{Nodes: "20%"}, scheduled("0", "0 9 * * mon-fri", "8h")}, 10, DisruptionReasonEmpty, 0},
		{"only inactive budgets", []Budget{scheduled("0", "0 0 * * sun", "1h")}, 10, DisruptionReasonDrifted, Unlimited},
		{"percentages scale with node count", []Budget{{Nodes: "50%"}}, 3, DisruptionReasonEmpty, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			np := validNodePool()
			np.Spec.Disruption.Budgets = tc.budgets
			got, err := np.AllowedDisruptions(now, tc.numNodes, tc.reason)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestNodePoolAllowedDisruptionsFailsClosed(t *testing.T) {
	now := utc("2026-03-02T12:00:00Z")
	np := validNodePool()
	// The misconfigured budget only names Drifted, yet every reason fails closed, as in Karpenter.
	np.Spec.Disruption.Budgets = []Budget{{Nodes: "5"}, {Nodes: "1", Reasons: []DisruptionReason{DisruptionReasonDrifted}, Schedule: ptr("bad cron"), Duration: metaDuration("1h")}}
	for _, reason := range []DisruptionReason{DisruptionReasonDrifted, DisruptionReasonEmpty} {
		got, err := np.AllowedDisruptions(now, 10, reason)
		require.Error(t, err)
		assert.Zero(t, got)
		assert.Contains(t, err.Error(), `NodePool "default": spec.disruption.budgets[1]`)
	}
}
