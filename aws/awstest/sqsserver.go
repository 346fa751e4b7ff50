package awstest

import (
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// SQSServer is a local server speaking the SQS JSON 1.0 protocol (the one service/sqs
// uses) in front of an in-memory queue.
type SQSServer struct {
	jsonServer
	Queue *SQS
}

var sqsJSON = jsonService{
	awsJSON:        awsJSON{contentType: "application/x-amz-json-1.0", target: "AmazonSQS", namespace: "com.amazonaws.sqs", messageKey: "message"},
	what:           "an SQS JSON request",
	invalid:        "InvalidAction",
	throttleStatus: http.StatusForbidden, throttleCode: "RequestThrottled",
	serverErrorCode: "InternalFailure", serverErrorMessage: "We encountered an internal error. Please try again.",
	// An undecodable body is not a client error here: it answers 500 InternalError.
	badBody: func(j jsonService, err error) reply { return j.result(nil, err) },
}

// NewSQSServer starts a server on 127.0.0.1 for queue. A queue without a URL gets
// QueueURL("interruption"); requests naming another URL fail with QueueDoesNotExist. Close
// it when done.
func NewSQSServer(queue *SQS) *SQSServer {
	s := &SQSServer{Queue: queue}
	s.start(sqsJSON, map[string]jsonOp{
		"ReceiveMessage": jsonAction(sqsJSON, s.receiveMessage),
		"DeleteMessage":  jsonAction(sqsJSON, s.deleteMessage),
	})
	if queue.URL == "" {
		queue.URL = s.QueueURL("interruption")
	}
	return s
}

type sqsWireMessage struct {
	MessageId     string            `json:"MessageId"`
	ReceiptHandle string            `json:"ReceiptHandle"`
	MD5OfBody     string            `json:"MD5OfBody"`
	Body          string            `json:"Body"`
	Attributes    map[string]string `json:"Attributes,omitempty"`
}

func (s *SQSServer) receiveMessage(r *http.Request, in *sqs.ReceiveMessageInput) (any, error) {
	o, err := s.Queue.ReceiveMessage(r.Context(), in)
	if err != nil {
		return nil, err
	}
	msgs := []sqsWireMessage{}
	for _, m := range o.Messages {
		msgs = append(msgs, sqsWireMessage{MessageId: *m.MessageId, ReceiptHandle: *m.ReceiptHandle, MD5OfBody: *m.MD5OfBody, Body: *m.Body, Attributes: m.Attributes})
	}
	return map[string]any{"Messages": msgs}, nil
}

func (s *SQSServer) deleteMessage(r *http.Request, in *sqs.DeleteMessageInput) (any, error) {
	_, err := s.Queue.DeleteMessage(r.Context(), in)
	return map[string]any{}, err
}

// QueueURL is the URL of a queue named name on this server.
func (s *SQSServer) QueueURL(name string) string { return s.URL + "/000000000000/" + name }
