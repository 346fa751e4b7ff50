// Package cluster is one read-only snapshot of a cluster for nodeplan's engines: NodePools,
// the instance types of each NodePool, nodes paired with their NodeClaims and bound pods,
// in-flight NodeClaims, pending pods, DaemonSets, volumes, PodDisruptionBudgets, namespaces,
// Leases and the cloud's observations (interruption events, repair policies, provider
// drift). A Snapshot is built once, by New from plain slices (Objects, which package
// manifest produces from YAML: this package knows no decoder), and is what scheduling.Solve
// and disruption.Plan take. It also holds the pod and PodDisruptionBudget rules both engines
// share (IsReschedulable, IsDaemonSetPod, IsMirrorPod, DoNotDisrupt, PDBLimits:
// reschedulable, DaemonSet and mirror pods, do-not-disrupt, PDB allowance), so that there is
// one implementation of each. The package imports neither engine nor any decoder.
//
// A Snapshot never changes after it is built, and nothing it returns may be modified by the
// caller: slices, maps and objects are shared with the caller's input and with every fork.
// Its indexes (nodes by name, the PDB reading) are computed when it is built (the name
// index of a fork that moves nodes on first use, once). Forks return a new Snapshot that
// shares every object it does not change and copies only what it changes; the parent stays
// as it was:
//
//   - Without (nodes gone with their pods), WithoutPods, WithPods, WithClaims (paired or in
//     flight), WithoutClaims, WithNodes (a claim's Node registers), WithUpdatedNodes,
//     WithUpdatedNodeClaims (objects replaced in place), WithNodePools, WithoutNodePools,
//     WithDaemonSets, WithoutDaemonSets, WithPodDisruptionBudgets,
//     WithoutPodDisruptionBudgets (added or replaced by name, removed), WithInstanceTypes,
//     WithInterruptions, WithRepairPolicies, WithProviderDrift: what a host program sees
//     change. WithPods and WithoutPods cost in proportion to the pods they add or remove
//     (a copy of the lists they change, the PDB reading adjusted for those pods, no
//     allocation per pod of the snapshot: 10-15 µs at 5,500 pods, where New takes 6 ms).
//     Objects gives the objects back, for New to build from after any other edit.
//   - WithPodEvents (lastPodEventTime where pods bound, left, finished or started
//     terminating since an earlier snapshot) and WithPodsRunning (the pods bound to ready
//     nodes start): what time writes on the objects, which Plan reads times from. A host
//     that simulates its cluster calls them after each change.
//   - Deleting (nodes marked for deletion: they take no pods, Solve plans their pods
//     again), ClosedToMoves (Karpenter's consolidateAfter rule for moved pods), WithMoving
//     (pods to place again with the pending ones, as they are), ByName (nodes in name
//     order) and WithInFlight (claims just launched): what disruption's simulations fork,
//     each O(nodes) at most, no deep copies.
//
// A plan is carried out with the engines' Apply helpers (scheduling.Apply,
// disruption.Apply, over the primitive Carry) and the neutral pieces here: Move (where a
// plan sends one pod, the one shape both engines' results use for it), NodeFor (a
// launched claim's Node), WithNodesFor (the launched claims' Nodes register), NodeClaimsOf
// (a command's candidates' NodeClaims), NodePrice and Price (a node's and the
// whole snapshot's price per hour), Find and Node.BindName.
//
// Pairing. A NodeClaim belongs to the Node named by its status.nodeName, else to the Node
// whose spec.providerID equals its status.providerID, else to a Node of its own name that has
// no NodeClaim yet (kwok and some providers name both alike); otherwise it is in flight (no
// Node yet). A pod with spec.nodeName is bound to the Node (or in-flight NodeClaim) of that
// name.
//
// Pending pods. A pod without spec.nodeName is pending unless it is finished (Succeeded or
// Failed), being deleted, or a DaemonSet's (the DaemonSet controller places it; its requests
// count as DaemonSet overhead). Those, and pods bound to a node the snapshot does not hold,
// are neither pending nor bound: NotPlanned lists them with a NotPlannedCode, so that every
// input pod is accounted for.
//
// What disruption.Plan reads of a node (a Node of the snapshot):
//
//   - Node labels (or, for an in-flight claim, the claim's labels and single-valued
//     requirements): karpenter.sh/nodepool (else the NodeClaim's label) names the NodePool;
//     karpenter.sh/initialized=true marks it initialized (an in-flight claim never is);
//     node.kubernetes.io/instance-type, topology.kubernetes.io/zone and
//     karpenter.sh/capacity-type find its offering and so its price (see NodePrice); all of
//     them are held against the NodePool's requirements for drift.
//   - Node: metadata.deletionTimestamp (deleting, as a NodeClaim's or the Deleting fork's
//     mark: Node.Deleting), annotation karpenter.sh/do-not-disrupt, the Ready condition (a
//     NotReady node counts as disrupting against budgets; no conditions at all is taken as
//     Ready), metadata.creationTimestamp when there is no NodeClaim.
//   - NodeClaim: metadata.deletionTimestamp, metadata.creationTimestamp (expiration, and
//     consolidateAfter without pod events), status.lastPodEventTime (consolidateAfter), the
//     conditions InstanceTerminating (deleting, see Node.Deleting, and no longer counted
//     towards its NodePool's size), Initialized (its
//     lastTransitionTime when there was no pod event) and Drifted (reason and time),
//     spec.expireAfter (else the NodePool's), spec.terminationGracePeriod, and the
//     annotations karpenter.sh/nodepool-hash and karpenter.sh/nodepool-hash-version
//     (against the NodePool's, for NodePoolDrifted).
//   - For interruption events, the Node's spec.providerID and the NodeClaim's
//     status.providerID (the instance ID is their last path element); for node repair, the
//     Node's status conditions matched against the snapshot's RepairPolicies; for provider
//     drift, the snapshot's ProviderDrift by NodeClaim name (else node name); for static
//     drift, the NodeClaim's labels, taints and spec against the NodePool's template.
//   - Bound pods: phase, deletionTimestamp, owner kind (DaemonSet and StatefulSet), the
//     mirror-pod annotation, karpenter.sh/do-not-disrupt (true or a duration since
//     status.startTime), controller.kubernetes.io/pod-deletion-cost and spec.priority
//     (eviction cost), and the PodDisruptionBudgets that select them (PDBLimits).
//   - Pending pods (and moving ones): placed in every simulation; the pending and bound
//     pods are what the PDB reading counts.
//
// Interruptions, RepairPolicies and ProviderDrift come from the cloud: a manifest set's
// Objects carry its interruption messages, and the host sets the rest on the Objects it
// builds the snapshot from.
//
// Errors. Every error of New, the forks and the apply helpers (and of scheduling.Solve,
// disruption.Plan and their Apply) is an *InvalidInputError, naming the call (Op), what is
// wrong (an InputCode: Nil, Duplicate, Invalid, NotFound, Mismatch), the object (Kind, Name)
// and the field, or an *InternalError: a bug in nodeplan, a panic recovered so that a host's
// loop gets an error, not a crash. Tell them apart with errors.As. Beyond nil objects, New
// refuses two NodePools, Nodes, NodeClaims or pods (namespace/name) of one name and instance
// types without a name, with a nil offering or a negative price; both engines rely on it.
//
// Concurrency. A Snapshot is safe for concurrent readers: scheduling.Solve, disruption.Plan,
// verify.Solve and verify.Plan may run at the same time on one snapshot (and on forks of it)
// from many goroutines, as none of them writes to it (the name index a fork builds on first
// use is built under a sync.Once). A scheduling.Cache is not: give each goroutine its own.
//
// The package is pure: no clock (times come in as arguments), no environment, no I/O, no
// goroutines. It never decides anything; Solve and Plan do.
package cluster
