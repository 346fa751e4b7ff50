package simulate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/fake"
	"github.com/nodeplan/nodeplan/simulate"
)

// spotPool is inflate's cluster with a spot-only NodePool (for interruptions) whose nodes
// expire after expireAfter ("Never" to keep them) and that consolidates only when empty.
func spotPool(expireAfter string) string {
	return strings.Replace(strings.Replace(inflate,
		"values: [on-demand]}]", "values: [spot]}]\n      expireAfter: "+expireAfter, 1),
		"WhenEmptyOrUnderutilized", "WhenEmpty", 1)
}

// nthAt is the time since t0 of the nth (from 1) event of tr that match accepts (-1 when
// there is none).
func nthAt(tr *simulate.Trace, n int, match func(simulate.Event) bool) time.Duration {
	for _, p := range tr.Series {
		for _, e := range p.Events {
			if match(e) {
				if n--; n == 0 {
					return p.Time.Sub(t0)
				}
			}
		}
	}
	return -1
}

// firstAt is when the first event of kind happened; secondAt the second.
func firstAt(tr *simulate.Trace, kind simulate.EventKind) time.Duration {
	return nthAt(tr, 1, func(e simulate.Event) bool { return e.Kind == kind })
}

func secondAt(tr *simulate.Trace, kind simulate.EventKind) time.Duration {
	return nthAt(tr, 2, func(e simulate.Event) bool { return e.Kind == kind })
}

// firstDisruption is when the first disruption command of reason was carried out.
func firstDisruption(tr *simulate.Trace, reason string) time.Duration {
	return nthAt(tr, 1, func(e simulate.Event) bool { return e.Kind == simulate.EventDisruption && e.Reason == reason })
}

// nextTick is the first disruption tick (every DisruptionPeriod from the start) at or
// after since-t0 time at.
func nextTick(at time.Duration, s simulate.Settings) time.Duration {
	return (at + s.DisruptionPeriod - 1) / s.DisruptionPeriod * s.DisruptionPeriod
}

// consolidatedReset is when a Plan first sees an empty node's consolidateAfter elapsed when
// nothing happens after its last pod event at podEvent: the cluster is consolidated from the
// next tick and reset every five minutes (Karpenter's consolidated-state timeout).
func consolidatedReset(podEvent, consolidateAfter time.Duration, s simulate.Settings) time.Duration {
	at := nextTick(podEvent, s)
	for at < podEvent+consolidateAfter {
		at += 5 * time.Minute
	}
	return at
}

// pendingZeroAt is the time since t0 from which no pod waits any more, after some did.
func pendingZeroAt(tr *simulate.Trace) time.Duration {
	waited := false
	for _, p := range tr.Series {
		waited = waited || p.PendingPods > 0
		if waited && p.PendingPods == 0 {
			return p.Time.Sub(t0)
		}
	}
	return -1
}

