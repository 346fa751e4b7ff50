// Package disruption computes the disruption decisions Karpenter would make for a cluster
// snapshot, through its five mechanisms: interruption events (spot interruption warnings,
// scheduled changes, instance state changes) and node repair delete NodeClaims at once; nodes
// expire; empty nodes are deleted, drifted nodes replaced and underutilized nodes
// consolidated (deleted, or replaced by one cheaper node) within the NodePools' disruption
// budgets; and every node being deleted gets the termination finalizer's drain plan.
//
// [Plan] takes a [cluster.Snapshot], the time and [Options]. Events, node conditions, the
// CloudProvider's repair policies and IsDrifted answers come in the snapshot
// (cluster.Objects): the package never reads a queue or calls a provider. Package cluster's
// doc lists exactly what Plan reads of each object; its pod and PDB rules are cluster's.
//
// Plan is a pure function: time is an argument (never the wall clock), it starts no
// goroutines, does no I/O, never modifies the snapshot, and gives the same Result for the
// same input whatever the order of equal items. Its scheduling simulations fork the snapshot
// (without the candidates, earlier commands' nodes Deleting, nodes under consolidateAfter
// ClosedToMoves, the candidates' pods WithMoving) and run scheduling's Cache.Solve on the
// fork. [Apply] carries a command out on the snapshot; [Result.Batch] says which commands
// may be carried out together before the next Plan.
//
// Errors are *cluster.InvalidInputError (a nil snapshot, the zero time, two nodes of one
// name, what a simulation's scheduling.Solve refuses, a command Apply cannot carry out) or
// *cluster.InternalError (a bug; a panic is recovered into one); see package cluster. Plan
// only reads its snapshot, so several Plans (and Solves, and verify's checks) may run
// concurrently on one snapshot.
//
// The Result lists the commands Karpenter would start now, pass after pass, before any of
// them finishes (nodes in an earlier command count against the budgets of later ones, and a
// node is in at most one command), and for every managed node that is in no command, why
// not.
//
// Codes. Why something happened or did not is a code: a string type named <Subject>Code
// whose constants are <Subject><Value>, the value being what the CLI's JSON prints
// (BlockCode "Budget" is BlockBudget): ReasonCode, BlockCode, ReplacementCode, MoveCode,
// InterruptionCode, PodDrainCode, PendingCode, StallCode, TerminationCode here,
// scheduling.ReasonCode and cluster.NotPlannedCode beside. The other closed sets prefix
// their constants with their subject the same way (Method: MethodMultiNode, PodClass:
// PodCritical, DrainAction: DrainEvict). The facts behind a code are typed fields next to it,
// and its English is built from them only by a method (Blocker.String, Blocked.Message,
// PodDrain.Message and PendingMessage, Drain.StallMessage, Command.Detail, Drift.String,
// Unavailable.String, scheduling.PodError.Message), never stored in a field.
package disruption
