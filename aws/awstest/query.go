package awstest

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The EC2 query protocol: requests are form-encoded, with nested fields joined by "." and
// every list flattened as Key.1, Key.2, ...; replies are XML whose element names are the
// lowerCamel field names, lists wrapped in <item> elements. The generic codec below walks the
// SDK's own input and output structs by reflection; the tables list the names that do not
// follow the rule (checked by round-trip tests through the real SDK client).

// requestListKeys are list fields whose key is not the field name minus its plural "s".
var requestListKeys = map[string]string{
	"LaunchTemplateConfigs": "LaunchTemplateConfigs",
	"Overrides":             "Overrides",
	"Ipv6Addresses":         "Ipv6Addresses",
	"PrivateIpAddresses":    "PrivateIpAddresses",
	"Resources":             "ResourceId",
	"ExecutableUsers":       "ExecutableBy",
	"Ipv4Prefixes":          "Ipv4Prefix",
	"Ipv6Prefixes":          "Ipv6Prefix",
	"LaunchTemplateInstanceNetworkInterfaceSpecificationRequest.Groups":               "SecurityGroupId",
	"LaunchTemplateInstanceSecondaryInterfaceSpecificationRequest.PrivateIpAddresses": "PrivateIpAddress",
}

// responseItems are list fields whose elements are not named "item".
var responseItems = map[string]string{
	"InferenceAcceleratorInfo.Accelerators": "member",
}

// responseNames are fields (Type.Field) whose XML element is not the lowerCamel field name.
var responseNames = map[string]string{
	"InstanceTypeSpecification.SupportedInstanceTypes":          "supportedInstanceTypeSet",
	"InstanceTypeSpecification.UnsupportedInstanceTypes":        "unsupportedInstanceTypeSet",
	"IpPermission.UserIdGroupPairs":                             "groups",
	"Image.ImageWatermarks":                                     "imageWatermarkSet",
	"ProductCode.ProductCodeId":                                 "productCode",
	"ProductCode.ProductCodeType":                               "type",
	"CapacityAllocation.AllocationMetadata":                     "allocationMetadataList",
	"InstanceRequirements.AcceleratorManufacturers":             "acceleratorManufacturerSet",
	"InstanceRequirements.AcceleratorNames":                     "acceleratorNameSet",
	"InstanceRequirements.AcceleratorTypes":                     "acceleratorTypeSet",
	"InstanceRequirements.AllowedInstanceTypes":                 "allowedInstanceTypeSet",
	"InstanceRequirements.CpuManufacturers":                     "cpuManufacturerSet",
	"InstanceRequirements.ExcludedInstanceTypes":                "excludedInstanceTypeSet",
	"InstanceRequirements.InstanceGenerations":                  "instanceGenerationSet",
	"InstanceRequirements.LocalStorageTypes":                    "localStorageTypeSet",
	"Instance.ElasticGpuAssociations":                           "elasticGpuAssociationSet",
	"Instance.ElasticInferenceAcceleratorAssociations":          "elasticInferenceAcceleratorAssociationSet",
	"Instance.SecondaryInterfaces":                              "secondaryInterfaceSet",
	"InstanceSecondaryInterface.PrivateIpAddresses":             "privateIpAddressSet",
	"Monitoring.MetricCategoryIds":                              "metricCategoryIdSet",
	"ValidationWarning.Errors":                                  "errorSet",
	"CapacityReservation.CapacityAllocations":                   "capacityAllocationSet",
	"CapacityReservation.Tags":                                  "tagSet",
	"EbsInfo.EbsCards":                                          "ebsCardSet",
	"GpuDeviceInfo.Workloads":                                   "workloadSet",
	"Image.BlockDeviceMappings":                                 "blockDeviceMapping",
	"Image.OwnerId":                                             "imageOwnerId",
	"Image.Public":                                              "isPublic",
	"Image.State":                                               "imageState",
	"Image.Tags":                                                "tagSet",
	"Instance.BlockDeviceMappings":                              "blockDeviceMapping",
	"Instance.NetworkInterfaces":                                "networkInterfaceSet",
	"Instance.PublicDnsName":                                    "dnsName",
	"Instance.PublicIpAddress":                                  "ipAddress",
	"Instance.SecurityGroups":                                   "groupSet",
	"Instance.State":                                            "instanceState",
	"Instance.StateTransitionReason":                            "reason",
	"Instance.Tags":                                             "tagSet",
	"Instance.Licenses":                                         "licenseSet",
	"InstanceNetworkInterface.Groups":                           "groupSet",
	"InstanceNetworkInterface.PrivateIpAddresses":               "privateIpAddressesSet",
	"InstanceNetworkInterface.Ipv4Prefixes":                     "ipv4PrefixSet",
	"InstanceNetworkInterface.Ipv6Addresses":                    "ipv6AddressesSet",
	"InstanceNetworkInterface.Ipv6Prefixes":                     "ipv6PrefixSet",
	"LaunchTemplate.Tags":                                       "tagSet",
	"NetworkCardInfo.InterfaceTypes":                            "interfaceTypeSet",
	"Reservation.Groups":                                        "groupSet",
	"Reservation.Instances":                                     "instancesSet",
	"SecurityGroup.Description":                                 "groupDescription",
	"SecurityGroup.Tags":                                        "tagSet",
	"Subnet.Tags":                                               "tagSet",
	"FleetLaunchTemplateOverrides.BlockDeviceMappings":          "blockDeviceMappingSet",
	"CreateFleetOutput.Errors":                                  "errorSet",
	"CreateFleetOutput.Instances":                               "fleetInstanceSet",
	"DescribeCapacityReservationsOutput.CapacityReservations":   "capacityReservationSet",
	"DescribeImagesOutput.Images":                               "imagesSet",
	"DescribeInstancesOutput.Reservations":                      "reservationSet",
	"DescribeInstanceTypeOfferingsOutput.InstanceTypeOfferings": "instanceTypeOfferingSet",
	"DescribeInstanceTypesOutput.InstanceTypes":                 "instanceTypeSet",
	"DescribeSecurityGroupsOutput.SecurityGroups":               "securityGroupInfo",
	"DescribeSpotPriceHistoryOutput.SpotPriceHistory":           "spotPriceHistorySet",
	"DescribeSubnetsOutput.Subnets":                             "subnetSet",
	"TerminateInstancesOutput.TerminatingInstances":             "instancesSet",
}

