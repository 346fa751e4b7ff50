package ec2capacity

// Family is an AMI family, as EC2NodeClass spec.amiFamily spells it.
type Family string

// The AMI families Karpenter's AWS provider knows.
const (
	AL2          Family = "AL2"
	AL2023       Family = "AL2023"
	Bottlerocket Family = "Bottlerocket"
	Custom       Family = "Custom"
	Windows2019  Family = "Windows2019"
	Windows2022  Family = "Windows2022"
	Windows2025  Family = "Windows2025"
)

// Families lists every family, in the CRD's enum order.
var Families = []Family{AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022, Windows2025}

// Known reports whether f is one of Families.
func (f Family) Known() bool {
	for _, k := range Families {
		if f == k {
			return true
		}
	}
	return false
}

// Windows reports whether the family boots Windows.
func (f Family) Windows() bool {
	return f == Windows2019 || f == Windows2022 || f == Windows2025
}

// eniLimitedPods: the family's default max pods is the ENI limit (the VPC CNI's), not 110.
func (f Family) eniLimitedPods() bool { return !f.Windows() }

// podsPerCoreHonoured: Bottlerocket's settings ignore kubelet podsPerCore.
func (f Family) podsPerCoreHonoured() bool { return f != Bottlerocket }

// eniLimitedMemoryOverhead: kube-reserved memory counts the ENI-limited pods (with no reserved
// ENIs) whatever maxPods says, as the EKS bootstrap scripts of these families do.
func (f Family) eniLimitedMemoryOverhead() bool { return f == AL2 || f == AL2023 || f == Custom }

// ephemeralDevice is the device whose volume holds the kubelet's ephemeral storage, and
// defaultSize that volume's default size in GiB (0: the family has no default mapping).
func (f Family) ephemeralDevice() (device string, defaultGiB int64) {
	switch {
	case f == Bottlerocket:
		return "/dev/xvdb", 20
	case f.Windows():
		return "/dev/sda1", 50
	case f == Custom:
		return "", 0
	}
	return "/dev/xvda", 20
}
