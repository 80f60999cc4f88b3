package interp

import (
	"math"
	"sort"

	"github.com/serq/serq/model"
)

// The router's picture (docs/engine.md §7.5): a gateway with `picture
// refresh (T) delay (d) detect (t)` reads the deployment as it was, not as
// it is. An observable its entries read (model.ESeen) is the value it had at
// τ = ⌊now/T⌋·T − d (now − d without a refresh, or with a refresh of 0),
// and a member is seen down from t after it went down until t after it
// came back. A picture of τ = now is the state now: `picture delay (0)` is
// the exact state.
//
// The values are kept as histories: at the end of every instant, each
// observable a picture may read (every member of the families its
// expressions name) is read, and a change appends (time, value). The value
// at τ is the last one recorded at or before τ: the state as the instant τ
// (or the last one before it) ended. A session's `cachedin` of a pool is
// kept per (pool, session). Histories are cut to what the largest lag can
// still reach. The quiet engine iterations (stepn.go) are off in a program
// with a picture: they would skip the instants' ends.

// history is an observable's values over time, oldest first.
type history struct {
	t, v []float64
}

func (h *history) add(t, v float64) {
	if n := len(h.v); n > 0 && h.v[n-1] == v {
		return
	}
	if n := len(h.t); n > 0 && h.t[n-1] == t {
		h.v[n-1] = v
		return
	}
	h.t = append(h.t, t)
	h.v = append(h.v, v)
}

// at is the value at time tau: the last recorded at or before it (the
// first one before everything).
func (h *history) at(tau float64) float64 {
	i := sort.SearchFloat64s(h.t, tau)
	if i < len(h.t) && h.t[i] == tau {
		return h.v[i]
	}
	if i == 0 {
		return h.v[0]
	}
	return h.v[i-1]
}

// trim drops the values no read at or after cut needs: all but the last
// before cut.
func (h *history) trim(cut float64) {
	i := sort.SearchFloat64s(h.t, cut)
	if i <= 1 {
		return
	}
	n := copy(h.t, h.t[i-1:])
	copy(h.v, h.v[i-1:])
	h.t, h.v = h.t[:n], h.v[:n]
}

// obsKey names an observable of one pool or stage.
type obsKey struct {
	op  model.ExprOp
	fn  model.Func
	idx int32
}

// cacheKey names a session's cached units in a pool.
type cacheKey struct {
	pool   int32
	serial uint64
}

// pictures is the state of a program's pictures.
type pictures struct {
	keys      []obsKey  // the observables recorded, in a fixed order
	hist      []history // by keys' index
	cachePool []int32   // pools whose cachedin a picture reads
	cache     map[cacheKey]*history
	cacheKeys []cacheKey         // cache's keys, in the order made (for trimming in order)
	lag       float64            // the largest delay + refresh of a picture
	nextTrim  float64            // when to trim next
	exact     bool               // read the deployment itself (tracing the true values)
	cacheSeen map[int32][]uint64 // by pool: the sessions with an entry at the last instant's end
}

// initPictures finds what the pictures may read and records its values at
// the start.
func (s *Sim) initPictures() {
	p := s.p
	if len(p.Pictures) == 0 {
		return
	}
	pc := &pictures{cache: map[cacheKey]*history{}, cacheSeen: map[int32][]uint64{}}
	for _, pic := range p.Pictures {
		pc.lag = math.Max(pc.lag, float64(pic.Delay)+float64(pic.Refresh))
	}
	seenKey := map[obsKey]bool{}
	seenPool := map[int32]bool{}
	look := func(e *model.Expr) {
		for _, x := range s.readsOf(e).Seen {
			in := x.Args[0]
			if in.Op == model.EUp {
				continue
			}
			stage := in.Op == model.EStage
			var f *model.Family
			if stage {
				f = &p.StageFams[in.Ref.Fam]
			} else {
				f = &p.PoolFams[in.Ref.Fam]
			}
			for i := f.First; i < f.First+f.Count; i++ {
				if in.Fn == model.PCachedIn {
					if !seenPool[int32(i)] {
						seenPool[int32(i)] = true
						pc.cachePool = append(pc.cachePool, int32(i))
					}
					continue
				}
				k := obsKey{op: in.Op, fn: in.Fn, idx: int32(i)}
				if !seenKey[k] {
					seenKey[k] = true
					pc.keys = append(pc.keys, k)
				}
			}
		}
	}
	p.Walk(func(st *model.Stmt) { st.Exprs(look) })
	pc.hist = make([]history, len(pc.keys))
	s.pics = pc
	s.recordPictures()
}

