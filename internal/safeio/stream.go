package safeio

import (
	"bufio"
	"os"
	"slices"
)

// File is a file of a [Batch] written as a run goes ([Batch.Open]): its
// bytes go to a temporary file beside the target through W, and
// [File.Close] adds it to the batch, to be renamed into place by Commit
// with the files Create wrote.
type File struct {
	W    *bufio.Writer
	b    *Batch
	f    *os.File
	tmp  string
	path string
}

// Open starts path's new content in a temporary file in path's directory
// and returns it for writing through W. Until its Close the file is the
// batch's: Abort closes and removes it.
func (b *Batch) Open(path string) (*File, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return nil, ErrClosed
	}
	f, err := createTemp(path)
	if err != nil {
		return nil, err
	}
	out := &File{W: bufio.NewWriterSize(f, 64<<10), b: b, f: f, tmp: f.Name(), path: path}
	b.open = append(b.open, out)
	return out, nil
}

// Close flushes and closes the file and adds it to the batch's files to
// commit. On an error the temporary file is removed and the error is
// returned; the batch stays usable (the caller aborts it).
func (f *File) Close() error {
	b := f.b
	b.mu.Lock()
	defer b.mu.Unlock()
	k := slices.Index(b.open, f)
	if k < 0 {
		return ErrClosed // aborted, or closed before
	}
	b.open = slices.Delete(b.open, k, k+1)
	err := f.W.Flush()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.tmp, b.mode())
	}
	if err == nil && b.done {
		err = ErrClosed
	}
	if err != nil {
		dropTemp(f.tmp)
		return err
	}
	b.pending = append(b.pending, pendingFile{f.tmp, f.path})
	return nil
}
