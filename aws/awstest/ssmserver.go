package awstest

import (
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// SSMServer is a local server speaking SSM's AWS JSON 1.1 protocol (X-Amz-Target
// AmazonSSM.GetParameter) in front of an in-memory SSM.
type SSMServer struct {
	jsonServer
	SSM *SSM
}

var ssmJSON = jsonService{
	awsJSON:        awsJSON{contentType: "application/x-amz-json-1.1", target: "AmazonSSM", namespace: "com.amazonaws.ssm", messageKey: "message"},
	what:           "an SSM JSON 1.1 request",
	invalid:        "ValidationException",
	throttleStatus: http.StatusBadRequest, throttleCode: "ThrottlingException",
	serverErrorCode: "InternalServerError", serverErrorMessage: "An internal error occurred.",
	badBody: jsonService.invalidBody,
}

// NewSSMServer starts a server on 127.0.0.1 in front of m. Close it when done.
func NewSSMServer(m *SSM) *SSMServer {
	s := &SSMServer{SSM: m}
	s.start(ssmJSON, map[string]jsonOp{"GetParameter": jsonAction(ssmJSON, s.getParameter)})
	return s
}

func (s *SSMServer) getParameter(r *http.Request, in *ssm.GetParameterInput) (any, error) {
	out, err := s.SSM.GetParameter(r.Context(), in)
	if err != nil {
		return nil, err
	}
	p := out.Parameter
	return map[string]any{"Parameter": map[string]any{
		"Name": p.Name, "Value": p.Value, "Type": p.Type, "DataType": p.DataType, "Version": p.Version, "ARN": p.ARN,
		"LastModifiedDate": float64(p.LastModifiedDate.Unix()),
	}}, nil
}
