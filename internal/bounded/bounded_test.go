//go:build unix

package bounded

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCapsEndlessInput(t *testing.T) {
	f, err := os.Open("/dev/zero")
	require.NoError(t, err)
	defer f.Close()
	_, err = Read(f, 1<<20)
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, "holds more than 1 MiB, the most nodeplan reads from one input", err.Error())

	_, err = ReadFile("/dev/zero", 1000, time.Second)
	require.ErrorAs(t, err, &tl)
	assert.Contains(t, err.Error(), "1000 bytes")
}

func TestReadAtTheLimit(t *testing.T) {
	data, err := Read(strings.NewReader("abc"), 3)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(data))
	_, err = Read(strings.NewReader("abcd"), 3)
	assert.Error(t, err)
}

func TestReadFileOfAFolder(t *testing.T) {
	_, err := ReadFile(t.TempDir(), 1000, time.Second)
	assert.EqualError(t, err, "is a folder, not a file")
}

func TestNamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(path, 0o600))

	start := time.Now()
	_, err := ReadFile(path, 1000, 100*time.Millisecond)
	var nw *NoWriterError
	require.ErrorAs(t, err, &nw, "a pipe nobody writes to is an error, not a hang")
	assert.Less(t, time.Since(start), 5*time.Second)

	// A writer that comes a little later is read to its end.
	done := make(chan error, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		_, err = w.WriteString("hello, pipe")
		done <- errors.Join(err, w.Close())
	}()
	data, err := ReadFile(path, 1000, 5*time.Second)
	require.NoError(t, err)
	require.NoError(t, <-done)
	assert.Equal(t, "hello, pipe", string(data))
}

func TestSize(t *testing.T) {
	assert.Equal(t, "512 MiB", Size(512<<20))
	assert.Equal(t, "1 GiB", Size(1<<30))
	assert.Equal(t, "1000 bytes", Size(1000))
}

func TestReadJoinsChunks(t *testing.T) {
	data := make([]byte, 1<<20+12345)
	for i := range data {
		data[i] = byte(i * 7)
	}
	got, err := Read(strings.NewReader(string(data)), int64(len(data)))
	require.NoError(t, err)
	assert.Equal(t, data, got)
	_, err = Read(strings.NewReader(string(data)), int64(len(data))-1)
	assert.Error(t, err)
}

func TestReadFileRefusesALargeFileUnread(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	require.NoError(t, os.WriteFile(path, make([]byte, 5000), 0o600))
	_, err := ReadFile(path, 4999, time.Second)
	var tl *TooLargeError
	assert.ErrorAs(t, err, &tl)
	data, err := ReadFile(path, 5000, time.Second)
	require.NoError(t, err)
	assert.Len(t, data, 5000)
}
