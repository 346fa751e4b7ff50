package v1

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Unlimited is what a budget allows while inactive, and what AllowedDisruptions returns
// when no active budget applies (Karpenter's math.MaxInt32).
const Unlimited = math.MaxInt32

// budgetNodesPattern is the CRD's pattern for a budget's nodes: a count or 0%..100%.
var budgetNodesPattern = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)

// cronMacros are the @-descriptors a budget schedule may use.
var cronMacros = []string{"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"}

// ParseSchedule parses a budget schedule: five cron fields (minute hour day-of-month month
// day-of-week) or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly.
// Time zone prefixes and @every are rejected: schedules are evaluated in UTC.
func ParseSchedule(s string) (cron.Schedule, error) {
	if strings.HasPrefix(s, "TZ=") || strings.HasPrefix(s, "CRON_TZ=") {
		return nil, fmt.Errorf("cron schedule %q sets a time zone; time zones are not supported, schedules are evaluated in UTC", s)
	}
	if strings.HasPrefix(s, "@") {
		if !slices.Contains(cronMacros, s) {
			return nil, fmt.Errorf("unsupported cron macro %q (use one of %s)", s, strings.Join(cronMacros, ", "))
		}
	} else if n := len(strings.Fields(s)); n != 5 {
		return nil, fmt.Errorf("cron schedule %q has %d fields, want 5 (minute hour day-of-month month day-of-week)", s, n)
	}
	sched, err := cron.ParseStandard(s)
	if err != nil {
		return nil, fmt.Errorf("invalid cron schedule %q: %w", s, err)
	}
	return sched, nil
}

// IsActive reports whether the budget applies at now. A budget without schedule and
// duration is always active. Otherwise the schedule is evaluated in UTC and the budget is
// active when a schedule hit falls in (now-duration, now]: from the hit itself until just
// before hit+duration. A schedule that never fires (e.g. February 30th) is never active.
// It errors when only one of schedule and duration is set or the schedule does not parse.
func (in Budget) IsActive(now time.Time) (bool, error) {
	if in.Schedule == nil && in.Duration == nil {
		return true, nil
	}
	if in.Schedule == nil || in.Duration == nil {
		return false, errors.New("budget schedule and duration must be set together")
	}
	sched, err := ParseSchedule(*in.Schedule)
	if err != nil {
		return false, err
	}
	now = now.UTC()
	next := sched.Next(now.Add(-in.Duration.Duration))
	if next.IsZero() {
		return false, nil
	}
	return !next.After(now), nil
}

// AllowedDisruptions is how many of numNodes nodes the budget lets be disrupted at now:
// Unlimited while inactive; otherwise the count, or the percentage of numNodes rounded up
// (as Kubernetes rounds a PDB's maxUnavailable). A misconfigured budget returns 0 and an
// error (fail closed).
func (in Budget) AllowedDisruptions(now time.Time, numNodes int) (int, error) {
	active, err := in.IsActive(now)
	if err != nil {
		return 0, err
	}
	if !active {
		return Unlimited, nil
	}
	return scaleBudgetNodes(in.Nodes, numNodes)
}

// scaleBudgetNodes resolves a budget's nodes value against a node count.
func scaleBudgetNodes(nodes string, numNodes int) (int, error) {
	if !budgetNodesPattern.MatchString(nodes) {
		return 0, fmt.Errorf("budget nodes %q is neither a count nor a percentage from 0%% to 100%%", nodes)
	}
	numNodes = max(numNodes, 0)
	if p, ok := strings.CutSuffix(nodes, "%"); ok {
		percent, _ := strconv.Atoi(p) // the pattern guarantees 0..100
		return (percent*numNodes + 99) / 100, nil
	}
	n, err := strconv.Atoi(nodes)
	if err != nil {
		return 0, fmt.Errorf("budget nodes %q is out of range", nodes)
	}
	return n, nil
}

// AllowedDisruptions is how many of the NodePool's numNodes nodes may be disrupted at now
// for reason: the minimum over the active budgets that apply to the reason (a budget
// without reasons applies to all) of what each allows, or Unlimited when none applies.
// As Karpenter does, a misconfigured budget (whatever its reasons) fails closed: the
// result is 0 with an error naming the budget.
func (in *NodePool) AllowedDisruptions(now time.Time, numNodes int, reason DisruptionReason) (int, error) {
	allowed := Unlimited
	var errs []error
	for i, b := range in.Spec.Disruption.Budgets {
		n, err := b.AllowedDisruptions(now, numNodes)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: spec.disruption.budgets[%d]: %w", objectRef(KindNodePool, in.Name), i, err))
			continue
		}
		if len(b.Reasons) == 0 || slices.Contains(b.Reasons, reason) {
			allowed = min(allowed, n)
		}
	}
	if len(errs) > 0 {
		return 0, errors.Join(errs...)
	}
	return max(allowed, 0), nil
}
