// Package debugger is serq's debugger as a service: a run of a serQ
// program under control — breakpoints and watchpoints, stepping both ways,
// seeks, the event log and its search, the why-chain, inspectors of a
// pool's queue, an engine's batch and the pending events — with no screen.
// It is the layer delve calls service/debugger (go-delve/delve:
// service/debugger owns the breakpoints and Continue/Rewind over pkg/proc,
// and its terminal and DAP front ends only present): interp is the core,
// with a stepping API (interp.Timeline: checkpoints, seeks, a tracer and a
// statement hook); this package owns what a debugging session adds to it;
// a front end (serq tui, package tui) turns keys into its calls and words
// its answers. A second front end needs nothing of tui.
//
// # The plan
//
// One run, one operation at a time. A [Debugger] holds an interp.Timeline.
// Its operations (Step, RunTo, Back, SeekEvent, SeekTime, SeekAt, Rewind,
// Earlier, Restart) run one at a time under a mutex, as delve's Command
// does; two calls may come from any goroutine at any time: [Debugger.Cancel]
// (delve's Halt: the operation under way stops between two events, where
// it is, in a state a straight run has) and [Debugger.Progress] (what it
// has done of what it will do), so that a front end shows the progress of
// anything that takes more than a moment and lets its user give it up.
// Every operation answers a [Stop]: why it stopped (done, a breakpoint's
// hit, cancelled, the run's end, a run error) and, for a hit, which
// breakpoint and what it saw, as data: a front end words it.
//
// Breakpoints are typed (delve's api.Breakpoint, gdb's breakpoint table):
// an expression becoming true (edge-triggered: false after one event, true
// after the next), a time, an event count (a tour's stop), a session (each
// of its events), a line of the program any session reaches (interp's
// statement hook), a class of event (a preemption, a lease's start or end,
// a rejection, an admission, a failure, …, optionally at one pool or
// member), a watchpoint (its expression's value changes) and a display
// (shown, never stopping). Each may have a condition (an expression read
// when it would hit: it hits only if the condition holds), be disabled,
// be temporary (deleted when it stops the run) and ignore its next N hits;
// it counts its hits. Expressions are lang.CompileQuery's. Reverse
// continue ([Debugger.Rewind], delve's Rewind) replays the checkpoint
// spans behind the current event, newest first, and goes to the last
// event at which an enabled breakpoint hit (ignore counts, which count
// forward, do not apply).
//
// Time travel costs one checkpoint span. A seek behind the current event,
// or forward into a part of the run visited before, resumes the latest
// checkpoint before its target and replays the events from there: at most
// one span (interp.Timeline keeps the spacing fixed until the checkpoints'
// memory would pass its budget, 256 MB by default, and only then doubles
// it, so the spacing is the fewest doublings the budget allows). What the
// replay traces is the event log there: the log is a window of the run's
// traced events ending at the current event and beginning at a checkpoint
// (or where it grew past its size), so a seek never replays more than its
// own span to rebuild a log, however many lines the log had.
// [Debugger.Earlier] extends the window one span back (a front end asks
// for it when its user scrolls or searches past the first line), and
// [Log.Search] finds text in the lines it holds. A run at top speed keeps
// no log ([Limits.Quiet]); when it stops, the log is the replay of the
// span it stopped in.
//
// The why-chain is interp.Why's typed steps; the inspectors are interp's
// PoolQueue, EngineBatch and Pending. The debugger adds the trends a front
// end charts ([Sample]: each pool's used, queued and leased units and its
// oldest lease, each engine's waiting requests, each gauge and observe's
// running mean), taken as operations run, at most sampleKeep of them an
// operation (every other one dropped as they grow), so a front end's
// history is bounded however long the operation.
//
// Nothing here changes a result: the debugger only steps, seeks and reads
// the run, and every state it reaches is the one a straight run of the
// same program, seed and settings reaches at the same event
// (interp.SameState); its tests say so.
package debugger
