package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfileFlagsWriteProfiles: --cpuprofile and --memprofile on plan and disrupt write
// pprof files (gzipped protocol buffers naming their sample types) and leave the answer as
// it is; a profile file that cannot be created is an error before the run.
func TestProfileFlagsWriteProfiles(t *testing.T) {
	for _, command := range []string{"plan", "disrupt"} {
		t.Run(command, func(t *testing.T) {
			dir := t.TempDir()
			cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
			args := append([]string{command}, scenario("zone-spread")...)
			plain, stderr, code := nodeplan(t, append(args, "-o", "json")...)
			require.Equal(t, 0, code, stderr)
			profiled, stderr, code := nodeplan(t, append(args, "-o", "json", "--cpuprofile", cpu, "--memprofile", mem)...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, plain, profiled)
			assert.Contains(t, string(gunzip(t, cpu)), "cpu", "a CPU profile's sample types")
			heap := string(gunzip(t, mem))
			assert.Contains(t, heap, "alloc_space")
			assert.Contains(t, heap, "inuse_space")

			_, stderr, code = nodeplan(t, append(args, "--cpuprofile", filepath.Join(dir, "missing", "cpu.pprof"))...)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "--cpuprofile")
			_, stderr, code = nodeplan(t, append(args, "--memprofile", filepath.Join(dir, "missing", "mem.pprof"))...)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "--memprofile")
		})
	}
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	r, err := gzip.NewReader(bytes.NewReader(data))
	require.NoError(t, err, "%s is not gzipped", path)
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.NotEmpty(t, out)
	return out
}
