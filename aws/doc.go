// Package aws is a thin, faithful [cloudprovider.CloudProvider] over EC2, and a reader of the
// SQS queue that carries EC2 interruption events, with on-demand prices refreshed through the
// AWS Price List API, NodeClass instance profiles kept through IAM and AMI aliases read from
// SSM. It is the only nodeplan package that imports the AWS SDK's service/ec2, service/sqs,
// service/pricing, service/iam and service/ssm: the decisions stay in the side-effect-free packages, and
// this package only carries them out.
//
// It reaches EC2, SQS, the Price List API, IAM and SSM through the narrow [EC2API], [SQSAPI],
// [PricingAPI], [IAMAPI] and [SSMAPI] interfaces, which the SDK clients satisfy, so a host program passes
// ec2.NewFromConfig / sqs.NewFromConfig / pricing.NewFromConfig and tests
// pass the in-memory fakes of package awstest (or the real clients pointed at its local
// servers). Instances are only ever listed, described or terminated when they carry this
// cluster's tags, and no error carries credentials or user data.
//
// The package starts no goroutines, runs no background refresh and writes no logs: the host
// decides when to call Refresh (Karpenter: every 12 hours), ResolveNodeClass (every minute or
// so), GarbageCollect and InterruptionReader.Poll. Its only state is the region last loaded,
// the launch templates known to exist, reservation slot counts and the unavailable-offerings
// cache, all safe for concurrent use.
package aws
