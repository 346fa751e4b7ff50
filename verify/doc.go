// Package verify is an independent checker of plans: it takes the input (the
// cluster.Snapshot and the options, for Plan the time) and the result of scheduling.Solve
// or disruption.Plan and reports, as [Violation] values, every rule the result breaks
// ([Solve], [Plan]). It shares no decision code with the solver: it reads labels and
// requirements with package requirements (the label algebra), resources and taints with
// Kubernetes' own helpers (k8s.io/component-helpers) or a few lines of its own, and counts
// topology domains by the rules below. It is pure and deterministic, never modifies
// its arguments, and returns nil for a valid plan.
//
// # What Solve checks
//
// A result is checked as launched: each new NodeClaim becomes a node of its InstanceType in
// its Offering, labelled with the single values of its requirements narrowed by that type
// and offering, its Labels, its NodePool and its Hostname.
//
//   - Accounting: every input pod is placed once or in PodErrors; no pod is placed twice,
//     placed and unplaced, or unknown (pods of nodes being deleted — the snapshot's
//     Deleting mark, a Node's or NodeClaim's deletionTimestamp, a NodeClaim's
//     InstanceTerminating=True condition — may be placed again, and count at their new
//     node, or nowhere when they are in PodErrors); no placement on an unknown or a
//     deleting node; no empty claim.
//   - Launch choice: the NodePool exists and may launch (not static, not deleting); the
//     type is one of the NodePool's and among the claim's options; the offering is the
//     type's and available; type and offering intersect the claim's requirements; the
//     node's labels satisfy the claim's and the NodePool's requirements and carry the
//     template's labels.
//   - Resources: bound pods (not finished), placed pods and the DaemonSet pods that will run
//     there and are not bound yet fit the allocatable — of the launched type, or of the
//     existing node (an uninitialized node's missing values from its NodeClaim or type).
//     Requests are Kubernetes': limits default missing requests, init containers and
//     sidecars, overhead, pod-level resources, resized allocations, one "pods" each. A
//     DaemonSet runs where its pod's node affinity matches the labels and it tolerates the
//     NoSchedule/NoExecute taints (PreferNoSchedule does not keep it away).
//   - Node selection: each placed pod's nodeSelector and required node affinity match the
//     node's labels (Kubernetes' matcher; required terms ORed); it tolerates every
//     NoSchedule and NoExecute taint (a new claim's startup taints, and an uninitialized
//     node's startup and known ephemeral taints, do not count, as in Karpenter).
//   - Host ports: no two pods on a node (bound, placed, DaemonSet) bind one port and
//     protocol on overlapping IPs, unless both were already there.
//   - Volumes: a bound PersistentVolume's node affinity (hostname terms of local and
//     hostPath volumes dropped, as Karpenter does) and an unbound claim's StorageClass
//     allowedTopologies admit the node.
//   - Topology spread, DoNotSchedule only (the pod's own constraints, else the cluster
//     defaults of Options selecting its own labels), against the final placement, bound
//     pods included, as kube-scheduler could bind the placed pods one at a time. A
//     constraint counts the pods it selects (same namespace, selector plus matchLabelKeys,
//     not terminating) on the nodes its filter admits: nodeAffinityPolicy (default Honor)
//     requires the pod's node affinity to match them, nodeTaintsPolicy Honor (default
//     Ignore) requires the pod to tolerate them. A placed pod may find at most minimum +
//     maxSkew − (1 if it selects itself) of them in its domain when it binds; the minimum
//     is over the eligible domains in the final placement without the pod (0 with fewer
//     eligible domains than minDomains, and always 0 for kubernetes.io/hostname: a new node
//     can always be made, as Karpenter counts). Among the placed pods with one constraint
//     in one domain, those with the smallest allowance bind first (those that do not select
//     themselves before them, placed pods without the constraint last), so each finds the
//     running pods plus the self-selecting members bound before it. A member's domain
//     must also hold, once every pod is bound, at most maxSkew more of the pods the
//     constraint selects than the least populated domain of the nodes the filter admits
//     (0 with fewer of them than minDomains): kube-scheduler checks the constraint only
//     when it binds a member, so the placed pods it only selects may bind first
//     (TopologySpreadAsLaunched; over zones, difftest default plan:930000). The minimum
//     over the eligible domains, NodePool-launchable values among them, applies to members
//     that bind later. When every member in that domain is on an initialized Node not being
//     deleted, over a key other than kubernetes.io/hostname, those members bind now, before
//     any pod of a new or in-flight NodeClaim or of a node not initialized yet, and
//     kube-scheduler sees no domain but the Nodes': for both rules it is then enough that the
//     domain holds at most maxSkew more than the least populated domain of the Nodes the
//     filter admits (not being deleted; 0 with fewer of them than minDomains), counting the
//     bound pods and the pods placed on such Nodes, so a value only a NodePool could launch
//     a node in holds no minimum at zero for them (difftest disrupt:1002946, default
//     plan:1000232).
//     Eligible domains are
//     the values of the key on every node of the final placement the filter admits, plus
//     every value a usable NodePool could launch (under the Strict minValues policy, one
//     whose instance types meet its requirements' minValues; difftest default
//     plan:971084): for each of its instance types its limits
//     leave room for (its existing and launched nodes counted: a NodePool whose limits its
//     nodes have used up launches no node anywhere) and each available offering, the
//     NodePool's requirements, template labels, type and offering
//     together, compatible with one of the pod's required node-affinity terms (under
//     Honor) and with NodePool taints the pod tolerates (under taints Honor), define the
//     key In a set of values. The pod's node must have the key. A breach that Karpenter's
//     own minimum (only over the domains the pod's node affinity allows, even under
//     nodeAffinityPolicy Ignore) would permit is TopologySpreadAffinityIgnored.
//   - Pod affinity, required terms of placed pods, as kube-scheduler binds one at a time:
//     placed pods with alike terms (key, namespaces, namespaceSelector, selector with
//     matchLabelKeys and mismatchLabelKeys) form a group; a domain holding members is
//     seeded when a pod the term selects that is not a member runs or is placed there. Every
//     unseeded domain but one breaks the affinity, and that one too unless its members
//     select themselves and no selected pod was running before on a node with the key (the
//     first member starts the group). A split explained by Karpenter's bootstrap rule (a member started a
//     domain because no selected pod was in one its node affinity allows, or a pod of
//     another domain could not have joined) is PodAffinityBootstrap rather than
//     PodAffinity: kube-scheduler would leave one side pending.
//   - Pod anti-affinity, required terms, both directions: no placed pod shares a domain with
//     a pod its term selects, nor with a running or placed pod whose term selects it.
//   - NodePool limits, for NodePools that launch in the plan: the capacity of the launched
//     types plus the capacity of the NodePool's existing nodes not being deleted, and the
//     number of those nodes for "nodes", stay within spec.limits.
//   - Capacity reservations: the new NodeClaims launched on a reservation's offerings are no
//     more than it has left (the smallest capacity any of its offerings gives).
//
// # What Plan checks
//
//   - Every candidate and blocked node is known and appears once (a node is in at most one
//     command); every managed node (karpenter.sh/nodepool label) is in a command or
//     blocked; a candidate is an initialized Node of a known NodePool, not deleting (for
//     a forceful command, any node of a known NodePool whose NodeClaim is not being
//     deleted). Forceful are expiration, interruption and node repair, which Karpenter
//     carries out outside its disruption controller.
//   - Budgets: for each command but the forceful ones, the nodes of each of its NodePools that
//     are disrupting so far — already deleting or NotReady, plus the candidates of every
//     command up to it — stay within the smallest allowance of the NodePool's active
//     budgets for the command's reason (percentages of the initialized, not terminating
//     nodes rounded up).
//   - Do-not-disrupt: no command but the forceful ones disrupts a node annotated
//     karpenter.sh/do-not-disrupt=true; none but those, and drift of a node with a
//     terminationGracePeriod, disrupts a node running an active pod whose annotation is
//     "true" or a duration not yet over since the pod started.
//   - PodDisruptionBudgets, under the same exemptions, for active pods Karpenter would
//     evict (not mirror pods, not pods tolerating karpenter.sh/disrupted): no pod is
//     selected by two budgets, none by one that allows no eviction (unless its
//     unhealthyPodEvictionPolicy is AlwaysAllow and the pod is not ready). A budget's
//     allowance is its status when the snapshot carries one, else the disruption
//     controller's arithmetic over the pods the input knows: expected = selected pods not
//     finished or terminating, pending ones included; healthy = the bound, Ready ones;
//     allowed = healthy − (minAvailable, or expected − maxUnavailable; percentages
//     rounded up).
//   - consolidateAfter: an emptiness or consolidation command (reason Empty or
//     Underutilized) disrupts no node whose NodePool's consolidateAfter is Never or has not
//     elapsed since the node's last pod event: its NodeClaim's status.lastPodEventTime, else
//     the transition of its Initialized=True condition, else the Node's creation, else the
//     NodeClaim's.
//   - Replacements and the NodeClaims the provisioner launches first (Provisioned) are
//     checked like new NodeClaims of Solve (launch choice, and that their pods fit them:
//     resources, node selection, taints, host ports, volumes).
//   - No command disrupts a node that it or an earlier command sends pods to (its
//     Destinations): a nominated node is no candidate.
//   - Destinations, for every command but the forceful ones: the reschedulable pods of its
//     candidates (not DaemonSet or mirror pods, not finished, not terminating unless a
//     StatefulSet's; under drift with a grace period not the blocking pods) that are not
//     on a replacement can all be placed at once, over all commands, on the nodes no
//     command disrupts and in the room of the replacements and the provisioned NodeClaims
//     (the last simulation — the last command that simulates, or the provisioner's pass —
//     planned the pods of the earlier commands' candidates and the pending pods again, with
//     the earlier NodeClaims in flight and empty: its NodeClaims hold the pods they list,
//     the earlier ones are room; resources, node selection, taints, host ports): a
//     depth-first search, largest pods first, within a step budget;
//     when the budget runs out only the pods no node could take even alone are reported.
//   - Per-pod destinations (Command.Moves), for every command: each pod its candidates
//     displace (as above, blocking pods included) is listed exactly once and no other pod
//     is; each move sets exactly one of an existing node, a replacement, a provisioned
//     NodeClaim or a reason; a node exists, is no candidate of any command and is not being
//     deleted; a replacement or provisioned index is in range and that NodeClaim's Pods list
//     the pod; a move without destination is only a forceful command's (a pod that waits
//     must be blocked), a blocked pod's under drift with a grace period, or emptiness'
//     (which simulates nothing). The pods one simulation sends to one existing node fit it
//     with the pods bound there and the DaemonSet pods to come (resources, node selection,
//     taints, host ports, volumes): each graceful command's moves alone, the forceful
//     commands' and the pending pods' together (the provisioner's pass plans them all at
//     once).
//   - The pending pods (Result.PendingPods): every pending pod of the snapshot is listed
//     exactly once, with no node it leaves, and no other pod is; each goes to an existing
//     node, a provisioned NodeClaim that lists it, or nowhere as Unschedulable (with its pod
//     error) or Unlaunchable, under the same rules as a command's moves.
//
// # What it never does
//
// It does not decide anything or say what a better plan would be: it does not check that
// a claim's type is the cheapest, that pods could not have been placed, that preferences
// (preferred affinities, ScheduleAnyway spread, PreferNoSchedule taints) were honoured,
// minValues, CSI volume attach limits, reserved-capacity accounting, DRA, consolidation
// savings or Balanced scores, which nodes should have been chosen, consolidateAfter for
// destinations (Karpenter's rule that a node within it takes no moved pods), or that pending pods of a plan stay pending, termination drain plans (Result.Drains) or
// interruption outcomes. Spread and affinity are judged per constraint and per group of
// alike terms: orders that different constraints or groups would need of each other are
// not reconciled (lenient), and a spread's minimum is the final one (lenient too). Plan
// destinations do not check topology or pod affinity; a PodDisruptionBudget's allowance is checked per pod, not
// summed over the evictions of all commands (the eviction API paces those). It never
// reads a clock, the environment or the network, and never writes to the snapshot or the
// result: Solve and Plan may check results concurrently, on one snapshot, while other
// goroutines Solve and Plan on it.
package verify
