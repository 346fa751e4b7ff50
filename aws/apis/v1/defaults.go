package v1

import "strings"

// Defaults the CRD applies to spec.metadataOptions and the status reservations.
const (
	DefaultHTTPEndpoint            = "enabled"
	DefaultHTTPProtocolIPv6        = "disabled"
	DefaultHTTPPutResponseHopLimit = 1
	DefaultHTTPTokens              = "required"
	DefaultReservationType         = "default"
	DefaultReservationState        = "active"
)

// SetDefaults fills what the CRD schema defaults, leaving set fields alone: metadataOptions
// {httpEndpoint: enabled, httpProtocolIPv6: disabled, httpPutResponseHopLimit: 1,
// httpTokens: required} (each field when unset), and a status reservation's reservationType
// "default" and state "active". Nothing else has a default (Karpenter's SetDefaults is empty).
func (in *EC2NodeClass) SetDefaults() {
	m := in.Spec.MetadataOptions
	if m == nil {
		m = &MetadataOptions{}
		in.Spec.MetadataOptions = m
	}
	if m.HTTPEndpoint == nil {
		m.HTTPEndpoint = ptr(DefaultHTTPEndpoint)
	}
	if m.HTTPProtocolIPv6 == nil {
		m.HTTPProtocolIPv6 = ptr(DefaultHTTPProtocolIPv6)
	}
	if m.HTTPPutResponseHopLimit == nil {
		m.HTTPPutResponseHopLimit = ptr[int64](DefaultHTTPPutResponseHopLimit)
	}
	if m.HTTPTokens == nil {
		m.HTTPTokens = ptr(DefaultHTTPTokens)
	}
	for i := range in.Status.CapacityReservations {
		r := &in.Status.CapacityReservations[i]
		if r.ReservationType == "" {
			r.ReservationType = DefaultReservationType
		}
		if r.State == "" {
			r.State = DefaultReservationState
		}
	}
}

// Alias is an amiSelectorTerms alias split into family and version ("al2023@latest").
type Alias struct {
	Family, Version string
}

// Alias returns the alias of the first AMI selector term that has one, or nil.
func (in *EC2NodeClass) Alias() *Alias {
	for _, t := range in.Spec.AMISelectorTerms {
		if t.Alias != "" {
			family, version, _ := strings.Cut(t.Alias, "@")
			return &Alias{Family: family, Version: version}
		}
	}
	return nil
}

// aliasFamilies maps an alias's family (lower case) to its amiFamily.
var aliasFamilies = map[string]string{
	"al2": AMIFamilyAL2, "al2023": AMIFamilyAL2023, "bottlerocket": AMIFamilyBottlerocket,
	"windows2019": AMIFamilyWindows2019, "windows2022": AMIFamilyWindows2022, "windows2025": AMIFamilyWindows2025,
}

// AMIFamily is the family Karpenter uses for the NodeClass: spec.amiFamily if set, else the
// alias's family, else Custom.
func (in *EC2NodeClass) AMIFamily() string {
	if in.Spec.AMIFamily != nil && *in.Spec.AMIFamily != "" {
		return *in.Spec.AMIFamily
	}
	if a := in.Alias(); a != nil {
		if f, ok := aliasFamilies[strings.ToLower(a.Family)]; ok {
			return f
		}
	}
	return AMIFamilyCustom
}

func ptr[T any](v T) *T { return &v }