// recordPictures reads the observables the pictures may read, at an
// instant's end (and at the start).
func (s *Sim) recordPictures() {
	pc := s.pics
	for i, k := range pc.keys {
		var v float64
		if k.op == model.EStage {
			v = s.stageObservable(&s.stages[k.idx], k.fn)
		} else {
			v = s.poolObservable(&s.pools[k.idx], k.fn, nil)
		}
		pc.hist[i].add(s.now, v)
	}
	for _, p := range pc.cachePool {
		pl := &s.pools[p]
		before := pc.cacheSeen[p]
		now := before[:0:0]
		for _, e := range pl.entries {
			if e.gone || e.dead || e.owner == nil || e.owner.gen != e.gen {
				continue
			}
			s.cacheHistory(p, e.serial).add(s.now, e.size)
			now = append(now, e.serial)
		}
		for _, serial := range before {
			if !containsSerial(now, serial) {
				s.cacheHistory(p, serial).add(s.now, 0)
			}
		}
		pc.cacheSeen[p] = now
	}
	if s.now >= pc.nextTrim {
		s.trimPictures()
	}
}

func containsSerial(list []uint64, x uint64) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

func (s *Sim) cacheHistory(p int32, serial uint64) *history {
	k := cacheKey{pool: p, serial: serial}
	h := s.pics.cache[k]
	if h == nil {
		h = &history{t: []float64{math.Inf(-1)}, v: []float64{0}}
		s.pics.cache[k] = h
		s.pics.cacheKeys = append(s.pics.cacheKeys, k)
	}
	return h
}

// trimPictures cuts the histories to what a read can still reach, and
// forgets the sessions whose entries are gone for longer than that.
func (s *Sim) trimPictures() {
	pc := s.pics
	cut := s.now - pc.lag - 1
	for i := range pc.hist {
		pc.hist[i].trim(cut)
	}
	n := 0
	for _, k := range pc.cacheKeys {
		h := pc.cache[k]
		h.trim(cut)
		if len(h.v) == 1 && h.v[0] == 0 && h.t[0] < cut {
			delete(pc.cache, k)
			continue
		}
		pc.cacheKeys[n] = k
		n++
	}
	pc.cacheKeys = pc.cacheKeys[:n]
	pc.nextTrim = s.now + math.Max(pc.lag, 1)
}

// seenAt is the time a picture shows at now.
func (s *Sim) seenAt(pic *model.Picture) float64 {
	tau := s.now
	if T := float64(pic.Refresh); T > 0 {
		tau = math.Floor(s.now/T) * T
	}
	return tau - float64(pic.Delay)
}

// seen evaluates an ESeen: the observable as the picture shows it.
func (s *Sim) seen(e *model.Expr, ss *session) float64 {
	in := e.Args[0]
	pic := &s.p.Pictures[e.Slot]
	if in.Op == model.EUp {
		m, ok := s.queueMember(in.Ref, ss)
		if !ok {
			return 0
		}
		if s.seenDown(m, float64(pic.Detect)) {
			return 0
		}
		return 1
	}
	if s.pics == nil || s.pics.exact {
		return s.evalWith(in, ss, nil)
	}
	i, ok := s.member(in.Ref, ss, in.Op == model.EStage)
	if !ok {
		return 0
	}
	tau := s.seenAt(pic)
	if tau >= s.now {
		return s.evalWith(in, ss, nil) // a picture of now is the state now
	}
	if in.Fn == model.PCachedIn {
		if ss == nil {
			return 0
		}
		h := s.pics.cache[cacheKey{pool: int32(i), serial: rootOf(ss).serial}]
		if h == nil {
			return 0
		}
		return h.at(tau)
	}
	k := obsKey{op: in.Op, fn: in.Fn, idx: int32(i)}
	for j := range s.pics.keys {
		if s.pics.keys[j] == k {
			return s.pics.hist[j].at(tau)
		}
	}
	return s.evalWith(in, ss, nil)
}

