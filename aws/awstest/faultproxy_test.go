package awstest_test

import (
	"context"
	"testing"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/nodeplan/nodeplan/aws/awstest"
)

// proxiedEC2 is an EC2 with subnets behind a fault proxy, and an SDK client of the proxy.
func proxiedEC2(t *testing.T, chaos awstest.Chaos) (*awstest.FaultProxy, *ec2.Client) {
	e := awstest.NewEC2()
	e.Subnets = append(e.Subnets, awstest.Subnet("subnet-a", "us-east-1a", 10))
	srv := awstest.NewEC2Server(e)
	t.Cleanup(srv.Close)
	proxy := awstest.NewFaultProxy(srv.URL, chaos)
	t.Cleanup(proxy.Close)
	return proxy, awstest.EC2Client(awstest.Config(), proxy.URL)
}

func TestFaultProxyPassesThrough(t *testing.T) {
	proxy, client := proxiedEC2(t, awstest.Chaos{})
	out, err := client.DescribeSubnets(context.Background(), &ec2.DescribeSubnetsInput{})
	require.NoError(t, err)
	require.Len(t, out.Subnets, 1)
	assert.Empty(t, proxy.Served())
}

// A dropped reply is retried by the SDK; when every attempt is dropped the call fails.
func TestFaultProxyDrops(t *testing.T) {
	proxy, client := proxiedEC2(t, awstest.Chaos{Drop: 1})
	_, err := client.DescribeSubnets(context.Background(), &ec2.DescribeSubnetsInput{})
	require.Error(t, err)
	assert.Equal(t, []string{"DescribeSubnets:Drop", "DescribeSubnets:Drop", "DescribeSubnets:Drop"}, proxy.Served())
}

// A duplicated ReceiveMessage reaches the queue twice and the client gets the second batch:
// the first is in flight, hidden until its visibility timeout.
func TestFaultProxyDuplicates(t *testing.T) {
	q := awstest.NewSQS("")
	srv := awstest.NewSQSServer(q)
	t.Cleanup(srv.Close)
	q.Send("one")
	q.Send("two")
	proxy := awstest.NewFaultProxy(srv.URL, awstest.Chaos{Duplicate: 1})
	t.Cleanup(proxy.Close)
	client := awstest.SQSClient(awstest.Config(), proxy.URL)
	out, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: sdkaws.String(q.URL), MaxNumberOfMessages: 1})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	assert.Equal(t, "two", *out.Messages[0].Body)
	assert.Equal(t, []string{"ReceiveMessage:Duplicate"}, proxy.Served())

	// Deleting twice (a duplicated DeleteMessage) succeeds, as in SQS.
	_, err = client.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: sdkaws.String(q.URL), ReceiptHandle: out.Messages[0].ReceiptHandle})
	require.NoError(t, err)
	assert.Equal(t, 1, q.Len(), "only the second message is gone")
}

// A reordered reply waits for a later request's reply to go out first.
func TestFaultProxyReorders(t *testing.T) {
	proxy, client := proxiedEC2(t, awstest.Chaos{Reorder: 1, MaxDelay: 10 * time.Second})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := client.DescribeSubnets(context.Background(), &ec2.DescribeSubnetsInput{})
		assert.NoError(t, err)
	}()
	for len(proxy.Served()) == 0 {
		time.Sleep(time.Millisecond)
	}
	select {
	case <-done:
		t.Fatal("the reordered reply went out before any later one")
	case <-time.After(50 * time.Millisecond):
	}
	proxy.SetChaos(awstest.Chaos{})
	_, err := client.DescribeSubnets(context.Background(), &ec2.DescribeSubnetsInput{})
	require.NoError(t, err)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the held reply did not follow the later one")
	}
}

// The same seed gives the same troubles to the same sequence of requests.
func TestFaultProxyIsSeeded(t *testing.T) {
	served := func() []string {
		proxy, client := proxiedEC2(t, awstest.Chaos{Seed: 7, Delay: 0.3, Reorder: 0.3, Duplicate: 0.3, Drop: 0.2})
		for range 20 {
			_, _ = client.DescribeSubnets(context.Background(), &ec2.DescribeSubnetsInput{})
		}
		return proxy.Served()
	}
	first := served()
	assert.NotEmpty(t, first)
	assert.Equal(t, first, served())
}
