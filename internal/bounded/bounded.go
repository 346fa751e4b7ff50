// Package bounded reads whole files and streams with a cap on their size, so that an
// endless input (/dev/zero, a pipe that never ends) is an error, not a process that grows
// until it dies. It also opens a named pipe without waiting forever for a writer. It never
// reads more than the cap plus one byte.
package bounded

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// TooLargeError says that an input holds more than Max bytes.
type TooLargeError struct{ Max int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("holds more than %s, the most nodeplan reads from one input", Size(e.Max))
}

// Size renders a byte count the way limits are documented: 512 MiB, 1 GiB, 1000 bytes.
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// Read reads r to its end, or fails with a *TooLargeError once it has seen more than max
// bytes.
func Read(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Max: max}
	}
	return data, nil
}

// NoWriterError says that nobody opened a named pipe for writing in time.
type NoWriterError struct{ Waited time.Duration }

func (e *NoWriterError) Error() string {
	return fmt.Sprintf("named pipe: no writer within %s", e.Waited)
}

// ReadFile reads the file at path with Read's cap. A named pipe is opened without blocking
// and waited on for at most fifoWait until a writer sends its first byte (a writer that sends
// nothing counts as none), then read to the writer's end.
func ReadFile(path string, max int64, fifoWait time.Duration) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, errors.New("is a folder, not a file")
	}
	if info.Mode()&fs.ModeNamedPipe == 0 {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return Read(f, max)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Without a writer a non-blocking pipe reads as empty at once; poll until the first
	// byte comes, then read to the writer's end.
	deadline := time.Now().Add(fifoWait)
	first := make([]byte, 1)
	for {
		n, err := f.Read(first)
		if n == 1 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if !time.Now().Before(deadline) {
			return nil, &NoWriterError{Waited: fifoWait}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if max < 1 {
		return nil, &TooLargeError{Max: max}
	}
	rest, err := Read(f, max-1)
	var tl *TooLargeError
	if errors.As(err, &tl) {
		return nil, &TooLargeError{Max: max}
	}
	if err != nil {
		return nil, err
	}
	return append(first, rest...), nil
}
