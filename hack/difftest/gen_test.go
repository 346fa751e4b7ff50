package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/nodeplan/nodeplan/aws/catalog"
	"github.com/nodeplan/nodeplan/manifest"
)

func TestGenerationIsDeterministicPerSeed(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		for _, kind := range []string{"plan", "disrupt"} {
			a, err := json.Marshal(generate(kind, seed))
			require.NoError(t, err)
			b, _ := json.Marshal(generate(kind, seed))
			assert.Equal(t, string(a), string(b), "%s seed %d", kind, seed)
		}
	}
	a, _ := json.Marshal(genPlan(1))
	b, _ := json.Marshal(genPlan(2))
	assert.NotEqual(t, string(a), string(b), "seeds differ")
}

// Every generated input reads cleanly, has pods to plan or nodes to disrupt, and its pods are
// admissible.
func TestGeneratedInputsLoad(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		for _, kind := range []string{"plan", "disrupt"} {
			in := generate(kind, seed)
			dir := filepath.Join(t.TempDir(), fmt.Sprint(seed))
			require.NoError(t, in.write(dir))
			set, err := manifest.Load(filepath.Join(dir, "input.yaml"))
			require.NoError(t, err, "%s seed %d", kind, seed)
			_, _, err = catalog.ParseFile(filepath.Join(dir, "instance-types.yaml"))
			require.NoError(t, err, "%s seed %d", kind, seed)
			assert.NotEmpty(t, set.NodePools)
			if kind == "plan" {
				assert.NotEmpty(t, set.Pods, "seed %d has pods", seed)
			} else {
				assert.NotEmpty(t, set.Nodes, "seed %d has nodes", seed)
			}
			checkAdmissible(t, kind, seed, set)
		}
	}
}

// nodeplan's CLI accepts every generated input (exit 0) and accounts for every pod.
func TestNodeplanAcceptsGeneratedInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	bin := filepath.Join(t.TempDir(), "nodeplan")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/nodeplan")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	for seed := uint64(1); seed <= 15; seed++ {
		for _, kind := range []string{"plan", "disrupt"} {
			in := generate(kind, seed)
			dir := filepath.Join(t.TempDir(), fmt.Sprint(seed))
			require.NoError(t, in.write(dir))
			res := run(bin, in.args(dir), time.Minute)
			require.Equal(t, 0, res.Exit, "%s seed %d: %s", kind, seed, res.Stderr)
			if kind == "plan" {
				w, err := loadWorld(dir)
				require.NoError(t, err)
				o, err := parsePlan(res.Stdout)
				require.NoError(t, err)
				for _, v := range w.validatePlan(o) {
					assert.NotEqual(t, "accounting", v.Kind, "seed %d: %s", seed, v)
				}
			}
		}
	}
}

func TestDeletePathDropsKeysAndListEntries(t *testing.T) {
	doc := map[string]any{"spec": map[string]any{"a": 1, "list": []any{map[string]any{"x": 1}, map[string]any{"y": 2}}}}
	require.True(t, deletePath(doc, []any{"spec", "a"}))
	require.True(t, deletePath(doc, []any{"spec", "list", 0}))
	assert.Equal(t, map[string]any{"spec": map[string]any{"list": []any{map[string]any{"y": 2}}}}, doc)
	assert.False(t, deletePath(doc, []any{"spec", "list", 0}), "a list keeps its last entry")
	assert.False(t, deletePath(doc, []any{"spec", "missing"}))
}

// Every shape the generators know is drawn by some seed (none is dead code), counted over the
// first 300 seeds of each kind.
func TestEveryShapeIsGenerated(t *testing.T) {
	want := map[string][]string{
		"plan": {"catalog-reserved", "pool-reserved", "nodeSelector-reserved", "catalog-zone-price-skew", "pool-taint-NoExecute",
			"pool-weight-tie", "tolerations-NoExecute", "tolerations-NoExecute-seconds", "tolerations-wrong-effect", "tolerations-any-effect",
			"podAffinity-required-ct", "podAntiAffinity-required-ct", "podAffinity-preferred-team", "podAntiAffinity-required-team",
			"hostPort-udp", "hostPort-hostIP", "daemonset-selects-pool", "daemonset-avoids-pool", "selector-expressions",
			"spread-selects-others", "nodeSelector-unoffered-zone",
			"profile-zone-spread", "profile-anti-zone", "profile-minvalues", "profile-host-limits", "profile-self-affinity"},
		"disrupt": {"pool-taint-NoExecute", "pool-weight-tie", "mirror-pod", "mirror-pod-annotation-only",
			"pod-terminal", "pod-terminating-ReplicaSet", "pod-terminating-StatefulSet", "bound-zonal-volume", "bound-hostPort",
			"bound-affinity-zone", "daemonset-pod-do-not-disrupt", "pdb-overlapping"},
	}
	for kind, feats := range want {
		seen := map[string]bool{}
		for seed := uint64(1); seed <= 300; seed++ {
			for _, f := range generate(kind, seed).Features {
				seen[f] = true
			}
		}
		for _, f := range feats {
			assert.True(t, seen[f], "%s: no seed in 1..300 has %s", kind, f)
		}
	}
}

// checkAdmissible: the API server refuses a pod with two spread constraints of the same key and
// mode, and a pod on a node with a NoExecute taint it does not tolerate would have been evicted;
// neither is generated.
func checkAdmissible(t *testing.T, kind string, seed uint64, set *manifest.Set) {
	noExecute := map[string]bool{}
	for _, n := range set.Nodes {
		for _, tt := range n.Spec.Taints {
			if tt.Effect == corev1.TaintEffectNoExecute {
				noExecute[n.Name] = true
			}
		}
	}
	for _, p := range set.Pods {
		seen := map[string]bool{}
		for _, c := range p.Spec.TopologySpreadConstraints {
			k := c.TopologyKey + "/" + string(c.WhenUnsatisfiable)
			assert.False(t, seen[k], "%s seed %d: pod %s has two %s spreads", kind, seed, p.Name, k)
			seen[k] = true
		}
		if noExecute[p.Spec.NodeName] && !isDaemonPod(p) {
			ok := false
			for _, tol := range p.Spec.Tolerations {
				ok = ok || tol.Key == "dedicated" && (tol.Effect == "" || tol.Effect == corev1.TaintEffectNoExecute) || tol.Key == "" && tol.Operator == corev1.TolerationOpExists
			}
			assert.True(t, ok, "%s seed %d: pod %s on a NoExecute node does not tolerate it", kind, seed, p.Name)
		}
	}
}

func isDaemonPod(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}
