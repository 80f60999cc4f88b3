//go:build !unix

package safeio

// Guard guards nothing where there are no unix signals.
func Guard() (stop func()) { return func() {} }
