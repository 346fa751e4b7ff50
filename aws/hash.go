package aws

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"

	awsv1 "github.com/nodeplan/nodeplan/aws/apis/v1"
)

// NodeClassHashVersion is the version of NodeClassHash. It differs from Karpenter's ("v6"),
// so claims Karpenter stamped are never compared with nodeplan's hashes (IsDrifted then says
// "cannot tell", not drifted).
const NodeClassHashVersion = "nodeplan-v1"

// NodeClassHash is the static drift hash of an EC2NodeClass: its spec without the fields
// Karpenter leaves out (the selector terms, which drift dynamically, and ipPrefixCount), with
// the resolved AMI family, lists compared as sets and map order irrelevant. A host stamps it,
// with NodeClassHashVersion, on the NodeClass (annotations AnnotationNodeClassHash and
// AnnotationNodeClassHashVersion); Create copies them to the claims it launches, and
// IsDrifted reports NodeClassDrift when they differ.
func NodeClassHash(nc *awsv1.EC2NodeClass) string {
	spec := &nc.DeepCopy().Spec
	spec.SubnetSelectorTerms, spec.SecurityGroupSelectorTerms, spec.CapacityReservationSelectorTerms, spec.AMISelectorTerms = nil, nil, nil, nil
	spec.IPPrefixCount = nil
	family := nc.AMIFamily()
	spec.AMIFamily = &family
	raw, _ := json.Marshal(spec) // maps marshal in key order
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields)
	for _, k := range []string{"blockDeviceMappings", "networkInterfaces"} {
		var items []json.RawMessage
		if err := json.Unmarshal(fields[k], &items); err == nil && len(items) > 0 {
			strs := make([]string, len(items))
			for i, it := range items {
				strs[i] = string(it)
			}
			sort.Strings(strs)
			fields[k], _ = json.Marshal(strs)
		}
	}
	canonical, _ := json.Marshal(fields)
	h := fnv.New64a()
	_, _ = h.Write(canonical)
	return fmt.Sprintf("%d", h.Sum64())
}

// StampNodeClassHash sets the NodeClass's hash annotations to NodeClassHash and its version.
func StampNodeClassHash(nc *awsv1.EC2NodeClass) {
	if nc.Annotations == nil {
		nc.Annotations = map[string]string{}
	}
	nc.Annotations[AnnotationNodeClassHash] = NodeClassHash(nc)
	nc.Annotations[AnnotationNodeClassHashVersion] = NodeClassHashVersion
}
