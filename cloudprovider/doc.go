// Package cloudprovider is the contract between nodeplan and a cloud: the [CloudProvider]
// interface a host program implements (or takes from package aws), the [InstanceType] and
// [Offering] values the scheduler reads, list helpers over them, typed errors, and the calls
// a host program's loop makes to its cloud: [InstanceTypesFor] (what each NodePool may launch
// now), [Launch] (create the planned NodeClaims, aligned with the plan), [LaunchAll] (a
// disruption command's replacements, all or none) and [Terminate].
//
// It implements no cloud and decides no plan: scheduling and disruption only read its
// values and never call a CloudProvider; the host helpers call one only as they are told,
// in order, one call at a time, and start no goroutines.
package cloudprovider
