package awstest

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/aws/smithy-go"
)

// reply is a response a server is about to write.
type reply struct {
	status      int
	contentType string
	body        []byte
}

// protocol is how one wire protocol answers faults.
type protocol struct {
	contentType string
	// throttle and serverError render the protocol's error bodies.
	throttle    func() reply
	serverError func() reply
}

// serveWithFaults runs op (which performs the operation and renders its reply) under the
// next scheduled fault for action, and writes the result.
func serveWithFaults(w http.ResponseWriter, r *http.Request, faults *Faults, p protocol, action string, op func() reply) {
	f, faulty := faults.next(action)
	if faulty && f.before() {
		if f == Throttle {
			write(w, p.throttle())
		} else {
			write(w, p.serverError())
		}
		return
	}
	rep := op()
	if !faulty {
		write(w, rep)
		return
	}
	switch f {
	case ServerErrorAfter:
		write(w, p.serverError())
	case MalformedBody:
		write(w, reply{status: http.StatusOK, contentType: p.contentType, body: []byte("<<<not a well-formed reply")})
	case Timeout:
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}
}

func write(w http.ResponseWriter, rep reply) {
	if rep.contentType != "" {
		w.Header().Set("Content-Type", rep.contentType)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(rep.body)))
	w.WriteHeader(rep.status)
	_, _ = w.Write(rep.body)
}

// newLoopbackServer starts an httptest server on 127.0.0.1 only.
func newLoopbackServer(h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		panic("awstest: listening on 127.0.0.1: " + err.Error())
	}
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	return srv
}

// errorCode returns err's API error code and message, or InternalError for other errors.
func errorCode(err error) (code, message string, client bool) {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode(), api.ErrorMessage(), api.ErrorFault() != smithy.FaultServer
	}
	return "InternalError", err.Error(), false
}
