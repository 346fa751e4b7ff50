package awstest

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// IAMServer is a local server speaking IAM's AWS query protocol (form-encoded requests,
// replies wrapped in <ActionResponse><ActionResult>, errors in <ErrorResponse>) in front of an
// in-memory IAM.
type IAMServer struct {
	*httptest.Server
	IAM    *IAM
	Faults *Faults
	// Requests counts the HTTP requests served, retries included.
	Requests atomic.Int64
}

const iamContentType = "text/xml"

func iamError(status int, code, message, requestID string) reply {
	kind := "Sender"
	if status >= 500 {
		kind = "Receiver"
	}
	var msg bytes.Buffer
	_ = xml.EscapeText(&msg, []byte(message))
	body := fmt.Appendf(nil, `<ErrorResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><Error><Type>%s</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>%s</RequestId></ErrorResponse>`,
		kind, code, msg.String(), requestID)
	return reply{status: status, contentType: iamContentType, body: body}
}

var iamProtocol = protocol{
	contentType: iamContentType,
	throttle:    func() reply { return iamError(http.StatusBadRequest, "Throttling", "Rate exceeded", "throttled") },
	serverError: func() reply {
		return iamError(http.StatusInternalServerError, "ServiceFailure", "The request processing has failed because of an unknown error.", "internal")
	},
}

// NewIAMServer starts a server on 127.0.0.1 in front of m. Close it when done.
func NewIAMServer(m *IAM) *IAMServer {
	s := &IAMServer{IAM: m, Faults: &Faults{}}
	s.Server = newLoopbackServer(http.HandlerFunc(s.serve))
	return s
}

func (s *IAMServer) serve(w http.ResponseWriter, r *http.Request) {
	n := s.Requests.Add(1)
	body, err := io.ReadAll(r.Body)
	form, perr := url.ParseQuery(string(body))
	if err != nil || perr != nil || r.Method != http.MethodPost || form.Get("Version") != "2010-05-08" {
		write(w, iamError(http.StatusBadRequest, "MalformedQueryString", "not an IAM query request", "bad"))
		return
	}
	action, requestID := form.Get("Action"), fmt.Sprintf("iam-%06d", n)
	serveWithFaults(w, r, s.Faults, iamProtocol, action, func() reply { return s.call(r.Context(), action, form, requestID) })
}

// formTags reads Tags.member.N.Key / .Value.
func formTags(form url.Values) []iamtypes.Tag {
	var out []iamtypes.Tag
	for i := 1; form.Has("Tags.member." + strconv.Itoa(i) + ".Key"); i++ {
		p := "Tags.member." + strconv.Itoa(i)
		out = append(out, iamtypes.Tag{Key: sdkaws.String(form.Get(p + ".Key")), Value: sdkaws.String(form.Get(p + ".Value"))})
	}
	return out
}

func optional(form url.Values, key string) *string {
	if !form.Has(key) {
		return nil
	}
	return sdkaws.String(form.Get(key))
}

func (s *IAMServer) call(ctx context.Context, action string, form url.Values, requestID string) reply {
	name, role := optional(form, "InstanceProfileName"), optional(form, "RoleName")
	var profile *iamtypes.InstanceProfile
	var err error
	switch action {
	case "GetInstanceProfile":
		var out *iam.GetInstanceProfileOutput
		if out, err = s.IAM.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: name}); err == nil {
			profile = out.InstanceProfile
		}
	case "CreateInstanceProfile":
		var out *iam.CreateInstanceProfileOutput
		in := &iam.CreateInstanceProfileInput{InstanceProfileName: name, Path: optional(form, "Path"), Tags: formTags(form)}
		if out, err = s.IAM.CreateInstanceProfile(ctx, in); err == nil {
			profile = out.InstanceProfile
		}
	case "AddRoleToInstanceProfile":
		_, err = s.IAM.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: name, RoleName: role})
	case "RemoveRoleFromInstanceProfile":
		_, err = s.IAM.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: name, RoleName: role})
	default:
		return iamError(http.StatusBadRequest, "InvalidAction", fmt.Sprintf("Could not find operation %s for version 2010-05-08", action), requestID)
	}
	if err != nil {
		code, msg, client := errorCode(err)
		status := http.StatusBadRequest
		switch {
		case code == "NoSuchEntity":
			status = http.StatusNotFound
		case code == "EntityAlreadyExists" || code == "LimitExceeded":
			status = http.StatusConflict
		case !client:
			status = http.StatusInternalServerError
		}
		return iamError(status, code, msg, requestID)
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `<%sResponse xmlns="https://iam.amazonaws.com/doc/2010-05-08/">`, action)
	if profile != nil {
		fmt.Fprintf(&buf, "<%sResult>", action)
		encodeProfile(&buf, profile)
		fmt.Fprintf(&buf, "</%sResult>", action)
	}
	fmt.Fprintf(&buf, "<ResponseMetadata><RequestId>%s</RequestId></ResponseMetadata></%sResponse>", requestID, action)
	return reply{status: http.StatusOK, contentType: iamContentType, body: buf.Bytes()}
}

// xmlElement writes <name>text</name> for a set value.
func xmlElement(buf *bytes.Buffer, name string, v *string) {
	if v == nil {
		return
	}
	fmt.Fprintf(buf, "<%s>", name)
	_ = xml.EscapeText(buf, []byte(*v))
	fmt.Fprintf(buf, "</%s>", name)
}

func iamTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	return sdkaws.String(t.UTC().Format("2006-01-02T15:04:05Z"))
}

// encodeEntity writes the fields an IAM instance profile and role share, named after kind
// (<Path>, <kindName>, <kindId>, <Arn>, <CreateDate>).
func encodeEntity(buf *bytes.Buffer, kind string, path, name, id, arn *string, created *time.Time) {
	xmlElement(buf, "Path", path)
	xmlElement(buf, kind+"Name", name)
	xmlElement(buf, kind+"Id", id)
	xmlElement(buf, "Arn", arn)
	xmlElement(buf, "CreateDate", iamTime(created))
}

func encodeProfile(buf *bytes.Buffer, p *iamtypes.InstanceProfile) {
	buf.WriteString("<InstanceProfile>")
	encodeEntity(buf, "InstanceProfile", p.Path, p.InstanceProfileName, p.InstanceProfileId, p.Arn, p.CreateDate)
	buf.WriteString("<Roles>")
	for _, r := range p.Roles {
		buf.WriteString("<member>")
		encodeEntity(buf, "Role", r.Path, r.RoleName, r.RoleId, r.Arn, r.CreateDate)
		buf.WriteString("</member>")
	}
	buf.WriteString("</Roles>")
	if len(p.Tags) > 0 {
		buf.WriteString("<Tags>")
		for _, t := range p.Tags {
			buf.WriteString("<member>")
			xmlElement(buf, "Key", t.Key)
			xmlElement(buf, "Value", t.Value)
			buf.WriteString("</member>")
		}
		buf.WriteString("</Tags>")
	}
	buf.WriteString("</InstanceProfile>")
}
