package scheduling

import (
	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Refused are the pods of every new NodeClaim of r the cloud did not launch, each with a
// LaunchRefused error naming its NodePool: launched is what cloudprovider.Launch returned for
// r.NewNodeClaims (launched[i] nil where the cloud refused claim i), as Apply takes it. Apply
// leaves those pods pending; with Refused, every pod of the Solve is accounted for after it:
// bound where Apply put it, in r.PodErrors, or here. The order is the claims', then their
// pods'.
func (r *Result) Refused(launched []*v1.NodeClaim) []PodError {
	var out []PodError
	for i, c := range r.NewNodeClaims {
		if i >= len(launched) || launched[i] != nil {
			continue
		}
		why := singleFailure(Cause{Code: ReasonLaunchRefused, NodePool: c.NodePool, InstanceTypes: len(c.InstanceTypeOptions)})
		for _, p := range c.Pods {
			out = append(out, newPodError(p, why, nil))
		}
	}
	return out
}
