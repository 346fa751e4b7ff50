package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const spotNode = "testdata/spot-node.yaml"

// spotPricesJSON is what `aws ec2 describe-spot-price-history --instance-types m5.large` prints.
const spotPricesJSON = `{
    "SpotPriceHistory": [
        {"AvailabilityZone": "us-east-1b", "InstanceType": "m5.large", "ProductDescription": "Linux/UNIX",
         "SpotPrice": "0.035000", "Timestamp": "2026-11-30T18:00:00+00:00"},
        {"AvailabilityZone": "us-east-1a", "InstanceType": "m5.large", "ProductDescription": "Linux/UNIX",
         "SpotPrice": "0.041000", "Timestamp": "2026-11-30T18:00:00+00:00"},
        {"AvailabilityZone": "us-east-1b", "InstanceType": "m5.large", "ProductDescription": "Linux/UNIX",
         "SpotPrice": "0.020000", "Timestamp": "2026-11-29T18:00:00+00:00"},
        {"AvailabilityZone": "us-east-1a", "InstanceType": "zz9.huge", "ProductDescription": "Linux/UNIX",
         "SpotPrice": "0.010000", "Timestamp": "2026-11-30T18:00:00+00:00"}
    ]
}`

// TestPlanSpotEstimated: without --prices a NodePool allowing both capacity types launches
// spot (Karpenter prefers spot at the same price), priced at on-demand and marked estimated.
func TestPlanSpotEstimated(t *testing.T) {
	got := planJSON(t, "-f", spotNode)
	require.Len(t, got.NodeClaims, 1, "the spot-only pod is schedulable")
	c := got.NodeClaims[0]
	assert.Equal(t, []string{"default/spot-only"}, c.Pods)
	assert.Equal(t, "m5.large", c.InstanceType)
	assert.Equal(t, "spot", c.CapacityType)
	assert.Equal(t, 0.096, c.PricePerHour, "spot estimated at the on-demand price")
	assert.True(t, c.PriceEstimated)
	assert.True(t, got.PriceEstimated)

	out, _, code := nodeplan(t, "plan", "-f", spotNode)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "0.0960*")
	assert.Contains(t, out, estimateNote)
}

// TestPlanBothCapacityTypesPreferSpot: with the same price for both, the launch choice is spot,
// whatever the zone order.
func TestPlanBothCapacityTypesPreferSpot(t *testing.T) {
	in := writeInput(t, "in.yaml", `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: both}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand, spot]}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1", memory: 1Gi}}}]
`)
	got := planJSON(t, "-f", in)
	require.Len(t, got.NodeClaims, 1)
	assert.Equal(t, "spot", got.NodeClaims[0].CapacityType)
	assert.True(t, got.NodeClaims[0].PriceEstimated)
}

// TestPlanOnDemandNotEstimated: on-demand prices are real, so nothing is marked.
func TestPlanOnDemandNotEstimated(t *testing.T) {
	out, _, code := nodeplan(t, "plan", "-f", "../../examples", "-o", "json")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "priceEstimated")
}

func TestPlanPricesFile(t *testing.T) {
	prices := writeInput(t, "spot.json", spotPricesJSON)
	out, stderr, code := nodeplan(t, "plan", "-f", spotNode, "--prices", prices, "-o", "json")
	require.Equal(t, 0, code, stderr)
	var got planOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got.NodeClaims, 1)
	c := got.NodeClaims[0]
	// The latest price per zone: 1b at 0.035 beats 1a at 0.041 (1b's older 0.020 is stale);
	// 1c has no price, so no spot offering there.
	assert.Equal(t, "m5.large", c.InstanceType)
	assert.Equal(t, "us-east-1b", c.Zone)
	assert.Equal(t, "spot", c.CapacityType)
	assert.Equal(t, 0.035, c.PricePerHour)
	assert.False(t, c.PriceEstimated)
	assert.False(t, got.PriceEstimated)
	assert.Contains(t, stderr, "warning: --prices "+prices+": 1 instance types are not in the embedded catalog and were ignored: zz9.huge")
}

func TestPricesErrors(t *testing.T) {
	bad := writeInput(t, "bad.json", `{"SpotPriceHistory": [`)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"bad JSON names the file", []string{"--prices", bad}, bad + ": not the JSON of `aws ec2 describe-spot-price-history`"},
		{"missing file", []string{"--prices", "nowhere.json"}, "nowhere.json: no such file"},
		{"with --instance-types", []string{"--prices", bad, "--instance-types", filepath.Join(scenarios, "instance-types.yaml")}, "spot prices apply to the embedded EC2 catalog"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := nodeplan(t, append([]string{"plan", "-f", spotNode}, c.args...)...)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, c.want)
		})
	}
}

