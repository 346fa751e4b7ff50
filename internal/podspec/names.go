package podspec

// Fast paths for the checks every pod takes: the validation package's regular expressions
// cost a sixth of a Solve. They accept exactly what those expressions accept; anything
// else falls through to the validation package for its message.

// commonTopologyKeys are valid qualified names that nearly every spread constraint and
// affinity term uses.
var commonTopologyKeys = map[string]bool{
	"kubernetes.io/hostname":           true,
	"topology.kubernetes.io/zone":      true,
	"topology.kubernetes.io/region":    true,
	"karpenter.sh/capacity-type":       true,
	"karpenter.sh/nodepool":            true,
	"node.kubernetes.io/instance-type": true,
}

// isDNS1123Label: 1 to 63 of [a-z0-9-], starting and ending alphanumeric.
func isDNS1123Label(s string) bool {
	if len(s) == 0 || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (c != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// isDNS1123Subdomain: at most 253 characters of dot-separated labels, each [a-z0-9-]
// starting and ending alphanumeric (labels here have no length limit of their own, as in
// the validation package's subdomain rule).
func isDNS1123Subdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			c := s[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		label := s[start:i]
		if len(label) == 0 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		start = i + 1
	}
	return true
}
