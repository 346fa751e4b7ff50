package awstest

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"

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
		// The reply is lost: the connection closes without one, as when the client's
		// deadline passes. Closing (rather than waiting for the client's timer) keeps the
		// fault instant and independent of load; the client's own timeout stays long so a
		// slow machine never times out a healthy call.
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		<-r.Context().Done()
	case Stall:
		<-r.Context().Done()
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

// awsJSON is one service's AWS JSON protocol (1.0 or 1.1): requests POST a JSON body with
// X-Amz-Target "<target>.<Action>", errors are {"__type": "<namespace>#<Code>", <messageKey>: ...}.
type awsJSON struct {
	contentType, target, namespace, messageKey string
}

func (j awsJSON) error(status int, code, message string) reply {
	b, _ := json.Marshal(map[string]string{"__type": j.namespace + "#" + code, j.messageKey: message})
	return reply{status: status, contentType: j.contentType, body: b}
}

// request returns the action and body of a well-formed request.
func (j awsJSON) request(r *http.Request) (action string, body []byte, ok bool) {
	action, ok = strings.CutPrefix(r.Header.Get("X-Amz-Target"), j.target+".")
	body, err := io.ReadAll(r.Body)
	return action, body, ok && err == nil && r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), j.contentType)
}

// result renders out, or err as the API error it carries (a client error 400, else 500).
func (j awsJSON) result(out any, err error) reply {
	if err != nil {
		code, msg, client := errorCode(err)
		status := http.StatusBadRequest
		if !client {
			status = http.StatusInternalServerError
		}
		return j.error(status, code, msg)
	}
	b, _ := json.Marshal(out)
	return reply{status: http.StatusOK, contentType: j.contentType, body: b}
}
