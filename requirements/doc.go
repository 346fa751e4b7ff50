// Package requirements is Karpenter's label-requirement algebra: In, NotIn, Exists,
// DoesNotExist, Gt, Lt, Gte, Lte and minValues, over one key ([Requirement]) and over a set of
// keys ([Requirements]).
//
// Requirements are parsed once (from NodePools, pods, node labels, instance types and
// offerings) and then matched many times; the matching predicates ([Requirement.Intersects],
// [Requirement.Has], [Requirements.IsCompatible]) do not allocate. The package reads no
// clock, no environment and no global mutable state.
package requirements
