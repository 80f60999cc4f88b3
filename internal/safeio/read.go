// Package safeio reads the files a program names and writes serq's
// outputs without harm: a read takes only a regular file and at most a
// size cap, so a FIFO, a device or /dev/zero is refused instead of
// blocking or filling memory; a write goes to a temporary file in the
// target's directory that is renamed into place, so a failed or
// interrupted write leaves the previous file intact and a symlink at the
// target is replaced, never followed.
package safeio

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular is the error of a read of a directory, FIFO, device or
// socket.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is a file larger than the cap of its kind.
type TooLargeError struct {
	Limit int64  // bytes
	What  string // "a source file", "a trace"
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("larger than %s, the limit for %s", Size(e.Limit), e.What)
}

// Size writes a byte count as people read it: "8 MiB", "512 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens path for reading if it is a regular file (after symlinks).
// The kind is checked before the open, so that a FIFO is never opened
// (which would block), and again on the open file.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi2, err := f.Stat(); err != nil || !fi2.Mode().IsRegular() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, nil
}

// ReadFile reads the regular file at path, of at most limit bytes; what
// names the kind of file in a [TooLargeError].
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(LimitReader(f, limit, what))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// LimitReader reads r and fails with a [TooLargeError] once more than
// limit bytes have come.
func LimitReader(r io.Reader, limit int64, what string) io.Reader {
	return &limitReader{r: r, left: limit, err: &TooLargeError{Limit: limit, What: what}}
}

type limitReader struct {
	r    io.Reader
	left int64
	err  *TooLargeError
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, l.err
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, l.err
	}
	return n, err
}
