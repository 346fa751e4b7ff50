// Package disruption computes the disruption decisions Karpenter would make for a cluster
// snapshot: which nodes expire, which empty nodes are deleted, which drifted nodes are
// replaced, and which underutilized nodes are consolidated (deleted, or replaced by one
// cheaper node), each within the NodePools' disruption budgets.
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
