// Package cloudprovider is the contract between nodeplan and a cloud: the [CloudProvider]
// interface a host program implements (or takes from package aws), the [InstanceType] and
// [Offering] values the scheduler reads, list helpers over them, and typed errors.
package cloudprovider
