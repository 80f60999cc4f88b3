package safeio

import (
	"os"
	"sync"
)

// The temporary files of every batch under way, for [Guard].
var temps struct {
	sync.Mutex
	live  map[string]bool
	dying bool // a signal is ending the process: no new temporary
}

// registerTemp notes a temporary file; false once a signal is ending the
// process (the caller removes it and waits to be killed).
func registerTemp(name string) bool {
	temps.Lock()
	defer temps.Unlock()
	if temps.dying {
		return false
	}
	if temps.live == nil {
		temps.live = map[string]bool{}
	}
	temps.live[name] = true
	return true
}

// unregisterTemp forgets a temporary file renamed into place.
func unregisterTemp(name string) {
	temps.Lock()
	delete(temps.live, name)
	temps.Unlock()
}

// dropTemp removes a temporary file and forgets it.
func dropTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	os.Remove(name)
	delete(temps.live, name)
}

// removeTemps removes every registered temporary file, and refuses any
// new one.
func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.dying = true
	for name := range temps.live {
		os.Remove(name)
	}
	temps.live = nil
}
