package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/serq/serq/interp"
)

// BenchmarkFrame is one frame of the run loop at 1 simulated second per
// second, 20 frames a second (the default), on the seed from t = 100 s: the tick's batch
// on the driver, the frame taken in by Update, the screen drawn by View.
// At 20 frames a second, 10 % of a core is 5 ms a frame.
func BenchmarkFrame(b *testing.B) {
	p, _ := benchSeed(b)
	for _, sz := range [][2]int{{80, 24}, {160, 48}, {200, 60}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m, err := New(p, Options{Horizon: 2000, Seed: 1, Tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }})
			if err != nil {
				b.Fatal(err)
			}
			runSync(m, m.Init())
			runSync(m, func() tea.Msg { return tea.WindowSizeMsg{Width: sz[0], Height: sz[1]} })
			runSync(m, m.enqueue(request{kind: reqSlice, dt: 100}))
			m.View()
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				runSync(m, m.enqueue(request{kind: reqBatch, dt: 1.0 / 20}))
				_ = m.View()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(b.N), "cpu-ms/frame")
			b.ReportMetric(float64(cpuTime()-cpu0)/1e9/float64(b.N)*20*100, "%core@20fps")
		})
	}
}

// BenchmarkView is View alone, after a frame (what a repaint costs when
// nothing changed).
func BenchmarkView(b *testing.B) {
	p, _ := benchSeed(b)
	for _, sz := range [][2]int{{160, 48}, {200, 60}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m, _ := New(p, Options{Horizon: 2000, Seed: 1, Tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }})
			runSync(m, m.Init())
			runSync(m, func() tea.Msg { return tea.WindowSizeMsg{Width: sz[0], Height: sz[1]} })
			runSync(m, m.enqueue(request{kind: reqSlice, dt: 100}))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.View()
			}
		})
	}
}

// BenchmarkTopSpeed runs the whole seed (2000 s, 2.25 M events) at top
// speed through the model as the run loop does — a batch of batchBudget's
// wall time, its frame taken in by Update and drawn by View at 160×48, the
// next batch started as soon as the frame lands (quiet batches: no log,
// StepN chunks), up to the frame at the run's end — against the interpreter alone (`serq run`'s loop,
// Sim.Run): events per CPU second of each (steadier than the wall clock on
// a shared machine), and the TUI's share of the interpreter's rate, %.
func BenchmarkTopSpeed(b *testing.B) {
	p, _ := benchSeed(b)
	var plainCPU, tuiCPU int64
	var plainEv, tuiEv uint64
	for i := 0; i < b.N; i++ {
		c0 := cpuTime()
		s, _ := interp.New(p, benchOpts)
		if err := s.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		plainCPU += cpuTime() - c0
		plainEv += s.Events()

		m, _ := New(p, Options{Horizon: 2000, Seed: 1, Speed: maxSpeed,
			Tick: func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }})
		runSync(m, m.Init())
		runSync(m, func() tea.Msg { return tea.WindowSizeMsg{Width: 160, Height: 48} })
		c0 = cpuTime()
		m.resume()
		frames := 0
		drive(m, m.tick(tickMsg{gen: m.gen}), func(f frameMsg) {
			_ = m.View()
			if frames++; f.snap.Done && c0 != 0 {
				// The run is over: what follows (the whole log rebuilt
				// once, by a replay) is not top speed.
				tuiCPU += cpuTime() - c0
				c0 = 0
			}
		})
		if !m.frame.snap.Done {
			b.Fatalf("stopped at t %g", m.frame.snap.Time)
		}
		tuiEv += m.frame.snap.Events
		b.ReportMetric(float64(frames), "frames")
	}
	plain := float64(plainEv) / (float64(plainCPU) / 1e9)
	tuiRate := float64(tuiEv) / (float64(tuiCPU) / 1e9)
	b.ReportMetric(plain, "interp-events/cpu-s")
	b.ReportMetric(tuiRate, "tui-events/cpu-s")
	b.ReportMetric(100*tuiRate/plain, "%")
}
