package awstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/pricing"
)

// PricingServer is a local server speaking the AWS JSON 1.1 protocol of the Price List API
// (X-Amz-Target AWSPriceListService.GetProducts) in front of an in-memory Pricing.
type PricingServer struct {
	*httptest.Server
	Pricing *Pricing
	Faults  *Faults
	// Requests counts the HTTP requests served, retries included.
	Requests atomic.Int64
}

var pricingJSON = awsJSON{contentType: "application/x-amz-json-1.1", target: "AWSPriceListService", namespace: "com.amazonaws.pricing", messageKey: "Message"}

var pricingProtocol = protocol{
	contentType: pricingJSON.contentType,
	throttle: func() reply {
		return pricingJSON.error(http.StatusBadRequest, "ThrottlingException", "Rate exceeded")
	},
	serverError: func() reply {
		return pricingJSON.error(http.StatusInternalServerError, "InternalErrorException", "An internal error occurred.")
	},
}

// NewPricingServer starts a server on 127.0.0.1 in front of p. Close it when done.
func NewPricingServer(p *Pricing) *PricingServer {
	s := &PricingServer{Pricing: p, Faults: &Faults{}}
	s.Server = newLoopbackServer(http.HandlerFunc(s.serve))
	return s
}

func (s *PricingServer) serve(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	action, body, ok := pricingJSON.request(r)
	if !ok {
		write(w, pricingJSON.error(http.StatusBadRequest, "InvalidParameterException", "not a Price List API JSON 1.1 request"))
		return
	}
	serveWithFaults(w, r, s.Faults, pricingProtocol, action, func() reply { return s.call(r, action, body) })
}

func (s *PricingServer) call(r *http.Request, action string, body []byte) reply {
	if action != "GetProducts" {
		return pricingJSON.error(http.StatusBadRequest, "InvalidParameterException", fmt.Sprintf("action %s is not served", action))
	}
	var in pricing.GetProductsInput
	if err := json.Unmarshal(body, &in); err != nil {
		return pricingJSON.error(http.StatusBadRequest, "InvalidParameterException", "request body: "+err.Error())
	}
	out, err := s.Pricing.GetProducts(r.Context(), &in)
	if err != nil {
		return pricingJSON.result(nil, err)
	}
	wire := map[string]any{"FormatVersion": out.FormatVersion, "PriceList": out.PriceList}
	if out.NextToken != nil {
		wire["NextToken"] = *out.NextToken
	}
	return pricingJSON.result(wire, nil)
}
