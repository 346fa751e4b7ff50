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
// bytes. It reads in chunks and joins them once at the end, so rejecting an endless stream
// holds at most max bytes (io.ReadAll's doubling held twice that).
func Read(r io.Reader, max int64) ([]byte, error) { return readSized(r, max, 64<<10) }

// readSized is Read with a first chunk of size bytes (a regular file's size plus one: read
// whole into one buffer, nothing to join).
func readSized(r io.Reader, max, size int64) ([]byte, error) {
	var chunks [][]byte
	var total int64
	lr := io.LimitReader(r, max+1)
	for {
		chunk := make([]byte, min(size, max+1-total))
		n, err := io.ReadFull(lr, chunk)
		if n > 0 {
			chunks = append(chunks, chunk[:n])
			total += int64(n)
		}
		if total > max {
			return nil, &TooLargeError{Max: max}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(size*2, 64<<20)
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
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
	if info.Mode().IsRegular() && info.Size() > max {
		return nil, &TooLargeError{Max: max} // without reading it
	}
	if info.Mode()&fs.ModeNamedPipe == 0 {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if info.Mode().IsRegular() {
			return readSized(f, max, info.Size()+1)
		}
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