// TestPricesOutOfBounds: --prices refuses what the catalog file refuses (a price above 1e9,
// which printed "json: unsupported value: +Inf" for -o json; a hex float) and a zero spot
// price, naming the file, the entry, the type, the zone and the field, with exit 1.
func TestPricesOutOfBounds(t *testing.T) {
	for name, price := range map[string]string{"1.79e308": "1.79e308", "zero": "0", "hex": "0x1p-3", "1e9 and a bit": "1000000000.5"} {
		t.Run(name, func(t *testing.T) {
			prices := writeInput(t, "spot.json", strings.Replace(spotPricesJSON, `"0.041000"`, `"`+price+`"`, 1))
			out, stderr, code := nodeplan(t, "plan", "-f", spotNode, "--prices", prices, "-o", "json")
			assert.Equal(t, 1, code)
			assert.Empty(t, out)
			assert.Contains(t, stderr, prices+": SpotPriceHistory[1] (m5.large in us-east-1a): SpotPrice: ")
		})
	}
}

// TestPricesInOtherZones: prices of zones the embedded catalog lacks are ignored with a
// warning naming them; when none is left for its zones, the warning says no spot offering
// remains (it said nothing, and every NodePool silently planned on-demand).
func TestPricesInOtherZones(t *testing.T) {
	prices := writeInput(t, "spot.json", strings.ReplaceAll(spotPricesJSON, "us-east-1", "eu-west-1"))
	out, stderr, code := nodeplan(t, "plan", "-f", spotNode, "--prices", prices, "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "warning: --prices "+prices+": 2 zones are not the embedded catalog's (us-east-1a, us-east-1b, us-east-1c) and were ignored: eu-west-1a, eu-west-1b; no price is left")
	var got planOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Empty(t, got.NodeClaims)
	require.Len(t, got.PodErrors, 1)
	assert.Equal(t, "OfferingUnavailable", got.PodErrors[0].Code, "the spot-only pod finds no spot offering")

	mixed := writeInput(t, "mixed.json", strings.Replace(spotPricesJSON, `"us-east-1a", "InstanceType": "zz9.huge"`, `"ap-south-1a", "InstanceType": "zz9.huge"`, 1))
	_, stderr, code = nodeplan(t, "plan", "-f", spotNode, "--prices", mixed, "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "1 zones are not the embedded catalog's (us-east-1a, us-east-1b, us-east-1c) and were ignored: ap-south-1a\n")
}

// TestDisruptRealSpotNode: a real cluster's spot node is offered by the embedded catalog, so it
// has not drifted (InstanceTypeNotFound) and is judged as spot (spot-to-spot is off by default).
// With the file's pending pod, the provisioner's in-flight NodeClaim for it is where the node's
// pod would go first, so consolidation is refused for that instead (as Karpenter does).
func TestDisruptRealSpotNode(t *testing.T) {
	data, err := os.ReadFile(spotNode)
	require.NoError(t, err)
	docs := strings.Split(string(data), "\n---\n")
	withoutPending := writeInput(t, "spot-node.yaml", strings.Join(docs[:len(docs)-1], "\n---\n"))
	for _, c := range []struct {
		file string
		want blockerOutput
	}{
		{withoutPending, blockerOutput{Code: "NoCheaperReplacement", Replacement: "SpotToSpotDisabled"}}, // spot-to-spot is off
		// it would go to the uninitialized claim
		{spotNode, blockerOutput{Code: "PodUnschedulable", Object: "default/app", Pod: "default/app", Node: "provisioned-1"}},
	} {
		out, stderr, code := nodeplan(t, "disrupt", "-f", c.file, "--now", "2026-01-01T02:00:00Z", "-o", "json")
		require.Equal(t, 0, code, stderr)
		var got struct {
			Commands []struct{ Method string } `json:"commands"`
			Blocked  []struct {
				Node, Reason string
				Blockers     []blockerOutput
			}
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		assert.Empty(t, got.Commands)
		require.Len(t, got.Blocked, 1)
		require.NotEmpty(t, got.Blocked[0].Blockers)
		assert.Equal(t, c.want, blockerData(got.Blocked[0].Blockers[0]), got.Blocked[0].Reason)
	}
}

func TestDisruptPricesNotEstimated(t *testing.T) {
	prices := writeInput(t, "spot.json", spotPricesJSON)
	out, stderr, code := nodeplan(t, "disrupt", "-f", spotNode, "--prices", prices, "--now", "2026-01-01T02:00:00Z", "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, out, "priceEstimated")
}

// TestDisruptSpotEstimated: a spot node's price, and so every saving, is an estimate without
// --prices; JSON and table say so.
func TestDisruptSpotEstimated(t *testing.T) {
	out, stderr, code := nodeplan(t, "disrupt", "-f", spotNode, "--now", "2026-01-01T02:00:00Z", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var got disruptOutput
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.True(t, got.PriceEstimated)
	require.Len(t, got.Provisioned, 1, "the spot-only pod")
	assert.True(t, got.Provisioned[0].PriceEstimated)

	table, _, code := nodeplan(t, "disrupt", "-f", spotNode, "--now", "2026-01-01T02:00:00Z")
	require.Equal(t, 0, code)
	assert.Contains(t, table, estimateNote)
}
