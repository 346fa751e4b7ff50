// Package v1 holds nodeplan's copy of Karpenter's karpenter.sh/v1 API: the NodePool and
// NodeClaim types (field for field compatible with Karpenter's CRDs, so existing manifests
// decode unchanged and unknown fields fail strict decoding), their List types and scheme
// registration, hand-written deep copies, the well-known label, annotation, taint and
// condition names, and the CRD's behaviour expressed as plain functions:
//
//   - SetDefaults applies the defaults the CRD schema would apply;
//   - Validate checks the CRD's OpenAPI and CEL rules and reports every problem at once,
//     each naming the object and the field path;
//   - CheckAPIVersion explains what to change in a manifest written for an older
//     apiVersion (karpenter.sh/v1beta1, v1alpha5);
//   - Budget.IsActive and NodePool.AllowedDisruptions evaluate disruption budgets at a
//     time the caller passes in.
//
// The package never talks to a cluster, reads a clock, touches files or the network, or
// keeps global mutable state: every function is pure and safe for concurrent use.
package v1
