package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/debugger"
)

// The run loop and the requests to the driver.

// pause stops the tick loop: the tick on its way is dropped by its
// generation.
func (m *Model) pause() {
	if m.running {
		m.running = false
		m.gen++
	}
	if m.tour != nil {
		m.tour.going = -1
	}
}

// resume starts a new tick loop.
func (m *Model) resume() tea.Cmd {
	m.running = true
	m.gen++
	m.lag, m.skipped = false, false
	return m.tickCmd()
}

func (m *Model) tickCmd() tea.Cmd {
	gen := m.gen
	return m.opts.Tick(m.opts.TickEvery, func(time.Time) tea.Msg { return tickMsg{gen: gen} })
}

// tick runs one batch of the run loop and schedules the next beat. A beat
// that finds the previous batch still running is skipped (the run lags).
func (m *Model) tick(msg tickMsg) tea.Cmd {
	if msg.gen != m.gen || !m.running {
		return nil
	}
	next := m.tickCmd()
	if m.busy || len(m.queue) > 0 {
		m.skipped = true
		return next
	}
	dt := m.speed * m.opts.TickEvery.Seconds()
	return tea.Batch(next, m.enqueue(request{kind: reqBatch, dt: dt, quiet: (m.lag || m.speed >= maxSpeed) && m.quietOK()}))
}

// quietOK reports whether a batch at top speed may keep no log: the
// service rebuilds it when the run stops. Not while a followed session's
// or a filter's few lines can be read as they come, nor with engine
// iterations traced.
func (m *Model) quietOK() bool {
	return m.follow == noSession && m.logPane().filter == "" && !m.iters
}

// enqueue adds a request, merged with the last waiting one of its kind,
// and starts it when the driver is free.
func (m *Model) enqueue(r request) tea.Cmd {
	if r.kind != reqSnapshot && r.kind != reqEdit && m.stopShown() {
		m.msg = nil
	}
	if n := len(m.queue); n > 0 && m.queue[n-1].kind == r.kind {
		switch r.kind {
		case reqStep, reqBack:
			m.queue[n-1].n += r.n
			return nil
		case reqSlice:
			m.queue[n-1].dt += r.dt
			return nil
		case reqSnapshot:
			return nil
		}
	}
	m.queue = append(m.queue, r)
	return m.dispatch()
}

// stopShown reports whether the line under the panes says where and why
// the run stopped (⏹): it stays there through keys that do not move the
// run (a speed, a pane, a scroll), so a key pressed as the run stops does
// not hide it.
func (m *Model) stopShown() bool { return len(m.msg) == 1 && strings.HasPrefix(m.msg[0], "⏹") }

// edit asks the service for a change to its breakpoints or settings,
// made between two operations, and a frame after it.
func (m *Model) edit(f func(*debugger.Debugger) error) tea.Cmd {
	return m.enqueue(request{kind: reqEdit, edit: f})
}

// dispatch starts the next waiting request if none is in flight.
func (m *Model) dispatch() tea.Cmd {
	if m.busy || len(m.queue) == 0 || m.drv == nil {
		return nil
	}
	r := m.queue[0]
	m.queue = m.queue[1:]
	m.busy, m.inflight, m.busySince = true, r.kind, time.Now()
	r.view = viewReq{why: m.whyPane().serial, follow: m.follow, stale: m.stale, insp: m.insp}
	if r.kind == reqBatch || r.kind == reqSlice {
		r.extra = m.tourBreak(r)
	}
	if r.kind == reqBatch {
		m.tourCap(&r)
	}
	return tea.Batch(m.drv.cmd(r), m.progressTick())
}

