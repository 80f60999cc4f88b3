//go:build unix

package safeio

import (
	"os"
	"sync"
	"syscall"
)

var (
	umaskOnce sync.Once
	umaskVal  os.FileMode
)

// umask is the process's file mode creation mask, read once: reading it
// means setting it, so it is set straight back.
func umask() os.FileMode {
	umaskOnce.Do(func() {
		m := syscall.Umask(0)
		syscall.Umask(m)
		umaskVal = os.FileMode(m)
	})
	return umaskVal
}
