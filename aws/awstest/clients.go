package awstest

import (
	"bytes"
	"context"
	"io"
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
		HTTPClient: &http.Client{Timeout: 30 * time.Second, Transport: ownBody{http.DefaultTransport}},
	}
}

// ownBody hands the transport a copy of the request body. smithy-go closes the body it built
// as soon as the response headers are in; a local server can answer before the transport's
// last read of that body (its check for bytes beyond Content-Length), and the transport then
// takes the closed body for a write error and closes the connection under the response being
// read: "use of closed network connection" (aws/aws-sdk-go-v2#2737). The SDK retries that,
// but not on a call's last attempt, which fault tests reach on purpose; real endpoints are
// too far away to answer that fast.
type ownBody struct{ next http.RoundTripper }

func (o ownBody) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return o.next.RoundTrip(r)
	}
	b, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return o.next.RoundTrip(r)
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
