package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/drift-realistic is ../shared/cases/disrupt-drift-realistic (issue #15): a realistic
// dump (26 nodes, 322 pods, three NodePools, zonal EBS volumes, pending pods) at
// 2026-11-30T11:59:48Z, where ip-10-0-51-228 has expired and ip-10-0-54-136 (m5.2xlarge,
// us-east-1a) has drifted. Its karpenter-commands.json, recorded with the oracle
// (../shared/oracle/disrupt), replaces ip-10-0-54-136 and deletes ip-10-0-31-133. Both are
// artefacts of the oracle: Karpenter reads a bound claim's PersistentVolume with the pod's
// namespace (volumetopology.go, getPersistentVolumeRequirements), which a real API server
// ignores for a cluster-scoped object and the oracle's fake client does not, so Karpenter
// there finds no volume and drops the zone of every pod with a bound volume. Given the volumes
// (the oracle with that one lookup namespace-free), Karpenter answers exactly as below, in
// every run: search/search-indexer-0 (us-east-1a volume) would go to the arm64 NodeClaim the
// provisioner launched in us-east-1a, not initialized yet, so the drift waits; and the
// payments pods fill that NodeClaim first, as Karpenter names NodeClaims <nodepool>-<suffix>
// and tries uninitialized nodes by name, so ip-10-0-31-133's pods leave pending web pods
// needing a new node and it could only be replaced, spot by spot.
func TestDisruptDriftRealistic(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"input.yaml", "instance-types.json"} {
		gz, err := os.ReadFile(filepath.Join("testdata", "drift-realistic", f+".gz"))
		require.NoError(t, err)
		r, err := gzip.NewReader(bytes.NewReader(gz))
		require.NoError(t, err)
		data, err := io.ReadAll(r)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
	}
	out, stderr, code := nodeplan(t, "disrupt", "-f", filepath.Join(dir, "input.yaml"), "--instance-types", filepath.Join(dir, "instance-types.json"),
		"--now", "2026-11-30T11:59:48Z", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var got struct {
		Commands []struct {
			Method     string
			Candidates []string
		}
		Blocked []struct {
			Node     string
			Blockers []blockerOutput
		}
		Provisioned []struct {
			NodePool, InstanceType, Zone string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	var commands []string
	for _, c := range got.Commands {
		sort.Strings(c.Candidates)
		commands = append(commands, jsonText(c))
	}
	assert.Equal(t, []string{
		`{"Method":"expiration","Candidates":["ip-10-0-51-228.ec2.internal"]}`,
		`{"Method":"emptiness","Candidates":["ip-10-0-120-82.ec2.internal","ip-10-0-47-103.ec2.internal"]}`,
	}, commands)
	blockers := map[string]blockerOutput{}
	for _, b := range got.Blocked {
		require.NotEmpty(t, b.Blockers, b.Node)
		blockers[b.Node] = blockerData(b.Blockers[0])
	}
	require.Len(t, got.Provisioned, 4)
	assert.Equal(t, "arm64 c7g.4xlarge us-east-1a", got.Provisioned[3].NodePool+" "+got.Provisioned[3].InstanceType+" "+got.Provisioned[3].Zone)
	assert.Equal(t, blockerOutput{Code: "PodUnschedulable", Object: "search/search-indexer-0", Pod: "search/search-indexer-0", Node: "provisioned-4"},
		blockers["ip-10-0-54-136.ec2.internal"], "the drift waits for the arm64 node in the volume's zone")
	assert.Equal(t, blockerOutput{Code: "NoCheaperReplacement", Replacement: "SpotToSpotDisabled"}, blockers["ip-10-0-31-133.ec2.internal"])
	assert.Equal(t, blockerOutput{Code: "PodUnschedulable", Object: "data/kafka-0", Pod: "data/kafka-0", Node: "provisioned-4"}, blockers["ip-10-0-120-176.ec2.internal"])
}
