package awstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// SSMServer is a local server speaking SSM's AWS JSON 1.1 protocol (X-Amz-Target
// AmazonSSM.GetParameter) in front of an in-memory SSM.
type SSMServer struct {
	*httptest.Server
	SSM    *SSM
	Faults *Faults
	// Requests counts the HTTP requests served, retries included.
	Requests atomic.Int64
}

var ssmJSON = awsJSON{contentType: "application/x-amz-json-1.1", target: "AmazonSSM", namespace: "com.amazonaws.ssm", messageKey: "message"}

var ssmProtocol = protocol{
	contentType: ssmJSON.contentType,
	throttle: func() reply {
		return ssmJSON.error(http.StatusBadRequest, "ThrottlingException", "Rate exceeded")
	},
	serverError: func() reply {
		return ssmJSON.error(http.StatusInternalServerError, "InternalServerError", "An internal error occurred.")
	},
}

// NewSSMServer starts a server on 127.0.0.1 in front of m. Close it when done.
func NewSSMServer(m *SSM) *SSMServer {
	s := &SSMServer{SSM: m, Faults: &Faults{}}
	s.Server = newLoopbackServer(http.HandlerFunc(s.serve))
	return s
}

func (s *SSMServer) serve(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	action, body, ok := ssmJSON.request(r)
	if !ok {
		write(w, ssmJSON.error(http.StatusBadRequest, "ValidationException", "not an SSM JSON 1.1 request"))
		return
	}
	serveWithFaults(w, r, s.Faults, ssmProtocol, action, func() reply {
		if action != "GetParameter" {
			return ssmJSON.error(http.StatusBadRequest, "ValidationException", fmt.Sprintf("action %s is not served", action))
		}
		var in ssm.GetParameterInput
		if err := json.Unmarshal(body, &in); err != nil {
			return ssmJSON.error(http.StatusBadRequest, "ValidationException", "request body: "+err.Error())
		}
		out, err := s.SSM.GetParameter(r.Context(), &in)
		if err != nil {
			return ssmJSON.result(nil, err)
		}
		p := out.Parameter
		return ssmJSON.result(map[string]any{"Parameter": map[string]any{
			"Name": p.Name, "Value": p.Value, "Type": p.Type, "DataType": p.DataType, "Version": p.Version, "ARN": p.ARN,
			"LastModifiedDate": float64(p.LastModifiedDate.Unix()),
		}}, nil)
	})
}
