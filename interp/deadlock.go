package interp

import (
	"fmt"
	"strings"

	"github.com/serq/serq/model"
)

// deadlock reports a wait cycle when nothing is pending: a session waits
// at a join for legs that wait for pools only other waiting sessions can
// free (no lease will expire, no job will end). It fails the run naming
// everyone involved and returns true; without a join involved the run
// just idles to the horizon (the report counts what is stuck).
func (s *Sim) deadlock() bool {
	joining := false
	for _, ss := range s.live {
		if ss.joining {
			joining = true
		}
	}
	if !joining {
		return false
	}
	var parts []string
	for _, t := range s.allThreads() {
		if t.state != sBlocked {
			continue
		}
		who := fmt.Sprintf("session %d", t.serial)
		if t.parent != nil {
			who = fmt.Sprintf("a leg of session %d", t.serial)
		}
		switch {
		case t.joining:
			parts = append(parts, who+" waits at a `join`")
		case t.waitHold != nil && t.waitHold.waiting:
			parts = append(parts, fmt.Sprintf("%s waits at `%s`", who, s.pools[t.waitHold.pools[0].pool].m.Name))
		case t.growHold != nil:
			parts = append(parts, fmt.Sprintf("%s waits to grow at `%s`", who, s.pools[t.growHold.pools[t.growIdx].pool].m.Name))
		}
	}
	s.fail(nil, model.Pos{}, "sessions and legs wait for each other and nothing pending can free them: %s", strings.Join(parts, "; "))
	return true
}
