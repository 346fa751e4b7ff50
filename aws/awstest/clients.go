package awstest

import (
	"context"
	"net/http"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// Config is an SDK configuration for the local servers: region us-east-1, static fake
// credentials (never real ones), the SDK's standard retryer with its usual three attempts
// but backoff capped at 5 ms so fault tests stay fast, and a 30 s per-attempt HTTP timeout
// (long, so that a loaded machine never times out a healthy call; the Timeout fault closes
// the connection instead of waiting for it).
func Config() sdkaws.Config {
	return sdkaws.Config{
		Region: "us-east-1",
		Credentials: sdkaws.CredentialsProviderFunc(func(context.Context) (sdkaws.Credentials, error) {
			return sdkaws.Credentials{AccessKeyID: "AKIDLOCALTEST", SecretAccessKey: "local-test-secret", Source: "awstest"}, nil
		}),
		Retryer: func() sdkaws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.Backoff = retry.NewExponentialJitterBackoff(5 * time.Millisecond)
				o.RateLimiter = ratelimit.None
			})
		},
		HTTPClient: &http.Client{Timeout: 30 * time.Second},
	}
}

// EC2Client is a real *ec2.Client that talks to the server at url.
func EC2Client(cfg sdkaws.Config, url string) *ec2.Client {
	return ec2.NewFromConfig(cfg, func(o *ec2.Options) { o.BaseEndpoint = sdkaws.String(url) })
}

// SQSClient is a real *sqs.Client that talks to the server at url.
func SQSClient(cfg sdkaws.Config, url string) *sqs.Client {
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = sdkaws.String(url) })
}

// PricingClient is a real *pricing.Client that talks to the server at url.
func PricingClient(cfg sdkaws.Config, url string) *pricing.Client {
	return pricing.NewFromConfig(cfg, func(o *pricing.Options) { o.BaseEndpoint = sdkaws.String(url) })
}

// IAMClient is a real *iam.Client that talks to the server at url.
func IAMClient(cfg sdkaws.Config, url string) *iam.Client {
	return iam.NewFromConfig(cfg, func(o *iam.Options) { o.BaseEndpoint = sdkaws.String(url) })
}

// SSMClient is a real *ssm.Client that talks to the server at url.
func SSMClient(cfg sdkaws.Config, url string) *ssm.Client {
	return ssm.NewFromConfig(cfg, func(o *ssm.Options) { o.BaseEndpoint = sdkaws.String(url) })
}