// queueMember is the member a reference to a queue's member names.
func (s *Sim) queueMember(r *model.Ref, ss *session) (int32, bool) {
	q := &s.p.Queues[r.Fam]
	i := 0.0
	if r.Index != nil {
		i = s.eval(r.Index, ss)
		if !(i >= 0 && i < float64(q.Count) && i == math.Floor(i)) {
			s.fail(ss, model.Pos{}, "index %s of `%s` is out of range: it has %d member(s)", fmtNum(i), q.Name, q.Count)
			return 0, false
		}
	}
	return s.queueFirst[r.Fam] + int32(i), true
}

// seenDown reports whether member m is seen down by a router that notices
// a change detect after it.
func (s *Sim) seenDown(m int32, detect float64) bool {
	mm := &s.members[m]
	if detect == 0 {
		return mm.down > 0
	}
	tau := s.now - detect
	for k := len(mm.changes) - 1; k >= 0; k-- {
		if c := mm.changes[k]; c.t <= tau {
			return c.down
		}
	}
	return false
}

// upValue is up(Q[i]): 1 while the member is up.
func (s *Sim) upValue(e *model.Expr, ss *session) float64 {
	m, ok := s.queueMember(e.Ref, ss)
	if !ok || s.members[m].down > 0 {
		return 0
	}
	return 1
}

// chooseDown reports whether candidate j of a choose among a queue is seen
// down: a gateway's picture sees it detect late.
func (s *Sim) chooseDown(st *model.Stmt, j float64) bool {
	if j >= float64(s.p.Queues[st.Among-1].Count) {
		return false // no member of the queue (an IR may choose among more)
	}
	m := s.queueFirst[st.Among-1] + int32(j)
	detect := 0.0
	if pic := seenPicture(st.Keys); pic >= 0 {
		detect = float64(s.p.Pictures[pic].Detect)
	}
	return s.seenDown(m, detect)
}

// chooseAmong is a choose among a queue's members, in a program that can
// fail: the members seen down are no candidates, and with none left the
// request fails. It scans every candidate (the tournament trees of
// chooseindex.go know nothing of members).
func (s *Sim) chooseAmong(ss *session, st *model.Stmt, n float64) bool {
	m := &s.keys.choose
	m.reset(len(st.Keys))
	best := -1.0
	if s.tracer != nil {
		s.choiceKeys = s.choiceKeys[:0]
	}
	for j := 0.0; j < n; j++ {
		if s.chooseDown(st, j) {
			if s.tracer != nil && j < choiceShown {
				s.choiceKeys = append(s.choiceKeys, fmtNum(j)+": down")
			}
			continue
		}
		ss.attrs[st.Slot] = j
		for k, key := range st.Keys {
			m.cur[k] = s.eval(key, ss)
		}
		if s.tracer != nil {
			s.noteChoice(j, m.cur[:len(st.Keys)])
		}
		if best < 0 || m.cmp() < 0 {
			best = j
			m.take()
		}
	}
	m.reset(0)
	if best < 0 {
		s.choiceKeys = s.choiceKeys[:0]
		s.failRequest(ss, "no member of `"+s.p.Queues[st.Among-1].Name+"` up", false)
		return false
	}
	ss.attrs[st.Slot] = best
	if s.tracer != nil {
		s.traceChoice(ss, st, best, n)
	}
	return true
}