// apply takes a driver's frame.
func (m *Model) apply(f frameMsg) tea.Cmd {
	m.busy = false
	m.frame = &f
	for _, p := range m.panes {
		p.setFrame(&f)
	}
	if f.editErr != nil && f.kind == reqEdit {
		m.flash = f.editErr.Error()
	}
	var next tea.Cmd
	if f.kind == reqBatch {
		m.lag = f.capped || m.skipped
		m.skipped = false
	}
	switch {
	case f.tourHit:
		// a tour's stop: tourFrame arrives there
	case f.stop.Reason == debugger.AtBreakpoint:
		m.pause()
		m.queue = nil
		m.msg = []string{"⏹ " + m.hitWords(f.stop.Hit)}
	case f.stop.Reason == debugger.Cancelled:
		m.pause()
		m.queue = nil
		m.flash = fmt.Sprintf("%s cancelled at t %s, event %s", busyWords(f.kind), fmtStart(f.snap.Time), fmtCount(float64(f.snap.Events)))
	case f.kind == reqReverse && !f.stop.Found:
		m.flash = "no earlier event where a breakpoint hit"
	case f.kind == reqEarlier && f.editErr != nil:
		m.flash = f.editErr.Error()
	}
	tc := m.tourFrame(&f)
	if m.over() {
		m.pause()
		if rp := m.panes[paneReport].(*reportPane); m.shown[paneReport] && f.kind != reqReport && (!rp.has || rp.events != f.snap.Events) {
			tc = tea.Batch(tc, m.enqueue(request{kind: reqReport}))
		}
	}
	m.relayout()
	if f.kind == reqBatch && f.capped && m.running && !m.busy && len(m.queue) == 0 {
		// The run lags the clock: the next batch starts as soon as this
		// frame lands, not at the next tick.
		next = m.enqueue(request{kind: reqBatch, dt: m.speed * m.opts.TickEvery.Seconds(), quiet: m.quietOK()})
	}
	return tea.Batch(tc, next, m.dispatch())
}

// busyWords says what a request does, for the status bar.
func busyWords(k reqKind) string {
	switch k {
	case reqSeekTime, reqSeekEvent, reqAt:
		return "seek"
	case reqReverse:
		return "search back"
	case reqBack:
		return "step back"
	case reqRestart:
		return "restart"
	case reqEarlier:
		return "the log's earlier span"
	case reqReport:
		return "report"
	}
	return "run"
}

// over reports whether the run can go no further.
func (m *Model) over() bool {
	return m.frame != nil && (m.frame.snap.Done || m.frame.err != nil)
}

// state is the run's state for the status bar.
func (m *Model) state() state {
	f := m.frame
	switch {
	case f == nil:
		return statePaused
	case f.snap.Err != nil || f.err != nil:
		return stateError
	case math.IsInf(f.next, 1) && f.snap.Live > 0, f.stuck > 0:
		// Sessions wait and nothing is pending that could free them (the
		// run idles to its horizon), or requests were stuck in preemption.
		return stateStalled
	case f.snap.Done:
		return stateDone
	case m.running:
		return stateRunning
	}
	return statePaused
}

// hasBreaks reports whether a breakpoint that can stop the run (not a
// display) is set and enabled.
func (m *Model) hasBreaks() bool {
	if m.frame == nil {
		return false
	}
	for _, b := range m.frame.bps {
		if b.kind != debugger.Display && !b.disabled {
			return true
		}
	}
	return false
}

// setFollow follows session n in every pane (noSession: none) and shows
// the session pane.
func (m *Model) setFollow(n uint64) tea.Cmd {
	m.follow = n
	m.leasesPane().follow = n
	m.logPane().follow = n
	m.panes[paneNIC].(*nicPane).follow = n
	m.sessionPane().serial = n
	if n != noSession {
		m.flash = fmt.Sprintf("following session %d", n)
		m.show(paneSession)
	} else {
		m.flash = "following no session"
	}
	if m.drv == nil {
		return nil
	}
	return m.enqueue(request{kind: reqSnapshot})
}

// setWhy shows the why pane for session n.
func (m *Model) setWhy(n uint64) tea.Cmd {
	m.whyPane().serial = n
	m.show(paneWhy)
	return m.enqueue(request{kind: reqSnapshot})
}

// setStale sets the stale threshold.
func (m *Model) setStale(t float64) {
	m.stale = t
	m.leasesPane().stale = t
	m.flash = "stale > " + fmtSpan(t)
}

// leasesPane is the Leases pane; in a program without one (the Stations
// pane in its place), a Leases pane of no pool that is never shown.
func (m *Model) leasesPane() *leasesPane {
	if lp, ok := m.panes[paneLeases].(*leasesPane); ok {
		return lp
	}
	return m.noLeases
}

func (m *Model) logPane() *logPane         { return m.panes[paneLog].(*logPane) }
func (m *Model) whyPane() *whyPane         { return m.panes[paneWhy].(*whyPane) }
func (m *Model) sessionPane() *sessionPane { return m.panes[paneSession].(*sessionPane) }
func (m *Model) inspectPane() *inspectPane { return m.panes[paneInspect].(*inspectPane) }

// noSession stands for no session where a serial is asked for: serials
// start at 0.
const noSession = ^uint64(0)
