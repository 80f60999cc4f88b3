package safeio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
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

// WrongKindError is a file whose name its kind does not accept.
type WrongKindError struct {
	What string   // "a library"
	Exts []string // what the kind accepts
}

func (e *WrongKindError) Error() string {
	return fmt.Sprintf("%s is a %s file", e.What, orList(e.Exts))
}

// orList is ".yaml or .yml".
func orList(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
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

// Kind is a kind of file serq reads (the package doc, "Reading").
type Kind struct {
	What  string   // in errors: "a source file", "a tour"
	Exts  []string // the extensions accepted, with the dot; none: any name
	Limit int64    // the most bytes
	// Quote lists the extensions of the files of this kind whose lines
	// an error may quote; none: no line is quoted.
	Quote []string
}

// accepts reports whether the kind takes a file named path.
func (k Kind) accepts(path string) bool {
	return len(k.Exts) == 0 || slices.Contains(k.Exts, filepath.Ext(path))
}

// Quotes reports whether an error may quote lines of path, a file of
// this kind.
func (k Kind) Quotes(path string) bool { return slices.Contains(k.Quote, filepath.Ext(path)) }

// Open opens path for reading if the kind accepts its name and it is a
// regular file (after symlinks), and returns it with a reader of it that
// fails with a [TooLargeError] past the kind's limit. The kind is checked
// before the open, so that a FIFO is never opened (which would block),
// and again on the open file. Errors are *os.PathError.
func (k Kind) Open(path string) (*os.File, io.Reader, error) {
	if err := k.Check(path, 0); err != nil {
		return nil, nil, err
	}
	fi, err := os.Stat(path)
	if pe, ok := err.(*os.PathError); ok {
		pe.Op = "open" // what the caller asked for
	}
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if fi2, err := f.Stat(); err != nil || !fi2.Mode().IsRegular() {
		f.Close()
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return f, LimitReader(f, k.Limit, k.What), nil
}

// Check checks a text of size bytes standing for the file at path (an
// editor's unsaved document) against the kind: its name and its limit.
// Errors are *os.PathError, as [Kind.Open]'s.
func (k Kind) Check(path string, size int64) error {
	switch {
	case !k.accepts(path):
		return &os.PathError{Op: "open", Path: path, Err: &WrongKindError{What: k.What, Exts: k.Exts}}
	case size > k.Limit:
		return &os.PathError{Op: "open", Path: path, Err: &TooLargeError{Limit: k.Limit, What: k.What}}
	}
	return nil
}

// Read reads the file at path as [Kind.Open] opens it.
func (k Kind) Read(path string) ([]byte, error) {
	f, r, err := k.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(r)
}

// Opener is [Kind.Open] as a function that opens files of the kind as
// io.ReadClosers that stop at its limit: the opener serq gives the
// interpreter for the traces a program names.
func (k Kind) Opener() func(path string) (io.ReadCloser, error) {
	return func(path string) (io.ReadCloser, error) {
		f, r, err := k.Open(path)
		if err != nil {
			return nil, err
		}
		return readCloser{r, f}, nil
	}
}

type readCloser struct {
	io.Reader
	io.Closer
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
	if l.left < int64(len(p)) {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, l.err
	}
	return n, err
}

// Quotable reports whether an error may quote line: UTF-8 text without
// control characters other than tab. A line of a binary file, or of one
// that is not source at all (/proc/self/environ holds NULs), is never
// echoed.
func Quotable(line string) bool {
	if !utf8.ValidString(line) {
		return false
	}
	for _, r := range line {
		if r != '\t' && unicode.IsControl(r) {
			return false
		}
	}
	return true
}
