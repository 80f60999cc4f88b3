// Package interp runs serQ programs (a lowered model.Program) as
// discrete-event simulations.
//
// # Time and events
//
// The clock is a float64 in the program's own unit (seconds by
// convention). Pending events sit in one calendar ordered by (time,
// sequence): two events at the same time happen in the order they were
// scheduled. An event is an arrival, the completion of a job at a stage
// (fifo and delay jobs have a fixed end; a processor-sharing stage or a
// flow carries an epoch, and an event whose epoch is stale is skipped), an
// engine iteration's end, a lease's expiry, or the end of warm-up.
//
// The calendar is a binary heap (sim.go). The event being handled stays
// at its top, taken, until the first schedule of its handler or of the
// settle after it replaces it in one sift-down (an arrival scheduling the
// next arrival, a fifo stage its next job, an engine's iteration end its
// next attempt, a run of quiet iterations its last end); an event after
// which nothing is scheduled is removed when the settle is done. Either
// way the events and their sequence numbers are those a pop and then a
// push leave: only the heap's layout differs, which no result reads
// (SameState compares the events in order, nextFree breaks ties by
// sequence).
//
// After each event the simulation settles (docs/engine.md §1): the ready
// sessions run, in the order they became ready, until each blocks;
// commands take no time. Then the pools admit what now fits, which may
// make more sessions ready, and this repeats until nothing is ready.
// Last, engines start iterations and processor-sharing stages and flows
// whose job set changed reschedule their next completion.
//
// # Sessions
//
// A session is an explicit continuation: a stack of frames over the
// model's blocks (a frame is a block and the index of its next
// statement), so thousands of sessions cost no goroutines and a run is
// deterministic. Blocking statements (a run with work, a hold that queues,
// a join) park the session; the event that unblocks it puts it back on
// the ready queue. A `turn;` pushes the server block as a frame; its exit
// completes the turn.
//
// # Pools and engines
//
// A hold waits in the queue of its first pool; pools admitted at settle
// time admit as soon as the head fits (a release admits at once), pools
// an engine admits wait for its iterations (pool.go, hold.go). An engine
// is a step stage: each iteration serves its residents in order, growing
// their memory block by block and preempting the last admitted when a
// block cannot be had, then admits from its pools in declaration order,
// and lasts what its `execute` says; the tokens are applied when it ends
// (engine.go, docs/engine.md §4). Fork legs are sessions with a parent:
// their own frames, stream and holds, the session's cache, and their
// leases pass to the session when they end (session.go). Claims are read
// at engine iterations and at the end (claims.go).
//
// # Randomness
//
// The seed fixes independent streams (math/rand/v2 PCG): the arrival
// stream; for each (session, turn) a substream for the workload's `init`
// and `turn` blocks; for each session a stream for its own statements
// (and one per fork leg); draws outside a session (a pool's ordering key,
// a stage's rate) use one machine stream, and a replayed trace its own.
// So the same seed gives every deployment the same arrivals and the same
// per-turn marks (common random numbers), whatever the deployment does
// with them; a session's own draws stay in step while it takes the same
// path. `serq sweep` relies on this (docs/sweeps.md).
//
// # Cost
//
// An event costs what it changed, not the size of the deployment. Each
// fast path below keeps an invariant that makes skipping work exact, and
// is switched off by [Options].NoFastPath, which scans and evaluates
// everything after every event, compiles nothing and skips nothing. The
// differential tests (fastpath_test.go: TestFastPathExamples over every
// example, FuzzFastPath over generated programs) hold a run on the fast
// paths to the reference path step by step and to the same report bit
// for bit; each paragraph names its own test too. What an expression
// reads, which decides whether a fast path may take it, is summarised once
// per expression (reads.go, model.Reads). A new fast path gets a paragraph
// here, a NoFastPath branch and a test of its own (CONTRIBUTING.md).
//
// Dirty sets (dirty.go). The settle's admission, startEngines and
// reschedule visit only the pools, engines and ps stages marked since they
// were last found with nothing to do, in declaration order; the settle
// skips a step when the program has no pool or engine or nothing is
// marked or due. Invariant: a member not marked has nothing to do.
// Tests: TestBitset and the differential tests.
//
// Gauge trees (gaugetree.go). A gauge that reads only pools' used, free,
// holders and queued of members named by constants (gaugeOfPools) is a
// tree of its subexpressions' values, shared across gauges; a changed
// pool re-evaluates the nodes above its leaves up to where a value comes
// out unchanged (a sum's partial sums in a chain in one loop). Invariant:
// every node holds its subexpression's value at the pools' current
// states. Tests: TestGaugeForestRandomStates, TestGaugeForestShares.
//
// The choose index (chooseindex.go). A `choose` whose keys read only
// pools' and engines' states and the session's cachedin keeps its
// candidates' keys in a tournament tree and reads again only the
// candidates whose pools or engines changed and those in whose pools the
// session has a cached prefix; it takes the scan while a key is NaN or a
// tracer notes every candidate. Invariant: every leaf holds its
// candidate's keys now, bit for bit. Tests: TestChooseIndexRandomStates,
// TestChooseIndexLeavesCurrent, TestChooseIndexCheckpoint.
//
// The lazy scan (scanLimit, chooseindex.go). A scanned `choose` whose keys
// cannot draw or fail reads a candidate's later keys only while its
// earlier ones tie the best's. Invariant: reading such a key has no
// effect. Tests: TestScanLimit, TestScanLazyRandomStates.
//
// Memoized engine expressions (memo.go). An engine's budget, chunk, cost
// and gates are evaluated again only when the context variables and
// registers they read changed, the engines of a family sharing one copy of
// each expression's shape. Invariant: a pure expression's value is a
// function of what it reads. Tests: TestExprShapes and the differential
// tests.
//
// Whole-block eviction (evictBlocks, pool.go). An eviction of whole
// blocks from one lru entry takes them at once. Invariant: the amounts
// are whole numbers below 2^52, where the sums are exact. Tests:
// TestEvictionTakesBlocksFromTheTail and the differential tests.
//
// Compiled statements (compile.go). The statements sessions run are
// compiled once: an expression of a common shape (a constant, an
// attribute, the clock, `now - attr`, arithmetic over those, `~exp` of
// one) is evaluated in one step, and a frame's sets and observes run in a
// row. Invariant: evalWith's float operations in evalWith's order. Tests:
// TestCompiledForms, TestFastPathCompiled.
//
// The calendar's top and arrivals (sim.go). The event being handled stays
// at the heap's top until the first schedule replaces it in one sift-down,
// and a Poisson arrival starts its session before it pushes the next
// arrival. Invariant: the events and their sequence numbers are those a
// pop and a push leave; only the heap's layout differs, which no result
// reads. Tests: TestCalendarTakeReplaces, TestNextFreeTies.
//
// Quiet iterations (stepn.go, below). An engine iteration that changes
// nothing but its residents' counters and the clock skips the settle, and
// runs of them are taken off the calendar. Invariant: the template
// attempt holds (the same residents, pools and batch). Tests:
// TestQuietTaken, TestStepNSameState, TestFastPathTrace.
//
// [Options].Lean keeps only what the statistics need (interp/internal/stats): memory
// flat in the horizon but for one value per observe sample.
//
// # Quiet iterations
//
// Nine in ten of a P/D run's events are engine iterations that change
// nothing but their residents' counters and the clock: every resident
// decodes one token, nobody is admitted, preempted or done, no block is
// grown, and the next attempt forms the same batch at the same cost
// (stepn.go). The attempt that scheduled an iteration is kept as the
// engine's template when it admitted and preempted nobody, served every
// resident a decode token, left no waiter and changed no pool but by
// growing its residents' blocks (then its residents' context is read again
// once, at the next iteration). When the iteration ends, the template
// holds if the residents and the pools it read are unchanged (a change
// of a pool marks the templates that read it), every resident still wants a whole token, and the settle
// would have nothing else to do (no session ready, no stage or flow with
// work, no pool or engine marked but those it would only unmark, no other
// event at that instant); then the iteration's end and the next attempt
// are applied as the full path applies them — the same fields, the same
// float operations in the same order, the same statistics — and the next
// end is scheduled at the template's cost. One resident in the batch may
// need a block on the way (one token in sixteen of a resident's needs
// one): where it fits without preempting, spilling or marking another
// engine's work, the growth is the full path's own (growCore) and the cost
// is read again with the batch's new memory. An engine qualifies when its
// schedule is `advance`/`admit` statements without keys or `only` and its
// budget, chunk, cost and gates read only constants, registers and the
// context an attempt sets; a program with claims, a tracer of engine
// iterations ([Sim.TraceIterations]) or [Options].NoFastPath takes none.
// A tracer of the rest sees nothing of a quiet iteration (no session
// joins, finishes, is admitted or released in one), so quiet iterations
// run under it (TestFastPathTrace), and the TUI's replays go as fast.
//
// [Sim.Step] takes one quiet iteration as one event (the TUI's event
// numbers, breakpoints and checkpoints do not move). [Sim.StepN],
// [Sim.Run] and [Sim.RunUntil] take whole runs of them: while the next end
// of the same engine falls before every other pending event, within the
// horizon (and the time RunUntil runs to), and the batch's budget of
// events lasts, it is handled at once without the calendar (the sequence
// number it would have taken is still taken), each counted as one event;
// the run's last end goes on the calendar. Then, while the next event is
// another engine's quiet iteration, the same for it without the settle's
// checks being made again (an iteration that grew nothing marked nothing):
// at scale the engines' iterations interleave, and a run is of one or two
// iterations of each in turn. The state after StepN(n) is the
// state after n Steps (TestStepNSameState), but for the calendar's heap
// layout.
//
// # Stepping
//
// [New] builds a simulation, [Sim.Step] processes one event and settles,
// [Sim.StepN] processes a batch of events, [Sim.RunUntil] runs to a time,
// [Sim.Report] summarises. `serq run` and
// `serq tui` drive the same loop, so stepping never changes a result.
//
// # Files
//
//   - sim.go: [Options], [RunError], the event calendar, [Run], [New] and
//     the event loop ([Sim.Step], [Sim.RunUntil]); the fields of [Sim].
//   - session.go: sessions as continuations, running a statement, settling.
//   - eval.go: evaluating an expression (the operators' semantics are
//     model.EvalOp's; eval_agree_test.go checks the two agree).
//   - compile.go: the session blocks' statements in specialised forms.
//   - stage.go, flow.go, share.go: fifo, delay and ps stages; flows across
//     ps stages and their max-min or bottleneck rates.
//   - pool.go, hold.go: pools, holds, admission queues, prefix caches,
//     growth, preemption and leases.
//   - engine.go: engine iterations and their schedules.
//   - claims.go: claims read at iterations and at the end.
//   - deadlock.go, guard.go: wait cycles, and the progress guards that stop
//     a run that would not end or would exhaust memory.
//   - trace.go: trace workloads, read through [Options.OpenTrace].
//   - rng.go: the random streams and the distributions.
//   - package interp/internal/stats: the statistics accumulators (means,
//     batch-means confidence intervals, quantiles, time averages, the
//     append-only logs of samples); statsrows.go: the report's rows of
//     them.
//   - report.go: the [Report] types and building them from a run.
//   - dump.go: the [DumpSink] that receives the samples and gauge change
//     points as the run makes them ([Options.Dump], `serq run --dump`).
//   - tolerance.go: the tolerances of float comparisons of units and tokens.
//   - dirty.go, memo.go, gaugetree.go, chooseindex.go, stepn.go: the fast
//     paths of "Cost" and "Quiet iterations" (Options.NoFastPath turns
//     them off); reads.go: what an expression reads, summarised once for
//     them.
//   - keymin.go: the key-tuple picks.
//   - checkpoint.go, timeline.go: copies of a run's state, and a run that can
//     go back ([Timeline]); snapshot.go and debug.go: what `serq tui` shows
//     and asks of a run.
package interp
