// Package fake is test support for nodeplan and its users: an in-memory [CloudProvider] that
// really launches, lists and deletes NodeClaims (with injectable errors and call logs),
// instance-type generators mirroring Karpenter's fake provider ([InstanceTypes],
// [InstanceTypesAssorted], [NewInstanceType]), fluent builders for pods and NodePools
// ([Pod], [NodePool]) and rapid generators for property tests ([PodGenerator],
// [NodePoolGenerator], [InstanceTypesGenerator]; [PodsGeneratorWith] draws pods with the
// constraint probabilities of a [PodSettings], [NodeGenerator] existing nodes and
// [DaemonSetGenerator] DaemonSets).
//
// Nothing here reads a clock or a random source: provider IDs come from a counter.
package fake
