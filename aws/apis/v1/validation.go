package v1

import (
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	karpv1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/internal/quantity"
)

// Limits from the CRD's schema.
const (
	MaxSelectorTerms       = 30
	MaxSelectorTags        = 20
	MaxBlockDeviceMappings = 50
	MaxNetworkInterfaces   = 150
)

var (
	subnetID      = regexp.MustCompile(`^subnet-[0-9a-z]+$`)
	securityGroup = regexp.MustCompile(`^sg-[0-9a-z]+$`)
	reservationID = regexp.MustCompile(`^cr-[0-9a-z]+$`)
	placementID   = regexp.MustCompile(`^pg-[0-9a-z]+$`)
	amiID         = regexp.MustCompile(`^ami-[0-9a-z]+$`)
	ownerID       = regexp.MustCompile(`^[0-9]{12}$`)
	aliasPattern  = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)
	percentage    = regexp.MustCompile(`^(\d+(\.\d+)?)%$`)
)

// EvictionSignals are the signals evictionHard, evictionSoft and evictionSoftGracePeriod accept.
var EvictionSignals = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}

// ReservedResources are the keys kubeReserved and systemReserved accept.
var ReservedResources = []string{"cpu", "memory", "ephemeral-storage", "pid"}

// VolumeTypes are the EBS volume types blockDeviceMappings accept.
var VolumeTypes = []string{"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}

// restrictedTags are tag keys Karpenter sets itself.
var restrictedTags = []string{"eks:eks-cluster-name", karpv1.NodePoolLabelKey, karpv1.Group + "/nodeclaim", Group + "/ec2nodeclass"}

// Validate checks the EC2NodeClass against the CRD's schema and CEL rules and returns a
// *v1.ValidationError (of the karpenter.sh API package) listing every problem, or nil. Unset
// fields that SetDefaults would fill are accepted; the status is not checked.
func (in *EC2NodeClass) Validate() error {
	var errs field.ErrorList
	if in.Name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), ""))
	}
	s := &in.Spec
	spec := field.NewPath("spec")
	errs = append(errs, validateSubnetTerms(s.SubnetSelectorTerms, spec.Child("subnetSelectorTerms"))...)
	errs = append(errs, validateSecurityGroupTerms(s.SecurityGroupSelectorTerms, spec.Child("securityGroupSelectorTerms"))...)
	errs = append(errs, validateReservationTerms(s.CapacityReservationSelectorTerms, spec.Child("capacityReservationSelectorTerms"))...)
	if pg := s.PlacementGroupSelector; pg != nil {
		p := spec.Child("placementGroupSelector")
		if (pg.Name == "") == (pg.ID == "") {
			errs = append(errs, field.Invalid(p, "", "must specify exactly one of ['name', 'id']"))
		}
		if pg.ID != "" && !placementID.MatchString(pg.ID) {
			errs = append(errs, field.Invalid(p.Child("id"), pg.ID, "must match "+placementID.String()))
		}
	}
	if n := s.IPPrefixCount; n != nil && *n < 0 {
		errs = append(errs, field.Invalid(spec.Child("ipPrefixCount"), *n, "must be greater than or equal to 0"))
	}
	errs = append(errs, validateAMI(s, spec)...)
	if (s.Role == "") == (s.InstanceProfile == nil) {
		errs = append(errs, field.Invalid(spec, "", "must specify exactly one of ['role', 'instanceProfile']"))
	}
	if s.InstanceProfile != nil && *s.InstanceProfile == "" {
		errs = append(errs, field.Invalid(spec.Child("instanceProfile"), "", "must not be empty"))
	}
	errs = append(errs, validateTags(s.Tags, spec.Child("tags"))...)
	errs = append(errs, ValidateKubelet(s.Kubelet, spec.Child("kubelet"))...)
	errs = append(errs, validateBlockDevices(s.BlockDeviceMappings, spec.Child("blockDeviceMappings"))...)
	if p := s.InstanceStorePolicy; p != nil && *p != InstanceStorePolicyRAID0 {
		errs = append(errs, field.NotSupported(spec.Child("instanceStorePolicy"), *p, []string{string(InstanceStorePolicyRAID0)}))
	}
	errs = append(errs, validateNetworkInterfaces(s.NetworkInterfaces, spec.Child("networkInterfaces"))...)
	if m := s.MetadataOptions; m != nil {
		p := spec.Child("metadataOptions")
		errs = append(errs, oneOfPtr(m.HTTPEndpoint, p.Child("httpEndpoint"), "enabled", "disabled")...)
		errs = append(errs, oneOfPtr(m.HTTPProtocolIPv6, p.Child("httpProtocolIPv6"), "enabled", "disabled")...)
		errs = append(errs, oneOfPtr(m.HTTPTokens, p.Child("httpTokens"), "required", "optional")...)
		if h := m.HTTPPutResponseHopLimit; h != nil && (*h < 1 || *h > 64) {
			errs = append(errs, field.Invalid(p.Child("httpPutResponseHopLimit"), *h, "must be between 1 and 64"))
		}
	}
	if c := s.ConnectionTracking; c != nil {
		p := spec.Child("connectionTracking")
		if c.TCPEstablishedTimeout == nil && c.UDPStreamTimeout == nil && c.UDPTimeout == nil {
			errs = append(errs, field.Invalid(p, "", "must set at least one of tcpEstablishedTimeout, udpStreamTimeout, udpTimeout"))
		}
		errs = append(errs, rangePtr(c.TCPEstablishedTimeout, p.Child("tcpEstablishedTimeout"), 60, 432000)...)
		errs = append(errs, rangePtr(c.UDPStreamTimeout, p.Child("udpStreamTimeout"), 60, 180)...)
		errs = append(errs, rangePtr(c.UDPTimeout, p.Child("udpTimeout"), 30, 60)...)
	}
	if c := s.CPUOptions; c != nil {
		errs = append(errs, oneOfPtr(c.NestedVirtualization, spec.Child("cpuOptions", "nestedVirtualization"), "enabled", "disabled")...)
	}
	if len(errs) == 0 {
		return nil
	}
	return &karpv1.ValidationError{Kind: KindEC2NodeClass, Name: in.Name, Errs: errs}
}

