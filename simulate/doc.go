// Package simulate runs Karpenter's provisioning and disruption loops over simulated time:
// a cluster snapshot, a [Timeline] of what happens to it and [Settings] in, a deterministic
// [Trace] out (the price per hour, nodes and waiting pods at every instant something
// happened, and the totals: USD spent, node-hours, peak nodes, evictions, disruptions by
// reason, the longest wait per workload). It answers what a NodePool setting would have
// cost over a day of traffic, and how many pods it would have evicted, before anyone
// touches a cluster.
//
// [Run] is a discrete-event loop over the package fake's in-memory cloud (built from the
// snapshot's instance types, with Settings.OfferingCapacity as its capacity model). Every
// decision is what scheduling.Solve or disruption.Plan answers on the cluster at that step
// (with Settings.Verify held to package verify); between decisions the loop does what
// Karpenter's controllers and the cloud do, with Karpenter's timings:
//
//   - Provisioning: a pod that becomes pending opens a batch, which closes after
//     BatchIdle without new pods or BatchMax after it opened; then Solve runs on the cluster
//     with the nodes marked for deletion (their pods are planned again), the new NodeClaims
//     launch in the fake cloud (refusals leave their pods pending, with
//     scheduling.LaunchRefused, and make the offerings unavailable for UnavailableFor), and
//     pending pods bind where Solve put them. Pods left pending try again every PodRetry.
//   - Nodes: a launched NodeClaim's Node registers RegistrationLatency later (startup
//     taints on) and is initialized InitializationLatency after that; then its pods run.
//     cluster.Snapshot.WithPodsRunning and WithPodEvents keep the times Plan reads current
//     (pod start times, lastPodEventTime for consolidateAfter).
//   - Disruption: every DisruptionPeriod Plan runs. Its forceful commands (interruption,
//     expiration, repair) delete their nodes at once; its graceful ones (emptiness, drift,
//     consolidation) are carried out ValidationDelay later if a second Plan decides them
//     again: the replacements launch (all or none), the candidates are tainted and marked,
//     and once the replacements are initialized the candidates are deleted. Plan's budgets,
//     PodDisruptionBudgets, do-not-disrupt, consolidateAfter and schedules apply as Plan
//     applies them. Karpenter's consolidated state is kept as its controller keeps it:
//     once emptiness and consolidation found nothing, they skip
//     (disruption.Options.Consolidated) until a pod is bound or deleted, a node is added,
//     removed, initialized or marked for deletion, a NodePool changes, or five minutes pass;
//     so a node whose consolidateAfter elapses with nothing else happening goes at the next
//     five-minute reset, as in Karpenter.
//   - Drains: at every tick, each deleting node's drain advances as Plan's Drains say:
//     the first eviction group's pods that may go are evicted (and made anew, pending, by
//     their controllers), pods whose terminationGracePeriod deadline came are deleted; a
//     node with nothing left to evict is drained and its instance ends TerminationLatency
//     later. A spot interruption ends the instance InterruptionWarning after the warning,
//     drained or not.
//
// A batch or tick on a cluster that did not change since the last Solve or Plan, and at
// which no time-based rule changes Plan's answer (consolidateAfter elapsing, expiry, a
// budget schedule, a do-not-disrupt duration, a drain deadline), is skipped: its answer
// would be the same (TestPropSkippingIsExact compares with Settings.EveryTick). So is the
// Plan at a five-minute reset of the consolidated state on the cluster the last full Plan
// saw (before any time-based rule changes, and without drains): its answer is that Plan's.
// That, one scheduling.Cache for every Solve and Plan and one cluster.PDBMatches for every
// Plan are what make a day of a 300-node cluster cost seconds.
//
// The package is pure: no clock (times come from the input), no environment, no I/O (the
// timeline's apply files are read through the caller's function), no goroutines. It never
// decides anything itself; Solve and Plan do.
package simulate
