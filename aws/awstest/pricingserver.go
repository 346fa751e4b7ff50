package awstest

import (
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/pricing"
)

// PricingServer is a local server speaking the AWS JSON 1.1 protocol of the Price List API
// (X-Amz-Target AWSPriceListService.GetProducts) in front of an in-memory Pricing.
type PricingServer struct {
	jsonServer
	Pricing *Pricing
}

var pricingJSON = jsonService{
	awsJSON:        awsJSON{contentType: "application/x-amz-json-1.1", target: "AWSPriceListService", namespace: "com.amazonaws.pricing", messageKey: "Message"},
	what:           "a Price List API JSON 1.1 request",
	invalid:        "InvalidParameterException",
	throttleStatus: http.StatusBadRequest, throttleCode: "ThrottlingException",
	serverErrorCode: "InternalErrorException", serverErrorMessage: "An internal error occurred.",
	badBody: jsonService.invalidBody,
}

// NewPricingServer starts a server on 127.0.0.1 in front of p. Close it when done.
func NewPricingServer(p *Pricing) *PricingServer {
	s := &PricingServer{Pricing: p}
	s.start(pricingJSON, map[string]jsonOp{"GetProducts": jsonAction(pricingJSON, s.getProducts)})
	return s
}

func (s *PricingServer) getProducts(r *http.Request, in *pricing.GetProductsInput) (any, error) {
	out, err := s.Pricing.GetProducts(r.Context(), in)
	if err != nil {
		return nil, err
	}
	wire := map[string]any{"FormatVersion": out.FormatVersion, "PriceList": out.PriceList}
	if out.NextToken != nil {
		wire["NextToken"] = *out.NextToken
	}
	return wire, nil
}