// termCount checks a selector-term list's length.
func termCount(n int, p *field.Path, required bool) field.ErrorList {
	switch {
	case n == 0 && required:
		return field.ErrorList{field.Required(p, "at least one term is required")}
	case n > MaxSelectorTerms:
		return field.ErrorList{field.TooMany(p, n, MaxSelectorTerms)}
	}
	return nil
}

// validateSelectorTags: at most 20, no empty keys or values.
func validateSelectorTags(tags map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(tags) > MaxSelectorTags {
		errs = append(errs, field.TooMany(p, len(tags), MaxSelectorTags))
	}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if k == "" || tags[k] == "" {
			errs = append(errs, field.Invalid(p.Key(k), tags[k], "empty tag keys or values aren't supported"))
		}
	}
	return errs
}

// exclusive reports a field that must be alone in its term.
func exclusive(p *field.Path, name, what string) *field.Error {
	return field.Invalid(p, "", fmt.Sprintf("'%s' is mutually exclusive, cannot be set with a combination of other fields in a %s", name, what))
}

func validateSubnetTerms(terms []SubnetSelectorTerm, p *field.Path) field.ErrorList {
	errs := termCount(len(terms), p, true)
	for i, t := range terms {
		tp := p.Index(i)
		if len(t.Tags) == 0 && t.ID == "" {
			errs = append(errs, field.Invalid(tp, "", "expected at least one, got none, ['tags', 'id']"))
		}
		if t.ID != "" && len(t.Tags) > 0 {
			errs = append(errs, exclusive(tp, "id", "subnet selector term"))
		}
		if t.ID != "" && !subnetID.MatchString(t.ID) {
			errs = append(errs, field.Invalid(tp.Child("id"), t.ID, "must match "+subnetID.String()))
		}
		errs = append(errs, validateSelectorTags(t.Tags, tp.Child("tags"))...)
	}
	return errs
}