var timeType = reflect.TypeOf(time.Time{})

// serialized reports whether a struct field is part of the wire format.
func serialized(f reflect.StructField) bool {
	return f.IsExported() && f.Name != "ResultMetadata"
}

// listKey is the query key of a list field.
func listKey(typeName, field string) string {
	if k, ok := requestListKeys[typeName+"."+field]; ok {
		return k
	}
	if k, ok := requestListKeys[field]; ok {
		return k
	}
	return strings.TrimSuffix(field, "s")
}

// decodeQuery fills the struct that into points to from form values.
func decodeQuery(form url.Values, into any) error {
	q := query{form: form, prefixes: map[string]bool{}}
	for k := range form {
		for i := range len(k) {
			if k[i] == '.' {
				q.prefixes[k[:i]] = true
			}
		}
		q.prefixes[k] = true
	}
	return q.decodeValue("", reflect.ValueOf(into).Elem())
}

// query is a request's form with every key and dotted prefix of a key, so that finding
// whether a field is present costs one look-up, not a scan of the form.
type query struct {
	form     url.Values
	prefixes map[string]bool
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// has reports whether some form key is prefix or starts with prefix + ".".
func (q query) has(prefix string) bool { return q.prefixes[prefix] }

func (q query) decodeValue(prefix string, v reflect.Value) error {
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		if !q.has(prefix) {
			return nil
		}
		nv := reflect.New(t.Elem())
		if err := q.decodeValue(prefix, nv.Elem()); err != nil {
			return err
		}
		v.Set(nv)
		return nil
	}
	if t == timeType {
		ts, err := time.Parse(time.RFC3339Nano, q.form.Get(prefix))
		if err != nil {
			return fmt.Errorf("%s: %w", prefix, err)
		}
		v.Set(reflect.ValueOf(ts))
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if prefix != "" && !q.has(prefix) {
			return nil // nothing of it was sent
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !serialized(f) {
				continue
			}
			key := join(prefix, f.Name)
			if f.Type.Kind() == reflect.Slice {
				key = join(prefix, listKey(t.Name(), f.Name))
			}
			if err := q.decodeValue(key, v.Field(i)); err != nil {
				return err
			}
		}
		return nil
	case reflect.Slice:
		for n := 1; q.has(prefix + "." + strconv.Itoa(n)); n++ {
			elem := reflect.New(t.Elem()).Elem()
			if err := q.decodeValue(prefix+"."+strconv.Itoa(n), elem); err != nil {
				return err
			}
			v.Set(reflect.Append(v, elem))
		}
		return nil
	case reflect.Map, reflect.Interface:
		return nil // not used by the EC2 operations served here
	}
	s, ok := q.form[prefix]
	if !ok || len(s) == 0 {
		return nil
	}
	return setScalar(v, s[0], prefix)
}

