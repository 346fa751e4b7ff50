package v1

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/nodeplan/nodeplan/internal/fuzzbudget"
)

// nodePoolSeeds are the NodePool documents of testdata plus a few hand-written edge cases.
func nodePoolSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, name := range []string{"general-purpose.yaml", "team-taints-nodepools.yaml", "teams-v1beta1.yaml"} {
		for _, d := range readDocuments(t, name) {
			if d.Kind == KindNodePool {
				seeds = append(seeds, d.Raw)
			}
		}
	}
	return append(seeds,
		[]byte("spec:\n  disruption:\n    budgets:\n    - nodes: 0\n      schedule: '0 9 * * *'\n      duration: 8h\n    - nodes: 50%\n      reasons: [Drifted]\n"),
		[]byte("spec:\n  replicas: -3\n  weight: 0\n  limits: {cpu: '1', nodes: '2'}\n  template:\n    spec:\n      expireAfter: Never\n      requirements:\n      - {key: a, operator: Gt, values: ['x'], minValues: 0}\n"),
		[]byte("spec:\n  disruption:\n    consolidateAfter: null\n    budgets: []\n  template:\n    metadata:\n      labels: {karpenter.sh/nodepool: x}\n"),
		[]byte("spec: {template: {spec: {nodeClassRef: null, terminationGracePeriod: -1s}}}"),
		[]byte("{}"),
	)
}

// checkDecodeNodePool runs data through strict decoding, SetDefaults, Validate, DeepCopy,
// the budget helpers and a JSON round-trip: none may panic, a deep copy must equal its
// original, and what was encoded must decode again.
func checkDecodeNodePool(t *testing.T, data []byte) {
	var np NodePool
	if err := yaml.UnmarshalStrict(data, &np); err != nil {
		return
	}
	_ = np.Validate()
	np.SetDefaults()
	_ = np.Validate()
	if c := np.DeepCopy(); !reflect.DeepEqual(&np, c) {
		t.Fatalf("deep copy differs from the original")
	}
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for _, r := range []DisruptionReason{DisruptionReasonEmpty, DisruptionReasonDrifted, DisruptionReasonUnderutilized} {
		if n, _ := np.AllowedDisruptions(now, 10, r); n < 0 {
			t.Fatalf("negative allowed disruptions %d", n)
		}
	}
	b, err := json.Marshal(&np)
	if err != nil {
		t.Fatalf("encoding a decoded NodePool: %v", err)
	}
	var back NodePool
	if err := yaml.UnmarshalStrict(b, &back); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// FuzzDecodeNodePool: arbitrary YAML → UnmarshalStrict → SetDefaults → Validate → DeepCopy
// must never panic (see checkDecodeNodePool).
func FuzzDecodeNodePool(f *testing.F) {
	for _, s := range nodePoolSeeds(f) {
		f.Add(s)
	}
	fuzzbudget.ShortMinimization(f)
	f.Fuzz(checkDecodeNodePool)
}

// TestDecodeMutatedNodePools is a deterministic stand-in for fuzzing in plain `go test`:
// random byte edits of the seeds go through checkDecodeNodePool.
func TestDecodeMutatedNodePools(t *testing.T) {
	seeds := nodePoolSeeds(t)
	rng := rand.New(rand.NewSource(1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		s := append([]byte(nil), seeds[rng.Intn(len(seeds))]...)
		for k := 0; k < 1+rng.Intn(4) && len(s) > 0; k++ {
			p := rng.Intn(len(s))
			switch rng.Intn(3) {
			case 0:
				s[p] = byte(rng.Intn(256))
			case 1:
				s = append(s[:p], s[p+1:]...)
			default:
				s = append(s[:p], append([]byte{byte(32 + rng.Intn(95))}, s[p:]...)...)
			}
		}
		checkDecodeNodePool(t, s)
	}
}
