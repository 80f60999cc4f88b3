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

// SpillProgram evicts into a tier (`spill`, block by block, with the
// transfers on a fifo) and fetches back: a fuzz seed for the construct.
const SpillProgram = `fn main() {
  pool kv { cap 40; block 10; evict by (waiting, size); spill tier via link (size / 10) when (age >= 0); }
  pool tier { cap 30; evict lru; spill disk via slow (1) when (!waiting); }
  pool disk { cap inf; }
  stage svc : fifo(2);
  stage link : fifo;
  stage slow : ps(1);
  stage gate : delay;
  workload { arrive poisson(2); init { set c = 10 + 10 * (serial - 3 * floor(serial / 3)); } session { turn; end; } }
  server {
    run gate (cost(gate, 0.5));
    hold kv (cost(kv, c)) { run svc (cost(svc, 1)); } cache (cost(kv, c));
    branch (cachedin(tier) > 0) { run link (cost(link, cachedin(tier) / 10)); drop tier; }
    observe back = cachedin(disk);
  }
}
`

// TraceCSV and TraceProgram are an ordered trace and a program that
// replays it (the CSV beside the program, as trace.csv): seeds for
// `serq ir --inline-trace`.
const TraceCSV = "session,turn,new,out,think,forced\na,1,120,40,2.5,0\na,2,60,25,1,1\nb,1,400,10,4,0\n"

const TraceProgram = `fn main() {
  stage svc : fifo;
  stage think : delay;
  workload {
    arrive poisson(1);
    trace "trace.csv" ordered;
    session { turn; while (more) { run think (cost(think, think)); turn; } }
  }
  server { run svc (cost(svc, (new + forced * out) / 400)); observe n = new; }
}
`

// ChooseProgram has `choose`s the interpreter keeps indexed (their keys
// read only pools' states): nine candidates whose pools change between
// picks, with ties and zeros of both signs; twelve over three pools (a
// candidate's index computed), with a NaN key while a pool is empty; and
// one over a single candidate.
const ChooseProgram = `fn main() {
  pool slot[9] { cap 3; }
  pool one { cap 2; }
  stage svc[9] : fifo;
  stage solo : fifo;
  workload {
    arrive poisson(6);
    turn { set u = ceil(~uniform(0, 2)); }
  }
  server {
    choose j in 9 by (holders(slot[j]) + queued(slot[j]), used(slot[j]) * (j - 4));
    hold slot[j] (cost(slot[j], u)) {
      run svc[j] (cost(svc[j], ~exp(0.6)));
    }
    choose m in 12 by (used(slot[m - 3 * floor(m / 3)]) / holders(slot[m - 3 * floor(m / 3)]), m - 2 * floor(m / 2));
    choose k in 1 by (used(one));
    hold one (cost(one, 1)) { run solo (cost(solo, 0.1 + k)); }
    observe first = j;
    observe spread = m;
  }
}
`

// EngineChooseProgram routes each request to the engine with the fewest
// residents, then the least remaining work less the running batch (a
// choose the interpreter keeps indexed, its keys reading the engines):
// four engines of one queue family, each request decoding 1 to 6 tokens
// there, joining at its arrival, while the engine may be running an
// iteration.
const EngineChooseProgram = `fn main() {
  queue E[4] : decode {
    device gpu { }
    engine on gpu {
      tokens cap 3;
      schedule { advance running; admit waiting; }
      execute (0.1 * batch.tokens);
    }
    decode (n) { run E decode (cost(E, n)); }
  }
  workload { arrive poisson(8); turn { set n = ceil(~uniform(0, 6)); } }
  server {
    choose j in 4 by (queue(E[j]), work(E[j]) - busy(E[j]));
    E[j].decode (n);
    observe pick = j;
  }
}
`

// ScanProgram has chooses the interpreter scans (their keys read stages,
// so no index keeps them) with two and three keys, each of which it may
// leave unread for a candidate whose earlier keys already lose: first keys
// that often tie (a stage busy or not), a NaN key while a pool is empty
// (a NaN ties), and candidates whose later keys are needed once one wins;
// and one whose keys name a member by a computed index, all of whose keys
// are read.
const ScanProgram = `fn main() {
  pool slot[6] { cap 2; }
  stage svc[6] : fifo;
  workload {
    arrive poisson(5);
    turn { set u = ceil(~uniform(0, 2)); }
  }
  server {
    choose j in 6 by (busy(svc[j]) > 0 ? 1 : 0, used(slot[j]) / holders(slot[j]), queue(svc[j]) - j);
    hold slot[j] (cost(slot[j], u)) {
      run svc[j] (cost(svc[j], ~exp(0.9)));
    }
    choose k in 6 by (queue(svc[k]) + work(svc[k]), holders(slot[k]));
    choose m in 5 by (busy(svc[m + 1]), m);
    observe first = j;
    observe second = k;
    observe third = m;
  }
}
`