func setScalar(v reflect.Value, s, field string) error {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		v.SetBool(b)
	case reflect.Int32, reflect.Int64, reflect.Int:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		v.SetInt(n)
	case reflect.Float64, reflect.Float32:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", field, err)
		}
		v.SetFloat(f)
	default:
		return fmt.Errorf("%s: unsupported kind %s", field, v.Kind())
	}
	return nil
}

// encodeResponse renders an SDK output struct as the EC2 reply <ActionResponse>.
func encodeResponse(action, requestID string, out any) []byte {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	fmt.Fprintf(&buf, `<%sResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>%s</requestId>`, action, requestID)
	v := reflect.ValueOf(out)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	encodeFields(&buf, v)
	fmt.Fprintf(&buf, "</%sResponse>", action)
	return buf.Bytes()
}

func lowerCamel(s string) string {
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

func encodeFields(buf *bytes.Buffer, v reflect.Value) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !serialized(f) {
			continue
		}
		name, ok := responseNames[t.Name()+"."+f.Name]
		if !ok {
			name = lowerCamel(f.Name)
		}
		item, ok := responseItems[t.Name()+"."+f.Name]
		if !ok {
			item = "item"
		}
		encodeElement(buf, name, item, v.Field(i))
	}
}

func encodeElement(buf *bytes.Buffer, name, item string, v reflect.Value) {
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == timeType:
		fmt.Fprintf(buf, "<%s>%s</%s>", name, v.Interface().(time.Time).UTC().Format("2006-01-02T15:04:05.000Z"), name)
		return
	case v.Kind() == reflect.Struct:
		fmt.Fprintf(buf, "<%s>", name)
		encodeFields(buf, v)
		fmt.Fprintf(buf, "</%s>", name)
		return
	case v.Kind() == reflect.Slice:
		if v.Len() == 0 {
			return
		}
		fmt.Fprintf(buf, "<%s>", name)
		for i := range v.Len() {
			encodeElement(buf, item, "item", v.Index(i))
		}
		fmt.Fprintf(buf, "</%s>", name)
		return
	case v.Kind() == reflect.Map:
		return
	}
	var s string
	switch v.Kind() {
	case reflect.String:
		s = v.String()
		if s == "" {
			return
		}
	case reflect.Bool:
		s = strconv.FormatBool(v.Bool())
	case reflect.Int32, reflect.Int64, reflect.Int:
		s = strconv.FormatInt(v.Int(), 10)
	case reflect.Float64, reflect.Float32:
		s = strconv.FormatFloat(v.Float(), 'g', -1, 64)
	default:
		return
	}
	fmt.Fprintf(buf, "<%s>", name)
	_ = xml.EscapeText(buf, []byte(s))
	fmt.Fprintf(buf, "</%s>", name)
}

// encodeError renders the EC2 error reply.
func encodeError(code, message, requestID string) []byte {
	var msg bytes.Buffer
	_ = xml.EscapeText(&msg, []byte(message))
	return fmt.Appendf(nil, `%s<Response><Errors><Error><Code>%s</Code><Message>%s</Message></Error></Errors><RequestID>%s</RequestID></Response>`, xml.Header, code, msg.String(), requestID)
}
