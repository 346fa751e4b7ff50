package aws

import (
	"sort"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/ec2capacity"
	"github.com/nodeplan/nodeplan/cloudprovider"
	"github.com/nodeplan/nodeplan/requirements"
)

// InstanceTypeSettings are what an EC2NodeClass changes about instance types.
type InstanceTypeSettings struct {
	// NodeClass feeds the capacity arithmetic (AMI family, kubelet, block devices).
	NodeClass ec2capacity.NodeClass
	// Capacity are the controller-wide options (VM memory overhead, reserved ENIs); the
	// zero value means ec2capacity.DefaultOptions.
	Capacity ec2capacity.Options
	// Zones are the zones the NodeClass has subnets in, with their zone IDs ("" when
	// unknown). Offerings elsewhere are unavailable. Nil means every zone of the region.
	Zones map[string]string
	// Reservations are the IDs of the capacity reservations the NodeClass selected
	// (status.capacityReservations); only they become reserved offerings, with the remaining
	// count EC2 reported.
	Reservations map[string]bool
	// ReservationsUsed are, per reservation, the instances launched into it minus those
	// terminated since the region was loaded (the provider's own bookkeeping, as Karpenter
	// keeps between its syncs with EC2).
	ReservationsUsed map[string]int
}

// awsLabelKeys are the karpenter.k8s.aws/* keys a type may define; a type without one gets
// DoesNotExist for it, so requiring the key never matches it.
var awsLabelKeys = []string{
	LabelInstanceCPU, LabelInstanceMemory, LabelInstanceCategory, LabelInstanceGeneration, LabelInstanceFamily,
	LabelInstanceSize, LabelCapabilityFlex, LabelCPUManufacturer, LabelCPUClockSpeedMHz, LabelEBSBandwidth,
	LabelNetworkBandwidth, LabelLocalNVMe, LabelHypervisor, LabelEncryptionInTransit, LabelGPUName,
	LabelGPUManufacturer, LabelGPUCount, LabelGPUMemory, LabelAcceleratorName, LabelAcceleratorMaker,
	LabelAcceleratorCount, LabelNitroSandbox, LabelInstanceTenancy, cloudprovider.ReservationIDLabel,
}

// WellKnownLabels are v1.WellKnownLabels plus the AWS keys instance types define, for
// cluster.Objects.WellKnownLabels.
func WellKnownLabels() requirements.KeySet {
	ks := requirements.KeySet{}
	for k, ok := range v1.WellKnownLabels {
		if ok {
			ks[k] = true
		}
	}
	for _, k := range awsLabelKeys {
		ks[k] = true
	}
	ks[LabelZoneID] = true
	return ks
}