// CompiledProgram has a statement of each compiled form (interp/compile.go) in
// the init, turn, session and server blocks and in the bodies of a
// branch, an else, a while, a hold and a fork leg: constants, attributes,
// the clock, `now - a`, `now - a - b`, the other arithmetic over leaves
// (a product that is then added among them), `~exp` of a number and of an
// attribute, and an expression of no compiled form (sqrt).
const CompiledProgram = `fn main() {
  stage s : fifo(2);
  stage d : delay;
  stage think : delay;
  pool slots { cap 3; }
  workload {
    arrive poisson(1.5);
    init { set t0 = now; set a = ~exp(0.5); set b = ~exp(a); set c = a * b + 1; set k = 2; }
    turn { set m = ~exp(1); }
    session { turn; while (turn_no < 3) { run think (cost(think, m)); turn; } end; }
  }
  server {
    set t1 = now;
    run s (cost(s, a));
    observe wait = now - t0;
    observe less = now - t0 - a;
    observe ratio = a / b;
    observe mix = (a - b) * c;
    observe fma = a * b + c;
    observe two = k;
    observe clock = now;
    observe one = 1;
    observe sq = sqrt(a);
    branch (a > b) { observe big = now - t1; } else { observe small = c - 1; }
    hold slots (cost(slots, 1)) { run d (cost(d, b)); observe held = now - t1 - b; }
    fork { run d (cost(d, c)); observe leg = now - t1; }
    join;
  }
}
`

// FaultsProgram has every construct of a program that can fail (docs/
// language.md §9) within its first seconds: a gateway on a picture that
// routes around members seen down and falls back to decode-only, a
// prefill retried after a backoff, a lease renewed by its reader, a read
// that recomputes when it fails, a client's timeout, fixed and random
// faults of members and a stalled link: a fuzz seed and a test program.
const FaultsProgram = `fn main() {
  queue gw : gateway {
    picture refresh (0.5) delay (0.1) detect (1);
    route {
      choose j in 2 by (holders(D[j].kv) + queued(D[j].kv));
      branch (max k in 2 (up(P[k])) == 1) {
        choose i in 2 by (cachedin(P[i].kv) > 0 ? 0 : 1, queued(P[i].kv));
        P[i].prefill (n) retry (1) after (0.2);
        D[j].decode (n) from P[i];
      } else {
        D[j].decode (n);
      }
    }
  }
  queue P[2] : prefill {
    pool kv { cap 400; }
    serve ps(1);
    nic ps(100);
    prefill (n) {
      hold kv (cost(kv, n)) { run (cost(P, n / 100)); } cache (cost(kv, n)) lease kv (3) renew every (0.5) for (2);
    }
  }
  queue D[2] : decode {
    pool kv { cap 400; }
    serve ps(1);
    nic ps(100);
    decode (n) { hold kv (cost(kv, n)) { run (cost(D, n / 50)); } }
    decode (n) from P on expiry read on failure recompute {
      hold kv (cost(kv, n)) {
        set c = 0;
        transfer (n) from P to kv (n);
        set c = c + loaded;
        run (cost(D, (n - c) / 100 + 0.5));
      }
    }
  }
  D pull P latency 0.01 share maxmin;
  faults {
    D[0] down at (2) for (1);
    P down after (~exp(4)) for (~exp(1));
    P[1].nic down at (1) for (0.5) stall;
  }
  workload {
    arrive poisson(3);
    timeout (~exp(6));
    turn { set n = ceil(~uniform(20, 200)); set more = ~bernoulli(0.5); }
    session { turn; while (more || failed) { tool (0.1); turn; } }
  }
  server { gw.route(); }
  gauge leased = used(P[0].kv) + used(P[1].kv);
}
`

// CallStackProgram fails at run time in an entry called from a gateway's
// entry (its hold's units are -2, at 5:19; the calls at 9:17 and 12:12):
// the tests of RunError's serQ call stack, in interp and in serq's
// output.
const CallStackProgram = `fn main() {
  pool kv { cap 100; }
  queue P[2] : prefill {
    serve delay;
    prefill (n) { hold kv (cost(kv, n - 5)) { run (cost(P, 1)); } }
  }
  queue gw : gateway {
    serve delay;
    route (n) { P[0].prefill (n); }
  }
  workload { arrive poisson(1); init { set n = 3; } }
  server { gw.route (n); }
}
`
