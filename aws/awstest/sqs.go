package awstest

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// SQS is one in-memory queue with SQS's visibility semantics: a received message is hidden
// for the visibility timeout and comes back unless deleted with its latest receipt handle.
// It is safe for concurrent use.
type SQS struct {
	// URL is the queue URL requests must name.
	URL string
	// Now is the clock for visibility timeouts (time.Now when nil).
	Now func() time.Time

	mu       sync.Mutex
	seq      int
	messages []*sqsMessage
	deleted  []string
	issued   map[string]bool // every receipt handle handed out
}

type sqsMessage struct {
	id, body, receipt string
	visibleAt         time.Time
	receives          int
}

// NewSQS returns an empty queue named by url.
func NewSQS(url string) *SQS { return &SQS{URL: url} }

func (q *SQS) now() time.Time {
	if q.Now != nil {
		return q.Now()
	}
	return time.Now()
}

// Send enqueues body and returns the message ID.
func (q *SQS) Send(body string) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.seq++
	id := fmt.Sprintf("msg-%04d", q.seq)
	q.messages = append(q.messages, &sqsMessage{id: id, body: body})
	return id
}

// Len is the number of messages not yet deleted (visible or not).
func (q *SQS) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.messages)
}

// Deleted lists the IDs of deleted messages, in order.
func (q *SQS) Deleted() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.deleted...)
}

func apiError(code, format string, args ...any) error {
	return &smithy.GenericAPIError{Code: code, Message: fmt.Sprintf(format, args...), Fault: smithy.FaultClient}
}

func (q *SQS) checkURL(url *string) error {
	if sdkaws.ToString(url) != q.URL {
		return apiError("QueueDoesNotExist", "The specified queue does not exist.")
	}
	return nil
}

// ReceiveMessage returns up to MaxNumberOfMessages visible messages (1..10, default 1) and
// hides them for VisibilityTimeout seconds (default 30). It does not wait for messages.
func (q *SQS) ReceiveMessage(_ context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.checkURL(in.QueueUrl); err != nil {
		return nil, err
	}
	max := in.MaxNumberOfMessages
	if max == 0 {
		max = 1
	}
	if max < 1 || max > 10 {
		return nil, apiError("InvalidParameterValue", "MaxNumberOfMessages must be 1..10")
	}
	vis := time.Duration(in.VisibilityTimeout) * time.Second
	if in.VisibilityTimeout == 0 {
		vis = 30 * time.Second
	}
	now := q.now()
	out := &sqs.ReceiveMessageOutput{}
	for _, m := range q.messages {
		if int32(len(out.Messages)) == max {
			break
		}
		if now.Before(m.visibleAt) {
			continue
		}
		q.seq++
		m.receives++
		m.receipt = fmt.Sprintf("rh-%s-%d", m.id, q.seq)
		if q.issued == nil {
			q.issued = map[string]bool{}
		}
		q.issued[m.receipt] = true
		m.visibleAt = now.Add(vis)
		sum := md5.Sum([]byte(m.body))
		out.Messages = append(out.Messages, sqstypes.Message{
			MessageId: sdkaws.String(m.id), ReceiptHandle: sdkaws.String(m.receipt),
			Body: sdkaws.String(m.body), MD5OfBody: sdkaws.String(hex.EncodeToString(sum[:])),
			Attributes: map[string]string{
				"SentTimestamp":           strconv.FormatInt(now.UnixMilli(), 10),
				"ApproximateReceiveCount": strconv.Itoa(m.receives),
			},
		})
	}
	return out, nil
}

// DeleteMessage deletes the message whose latest receipt handle is given. As in SQS, an older
// handle of the message, or one of a message already deleted, succeeds without deleting
// anything; a handle never handed out is ReceiptHandleIsInvalid.
func (q *SQS) DeleteMessage(_ context.Context, in *sqs.DeleteMessageInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.checkURL(in.QueueUrl); err != nil {
		return nil, err
	}
	handle := sdkaws.ToString(in.ReceiptHandle)
	for i, m := range q.messages {
		if m.receipt != "" && m.receipt == handle {
			q.messages = append(q.messages[:i], q.messages[i+1:]...)
			q.deleted = append(q.deleted, m.id)
			return &sqs.DeleteMessageOutput{}, nil
		}
	}
	if q.issued[handle] {
		return &sqs.DeleteMessageOutput{}, nil
	}
	return nil, apiError("ReceiptHandleIsInvalid", "The input receipt handle is not a valid receipt handle.")
}
