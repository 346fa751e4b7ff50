package awstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// SQSServer is a local server speaking the SQS JSON 1.0 protocol (the one service/sqs
// uses) in front of an in-memory queue.
type SQSServer struct {
	*httptest.Server
	Queue  *SQS
	Faults *Faults
}

var sqsJSON = awsJSON{contentType: "application/x-amz-json-1.0", target: "AmazonSQS", namespace: "com.amazonaws.sqs", messageKey: "message"}

var sqsProtocol = protocol{
	contentType: sqsJSON.contentType,
	throttle: func() reply {
		return sqsJSON.error(http.StatusForbidden, "RequestThrottled", "Rate exceeded")
	},
	serverError: func() reply {
		return sqsJSON.error(http.StatusInternalServerError, "InternalFailure", "We encountered an internal error. Please try again.")
	},
}

// NewSQSServer starts a server on 127.0.0.1 for queue. A queue without a URL gets
// QueueURL("interruption"); requests naming another URL fail with QueueDoesNotExist. Close
// it when done.
func NewSQSServer(queue *SQS) *SQSServer {
	s := &SQSServer{Queue: queue, Faults: &Faults{}}
	s.Server = newLoopbackServer(http.HandlerFunc(s.serve))
	if queue.URL == "" {
		queue.URL = s.QueueURL("interruption")
	}
	return s
}

func (s *SQSServer) serve(w http.ResponseWriter, r *http.Request) {
	action, body, ok := sqsJSON.request(r)
	if !ok {
		write(w, sqsJSON.error(http.StatusBadRequest, "InvalidAction", "not an SQS JSON request"))
		return
	}
	serveWithFaults(w, r, s.Faults, sqsProtocol, action, func() reply { return s.call(r, action, body) })
}

type sqsWireMessage struct {
	MessageId     string            `json:"MessageId"`
	ReceiptHandle string            `json:"ReceiptHandle"`
	MD5OfBody     string            `json:"MD5OfBody"`
	Body          string            `json:"Body"`
	Attributes    map[string]string `json:"Attributes,omitempty"`
}

func (s *SQSServer) call(r *http.Request, action string, body []byte) reply {
	var out any
	var err error
	switch action {
	case "ReceiveMessage":
		var in sqs.ReceiveMessageInput
		if err = json.Unmarshal(body, &in); err != nil {
			break
		}
		var o *sqs.ReceiveMessageOutput
		if o, err = s.Queue.ReceiveMessage(r.Context(), &in); err != nil {
			break
		}
		msgs := []sqsWireMessage{}
		for _, m := range o.Messages {
			msgs = append(msgs, sqsWireMessage{MessageId: *m.MessageId, ReceiptHandle: *m.ReceiptHandle, MD5OfBody: *m.MD5OfBody, Body: *m.Body, Attributes: m.Attributes})
		}
		out = map[string]any{"Messages": msgs}
	case "DeleteMessage":
		var in sqs.DeleteMessageInput
		if err = json.Unmarshal(body, &in); err != nil {
			break
		}
		if _, err = s.Queue.DeleteMessage(r.Context(), &in); err == nil {
			out = map[string]any{}
		}
	default:
		return sqsJSON.error(http.StatusBadRequest, "InvalidAction", fmt.Sprintf("action %s is not served", action))
	}
	return sqsJSON.result(out, err)
}

// QueueURL is the URL of a queue named name on this server.
func (s *SQSServer) QueueURL(name string) string { return s.URL + "/000000000000/" + name }
