package testutil

// RichProgram is a small program with a bit of everything the IR has: a
// fifo stage, a flow over two shared ps stages, an engine with a register
// and a general schedule, its memory and admission pools, a lease, a
// cache, a gauge and an iteration claim. Tests of the IR start from it.
const RichProgram = `fn main() {
  stage s : fifo(2);
  stage x : ps(1000);
  stage y : ps(500);
  share maxmin;
  device gpu { compute (t) = t * 0.001; kv cap 4096; }
  engine E on gpu {
    reqs cap 8;
    tokens cap 512;
    state r = 0;
    schedule {
      advance running;
      branch (r < 10) { admit waiting while (running.preempted == 0); }
      set r = r + 1;
    }
    execute (compute(batch.tokens) + 0.0001);
  }
  pool kv on gpu { block 16; evict lru; preempt lifo; }
  pool reqs on E { queue fifo; }
  pool slots { cap 4; }
  workload {
    arrive poisson(2);
    init { set t0 = now; }
    turn { set n = ceil(~uniform(10, 100)); set o = floor(~exp(20)) + 1; }
  }
  server {
    run s (cost(s, ~exp(0.1)));
    hold slots (cost(slots, 1)) {
      run x, y (cost(x, y, n));
    } lease slots (1);
    hold reqs (cost(reqs, 1)), kv (cost(kv, n + o)) {
      run E prefill (cost(E, n)) growing kv;
      run E decode (cost(E, o)) growing kv;
    } cache (cost(kv, reqs, n + o));
    release slots;
    observe response = now - t0;
  }
  gauge busy_s = busy(s);
  claim fast: every iteration of E (batch.tokens <= 512);
}
`
