// Package disruption computes the disruption decisions Karpenter would make for a cluster
// snapshot, through its five mechanisms: interruption events (spot interruption warnings,
// scheduled changes, instance state changes) and node repair delete NodeClaims at once; nodes
// expire; empty nodes are deleted, drifted nodes replaced and underutilized nodes
// consolidated (deleted, or replaced by one cheaper node) within the NodePools' disruption
// budgets; and every node being deleted gets the termination finalizer's drain plan.
//
// Events, node conditions, the CloudProvider's repair policies and IsDrifted answers come
// in the Input: the package never reads a queue or calls a provider.
//
// Plan is a pure function: time comes in the Input (Input.Now, never the wall clock), it
// starts no goroutines, does no I/O, never modifies its input, and gives the same Result for
// the same Input whatever the order of equal items. Scheduling simulations are done with
// scheduling.Solve.
//
// The Result lists the commands Karpenter would start now, pass after pass, before any of
// them finishes (nodes in an earlier command count against the budgets of later ones, and a
// node is in at most one command), and for every managed node that is in no command, why
// not.
package disruption
