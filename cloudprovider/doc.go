// Package cloudprovider is the contract between nodeplan and a cloud: the [CloudProvider]
// interface a host program implements (or takes from package aws), the [InstanceType] and
// [Offering] values the scheduler reads, list helpers over them, typed errors, and the two
// calls a host program's loop makes to its cloud: [InstanceTypesFor] (what each NodePool may
// launch now) and [Launch] (create the planned NodeClaims, aligned with the plan).
package cloudprovider
