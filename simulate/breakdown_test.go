package simulate_test

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/nodeplan/nodeplan/internal/cputime"
	"github.com/nodeplan/nodeplan/simulate"
)

var (
	day      = flag.Bool("day", false, "run TestDayBreakdown: a simulated day on cluster-workload 300, with where its CPU goes")
	dayHours = flag.Int("day-hours", 24, "how many hours of the day TestDayBreakdown simulates")
)

// TestDayBreakdown simulates BenchmarkDay's day once and logs the CPU by hour, the Plans by
// kind and the Solves: what to look at when the day is slow (-day; minutes of CPU).
func TestDayBreakdown(t *testing.T) {
	if !*day {
		t.Skip("needs -day")
	}
	in := dayInput(t, 300)
	in.Settings.Verify = false
	in.Timeline.Duration = time.Duration(*dayHours) * time.Hour
	var evs []simulate.TimelineEvent
	for _, e := range in.Timeline.Events {
		if e.At <= in.Timeline.Duration {
			evs = append(evs, e)
		}
	}
	in.Timeline.Events = evs
	counts := map[simulate.StepKind]int{}
	planKinds := map[string]int{}
	solves, plans, fullPlans := 0, 0, 0
	var planCPU, solveCPU, fullCPU time.Duration
	last := cputime.Now()
	hour := 0
	start := cputime.Now()
	in.Observe = func(st *simulate.Step) {
		now := cputime.Now()
		if h := int(st.Time.Sub(in.Start).Hours()); h > hour {
			t.Logf("hour %d: cpu %v", h, now-start)
			hour = h
		}
		if st.Plan != nil {
			planCPU += now - last
			if !st.Consolidated {
				fullPlans++
				fullCPU += now - last
			}
		}
		if st.Solve != nil {
			solveCPU += now - last
		}
		last = now
		counts[st.Kind]++
		if st.Plan != nil {
			useful := len(st.Carried) > 0 || len(st.Evicted)+len(st.Deleted) > 0
			graceful := 0
			for _, c := range st.Plan.Commands {
				if !c.Reason.Forceful() {
					graceful++
				}
			}
			key := fmt.Sprintf("%s useful=%v graceful=%v drains=%d", st.Kind, useful, graceful > 0, len(st.Plan.Drains))
			planKinds[key]++
		}
		if st.Solve != nil {
			solves++
		}
		if st.Plan != nil {
			plans++
		}
	}
	cpu := cputime.Now()
	tr, err := simulate.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("plan cpu %v (%d Plans running emptiness and consolidation: %v) solve cpu %v", planCPU, fullPlans, fullCPU, solveCPU)
	for k, v := range planKinds {
		t.Logf("%5d %s", v, k)
	}
	t.Logf("cpu %v steps %v solves %d plans %d points %d totals %+v", time.Duration(cputime.Per(cpu, 1)), counts, solves, plans, len(tr.Series), tr.Totals.Disruptions)
}
