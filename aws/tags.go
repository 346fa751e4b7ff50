package aws

import (
	"fmt"
	"sort"
	"strings"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// Tag keys every instance this package launches carries.
const (
	TagClusterName   = "eks:eks-cluster-name"
	TagNodeClaim     = "karpenter.sh/nodeclaim"
	tagClusterPrefix = "kubernetes.io/cluster/"
)

// clusterTag is kubernetes.io/cluster/<cluster>, whose value "owned" marks the cluster's
// resources.
func clusterTag(cluster string) string { return tagClusterPrefix + cluster }

// launchTags are the tags of an instance launched for a NodeClaim: the NodeClass's own tags,
// then the fixed ones (which win).
func launchTags(cluster, nodePool, nodeClass, nodeClaim string, user map[string]string) []ec2types.Tag {
	m := map[string]string{}
	for k, v := range user {
		m[k] = v
	}
	m[clusterTag(cluster)] = "owned"
	m[TagClusterName] = cluster
	m[v1.NodePoolLabelKey] = nodePool
	m[LabelNodeClass] = nodeClass
	m[TagNodeClaim] = nodeClaim
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]ec2types.Tag, 0, len(keys))
	for _, k := range keys {
		out = append(out, ec2types.Tag{Key: sdkaws.String(k), Value: sdkaws.String(m[k])})
	}
	return out
}

// restrictedTag reports whether a NodeClass may not set the tag key (Karpenter's rule).
func restrictedTag(key string) bool {
	switch key {
	case TagClusterName, v1.NodePoolLabelKey, TagNodeClaim, LabelNodeClass:
		return true
	}
	return strings.HasPrefix(key, tagClusterPrefix)
}

func tagMap(tags []ec2types.Tag) map[string]string {
	m := make(map[string]string, len(tags))
	for _, t := range tags {
		m[sdkaws.ToString(t.Key)] = sdkaws.ToString(t.Value)
	}
	return m
}

// NotOwnedError means an instance does not carry this cluster's tags, so this package will
// not describe it as a NodeClaim, list it or terminate it.
type NotOwnedError struct {
	InstanceID string
	Cluster    string
}

func (e *NotOwnedError) Error() string {
	return fmt.Sprintf("instance %s is not tagged for cluster %q (%s=owned, %s, %s): refusing to touch it", e.InstanceID, e.Cluster, clusterTag(e.Cluster), TagClusterName, v1.NodePoolLabelKey)
}

// owned reports whether inst is an instance this package launched for cluster: tagged
// kubernetes.io/cluster/<cluster>=owned, eks:eks-cluster-name=<cluster> and with a NodePool.
func owned(inst ec2types.Instance, cluster string) bool {
	tags := tagMap(inst.Tags)
	_, hasPool := tags[v1.NodePoolLabelKey]
	return cluster != "" && tags[clusterTag(cluster)] == "owned" && tags[TagClusterName] == cluster && hasPool
}

// ParseProviderID splits aws:///<zone>/<instance-id> into zone and instance ID.
func ParseProviderID(providerID string) (zone, instanceID string, err error) {
	rest, ok := strings.CutPrefix(providerID, "aws:///")
	zone, id, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || zone == "" || !strings.HasPrefix(id, "i-") || strings.Contains(id, "/") {
		return "", "", fmt.Errorf("provider ID %q is not aws:///<zone>/<instance-id>", providerID)
	}
	return zone, id, nil
}

// ProviderID is aws:///<zone>/<instance-id>.
func ProviderID(zone, instanceID string) string { return "aws:///" + zone + "/" + instanceID }
