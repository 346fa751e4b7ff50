package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadCapsFileSize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("# padding\n", 100)+onePod(1)), 0o644))
	_, err := LoadLimited(Limits{MaxFileBytes: 500}, path)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrTooLarge))
	assert.Equal(t, path+": holds more than 500 bytes, the most nodeplan reads from one input", err.Error())

	set, err := LoadLimited(Limits{MaxFileBytes: 10000}, path)
	require.NoError(t, err)
	assert.Len(t, set.Pods, 1)
}

func TestLoadCapsEndlessFile(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := LoadLimited(Limits{MaxFileBytes: 1 << 20}, "/dev/zero")
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrTooLarge))
	assert.Contains(t, err.Error(), "/dev/zero: holds more than 1 MiB")
}

// TestLoadCapsPods: past MaxPods Pod objects (in one file or over many) reading stops with
// an error naming the object and the limit.
func TestLoadCapsPods(t *testing.T) {
	dir := writeFiles(t, 5, onePod)
	_, err := LoadLimited(Limits{MaxPods: 3}, dir)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrTooLarge))
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
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrTooLarge))
	assert.Contains(t, err.Error(), "the workloads expand into more than 5 pods")
}
