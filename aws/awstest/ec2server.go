package awstest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sync/atomic"
)

// EC2Server is a local server speaking the EC2 query protocol (form-encoded requests, XML
// replies, EC2's error format) in front of an in-memory EC2.
type EC2Server struct {
	*httptest.Server
	EC2    *EC2
	Faults *Faults
	// Requests counts the HTTP requests served, retries included.
	Requests atomic.Int64
	// LastForm is the form of the last request (for tests that look at the wire).
	lastForm atomic.Pointer[url.Values]
}

// ec2Actions are the operations served: those of aws.EC2API.
var ec2Actions = map[string]bool{
	"DescribeInstanceTypes": true, "DescribeInstanceTypeOfferings": true, "DescribeSpotPriceHistory": true,
	"DescribeCapacityReservations": true, "DescribeSubnets": true, "DescribeSecurityGroups": true, "DescribeImages": true, "DescribeLaunchTemplates": true,
	"CreateLaunchTemplate": true, "CreateFleet": true, "DescribeInstances": true, "TerminateInstances": true,
}

var ec2Protocol = protocol{
	contentType: "text/xml;charset=UTF-8",
	throttle: func() reply {
		return reply{status: http.StatusServiceUnavailable, contentType: "text/xml;charset=UTF-8", body: encodeError("RequestLimitExceeded", "Request limit exceeded.", "throttled")}
	},
	serverError: func() reply {
		return reply{status: http.StatusInternalServerError, contentType: "text/xml;charset=UTF-8", body: encodeError("InternalError", "An internal error has occurred.", "internal")}
	},
}

// NewEC2Server starts a server on 127.0.0.1 in front of ec2. Close it when done.
func NewEC2Server(ec2 *EC2) *EC2Server {
	s := &EC2Server{EC2: ec2, Faults: &Faults{}}
	s.Server = newLoopbackServer(http.HandlerFunc(s.serve))
	return s
}

// LastForm is the form of the last request served.
func (s *EC2Server) LastForm() url.Values {
	if f := s.lastForm.Load(); f != nil {
		return *f
	}
	return nil
}

func (s *EC2Server) serve(w http.ResponseWriter, r *http.Request) {
	n := s.Requests.Add(1)
	body, err := io.ReadAll(r.Body)
	form, perr := url.ParseQuery(string(body))
	if err != nil || perr != nil || r.Method != http.MethodPost {
		write(w, reply{status: http.StatusBadRequest, contentType: ec2Protocol.contentType, body: encodeError("InvalidQuery", "not an EC2 query request", "bad")})
		return
	}
	s.lastForm.Store(&form)
	action := form.Get("Action")
	requestID := fmt.Sprintf("req-%06d", n)
	serveWithFaults(w, r, s.Faults, ec2Protocol, action, func() reply { return s.call(r.Context(), action, form, requestID) })
}

func (s *EC2Server) call(ctx context.Context, action string, form url.Values, requestID string) reply {
	fail := func(status int, code, msg string) reply {
		return reply{status: status, contentType: ec2Protocol.contentType, body: encodeError(code, msg, requestID)}
	}
	if !ec2Actions[action] {
		return fail(http.StatusBadRequest, "InvalidAction", fmt.Sprintf("The action %s is not valid for this web service.", action))
	}
	m := reflect.ValueOf(s.EC2).MethodByName(action)
	in := reflect.New(m.Type().In(1).Elem())
	if err := decodeQuery(form, in.Interface()); err != nil {
		return fail(http.StatusBadRequest, "InvalidParameterValue", err.Error())
	}
	res := m.Call([]reflect.Value{reflect.ValueOf(ctx), in})
	if err, _ := res[1].Interface().(error); err != nil {
		code, msg, client := errorCode(err)
		status := http.StatusBadRequest
		if !client {
			status = http.StatusInternalServerError
		}
		return fail(status, code, msg)
	}
	return reply{status: http.StatusOK, contentType: ec2Protocol.contentType, body: encodeResponse(action, requestID, res[0].Interface())}
}
