// Package awstest is test support for package aws and for host programs that embed it: an
// in-memory EC2 ([EC2]), SQS queue ([SQS]), Price List API ([Pricing]), IAM ([IAM]) and SSM
// Parameter Store ([SSM]) that implement aws.EC2API, aws.SQSAPI, aws.PricingAPI, aws.IAMAPI
// and aws.SSMAPI, and local HTTP servers ([NewEC2Server], [NewSQSServer],
// [NewPricingServer], [NewIAMServer], [NewSSMServer]) that put the same state behind the real
// wire protocols (EC2 query + XML, SQS JSON 1.0, Pricing JSON 1.1, IAM query + XML, SSM JSON
// 1.1), with injectable faults (throttling, 5xx,
// malformed bodies, timeouts, stalls), so the real aws-sdk-go-v2 clients can be tested against
// it; [FaultProxy] sits in front of any of them and delays, reorders, drops and duplicates
// replies at random from a seed. [DataTypes] are the real instance types of nodeplan's
// embedded data file.
//
// Servers only listen on 127.0.0.1; nothing here contacts AWS or reads credentials.
package awstest