func validateSecurityGroupTerms(terms []SecurityGroupSelectorTerm, p *field.Path) field.ErrorList {
	errs := termCount(len(terms), p, true)
	for i, t := range terms {
		tp := p.Index(i)
		if len(t.Tags) == 0 && t.ID == "" && t.Name == "" {
			errs = append(errs, field.Invalid(tp, "", "expected at least one, got none, ['tags', 'id', 'name']"))
		}
		if t.ID != "" && (len(t.Tags) > 0 || t.Name != "") {
			errs = append(errs, exclusive(tp, "id", "security group selector term"))
		}
		if t.Name != "" && len(t.Tags) > 0 {
			errs = append(errs, exclusive(tp, "name", "security group selector term"))
		}
		if t.ID != "" && !securityGroup.MatchString(t.ID) {
			errs = append(errs, field.Invalid(tp.Child("id"), t.ID, "must match "+securityGroup.String()))
		}
		errs = append(errs, validateSelectorTags(t.Tags, tp.Child("tags"))...)
	}
	return errs
}

func validateReservationTerms(terms []CapacityReservationSelectorTerm, p *field.Path) field.ErrorList {
	errs := termCount(len(terms), p, false)
	for i, t := range terms {
		tp := p.Index(i)
		if len(t.Tags) == 0 && t.ID == "" && t.InstanceMatchCriteria == "" {
			errs = append(errs, field.Invalid(tp, "", "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']"))
		}
		if t.ID != "" && (len(t.Tags) > 0 || t.OwnerID != "" || t.InstanceMatchCriteria != "") {
			errs = append(errs, exclusive(tp, "id", "capacity reservation selector term"))
		}
		if t.ID != "" && !reservationID.MatchString(t.ID) {
			errs = append(errs, field.Invalid(tp.Child("id"), t.ID, "must match "+reservationID.String()))
		}
		if t.OwnerID != "" && !ownerID.MatchString(t.OwnerID) {
			errs = append(errs, field.Invalid(tp.Child("ownerID"), t.OwnerID, "must be a 12-digit AWS account ID"))
		}
		if c := t.InstanceMatchCriteria; c != "" && c != "open" && c != "targeted" {
			errs = append(errs, field.NotSupported(tp.Child("instanceMatchCriteria"), c, []string{"open", "targeted"}))
		}
		errs = append(errs, validateSelectorTags(t.Tags, tp.Child("tags"))...)
	}
	return errs
}

// validateAMI checks amiSelectorTerms and amiFamily together.
func validateAMI(s *EC2NodeClassSpec, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	fp := spec.Child("amiFamily")
	known := s.AMIFamily != nil && slices.Contains(AMIFamilies, *s.AMIFamily)
	if f := s.AMIFamily; f != nil && !known {
		// First: an unknown family is what to fix (amiSelectorTerms are required only
		// because the family is no alias's).
		errs = append(errs, field.NotSupported(fp, *f, AMIFamilies))
	}
	p := spec.Child("amiSelectorTerms")
	errs = append(errs, termCount(len(s.AMISelectorTerms), p, true)...)
	alias := ""
	for i, t := range s.AMISelectorTerms {
		tp := p.Index(i)
		others := len(t.Tags) > 0 || t.ID != "" || t.Name != "" || t.Owner != "" || t.SSMParameter != ""
		if t.Alias == "" && len(t.Tags) == 0 && t.ID == "" && t.Name == "" && t.SSMParameter == "" {
			errs = append(errs, field.Invalid(tp, "", "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']"))
		}
		if t.Alias != "" {
			alias = t.Alias
			if others {
				errs = append(errs, exclusive(tp, "alias", "AMI selector term"))
			}
			if len(s.AMISelectorTerms) > 1 {
				errs = append(errs, field.Invalid(tp, "", "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms"))
			}
			errs = append(errs, validateAlias(t.Alias, tp.Child("alias"))...)
		}
		if t.ID != "" && (len(t.Tags) > 0 || t.Name != "" || t.Owner != "" || t.SSMParameter != "") {
			errs = append(errs, exclusive(tp, "id", "AMI selector term"))
		}
		if t.ID != "" && !amiID.MatchString(t.ID) {
			errs = append(errs, field.Invalid(tp.Child("id"), t.ID, "must match "+amiID.String()))
		}
		errs = append(errs, validateSelectorTags(t.Tags, tp.Child("tags"))...)
	}
	switch f := s.AMIFamily; {
	case f == nil && alias == "" && len(s.AMISelectorTerms) > 0:
		errs = append(errs, field.Required(fp, "must specify amiFamily if amiSelectorTerms does not contain an alias"))
	case known && alias != "" && *f != AMIFamilyCustom:
		family, _, _ := strings.Cut(alias, "@")
		if aliasFamilies[strings.ToLower(family)] != *f {
			errs = append(errs, field.Invalid(fp, *f, fmt.Sprintf("must be Custom or match the alias %q (or be left out)", alias)))
		}
	}
	return errs
}

