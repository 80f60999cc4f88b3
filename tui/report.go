package tui

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/serq/serq/debugger"
	"github.com/serq/serq/report"
)

// reportPane shows the report `serq run` prints, as of the moment R was
// pressed (a report is costly late in a run: it copies every sample), and
// at the end of the run.
type reportPane struct {
	st     *Styles
	w, h   int
	text   []string
	at     float64 // the time of the report shown
	events uint64  // its events
	done   bool
	has    bool
}

func newReportPane(st *Styles) *reportPane { return &reportPane{st: st} }

func (p *reportPane) title() string {
	switch {
	case !p.has:
		return "Report"
	case p.done:
		return "Report · the run's end"
	}
	return fmt.Sprintf("Report · so far, t %s · R refreshes", fmtDur(p.at))
}

func (p *reportPane) setSize(w, h int) { p.w, p.h = w, h }

func (p *reportPane) setFrame(f *frameMsg) {
	if f.kind != reqReport {
		return
	}
	p.has, p.at, p.events, p.done = true, f.snap.Time, f.snap.Events, f.snap.Done
	p.text = strings.Split(strings.TrimRight(f.report, "\n"), "\n")
	if f.reportErr != nil {
		p.text = []string{p.st.Err.Render(f.reportErr.Error())}
	}
}

func (p *reportPane) lines() []string {
	if !p.has {
		return []string{p.st.Dim.Render("making the report…")}
	}
	return p.text
}

// reportText is the text report of the run now.
func reportText(g *debugger.Debugger) (string, error) {
	var b bytes.Buffer
	if err := report.Text(&b, g.Report()); err != nil {
		return "", err
	}
	return b.String(), nil
}

// ReportText is the report `serq run` prints, of the run where the TUI
// left it (serq tui --report prints it on quit). It waits for a command
// still running on the run.
func (m *Model) ReportText() (string, error) { return reportText(m.drv.dbg) }
