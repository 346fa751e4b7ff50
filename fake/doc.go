// Package fake is test support for nodeplan and its users, with no decision code of its own:
//
//   - [CloudProvider]: an in-memory cloudprovider.CloudProvider that really launches, lists
//     and deletes NodeClaims, with injectable errors, call logs and an offering-capacity
//     model ([CloudProvider.OfferingCapacity], [OfferingKey]): an offering out of capacity
//     fails over to the next best and turns unavailable in GetInstanceTypes, so the next
//     Solve avoids it, until [CloudProvider.Restock].
//   - Instance types mirroring Karpenter's fake provider: [InstanceTypes],
//     [InstanceTypesAssorted], [NewInstanceType], priced by [Price].
//   - Builders: fluent [Pod] and [NodePool], [DaemonSet], [PDB], and [NodeAndClaim] (an
//     initialized Node with its NodeClaim); [Names] hands out unique names
//     (scheduling.NodeClaimsFor takes [Names.Next]).
//   - rapid generators: [PodGenerator], [PodsGenerator], [PodsGeneratorWith] (the
//     constraint probabilities and request bounds of a [PodSettings]), [NodePoolsGenerator]
//     (distinct names) and [NodePoolGenerator] (those of a [NodePoolSettings]),
//     [InstanceTypesGenerator], [NodeGenerator], [DaemonSetGenerator], and [HostileQuantity]
//     for extreme inputs. The defaults ([DefaultPodSettings], [DefaultNodePoolSettings])
//     leave about one pod in seven unplaced, so that properties exercise placement;
//     [HostilePodSettings] and [HostileNodePoolSettings] refuse more. The always-schedulable
//     mode ([SchedulablePodSettings] with [SchedulableInstanceTypesGenerator] and an
//     unconstrained NodePool) draws only clusters where every pod can be placed.
//   - [Describe]: a drawn object in one line. rapid logs draws with %#v, which prints
//     Kubernetes objects as pointers; every generator here also logs Describe of what it
//     drew, so a failing case reads as pods, NodePools and instance types.
//
// The compact form of a cluster for rapid's logs is cluster.Snapshot.String (and
// cluster.Node's GoString; package fake imports neither the cluster nor the engines). Nothing here reads a clock or a random
// source (provider IDs come from a counter, draws from rapid), and nothing decides a plan.
package fake
