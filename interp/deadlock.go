package interp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/serq/serq/model"
)

// deadlock reports a wait cycle when nothing is pending: a session waits
// at a join for legs that wait for pools only other waiting sessions can
// free (no lease will expire, no job will end). It fails the run naming
// everyone involved and returns true. Without a join, a cycle of
// sessions each holding a pool the next waits for is a deadlock too
// (holdCycle); any other wait just idles to the horizon (the report
// counts what is stuck).
func (s *Sim) deadlock() bool {
	joining := false
	for _, ss := range s.live {
		if ss.joining {
			joining = true
		}
	}
	if !joining {
		return s.holdCycle()
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

// holdCycle reports a cycle of waits among holds when nothing is
// pending: each thread of it waits to enter (or grow) a hold on a pool
// that the next one holds. It fails the run naming each and returns true.
func (s *Sim) holdCycle() bool {
	threads := s.allThreads()
	holders := map[int][]*session{}
	for _, t := range threads {
		for _, h := range t.holds {
			for _, hp := range h.pools {
				if hp.alloc > 0 && !hp.released && !slices.Contains(holders[hp.pool], t) {
					holders[hp.pool] = append(holders[hp.pool], t)
				}
			}
		}
	}
	waitsFor := func(t *session) []int {
		switch {
		case t.state != sBlocked:
		case t.waitHold != nil && t.waitHold.waiting:
			var ps []int
			for _, hp := range t.waitHold.pools {
				ps = append(ps, hp.pool)
			}
			return ps
		case t.growHold != nil:
			return []int{t.growHold.pools[t.growIdx].pool}
		}
		return nil
	}
	const (
		unseen = iota
		onPath
		done
	)
	mark := map[*session]int{}
	var path, cycle []*session
	var visit func(t *session) bool
	visit = func(t *session) bool {
		mark[t] = onPath
		path = append(path, t)
		for _, p := range waitsFor(t) {
			for _, u := range holders[p] {
				switch {
				case u == t:
				case mark[u] == onPath:
					cycle = path[slices.Index(path, u):]
					return true
				case mark[u] == unseen && visit(u):
					return true
				}
			}
		}
		path = path[:len(path)-1]
		mark[t] = done
		return false
	}
	for _, t := range threads {
		if mark[t] == unseen && waitsFor(t) != nil && visit(t) {
			break
		}
	}
	if cycle == nil {
		return false
	}
	var parts []string
	for i, t := range cycle {
		who := fmt.Sprintf("session %d", t.serial)
		if t.parent != nil {
			who = fmt.Sprintf("a leg of session %d", t.serial)
		}
		next := cycle[(i+1)%len(cycle)]
		var held []string
		for _, h := range next.holds {
			for _, hp := range h.pools {
				if l := "`" + s.pools[hp.pool].m.Label + "`"; hp.alloc > 0 && !hp.released && slices.Contains(waitsFor(t), hp.pool) && !slices.Contains(held, l) {
					held = append(held, l)
				}
			}
		}
		verb := "waits at"
		if t.waitHold == nil || !t.waitHold.waiting {
			verb = "waits to grow at"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s, which %s holds", who, verb, strings.Join(held, ", "), whoOf(next)))
	}
	pos := model.Pos{}
	if h := cycle[0].waitHold; h != nil && h.waiting {
		pos = h.st.Pos
	} else if h := cycle[0].growHold; h != nil {
		pos = h.st.Pos
	}
	s.fail(nil, pos, "a deadlock: %s; nothing pending can free them", strings.Join(parts, "; "))
	return true
}

func whoOf(t *session) string {
	if t.parent != nil {
		return fmt.Sprintf("a leg of session %d", t.serial)
	}
	return fmt.Sprintf("session %d", t.serial)
}