func validateAlias(alias string, p *field.Path) field.ErrorList {
	if !aliasPattern.MatchString(alias) {
		return field.ErrorList{field.Invalid(p, alias, "'alias' is improperly formatted, must match the format 'family@version'")}
	}
	family, version, _ := strings.Cut(alias, "@")
	f, ok := aliasFamilies[family]
	if !ok {
		return field.ErrorList{field.Invalid(p, alias, "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'")}
	}
	if strings.HasPrefix(f, "Windows") && version != "latest" {
		return field.ErrorList{field.Invalid(p, alias, "windows families may only specify version 'latest'")}
	}
	return nil
}

func validateTags(tags map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		switch {
		case k == "":
			errs = append(errs, field.Invalid(p, k, "empty tag keys aren't supported"))
		case slices.Contains(restrictedTags, k) || strings.HasPrefix(k, "kubernetes.io/cluster"):
			errs = append(errs, field.Invalid(p.Key(k), k, "tag contains a restricted tag key that Karpenter sets itself"))
		}
	}
	return errs
}

// ValidateKubelet checks a kubelet block as the EC2NodeClass CRD checks spec.kubelet (and, for
// what the API server accepts but a node would refuse, as the kubelet does), reporting each
// problem under p. The v1beta1 NodePool's spec.template.spec.kubelet, which Karpenter 1.0
// moved into an annotation, is checked with it under the path its author wrote.
func ValidateKubelet(k *KubeletConfiguration, p *field.Path) field.ErrorList {
	if k == nil {
		return nil
	}
	var errs field.ErrorList
	for i, ip := range k.ClusterDNS {
		if _, err := netip.ParseAddr(ip); err != nil {
			// The API server takes any string; the kubelet refuses the node's configuration.
			errs = append(errs, field.Invalid(p.Child("clusterDNS").Index(i), ip, "must be an IP address (the kubelet refuses anything else)"))
		}
	}
	errs = append(errs, minPtr(k.MaxPods, p.Child("maxPods"), 0)...)
	errs = append(errs, minPtr(k.PodsPerCore, p.Child("podsPerCore"), 0)...)
	errs = append(errs, minPtr(k.EvictionMaxPodGracePeriod, p.Child("evictionMaxPodGracePeriod"), 0)...)
	errs = append(errs, rangePtr(k.ImageGCHighThresholdPercent, p.Child("imageGCHighThresholdPercent"), 0, 100)...)
	errs = append(errs, rangePtr(k.ImageGCLowThresholdPercent, p.Child("imageGCLowThresholdPercent"), 0, 100)...)
	if h, l := k.ImageGCHighThresholdPercent, k.ImageGCLowThresholdPercent; h != nil && l != nil && *h <= *l {
		errs = append(errs, field.Invalid(p.Child("imageGCHighThresholdPercent"), *h, "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent"))
	}
	for _, r := range []struct {
		name   string
		values map[string]string
	}{{"kubeReserved", k.KubeReserved}, {"systemReserved", k.SystemReserved}} {
		for _, key := range slices.Sorted(maps.Keys(r.values)) {
			kp := p.Child(r.name).Key(key)
			if !slices.Contains(ReservedResources, key) {
				errs = append(errs, field.NotSupported(p.Child(r.name), key, ReservedResources))
				continue
			}
			q, err := resource.ParseQuantity(r.values[key])
			if err != nil || q.Sign() < 0 {
				errs = append(errs, field.Invalid(kp, r.values[key], "must be a non-negative quantity"))
			} else if err := quantity.Check(corev1.ResourceName(key), q); err != nil {
				errs = append(errs, field.Invalid(kp, r.values[key], err.Error())) // 1e30 cpu: an error naming an instance type
			}
		}
	}
	for _, e := range []struct {
		name   string
		values map[string]string
	}{{"evictionHard", k.EvictionHard}, {"evictionSoft", k.EvictionSoft}} {
		for _, key := range slices.Sorted(maps.Keys(e.values)) {
			if !slices.Contains(EvictionSignals, key) {
				errs = append(errs, field.NotSupported(p.Child(e.name), key, EvictionSignals))
				continue
			}
			if !validThreshold(e.values[key]) {
				errs = append(errs, field.Invalid(p.Child(e.name).Key(key), e.values[key], "must be a quantity nodeplan can count or a percentage between 0% and 100%"))
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(k.EvictionSoftGracePeriod)) {
		if !slices.Contains(EvictionSignals, key) {
			errs = append(errs, field.NotSupported(p.Child("evictionSoftGracePeriod"), key, EvictionSignals))
		} else if _, ok := k.EvictionSoft[key]; !ok {
			errs = append(errs, field.Invalid(p.Child("evictionSoftGracePeriod").Key(key), key, "key does not have a matching evictionSoft"))
		}
	}
	for _, key := range slices.Sorted(maps.Keys(k.EvictionSoft)) {
		if _, ok := k.EvictionSoftGracePeriod[key]; !ok && slices.Contains(EvictionSignals, key) {
			errs = append(errs, field.Invalid(p.Child("evictionSoft").Key(key), key, "key does not have a matching evictionSoftGracePeriod"))
		}
	}
	return errs
}

// validThreshold: an eviction threshold is a quantity or a percentage in [0, 100].
func validThreshold(v string) bool {
	if m := percentage.FindStringSubmatch(v); m != nil {
		f, err := strconv.ParseFloat(m[1], 64)
		return err == nil && f >= 0 && f <= 100
	}
	q, err := resource.ParseQuantity(v)
	return err == nil && quantity.Check(corev1.ResourceMemory, q) == nil // non-negative, countable in bytes
}

func validateBlockDevices(bdms []*BlockDeviceMapping, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(bdms) > MaxBlockDeviceMappings {
		errs = append(errs, field.TooMany(p, len(bdms), MaxBlockDeviceMappings))
	}
	roots := 0
	for i, b := range bdms {
		bp := p.Index(i)
		if b == nil {
			errs = append(errs, field.Invalid(bp, nil, "must not be null"))
			continue
		}
		if b.RootVolume {
			roots++
		}
		e := b.EBS
		if e == nil {
			continue
		}
		ep := bp.Child("ebs")
		if e.SnapshotID == nil && e.VolumeSize == nil {
			errs = append(errs, field.Invalid(ep, "", "snapshotID or volumeSize must be defined"))
		}
		if e.VolumeSize != nil && (e.VolumeSize.Cmp(MinVolumeSize) < 0 || e.VolumeSize.Cmp(MaxVolumeSize) > 0) {
			errs = append(errs, field.Invalid(ep.Child("volumeSize"), e.VolumeSize.String(),
				fmt.Sprintf("must be from %s to %s (the CRD's pattern: whole Gi, G, Ti or T up to %s)", MinVolumeSize.String(), MaxVolumeSize.String(), MaxVolumeSize.String())))
		}
		errs = append(errs, oneOfPtr(e.VolumeType, ep.Child("volumeType"), VolumeTypes...)...)
		errs = append(errs, validateVolumePerformance(e, ep)...)
		if r := e.VolumeInitializationRate; r != nil {
			errs = append(errs, rangePtr(r, ep.Child("volumeInitializationRate"), 100, 300)...)
			if e.SnapshotID == nil {
				errs = append(errs, field.Invalid(ep.Child("volumeInitializationRate"), *r, "volumeInitializationRate requires snapshotID"))
			}
		}
	}
	if roots > 1 {
		errs = append(errs, field.Invalid(p, roots, "must have only one blockDeviceMappings with rootVolume"))
	}
	return errs
}

// The volume sizes the CRD's volumeSize pattern accepts: 1G (1Gi) up to 64T (59000Gi, 58Ti).
var (
	MinVolumeSize = resource.MustParse("1G")
	MaxVolumeSize = resource.MustParse("64T")
)

// iopsMinimum is the least IOPS EC2 provisions for each volume type that takes an iops
// setting; throughput (MiB/s) is set only on gp3, from 125.
var iopsMinimum = map[string]int64{"io1": 100, "io2": 100, "gp3": 3000}

const gp3MinThroughput = 125

// validateVolumePerformance refuses what CreateFleet refuses of an EBS volume's iops and
// throughput (the CRD takes any integer): values below 1, iops on a type without provisioned
// IOPS or below its minimum, throughput on a type other than gp3 or below 125. Maximums rise
// with EC2's offerings and are left to it.
func validateVolumePerformance(e *BlockDevice, ep *field.Path) field.ErrorList {
	var errs field.ErrorList
	vt := ""
	if e.VolumeType != nil {
		vt = *e.VolumeType
	}
	if e.IOPS != nil {
		min, typed := iopsMinimum[vt]
		switch {
		case *e.IOPS < 1:
			errs = append(errs, field.Invalid(ep.Child("iops"), *e.IOPS, "must be greater than 0"))
		case vt != "" && !typed && slices.Contains(VolumeTypes, vt):
			errs = append(errs, field.Invalid(ep.Child("iops"), *e.IOPS, fmt.Sprintf("EC2 takes iops only for io1, io2 and gp3 volumes, not %s", vt)))
		case typed && *e.IOPS < min:
			errs = append(errs, field.Invalid(ep.Child("iops"), *e.IOPS, fmt.Sprintf("must be at least %d for %s (EC2's minimum)", min, vt)))
		}
	}
	if e.Throughput != nil {
		switch {
		case *e.Throughput < 1:
			errs = append(errs, field.Invalid(ep.Child("throughput"), *e.Throughput, "must be greater than 0"))
		case vt != "" && vt != "gp3" && slices.Contains(VolumeTypes, vt):
			errs = append(errs, field.Invalid(ep.Child("throughput"), *e.Throughput, fmt.Sprintf("EC2 takes throughput only for gp3 volumes, not %s", vt)))
		case vt == "gp3" && *e.Throughput < gp3MinThroughput:
			errs = append(errs, field.Invalid(ep.Child("throughput"), *e.Throughput, fmt.Sprintf("must be at least %d MiB/s for gp3 (EC2's minimum)", gp3MinThroughput)))
		}
	}
	return errs
}

func validateNetworkInterfaces(nis []*NetworkInterface, p *field.Path) field.ErrorList {
	if nis == nil {
		return nil
	}
	var errs field.ErrorList
	if len(nis) > MaxNetworkInterfaces {
		errs = append(errs, field.TooMany(p, len(nis), MaxNetworkInterfaces))
	}
	seen := map[[2]int32]bool{}
	primary := false
	for i, n := range nis {
		if n == nil {
			errs = append(errs, field.Invalid(p.Index(i), nil, "must not be null"))
			continue
		}
		errs = append(errs, oneOfPtr(&n.InterfaceType, p.Index(i).Child("interfaceType"), "interface", "efa-only")...)
		key := [2]int32{n.NetworkCardIndex, n.DeviceIndex}
		if seen[key] {
			errs = append(errs, field.Duplicate(p.Index(i), fmt.Sprintf("networkCardIndex %d, deviceIndex %d", key[0], key[1])))
		}
		seen[key] = true
		primary = primary || (key == [2]int32{0, 0} && n.InterfaceType == "interface")
	}
	if !primary {
		errs = append(errs, field.Invalid(p, "", "must include the primary interface: networkCardIndex 0, deviceIndex 0, interfaceType interface"))
	}
	return errs
}

func oneOfPtr(v *string, p *field.Path, allowed ...string) field.ErrorList {
	if v == nil || slices.Contains(allowed, *v) {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, *v, allowed)}
}

func minPtr[T int32 | int64](v *T, p *field.Path, lo T) field.ErrorList {
	if v == nil || *v >= lo {
		return nil
	}
	return field.ErrorList{field.Invalid(p, *v, fmt.Sprintf("must be greater than or equal to %d", lo))}
}

func rangePtr[T int32 | int64](v *T, p *field.Path, lo, hi T) field.ErrorList {
	if v == nil || (*v >= lo && *v <= hi) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, *v, fmt.Sprintf("must be between %d and %d", lo, hi))}
}
