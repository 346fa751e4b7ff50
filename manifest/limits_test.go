package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// limitOf is the *LimitError of err (failing the test without one).
func limitOf(t *testing.T, err error) *LimitError {
	t.Helper()
	var le *LimitError
	require.ErrorAs(t, err, &le)
	assert.True(t, errors.Is(err, ErrTooLarge))
	return le
}

func TestLoadCapsFileSize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("# padding\n", 100)+onePod(1)), 0o644))
	_, err := LoadLimited(Limits{MaxInputBytes: 500}, path)
	assert.Equal(t, LimitError{Limit: LimitInputBytes, Max: 500}, *limitOf(t, err))
	assert.Equal(t, path+": brings the input over 500 bytes, the most nodeplan reads from all files and standard input together", err.Error())

	set, err := LoadLimited(Limits{MaxInputBytes: 10000}, path)
	require.NoError(t, err)
	assert.Len(t, set.Pods, 1)
	assert.Equal(t, int64(len(strings.Repeat("# padding\n", 100)+onePod(1))), set.InputBytes)
}

// TestLoadCapsTotalBytes: MaxInputBytes caps every file together, not each: files each
// under it stop the reading once they add up to more, naming the file that crossed it.
func TestLoadCapsTotalBytes(t *testing.T) {
	dir := writeFiles(t, 4, onePod)
	size := int64(len(onePod(0)))
	set, err := LoadLimited(Limits{MaxInputBytes: 4 * size}, dir)
	require.NoError(t, err)
	assert.Equal(t, 4*size, set.InputBytes)

	_, err = LoadLimited(Limits{MaxInputBytes: 3*size + size/2}, dir)
	assert.Equal(t, LimitError{Limit: LimitInputBytes, Max: 3*size + size/2}, *limitOf(t, err))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, filepath.Join(dir, "f00003.yaml"), e.Source.File, "each file is under the cap; the fourth brings them over")
}

func TestLoadCapsEndlessFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := LoadLimited(Limits{MaxInputBytes: 1 << 20}, "/dev/zero")
	assert.Equal(t, LimitError{Limit: LimitInputBytes, Max: 1 << 20}, *limitOf(t, err))
	assert.Contains(t, err.Error(), "/dev/zero: brings the input over 1 MiB")
}

// TestLoadCapsPods: past MaxPods Pod objects (in one file or over many) reading stops with
// an error naming the object and the limit.
func TestLoadCapsPods(t *testing.T) {
	dir := writeFiles(t, 5, onePod)
	_, err := LoadLimited(Limits{MaxPods: 3}, dir)
	assert.Equal(t, LimitError{Limit: LimitPods, Max: 3, Kind: "Pod"}, *limitOf(t, err))
	assert.Equal(t, filepath.Join(dir, "f00003.yaml")+`: document 1 (line 1): Pod "default/p3": more than 3 Pod objects, the most nodeplan reads`, err.Error())

	var all strings.Builder
	for i := range 5 {
		all.WriteString(onePod(i) + "---\n")
	}
	path := filepath.Join(t.TempDir(), "all.yaml")
	require.NoError(t, os.WriteFile(path, []byte(all.String()), 0o644))
	_, err = LoadLimited(Limits{MaxPods: 4}, path)
	assert.True(t, errors.Is(err, ErrTooLarge), "%v", err)

	set, err := LoadLimited(Limits{MaxPods: 5}, dir)
	require.NoError(t, err)
	assert.Len(t, set.Pods, 5)
}

func TestLoadCapsExpansion(t *testing.T) {
	dir := writeFiles(t, 3, oneDeployment) // 2 replicas each
	_, err := LoadLimited(Limits{MaxPods: 5}, dir)
	assert.Equal(t, LimitError{Limit: LimitPods, Max: 5, Kind: expandedPods}, *limitOf(t, err))
	assert.Contains(t, err.Error(), "the workloads expand into more than 5 pods")
}