// TestTimings pins when the loops act, each derived from the Settings that govern it (issue
// #21: Karpenter's timings, each a documented, overridable setting). A row fails if the
// simulator stops honouring its setting, or honours it one tick off.
func TestTimings(t *testing.T) {
	const minute = time.Minute
	scaleAt := func(at time.Duration, replicas int) string {
		return fmt.Sprintf("- at: %v\n  scale: {name: inflate, replicas: %d}\n", at, replicas)
	}
	timeline := func(duration string, events ...string) string {
		return "apiVersion: nodeplan.io/v1alpha1\nkind: Timeline\nduration: " + duration + "\nevents:\n" + strings.Join(events, "")
	}
	// every half second from 1m to 1m15s one more replica: the batch never idles.
	var trickle []string
	for i := 0; i <= 30; i++ {
		trickle = append(trickle, scaleAt(minute+time.Duration(i)*500*time.Millisecond, i+1))
	}
	for _, tc := range []struct {
		name      string
		manifests string
		timeline  string
		settings  func(*simulate.Settings)
		// got is when the behaviour happened, want when the settings say it must.
		got  func(*simulate.Trace) time.Duration
		want func(simulate.Settings) time.Duration
	}{{
		name: "batch closes BatchIdle after the last pending pod (default 1s)", manifests: inflate,
		timeline: timeline("5m", scaleAt(minute, 3)),
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventProvisioned) },
		want:     func(s simulate.Settings) time.Duration { return minute + s.BatchIdle },
	}, {
		name: "BatchIdle overridden to 5s", manifests: inflate,
		timeline: timeline("5m", scaleAt(minute, 3)),
		settings: func(s *simulate.Settings) { s.BatchIdle = 5 * time.Second },
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventProvisioned) },
		want:     func(s simulate.Settings) time.Duration { return minute + s.BatchIdle },
	}, {
		name: "a pod within BatchIdle keeps the batch open: idle counts from the last", manifests: inflate,
		timeline: timeline("5m", scaleAt(minute, 1), scaleAt(minute+500*time.Millisecond, 2)),
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventProvisioned) },
		want:     func(s simulate.Settings) time.Duration { return minute + 500*time.Millisecond + s.BatchIdle },
	}, {
		name: "pods every 0.5s keep the batch open only until BatchMax (default 10s)", manifests: inflate,
		timeline: timeline("5m", trickle...),
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventProvisioned) },
		want:     func(s simulate.Settings) time.Duration { return minute + s.BatchMax },
	}, {
		name: "BatchMax overridden to 4s", manifests: inflate,
		timeline: timeline("5m", trickle...),
		settings: func(s *simulate.Settings) { s.BatchMax = 4 * time.Second },
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventProvisioned) },
		want:     func(s simulate.Settings) time.Duration { return minute + s.BatchMax },
	}, {
		name: "a launched node registers RegistrationLatency after the launch (default 40s)", manifests: inflate,
		timeline: timeline("5m", scaleAt(minute, 3)),
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventRegistered) },
		want:     func(s simulate.Settings) time.Duration { return minute + s.BatchIdle + s.RegistrationLatency },
	}, {
		name: "it initializes InitializationLatency after registering (default 20s)", manifests: inflate,
		timeline: timeline("5m", scaleAt(minute, 3)),
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventInitialized) },
		want: func(s simulate.Settings) time.Duration {
			return minute + s.BatchIdle + s.RegistrationLatency + s.InitializationLatency
		},
	}, {
		name: "its pods stop waiting when it is initialized", manifests: inflate,
		timeline: timeline("5m", scaleAt(minute, 3)),
		got:      pendingZeroAt,
		want: func(s simulate.Settings) time.Duration {
			return minute + s.BatchIdle + s.RegistrationLatency + s.InitializationLatency
		},
	}, {
		name: "latencies overridden to 7s and 3s", manifests: inflate,
		timeline: timeline("5m", scaleAt(minute, 3)),
		settings: func(s *simulate.Settings) {
			s.RegistrationLatency, s.InitializationLatency = 7*time.Second, 3*time.Second
		},
		got: pendingZeroAt,
		want: func(s simulate.Settings) time.Duration {
			return minute + s.BatchIdle + s.RegistrationLatency + s.InitializationLatency
		},
	}, {
		name: "an interrupted node drains at once: its instance ends TerminationLatency after the warning, within InterruptionWarning", manifests: spotPool("Never"),
		timeline: timeline("15m", scaleAt(minute, 3), "- at: 5m\n  interrupt: {nodePool: default}\n"),
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventTerminated) },
		want: func(s simulate.Settings) time.Duration {
			return 5*minute + min(s.TerminationLatency, s.InterruptionWarning)
		},
	}, {
		name: "an interrupted instance ends InterruptionWarning after the warning, drained or not (default 2m)", manifests: spotPool("Never"),
		timeline: timeline("15m", scaleAt(minute, 3), "- at: 5m\n  interrupt: {nodePool: default}\n"),
		settings: func(s *simulate.Settings) { s.TerminationLatency = 10 * minute },
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventTerminated) },
		want:     func(s simulate.Settings) time.Duration { return 5*minute + s.InterruptionWarning },
	}, {
		name: "InterruptionWarning overridden to 5m", manifests: spotPool("Never"),
		timeline: timeline("15m", scaleAt(minute, 3), "- at: 5m\n  interrupt: {nodePool: default}\n"),
		settings: func(s *simulate.Settings) { s.TerminationLatency, s.InterruptionWarning = 10*minute, 5*minute },
		got:      func(tr *simulate.Trace) time.Duration { return firstAt(tr, simulate.EventTerminated) },
		want:     func(s simulate.Settings) time.Duration { return 5*minute + s.InterruptionWarning },
	}, {
		name: "the interruption is handled at once: the node is deleted at the warning", manifests: spotPool("Never"),
		timeline: timeline("15m", scaleAt(minute, 3), "- at: 5m\n  interrupt: {nodePool: default}\n"),
		got:      func(tr *simulate.Trace) time.Duration { return firstDisruption(tr, "Interrupted") },
		want:     func(simulate.Settings) time.Duration { return 5 * minute },
	}, {
		name: "its pods are replaced a batch later", manifests: spotPool("Never"),
		timeline: timeline("15m", scaleAt(minute, 3), "- at: 5m\n  interrupt: {nodePool: default}\n"),
		settings: func(s *simulate.Settings) { s.BatchIdle = 3 * time.Second },
		got: func(tr *simulate.Trace) time.Duration {
			return secondAt(tr, simulate.EventProvisioned)
		},
		want: func(s simulate.Settings) time.Duration { return 5*minute + s.BatchIdle },
	}, {
		name: "a node expires at the first disruption tick after launch+expireAfter (10m)", manifests: spotPool("10m"),
		timeline: timeline("20m", scaleAt(minute, 3)),
		got:      func(tr *simulate.Trace) time.Duration { return firstDisruption(tr, "Expired") },
		want:     func(s simulate.Settings) time.Duration { return nextTick(minute+s.BatchIdle+10*minute, s) },
	}, {
		name: "expiry waits for the next disruption tick (DisruptionPeriod overridden to 7s)", manifests: spotPool("10m"),
		timeline: timeline("20m", scaleAt(minute, 3)),
		settings: func(s *simulate.Settings) { s.DisruptionPeriod = 7 * time.Second },
		got:      func(tr *simulate.Trace) time.Duration { return firstDisruption(tr, "Expired") },
		want:     func(s simulate.Settings) time.Duration { return nextTick(minute+s.BatchIdle+10*minute, s) },
	}, {
		// Karpenter's consolidated state: the Plan after the scale-down finds nothing yet and
		// the cluster is consolidated until something changes or five minutes pass; with
		// nothing else happening the empty node goes at the first reset after
		// consolidateAfter has elapsed, a ValidationDelay later.
		name: "consolidateAfter 30s: the empty node goes at the five-minute reset", manifests: inflate,
		timeline: timeline("30m", scaleAt(minute, 3), scaleAt(5*minute, 0)),
		got:      func(tr *simulate.Trace) time.Duration { return firstDisruption(tr, "Empty") },
		want: func(s simulate.Settings) time.Duration {
			return consolidatedReset(5*minute, 30*time.Second, s) + s.ValidationDelay
		},
	}, {
		name: "consolidateAfter 6m counts from the last pod event, not the launch", manifests: strings.Replace(inflate, "consolidateAfter: 30s", "consolidateAfter: 6m", 1),
		timeline: timeline("30m", scaleAt(minute, 3), scaleAt(5*minute, 0)),
		got:      func(tr *simulate.Trace) time.Duration { return firstDisruption(tr, "Empty") },
		want: func(s simulate.Settings) time.Duration {
			return consolidatedReset(5*minute, 6*minute, s) + s.ValidationDelay
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			in := input(t, tc.manifests, tc.timeline, fake.InstanceTypes(8))
			if tc.settings != nil {
				tc.settings(&in.Settings)
			}
			tr, err := simulate.Run(in)
			require.NoError(t, err)
			got, want := tc.got(tr), tc.want(in.Settings)
			if got != want {
				for _, p := range tr.Series {
					t.Logf("%v nodes=%d pending=%d %+v", p.Time.Sub(t0), p.Nodes, p.PendingPods, p.Events)
				}
			}
			require.Equal(t, want, got)
		})
	}
}
