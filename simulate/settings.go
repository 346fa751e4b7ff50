package simulate

import (
	"time"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// Settings are the loops' timings and the engines' options. A zero duration takes the
// default (DefaultSettings); Karpenter's own constants are marked so, the rest are typical
// EC2 figures to override with your own.
type Settings struct {
	// BatchIdle and BatchMax close a provisioning batch: Solve runs once no pod became
	// pending for BatchIdle, or BatchMax after the batch opened (Karpenter's
	// --batch-idle-duration 1 s and --batch-max-duration 10 s).
	BatchIdle, BatchMax time.Duration
	// PodRetry is how often pods left pending are tried again (Karpenter requeues a
	// provisionable pod every 10 s); a retry on an unchanged cluster is skipped, as its
	// Solve would answer the same.
	PodRetry time.Duration
	// RegistrationLatency is from a launch to its Node registering (uninitialized: startup
	// taints on, pods not yet running); InitializationLatency from registration to
	// initialized (Ready, startup taints off: its pods start). Defaults 40 s and 20 s, a
	// typical EC2 node ready a minute after launch.
	RegistrationLatency, InitializationLatency time.Duration
	// DisruptionPeriod is how often the disruption controller looks when it has nothing to
	// do (Karpenter's pollingPeriod, 10 s); it plans again at once after it acts. Drains
	// advance at the same ticks. A tick whose cluster is as the last Plan saw it and that
	// no time-based rule changes (consolidateAfter elapsing, expiry, a budget schedule,
	// a do-not-disrupt duration, the one-hour drift check) is skipped: its Plan would
	// answer the same.
	DisruptionPeriod time.Duration
	// ValidationDelay is how long an emptiness, consolidation or drift command waits
	// before it is carried out, and only if a Plan then decides it again (Karpenter's
	// commandValidationDelay, 15 s).
	ValidationDelay time.Duration
	// InterruptionWarning is from a spot interruption warning to the instance's end
	// (EC2's two minutes).
	InterruptionWarning time.Duration
	// UnavailableFor is how long an offering stays unavailable after an insufficient-
	// capacity error or a spot interruption (Karpenter's unavailable-offerings cache, 3 min).
	UnavailableFor time.Duration
	// TerminationLatency is from a node's drain finishing to its instance being gone and
	// no longer billed (the pods' own grace period, 30 s by default, then the shutdown).
	TerminationLatency time.Duration
	// OfferingCapacity is how many instances of an offering (fake.OfferingKey:
	// "type/zone/capacity-type") can run at once; absent offerings are unlimited. A launch
	// that finds an offering full fails over to the next (the fake cloud's CreateFleet),
	// and the full offering is unavailable for UnavailableFor.
	OfferingCapacity map[string]int
	// Scheduling are the options of every Solve, and of Plan's simulations; Disruption the
	// options of every Plan (its Scheduling field is set to Scheduling).
	Scheduling scheduling.Options
	Disruption disruption.Options
	// Verify holds every Solve and Plan to package verify; a violation stops the run with
	// an error (the plan would break a rule the cluster relies on).
	Verify bool
	// EveryTick runs Solve and Plan at every batch retry and disruption tick, even when
	// nothing changed since the last one. The trace is the same (a test checks it); it is
	// for that test and costs much more.
	EveryTick bool
}

// DefaultSettings are the defaults documented at each field of Settings, with Verify on.
func DefaultSettings() Settings {
	return Settings{
		BatchIdle: time.Second, BatchMax: 10 * time.Second, PodRetry: 10 * time.Second,
		RegistrationLatency: 40 * time.Second, InitializationLatency: 20 * time.Second,
		DisruptionPeriod: 10 * time.Second, ValidationDelay: 15 * time.Second,
		InterruptionWarning: 2 * time.Minute, UnavailableFor: 3 * time.Minute,
		TerminationLatency: 30 * time.Second,
		Verify:             true,
	}
}

// withDefaults fills the zero durations of s from DefaultSettings.
func (s Settings) withDefaults() Settings {
	d := DefaultSettings()
	for _, f := range []struct{ v, def *time.Duration }{
		{&s.BatchIdle, &d.BatchIdle}, {&s.BatchMax, &d.BatchMax}, {&s.PodRetry, &d.PodRetry},
		{&s.RegistrationLatency, &d.RegistrationLatency}, {&s.InitializationLatency, &d.InitializationLatency},
		{&s.DisruptionPeriod, &d.DisruptionPeriod}, {&s.ValidationDelay, &d.ValidationDelay},
		{&s.InterruptionWarning, &d.InterruptionWarning}, {&s.UnavailableFor, &d.UnavailableFor},
		{&s.TerminationLatency, &d.TerminationLatency},
	} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	s.Disruption.Scheduling = s.Scheduling
	return s
}
