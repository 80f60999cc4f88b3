//go:build unix

package safeio

import (
	"errors"
	"os"
	"syscall"
)

// LockDir takes an exclusive lock on the directory dir (flock on the
// directory itself: nothing is created in it) for as long as the caller
// writes it, and returns its release. A directory that another process
// holds is refused at once with [ErrLocked].
func LockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
