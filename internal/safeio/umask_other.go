//go:build !unix

package safeio

import "os"

func umask() os.FileMode { return 0o022 }