// InstanceTypes builds the region's instance types for a NodeClass: capacity and overhead by
// ec2capacity (the arithmetic the embedded catalog uses), labels from DescribeInstanceTypes,
// and offerings per zone x capacity type (on-demand and spot where the type supports them)
// plus one per active capacity reservation. On-demand prices come from the region's
// OnDemandPrices (the embedded table unless refreshed through the Pricing API), spot prices
// from its spot price history. An offering is available when it
// has a price, its zone is one of the settings' zones and unavailable does not list it (nil:
// nothing is unavailable). Types whose capacity cannot be computed (no ENI limits) are left
// out and named in the error-free second result.
func (r *Region) InstanceTypes(s InstanceTypeSettings, unavailable *UnavailableOfferings) (cloudprovider.InstanceTypes, []string) {
	opts := s.Capacity
	if opts == (ec2capacity.Options{}) {
		opts = ec2capacity.DefaultOptions
	}
	onDemand := r.onDemandPrices()
	var out cloudprovider.InstanceTypes
	var skipped []string
	for _, info := range r.Types {
		name := string(info.InstanceType)
		f, labels := facts(info)
		res, err := ec2capacity.Compute(f, s.NodeClass, opts)
		if err != nil {
			skipped = append(skipped, name)
			continue
		}
		if s.NodeClass.Family == ec2capacity.AL2023 && labels[LabelInstanceFamily] == "a1" {
			skipped = append(skipped, name) // AL2023 does not boot on a1
			continue
		}
		if s.NodeClass.Family.Windows() {
			if f.Arm64 {
				skipped = append(skipped, name) // Windows AMIs are amd64 only
				continue
			}
			labels[v1.LabelOS] = "windows"
		}
		zones := r.Zones[name]
		reqs := requirements.FromLabels(labels)
		reqs.Add(
			requirements.MustNew(v1.LabelTopologyRegion, requirements.In, r.Name),
			requirements.MustNew(LabelInstanceTenancy, requirements.In, "default", "dedicated"),
		)
		ofs := r.offerings(info, zones, s, onDemand, unavailable)
		var offeredZones, capTypes, zoneIDs, reservationIDs []string
		seen := map[string]bool{}
		for _, o := range ofs {
			if _, ok := s.Zones[o.Zone()]; s.Zones != nil && !ok {
				continue
			}
			if id := o.ReservationID(); id != "" {
				reservationIDs = append(reservationIDs, id)
			}
			for _, v := range []string{"z/" + o.Zone(), "c/" + o.CapacityType()} {
				if !seen[v] {
					seen[v] = true
					if v[0] == 'z' {
						offeredZones = append(offeredZones, o.Zone())
						if id := s.Zones[o.Zone()]; id != "" {
							zoneIDs = append(zoneIDs, id)
						}
					} else {
						capTypes = append(capTypes, o.CapacityType())
					}
				}
			}
		}
		if len(offeredZones) == 0 {
			skipped = append(skipped, name)
			continue
		}
		sort.Strings(capTypes)
		reqs.Add(
			requirements.MustNew(v1.LabelTopologyZone, requirements.In, offeredZones...),
			requirements.MustNew(v1.CapacityTypeLabelKey, requirements.In, capTypes...),
		)
		if len(zoneIDs) > 0 {
			reqs.Add(requirements.MustNew(LabelZoneID, requirements.In, zoneIDs...))
		}
		if len(reservationIDs) > 0 {
			reqs.Add(requirements.MustNew(cloudprovider.ReservationIDLabel, requirements.In, reservationIDs...))
		}
		for _, k := range awsLabelKeys {
			if !reqs.Has(k) {
				reqs.Add(requirements.MustNew(k, requirements.DoesNotExist))
			}
		}
		out = append(out, &cloudprovider.InstanceType{
			Name: name, Requirements: reqs, Offerings: ofs, Capacity: res.Capacity,
			Overhead: &cloudprovider.InstanceTypeOverhead{KubeReserved: res.KubeReserved, SystemReserved: res.SystemReserved, EvictionThreshold: res.EvictionThreshold},
		})
	}
	return out, skipped
}

// offerings lists the type's offerings in the zones that offer it.
func (r *Region) offerings(info ec2types.InstanceTypeInfo, zones []string, s InstanceTypeSettings, onDemand map[string]float64, unavailable *UnavailableOfferings) cloudprovider.Offerings {
	allowed := s.Zones
	name := string(info.InstanceType)
	odPrice, hasOD := onDemand[name]
	var ofs cloudprovider.Offerings
	for _, zone := range zones {
		_, zoneOK := allowed[zone]
		zoneOK = zoneOK || allowed == nil
		for _, uc := range info.SupportedUsageClasses {
			ct := string(uc)
			if ct != v1.CapacityTypeOnDemand && ct != v1.CapacityTypeSpot {
				continue
			}
			price, ok := odPrice, hasOD
			if ct == v1.CapacityTypeSpot && r.SpotPrices != nil {
				price, ok = r.SpotPrices[name][zone]
			}
			avail := ok && zoneOK && (unavailable == nil || !unavailable.IsUnavailable(ct, name, zone))
			ofs = append(ofs, cloudprovider.NewOffering(zone, ct, price, avail))
		}
	}
	for _, cr := range r.Reservations {
		id := sdkaws.ToString(cr.CapacityReservationId)
		if sdkaws.ToString(cr.InstanceType) != name || cr.State != ec2types.CapacityReservationStateActive || !s.Reservations[id] {
			continue
		}
		zone := sdkaws.ToString(cr.AvailabilityZone)
		if _, ok := allowed[zone]; !ok && allowed != nil {
			continue
		}
		o := cloudprovider.NewReservedOffering(zone, id, odPrice/10_000_000, max(0, int(sdkaws.ToInt32(cr.AvailableInstanceCount))-s.ReservationsUsed[id]))
		o.Available = o.Available && hasOD && (unavailable == nil || !unavailable.IsUnavailable(v1.CapacityTypeReserved, name, zone))
		ofs = append(ofs, o)
	}
	return ofs
}
