package awstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// jsonService is the skeleton the AWS JSON-protocol servers (SQS, Pricing, SSM) share: it
// checks the request, dispatches on X-Amz-Target to the service's operations under the
// scheduled faults, and renders replies and errors in the service's JSON dialect.
type jsonService struct {
	awsJSON
	// what names the protocol in the error for a malformed request ("an SSM JSON 1.1 request").
	what string
	// invalid is the error code of a malformed request or an action not served.
	invalid string
	// throttleStatus and throttleCode are the service's throttling error ("Rate exceeded").
	throttleStatus int
	throttleCode   string
	// serverErrorCode and serverErrorMessage are the service's 500 error.
	serverErrorCode, serverErrorMessage string
	// badBody renders a request body that does not decode.
	badBody func(j jsonService, err error) reply
}

// jsonOp performs one action on its request body and renders the reply.
type jsonOp func(r *http.Request, body []byte) reply

func (j jsonService) protocol() protocol {
	return protocol{
		contentType: j.contentType,
		throttle:    func() reply { return j.error(j.throttleStatus, j.throttleCode, "Rate exceeded") },
		serverError: func() reply { return j.error(http.StatusInternalServerError, j.serverErrorCode, j.serverErrorMessage) },
	}
}

// invalidBody is badBody for services that answer an undecodable body with their invalid code.
func (j jsonService) invalidBody(err error) reply {
	return j.error(http.StatusBadRequest, j.invalid, "request body: "+err.Error())
}

// serve answers one request with ops[action] under the next fault scheduled in faults.
func (j jsonService) serve(w http.ResponseWriter, r *http.Request, faults *Faults, ops map[string]jsonOp) {
	action, body, ok := j.request(r)
	if !ok {
		write(w, j.error(http.StatusBadRequest, j.invalid, "not "+j.what))
		return
	}
	serveWithFaults(w, r, faults, j.protocol(), action, func() reply {
		op, served := ops[action]
		if !served {
			return j.error(http.StatusBadRequest, j.invalid, fmt.Sprintf("action %s is not served", action))
		}
		return op(r, body)
	})
}

// jsonAction decodes the body into an In, runs do and renders its output or error.
func jsonAction[In any](j jsonService, do func(r *http.Request, in *In) (any, error)) jsonOp {
	return func(r *http.Request, body []byte) reply {
		var in In
		if err := json.Unmarshal(body, &in); err != nil {
			return j.badBody(j, err)
		}
		out, err := do(r, &in)
		return j.result(out, err)
	}
}

// jsonServer is the HTTP front the JSON-protocol servers share: a loopback server that counts
// requests and answers each with the service's ops under the scheduled faults.
type jsonServer struct {
	*httptest.Server
	Faults *Faults
	// Requests counts the HTTP requests served, retries included.
	Requests atomic.Int64
	svc      jsonService
	ops      map[string]jsonOp
}

// start starts the server on 127.0.0.1 answering svc's ops.
func (s *jsonServer) start(svc jsonService, ops map[string]jsonOp) {
	s.Faults, s.svc, s.ops = &Faults{}, svc, ops
	s.Server = newLoopbackServer(http.HandlerFunc(s.serve))
}

func (s *jsonServer) serve(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	s.svc.serve(w, r, s.Faults, s.ops)
}
