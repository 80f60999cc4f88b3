package safeio

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// Batch writes a set of files so that each appears whole or not at all:
// [Batch.Create] writes a file's bytes to a temporary file beside it, and
// [Batch.Commit] renames every temporary file into place. Until Commit
// the targets are untouched; [Batch.Abort] removes the temporary files. A
// rename replaces a symlink at the target instead of writing through it.
// Abort may be called from another goroutine (a signal handler): it waits
// for a Commit under way to end.
type Batch struct {
	// Mode is the permissions of the files written; 0 means 0666 less
	// the umask, as any file the user creates.
	Mode    os.FileMode
	mu      sync.Mutex
	pending []pendingFile
	open    []*File // opened by Open and not yet closed
	done    bool    // committed or aborted
}

type pendingFile struct{ tmp, path string }

// ErrClosed is the error of a Create after Commit or Abort.
var ErrClosed = errors.New("the write was abandoned")

// ErrLocked is the error of [LockDir] on a directory another serq writes.
var ErrLocked = errors.New("another serq is writing it")

// createTemp makes path's temporary file beside it, registered for
// [Guard] until it is renamed or removed (dropTemp).
func createTemp(path string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	if !registerTemp(f.Name()) {
		f.Close()
		os.Remove(f.Name())
		select {} // a signal is ending the process
	}
	return f, nil
}

// Create writes path's new content, through fill, to a temporary file in
// path's directory. On an error the temporary file is removed and the
// error is returned; the batch stays usable (the caller aborts it).
func (b *Batch) Create(path string, fill func(*bufio.Writer) error) error {
	b.mu.Lock()
	closed := b.done
	b.mu.Unlock()
	if closed {
		return ErrClosed
	}
	f, err := createTemp(path)
	if err != nil {
		return err
	}
	tmp := f.Name()
	w := bufio.NewWriterSize(f, 64<<10)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, b.mode())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err == nil && b.done {
		err = ErrClosed
	}
	if err != nil {
		dropTemp(tmp)
		return err
	}
	b.pending = append(b.pending, pendingFile{tmp, path})
	return nil
}

// Commit renames every file written into place, in the order written
// (a file of Open in the order closed; one not closed is removed). On the
// first failure the files not yet renamed are removed.
func (b *Batch) Commit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return ErrClosed
	}
	b.done = true
	for _, f := range b.open { // never closed: abandoned
		f.f.Close()
		dropTemp(f.tmp)
	}
	b.open = nil
	for i, p := range b.pending {
		if err := os.Rename(p.tmp, p.path); err != nil {
			for _, q := range b.pending[i:] {
				dropTemp(q.tmp)
			}
			return err
		}
		unregisterTemp(p.tmp)
	}
	b.pending = nil
	return nil
}

// Abort removes the files written and not committed. It is safe to call
// more than once and after Commit.
func (b *Batch) Abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = true
	for _, p := range b.pending {
		dropTemp(p.tmp)
	}
	b.pending = nil
	for _, f := range b.open {
		f.f.Close()
		dropTemp(f.tmp)
	}
	b.open = nil
}

// mode is the permissions of the batch's files.
func (b *Batch) mode() os.FileMode {
	if b.Mode != 0 {
		return b.Mode
	}
	// CreateTemp makes the file 0600; an output is as readable as any
	// file the user creates.
	return 0o666 &^ umask()
}

// WriteFile writes one file as a batch of one.
func WriteFile(path string, data []byte) error {
	var b Batch
	if err := b.Create(path, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		b.Abort()
		return err
	}
	return b.Commit()
}
