package cloudprovider

import (
	"context"
	"errors"
	"fmt"

	v1 "github.com/nodeplan/nodeplan/apis/v1"
)

// What a host program's loop asks its CloudProvider each round, in one call each: what may
// each NodePool launch now, launch these claims, terminate those. The engines never call
// them (they only read InstanceTypes); a host does, around Solve and Plan.

// InstanceTypesFor asks cp for the instance types of each NodePool (GetInstanceTypes, as the
// cloud offers them now: offerings found out of capacity unavailable), keyed by NodePool
// name: what cluster.New and Snapshot.WithInstanceTypes take. A nil NodePool is skipped; the
// first failure is an error naming the NodePool, wrapping the provider's.
func InstanceTypesFor(ctx context.Context, cp CloudProvider, pools []*v1.NodePool) (map[string]InstanceTypes, error) {
	out := make(map[string]InstanceTypes, len(pools))
	for _, np := range pools {
		if np == nil {
			continue
		}
		its, err := cp.GetInstanceTypes(ctx, np)
		if err != nil {
			return nil, fmt.Errorf("cloudprovider: instance types of NodePool %q: %w", np.Name, err)
		}
		out[np.Name] = its
	}
	return out, nil
}

// Launch creates each NodeClaim with cp, in order (scheduling.NodeClaimsFor makes them of a
// Solve result's NewNodeClaims or a disruption command's Replacements). launched[i] is what
// Create returned for claims[i], or nil when the cloud refused it with an
// InsufficientCapacityError: aligned so, it is what scheduling.Apply and disruption.Apply
// take, which leave a refused claim's pods pending for the next Solve (the provider has
// marked the offerings it tried unavailable, so InstanceTypesFor then tells the next Solve).
// Any other error stops the launches: it names the NodeClaim and wraps the provider's, and
// launched still holds the claims created before it (nil from there on), so that the caller
// can apply or delete them.
func Launch(ctx context.Context, cp CloudProvider, claims []*v1.NodeClaim) (launched []*v1.NodeClaim, err error) {
	launched = make([]*v1.NodeClaim, len(claims))
	for i := range claims {
		if err := create(ctx, cp, claims, i, launched); err != nil && !IsInsufficientCapacityError(err) {
			return launched, err
		}
	}
	return launched, nil
}

// LaunchAll launches every claim or none: a disruption command's replacements, which must
// all run before its candidates go. When the cloud refuses one with an
// InsufficientCapacityError, the claims created before it are terminated again (the rest
// are not tried) and the refusal is the error, naming the NodeClaim (IsInsufficientCapacityError
// holds): the host abandons the command, as Karpenter does, and the next Plan sees the
// offerings the cloud found out of capacity unavailable. Another error is as Launch's; a
// failure to terminate is joined to it.
func LaunchAll(ctx context.Context, cp CloudProvider, claims []*v1.NodeClaim) ([]*v1.NodeClaim, error) {
	launched := make([]*v1.NodeClaim, len(claims))
	for i := range claims {
		err := create(ctx, cp, claims, i, launched)
		if err == nil {
			continue
		}
		if !IsInsufficientCapacityError(err) {
			return launched, err
		}
		if terr := Terminate(ctx, cp, launched); terr != nil {
			return launched, errors.Join(err, terr)
		}
		return nil, err
	}
	return launched, nil
}

// create launches claims[i] into launched[i]; a refusal or failure is an error naming the
// NodeClaim and wrapping the provider's.
func create(ctx context.Context, cp CloudProvider, claims []*v1.NodeClaim, i int, launched []*v1.NodeClaim) error {
	nc := claims[i]
	if nc == nil {
		return fmt.Errorf("cloudprovider: claim %d of %d is nil", i, len(claims))
	}
	out, err := cp.Create(ctx, nc)
	switch {
	case err != nil:
		return fmt.Errorf("cloudprovider: creating NodeClaim %q of NodePool %q: %w", nc.Name, nc.Labels[v1.NodePoolLabelKey], err)
	case out == nil:
		return fmt.Errorf("cloudprovider: creating NodeClaim %q of NodePool %q: the provider returned no NodeClaim and no error", nc.Name, nc.Labels[v1.NodePoolLabelKey])
	}
	launched[i] = out
	return nil
}

// Terminate deletes the machine of each claim with cp, in order: a disruption command's
// candidates once their pods have moved (cluster.Snapshot.NodeClaimsOf finds them; a host
// with a real cluster drains them first, as the Result's Drains say), or claims a host
// gives up. A nil claim (a refused launch of Launch's answer) is skipped, and a
// NodeClaimNotFoundError counts as done (the machine is gone already). Any other error stops:
// it names the NodeClaim and wraps the provider's.
func Terminate(ctx context.Context, cp CloudProvider, claims []*v1.NodeClaim) error {
	for _, nc := range claims {
		if nc == nil {
			continue
		}
		if err := IgnoreNodeClaimNotFoundError(cp.Delete(ctx, nc)); err != nil {
			return fmt.Errorf("cloudprovider: deleting NodeClaim %q (%s): %w", nc.Name, nc.Status.ProviderID, err)
		}
	}
	return nil
}
