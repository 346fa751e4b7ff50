// Package requirements is Karpenter's label-requirement algebra: In, NotIn, Exists,
// DoesNotExist, Gt, Lt, Gte, Lte and minValues, over one key ([Requirement]) and over a set of
// keys ([Requirements]).
//
// Requirements are parsed once (from NodePools, pods, node labels, instance types and
// offerings) and then matched many times; the matching predicates ([Requirement.Intersects],
// [Requirement.Has], [Requirements.IsCompatible], [Requirements.HasIntersection]) do not
// allocate. The package reads no clock, no environment and no global mutable state, and
// every result ([Requirement.Any], String, error messages) is deterministic.
//
// # Semantics
//
// A [Requirement] is a finite set of values (In, DoesNotExist) or the complement of one
// (NotIn, Exists), optionally narrowed by inclusive integer bounds: Gt N is "≥ N+1", Lt N is
// "≤ N-1", Gte/Lte are inclusive. With a bound, a value must parse as an integer (as
// strconv.ParseInt does) within it. Values are kept sorted, so intersecting two In sets is a
// merge, and the representation is canonical: two requirements on the same key allow the
// same values exactly when they are [Requirement.Equal].
//
// [Requirements.Compatible] is the scheduling predicate (a node's requirements against a
// pod's or an offering's); [Requirements.Intersects] only compares keys defined on both
// sides. A requirement is "negative" (satisfied by a node without the label) when it is
// NotIn or DoesNotExist without integer bounds.
//
// # Differences from Karpenter
//
//   - Integer operands must be exactly one non-negative integer; Karpenter silently reads a
//     bad operand as 0.
//   - Any is deterministic (smallest value / smallest admissible non-negative integer)
//     instead of random.
//   - A NotIn that also carries an integer bound serialises as Gte/Lte plus a NotIn entry, so
//     it round-trips; Karpenter drops the excluded values.
//   - A NotIn that also carries an integer bound is not negative: the bound needs the label
//     to exist. Karpenter looks at the derived operator only.
//   - Compatible and Intersects report the first failing key in sorted order rather than an
//     aggregate of all of them.
package requirements
