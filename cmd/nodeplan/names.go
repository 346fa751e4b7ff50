package main

import (
	"fmt"

	"github.com/nodeplan/nodeplan/disruption"
	"github.com/nodeplan/nodeplan/scheduling"
)

// One name per planned NodeClaim in every output (table, JSON name, YAML metadata.name,
// Events, HTML): a plan's claims are <nodepool>-<NNNN>; disrupt's are disruption's own
// names, provisioned-N and command-C-replacement-R, which its destinations, pod errors and
// drains use too.

// planClaimNames are the names of a plan's new NodeClaims, in order.
func planClaimNames(res *scheduling.Result) []string {
	names := make([]string, len(res.NewNodeClaims))
	for i, c := range res.NewNodeClaims {
		names[i] = fmt.Sprintf("%s-%04d", c.NodePool, i+1)
	}
	return names
}

// disruptClaimNames are the names of a disrupt result's provisioned NodeClaims, then of each
// command's replacements in command order.
func disruptClaimNames(res *disruption.Result) []string {
	var names []string
	for i := range res.Provisioned {
		names = append(names, disruption.ProvisionedName(i+1))
	}
	for i, c := range res.Commands {
		for j := range c.Replacements {
			names = append(names, disruption.ReplacementName(i+1, j+1))
		}
	}
	return names
}
