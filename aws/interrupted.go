package aws

import (
	"context"
	"fmt"

	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
	"github.com/nodeplan/nodeplan/aws/interruption"
)

// Interrupted resolves an interruption event to the NodeClaims of this cluster's live
// instances it names (others, and instances not tagged for the cluster, are skipped), in
// launch order. For a spot interruption warning it also marks each instance's (type, zone,
// spot) offering unavailable, as Karpenter does; what to do with the claims (ev.Action()) is
// the caller's decision.
func (p *Provider) Interrupted(ctx context.Context, ev interruption.Event) ([]*v1.NodeClaim, error) {
	if len(ev.InstanceIDs) == 0 {
		return nil, nil
	}
	in := &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{
		{Name: sdkaws.String("instance-id"), Values: ev.InstanceIDs}, stateFilter(),
	}}
	insts, err := p.describeOwned(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("describing the instances of interruption %s: %w", ev.ID, err)
	}
	sortInstances(insts)
	types := typeCache{}
	var out []*v1.NodeClaim
	for _, inst := range insts {
		nc := p.nodeClaimOf(ctx, inst, types)
		if ev.Kind == interruption.SpotInterrupted {
			p.unavailable.MarkUnavailable(v1.CapacityTypeSpot, nc.Labels[v1.LabelInstanceType], nc.Labels[v1.LabelTopologyZone])
		}
		out = append(out, nc)
	}
	return out, nil
}
