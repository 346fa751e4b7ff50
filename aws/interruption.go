package aws

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/nodeplan/nodeplan/aws/interruption"
)

// InterruptionReader reads EC2 interruption events from the SQS queue that EventBridge rules
// feed (spot interruption warnings, rebalance recommendations, AWS Health scheduled changes,
// instance state changes). Each Poll is one long-polling ReceiveMessage call.
//
// A message is deleted once it has been dealt with: a good event after its handler returned
// nil, a no-op or malformed message at once. A good event whose handler fails stays in the
// queue and comes back after the visibility timeout, so no good message is lost; handlers
// must therefore be idempotent.
type InterruptionReader struct {
	SQS      SQSAPI
	QueueURL string
	// WaitTimeSeconds is the long-poll wait (0 means Karpenter's 20 s).
	WaitTimeSeconds int32
	// VisibilityTimeout hides a received message from other readers for that many seconds
	// (0 means Karpenter's 20 s).
	VisibilityTimeout int32
	// MaxMessages per poll, 1..10 (0 means 10).
	MaxMessages int32

	malformed atomic.Int64
}

// InterruptionHandler acts on one event. Returning an error keeps the message in the queue.
type InterruptionHandler func(ctx context.Context, ev interruption.Event) error

// PollResult says what one Poll did with the messages it received.
type PollResult struct {
	Received int
	// Handled events were passed to the handler, which returned nil, and deleted.
	Handled int
	// NoOps were well-formed messages that ask for nothing; they were deleted.
	NoOps int
	// Malformed messages were deleted (or their deletion is in Errors) without calling the
	// handler.
	Malformed []MalformedMessage
	// Retained messages stay in the queue for redelivery: the handler failed.
	Retained int
	// Errors are handler and DeleteMessage failures, each naming the message ID.
	Errors []error
}

// MalformedMessage is a message whose body could not be parsed.
type MalformedMessage struct {
	MessageID string
	Err       error
}

// MalformedTotal is the number of malformed messages this reader has seen.
func (r *InterruptionReader) MalformedTotal() int64 { return r.malformed.Load() }

func orDefault(v, def int32) int32 {
	if v == 0 {
		return def
	}
	return v
}

// Poll receives up to MaxMessages messages (waiting up to WaitTimeSeconds for the first),
// parses each with interruption.Parse and hands the good events to handle, in the order SQS
// returned them. The error is a failed ReceiveMessage (after the SDK's retries); what
// happened to each message is in the result. Receipt handles never appear in errors.
func (r *InterruptionReader) Poll(ctx context.Context, handle InterruptionHandler) (PollResult, error) {
	if r.SQS == nil || r.QueueURL == "" {
		return PollResult{}, errors.New("interruption reader: SQS client and queue URL are required")
	}
	out, err := r.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    sdkaws.String(r.QueueURL),
		MaxNumberOfMessages:         orDefault(r.MaxMessages, 10),
		WaitTimeSeconds:             orDefault(r.WaitTimeSeconds, 20),
		VisibilityTimeout:           orDefault(r.VisibilityTimeout, 20),
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameSentTimestamp},
		MessageAttributeNames:       []string{"All"},
	})
	if err != nil {
		return PollResult{}, fmt.Errorf("receiving interruption messages from %s: %w", r.QueueURL, err)
	}
	res := PollResult{Received: len(out.Messages)}
	for _, m := range out.Messages {
		id := sdkaws.ToString(m.MessageId)
		ev, perr := interruption.Parse([]byte(sdkaws.ToString(m.Body)))
		switch {
		case perr != nil:
			r.malformed.Add(1)
			res.Malformed = append(res.Malformed, MalformedMessage{MessageID: id, Err: perr})
		case ev.Kind == interruption.NoOp:
			res.NoOps++
		default:
			if herr := handle(ctx, ev); herr != nil {
				res.Retained++
				res.Errors = append(res.Errors, fmt.Errorf("message %s (%s): %w", id, ev.Kind, herr))
				continue
			}
			res.Handled++
		}
		if derr := r.delete(ctx, m); derr != nil {
			res.Errors = append(res.Errors, fmt.Errorf("deleting message %s: %w", id, derr))
		}
	}
	return res, nil
}

func (r *InterruptionReader) delete(ctx context.Context, m sqstypes.Message) error {
	if m.ReceiptHandle == nil {
		return errors.New("message has no receipt handle")
	}
	_, err := r.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: sdkaws.String(r.QueueURL), ReceiptHandle: m.ReceiptHandle})
	return err
}
