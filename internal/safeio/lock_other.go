//go:build !unix

package safeio

// LockDir locks nothing where flock is not to be had.
func LockDir(dir string) (func(), error) { return func() {}, nil }
