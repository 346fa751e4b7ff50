package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFiles writes n files, file i holding doc(i), and returns their folder.
func writeFiles(t *testing.T, n int, doc func(i int) string) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.yaml", i)), []byte(doc(i)), 0o644))
	}
	return dir
}

func onePod(i int) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec: {containers: [{name: c, image: x}]}\n", i)
}

func oneDeployment(i int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: d%d}
spec:
  replicas: 2
  selector: {matchLabels: {app: d%d}}
  template:
    metadata: {labels: {app: d%d}}
    spec: {containers: [{name: c, image: x}]}
`, i, i, i)
}

// TestLoadIsLinearInFiles: loading 4x the files allocates about 4x the bytes (file
// by file merging re-expanded every workload per file: 5,000 one-Deployment files did not
// load in ten minutes).
func TestLoadIsLinearInFiles(t *testing.T) {
	for name, doc := range map[string]func(int) string{"pods": onePod, "deployments": oneDeployment} {
		t.Run(name, func(t *testing.T) {
			small, large := writeFiles(t, 150, doc), writeFiles(t, 600, doc)
			allocated := func(dir string) float64 {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				_, err := Load(dir)
				require.NoError(t, err)
				runtime.ReadMemStats(&after)
				return float64(after.TotalAlloc - before.TotalAlloc)
			}
			a, b := allocated(small), allocated(large)
			t.Logf("150 files: %.0f bytes allocated, 600 files: %.0f", a, b)
			assert.Less(t, b/a, 6.0, "4x the files cost %.1fx the bytes allocated", b/a)
		})
	}
}

// TestLoadOfManyFilesEqualsOneFile: the files' objects in one file load the same.
func TestLoadOfManyFilesEqualsOneFile(t *testing.T) {
	dir := writeFiles(t, 40, func(i int) string {
		if i%2 == 0 {
			return onePod(i)
		}
		return oneDeployment(i)
	})
	var all string
	for i := range 40 {
		if i%2 == 0 {
			all += onePod(i) + "---\n"
		} else {
			all += oneDeployment(i) + "---\n"
		}
	}
	many, err := Load(dir)
	require.NoError(t, err)
	one, err := Parse([]byte(all), "all.yaml")
	require.NoError(t, err)
	assert.Equal(t, podNames(one.Pods), podNames(many.Pods))
	assert.Len(t, many.Pods, 20+2*20)
}
