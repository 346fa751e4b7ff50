// Package v1 holds nodeplan's copy of Karpenter's AWS API karpenter.k8s.aws/v1: the
// EC2NodeClass (field for field compatible with the CRD, so existing manifests decode
// unchanged and unknown fields fail strict decoding), its List type and scheme registration,
// hand-written deep copies, and the CRD's behaviour as plain functions:
//
//   - SetDefaults applies the defaults the CRD schema would apply (metadataOptions, the status
//     reservation fields);
//   - Validate checks the CRD's OpenAPI and CEL rules and reports every problem at once, as
//     `EC2NodeClass "name": spec.path: message`;
//   - AMIFamily resolves the family from spec.amiFamily or the alias;
//   - ConvertV1beta1 converts a karpenter.k8s.aws/v1beta1 EC2NodeClass as Karpenter 1.0's
//     conversion webhook did.
//
// Imported as awsv1. The package never imports the AWS SDK, never talks to a cluster or
// to AWS, reads no clock and keeps no global mutable state.
package v1
