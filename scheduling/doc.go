// Package scheduling decides where pending pods go, as Karpenter's provisioner does: onto
// existing nodes first, then onto NodeClaims being launched, then onto new NodeClaims created
// from NodePool templates, choosing instance types by price. [Solve] is a pure function of a
// [cluster.Snapshot] and [Options]: it reads no clock, no environment and no network, starts
// no goroutine, keeps no global state, never mutates the snapshot, and gives byte-identical
// results for the same input whatever the order of equal items.
//
// Solve places the snapshot's pending pods, its moving pods (cluster.Snapshot.WithMoving)
// and the reschedulable pods of its deleting nodes (cluster.Node.Deleting: the Deleting fork,
// a Node's or NodeClaim's deletionTimestamp, or the NodeClaim's InstanceTerminating=True); the
// pod and PDB rules it applies are package cluster's. Every pod it
// places ends up in exactly one place in the [Result]: on a new NodeClaim, on an existing
// node, or in PodErrors with a reason. [Apply] carries a result out on the snapshot, and
// [NodeClaimFor] is a planned claim as the NodeClaim CloudProvider.Create takes
// ([NodeClaimsFor]: every planned claim, named, for cloudprovider.Launch).
//
// The pipeline per pod, in Karpenter's order:
//
//	queue (cpu desc, memory desc, creation, uid)
//	  -> existing nodes and in-flight NodeClaims (initialized first, by name)
//	  -> NodeClaims opened earlier in this Solve: one that takes the pod at no extra cost
//	     (PackingCostAware, the default), else the first that can, fewest pods first
//	  -> a new NodeClaim from the first NodePool template that fits (weight desc)
//	  -> on failure: relax one preference and retry; else requeue while others progress
//
// What Karpenter reaches over several provisioning rounds Solve reaches in one call. A pod a
// non-hostname spread counts is counted where its NodeClaim launches (the NodeClaim is pinned
// to its cheapest option's domain). Pod (anti-)affinity, as in Karpenter, counts a pod on a
// NodeClaim still open over zones in every zone it may launch in (anti-affinity) or in none
// (affinity) until the round ends; then such NodeClaims settle in their cheapest option's
// zone and capacity type, and the pods they kept away or drew get a later round, as do pods
// NodePool limits refused (a later round counts each NodeClaim of a limited NodePool at the
// type it launches).
//
// Instance types are indexed per NodePool once (bitsets per requirement and offering), so
// adding a pod to a NodeClaim costs O(instance types / 64) word operations plus one pass over
// the types that still fit. A caller that runs many Solves over the same objects (disruption
// simulations) can Solve with a [Cache] ([Cache.Solve]) to share per-pod and per-node work.
//
// Errors are *cluster.InvalidInputError (a nil snapshot; a NodePool, instance type, node,
// bound pod or DaemonSet with a field Solve cannot read, named with its field) or
// *cluster.InternalError (a bug; a panic is recovered into one); see package cluster. A pod
// that cannot be placed is no error but a [PodError]. Solve only reads its snapshot, so
// several Solves (and Plans, and verify's checks) may run concurrently on one snapshot; a
// [Cache] may not be shared between concurrent Solves.
//
// [LowerBound] is the price below which no plan of the same pods can go (a linear
// program's optimum over the offerings each pod may use); a Result's price divided by it
// says how much a better packing could still save.
//
// See [Options] for the knobs (minValues and preference policies, packing, instance-type
// cap, default topology spread) and Example functions for use.
package scheduling