// TestLoadCapsEveryKind: every kind nodeplan keeps is capped by MaxObjects, kind by kind
// (only Pods were, so a million Nodes or interruption messages were all kept): one object
// more than the cap is a LimitError naming the kind, and reading stops there.
func TestLoadCapsEveryKind(t *testing.T) {
	const max = 3
	spot := func(i int) string {
		return fmt.Sprintf(`{"version":"0","id":"m%d","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2","time":"2026-01-01T00:58:00Z","detail":{"instance-id":"i-0a%d","instance-action":"terminate"}}`, i, i)
	}
	docs := func(n int, doc func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(doc(i) + "\n---\n")
		}
		return b.String()
	}
	jsonArray := func(n int, doc func(i int) string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = doc(i)
		}
		return "[" + strings.Join(items, ",\n") + "]"
	}
	for _, c := range []struct {
		kind string
		data func(n int) string
	}{
		{"Node", func(n int) string {
			return docs(n, func(i int) string { return fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: n%d}\n", i) })
		}},
		{"NodeClaim", func(n int) string {
			return docs(n, func(i int) string {
				return fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodeClaim\nmetadata: {name: c%d}\nspec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, requirements: []}\n", i)
			})
		}},
		{"NodePool", func(n int) string {
			return docs(n, func(i int) string {
				return fmt.Sprintf("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: p%d}\nspec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}, requirements: []}}}\n", i)
			})
		}},
		{"Deployment", func(n int) string { return docs(n, oneDeployment) }},
		{"PersistentVolumeClaim", func(n int) string {
			return docs(n, func(i int) string {
				return fmt.Sprintf("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c%d}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n", i)
			})
		}},
		{"Lease", func(n int) string {
			var b strings.Builder
			b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
			for i := range n {
				fmt.Fprintf(&b, "- {apiVersion: coordination.k8s.io/v1, kind: Lease, metadata: {name: l%d, namespace: kube-node-lease}}\n", i)
			}
			return b.String()
		}},
		{InterruptionKind, func(n int) string { return jsonArray(n, spot) }},
		{InterruptionKind, func(n int) string { return docs(n, spot) }},
		{InterruptionKind, func(n int) string {
			return "apiVersion: nodeplan/v1alpha1\nkind: InterruptionMessages\nmessages:\n" + strings.ReplaceAll(docs(n, func(i int) string { return "- " + spot(i) }), "\n---\n", "\n")
		}},
		{InterruptionKind, func(n int) string {
			bodies := make([]string, n)
			for i := range bodies {
				bodies[i] = fmt.Sprintf(`{"Body": %q}`, spot(i))
			}
			return `{"Messages": [` + strings.Join(bodies, ",") + `]}`
		}},
	} {
		t.Run(c.kind, func(t *testing.T) {
			set, err := Parse([]byte(c.data(max)), "in.yaml")
			require.NoError(t, err)
			_, err = parseLimited(Limits{MaxObjects: max}, []byte(c.data(max)))
			require.NoError(t, err, "as many as the cap")
			_, err = parseLimited(Limits{MaxObjects: max}, []byte(c.data(max+1)))
			assert.Equal(t, LimitError{Limit: LimitObjects, Max: max, Kind: c.kind}, *limitOf(t, err))
			assert.NotNil(t, set)
		})
	}
	// Kinds are capped each on its own, and apart from Pods.
	mixed := "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n---\n" + onePod(1) + "---\n" + onePod(2) + "---\n" + oneDeployment(1)
	_, err := parseLimited(Limits{MaxObjects: 2, MaxPods: 2}, []byte(mixed))
	require.NoError(t, err)
}

// parseLimited is Parse within limits.
func parseLimited(limits Limits, data []byte) (*Set, error) {
	p := newParser(limits)
	p.read(data, "in.yaml")
	return p.finish()
}

// TestReadingStopsAtTheCap: a JSON array of interruption messages is read message by message
// and reading stops at the cap, so what the reading allocates grows with the cap, not with the
// input (one top-level array was decoded whole, twice, before anything was counted: a million
// spot warnings took 5.6 GB).
func TestReadingStopsAtTheCap(t *testing.T) {
	spots := func(n int) []byte {
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"version":"0","id":"m%d","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2","time":"2026-01-01T00:58:00Z","detail":{"instance-id":"i-0a%d","instance-action":"terminate"}}`, i, i)
		}
		b.WriteString("]")
		return []byte(b.String())
	}
	allocated := func(limits Limits, data []byte) (uint64, error) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := parseLimited(limits, data)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, err
	}
	data := spots(20000)
	all, err := allocated(Limits{}, data)
	require.NoError(t, err)
	capped, err := allocated(Limits{MaxObjects: 200}, data)
	assert.Equal(t, LimitError{Limit: LimitObjects, Max: 200, Kind: InterruptionKind}, *limitOf(t, err))
	assert.Less(t, capped, all/10, "reading 201 of 20,000 messages allocated %d bytes, all of them %d", capped, all)
	t.Logf("201 of 20,000 messages: %d bytes allocated; all: %d", capped, all)
}
