package interp_test

// Textbook queueing systems against their closed forms, two examples of
// max-min sharing (docs/engine.md §2), and same seed → same bytes.
//
// Tolerance. A mean passes when |mean − closed form| ≤ max(1.5·CI,
// relTol·|closed form|), CI being the report's batch-means 95 % half-width
// (20 batches, t(19) = 2.093), so 1.5·CI is about 3.1 estimated standard
// errors. Over 60 seeds of M/M/1 at rho 0.8 (horizon 200 000) the spread
// of the means was 1.07 times the CI's standard error and 1 run in 60 fell
// outside 1.5·CI: expect about one failure per 50–100 checks from a
// correct kernel whenever a change to the draws reshuffles the streams.
// Every run here has a fixed seed, so the outcome is the same on every
// machine. The relative floor, relTol = 1 %, covers what the CI cannot:
// a constant observe (M/D/1's `service` has CI 0 and a mean that is 1 up
// to rounding) and the bias of a finite run (it starts empty; the warm-up
// of 2000 is more than 20 relaxation times of every system here, e.g.
// 1/(1 − sqrt 0.8)² ≈ 90 for M/M/1 at 0.8, so what is left of the
// transient is far below 1 %, as is the loss of the few jobs still
// present at the horizon). Stage rows (utilisation, throughput, mean
// number) and a sample cv² have no CI; each check states its own
// tolerance, derived from the variance of the quantity.

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/serq/serq/internal/testutil"
	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
	"github.com/serq/serq/model"
)

// relTol is the relative floor of every closed-form comparison of a mean.
const relTol = 0.01

// ciFactor widens the report's 95 % half-width to about 3.1 standard errors.
const ciFactor = 1.5

// horizon picks the run length: long by default, a tenth under -short (the
// CI-based tolerance widens with it).
func horizon(long float64) float64 {
	if testing.Short() {
		return long / 10
	}
	return long
}

// sets turns name/value pairs into program-argument overrides
// (`-- --name value`).
func sets(kv ...string) []lang.Override {
	var o []lang.Override
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, lang.Override{Name: kv[i], Expr: kv[i+1]})
	}
	return o
}

// loadExample loads one of the repository's example programs.
func loadExample(t testing.TB, path string, args []lang.Override) *model.Program {
	t.Helper()
	p, err := lang.Load("../examples/"+path, lang.Options{Lib: lib.FS, Sets: args})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return p
}

// loadInline loads a program given as text.
func loadInline(t testing.TB, name, src string) *model.Program {
	t.Helper()
	p, err := lang.LoadSource(name, []byte(src), lang.Options{Lib: lib.FS})
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return p
}

// run simulates p and returns its report. A tenth of the run is held to
// the reference path (Options.NoFastPath): the same steps, the same report
// bit for bit.
func run(t testing.TB, p *model.Program, opt interp.Options) *interp.Report {
	t.Helper()
	start := time.Now()
	r, err := interp.Run(context.Background(), p, opt)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	short := opt
	short.Horizon, short.Warmup = opt.Horizon/10, opt.Warmup/10
	differential(t, p, short, 0)
	if tt, ok := t.(*testing.T); ok {
		tt.Logf("horizon %g: %d events in %v", opt.Horizon, r.Events, time.Since(start).Round(time.Millisecond))
	}
	return r
}

func observe(t testing.TB, r *interp.Report, name string) interp.ObserveRow {
	t.Helper()
	for _, o := range r.Observes {
		if o.Name == name {
			return o
		}
	}
	t.Fatalf("no observe %q in the report", name)
	return interp.ObserveRow{}
}

func stageRow(t testing.TB, r *interp.Report, name string) interp.StageRow {
	t.Helper()
	for _, s := range r.Stages {
		if s.DisplayName() == name {
			return s
		}
	}
	t.Fatalf("no stage %q in the report", name)
	return interp.StageRow{}
}

// checkMean asserts that observe name's mean is within
// max(ciFactor·CI, relTol·|want|) of want.
func checkMean(t *testing.T, r *interp.Report, name string, want float64) {
	t.Helper()
	o := observe(t, r, name)
	tol := math.Max(ciFactor*o.CI, relTol*math.Abs(want))
	d := math.Abs(o.Mean - want)
	verdict := "ok"
	if !(d <= tol) {
		verdict = "FAIL"
		t.Errorf("observe %s: mean %.6g ± %.4g (n %d), closed form %.6g: off by %.4g > tolerance %.4g",
			name, o.Mean, o.CI, o.Count, want, d, tol)
	}
	t.Logf("%-4s observe %-9s mean %.6f ±%.4f (n %d)  closed form %.6f  |diff| %.4f  tol %.4f",
		verdict, name, o.Mean, o.CI, o.Count, want, d, tol)
}

// checkRel asserts that got is within rel·|want| of want (stage rows,
// which have no CI).
func checkRel(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	d := math.Abs(got - want)
	verdict := "ok"
	if !(d <= rel*math.Abs(want)) {
		verdict = "FAIL"
		t.Errorf("%s = %.6g, want %.6g: off by %.2f%% > %.1f%%", what, got, want, 100*d/math.Abs(want), 100*rel)
	}
	t.Logf("%-4s %-22s %.6f  want %.6f  (%.2f%%, tol %.2f%%)", verdict, what, got, want, 100*d/math.Abs(want), 100*rel)
}

// checkUtil checks a stage's utilisation against rho when its work arrives
// at Poisson rate lam, E[S²] = es2, on c servers. The busy fraction over
// the span is the work that arrived in it, less the backlog's change, over
// c·span; the arrived work has variance lam·es2·span, so the utilisation's
// standard deviation is about sqrt(lam·es2/span)/c. Tolerance: 3 of them,
// plus 0.1 % of rho for the backlog term.
func checkUtil(t *testing.T, r *interp.Report, stage string, rho, lam, es2 float64, c int) {
	t.Helper()
	span := r.End - r.Warmup
	sd := math.Sqrt(lam*es2/span) / float64(c)
	checkRel(t, stage+" utilisation", stageRow(t, r, stage).Utilization, rho, 3*sd/rho+0.001)
}

// checkNumber checks a stage's time-average number in system, first
// against Little's law on the run itself (number = throughput × (wait +
// service), to 1 %: only the jobs present at the warm-up and at the end
// are counted differently), then against the closed form L = lam·T. The
// estimate of L is about the throughput times the estimate of T, so its
// relative error is T's (the tolerance of checkMean, relative) plus the
// throughput's, 3/sqrt(lam·span) for Poisson arrivals.
func checkNumber(t *testing.T, r *interp.Report, stage, resp string, lam, T float64) {
	t.Helper()
	st := stageRow(t, r, stage)
	checkRel(t, stage+" Little", st.MeanNumber, st.Throughput*(st.MeanWait+st.MeanService), 0.01)
	o := observe(t, r, resp)
	span := r.End - r.Warmup
	rel := math.Max(ciFactor*o.CI/T, relTol) + 3/math.Sqrt(lam*span)
	checkRel(t, stage+" mean number", st.MeanNumber, lam*T, rel)
}

// ------------------------------------------------------------ M/G/1 ----

// pkResponse is the Pollaczek-Khinchine mean response of M/G/1 FIFO.
func pkResponse(lam, meanS, cv2 float64) float64 {
	rho := lam * meanS
	return meanS + rho*meanS*(1+cv2)/(2*(1-rho))
}

// TestKernelMM1 runs mg1.sq with exponential service at rho = 0.8:
// T = mean_s/(1 − rho) = 5, W = 4, L = 4, utilisation 0.8.
func TestKernelMM1(t *testing.T) {
	t.Parallel()
	if got := pkResponse(0.8, 1, 1); math.Abs(got-5) > 1e-12 {
		t.Fatalf("P-K for M/M/1 = %v, want 5", got)
	}
	r := run(t, loadExample(t, "single-turn/mg1.sq", sets("law", "1", "lam", "0.8")),
		interp.Options{Horizon: horizon(1e6), Warmup: 2000, Seed: 1})
	checkMean(t, r, "response", 5)
	checkMean(t, r, "wait", 4)
	checkMean(t, r, "service", 1)
	checkUtil(t, r, "svc", 0.8, 0.8, 2, 1)
	checkRel(t, "svc throughput", stageRow(t, r, "svc").Throughput, 0.8, 3/math.Sqrt(0.8*(r.End-r.Warmup)))
	checkNumber(t, r, "svc", "response", 0.8, 5)
}

// TestKernelPD3 is a textbook check (docs/validation.md, "Textbook queues
// (closed forms)"): M/M/1 at rho = 0.8 with mean service 1: the 95 % CI of
// the mean response covers 5. An inline M/M/1, seed 1,
// with no observe of its own: serq's automatic `response`.
func TestKernelPD3(t *testing.T) {
	t.Parallel()
	const src = `fn main() {
  stage svc : fifo;
  workload { arrive poisson(0.8); }
  server { run svc (cost(svc, ~exp(1))); }
}
`
	r := run(t, loadInline(t, "mm1.sq", src), interp.Options{Horizon: horizon(200000), Warmup: 2000, Seed: 1})
	o := observe(t, r, "response")
	lo, hi := o.Mean-o.CI, o.Mean+o.CI
	if !(lo <= 5 && 5 <= hi) {
		t.Errorf("M/M/1: response mean %.6g, 95%% CI [%.6g, %.6g] does not cover 5", o.Mean, lo, hi)
	}
	t.Logf("response mean %.6f, 95%% CI [%.6f, %.6f] (n %d); closed form 5", o.Mean, lo, hi, o.Count)
}

// TestKernelMD1 runs mg1.sq with deterministic service at rho = 0.8:
// W = rho·mean_s/(2(1 − rho)) = 2, T = 3.
func TestKernelMD1(t *testing.T) {
	t.Parallel()
	r := run(t, loadExample(t, "single-turn/mg1.sq", sets("law", "0")),
		interp.Options{Horizon: horizon(400000), Warmup: 2000, Seed: 2})
	T := pkResponse(0.8, 1, 0)
	checkMean(t, r, "response", T)
	checkMean(t, r, "wait", T-1)
	checkMean(t, r, "service", 1)
	if o := observe(t, r, "service"); o.CV2 > 1e-12 {
		t.Errorf("~det service has cv² %v, want 0", o.CV2)
	}
	checkUtil(t, r, "svc", 0.8, 0.8, 1, 1)
	checkNumber(t, r, "svc", "response", 0.8, T)
}

// checkCV2 checks an observe's sample cv² against the law's, given the
// law's raw moments m[k] = E[S^k], k = 1…4. The sample variance s² has
// variance (mu4 − sigma⁴)/n (mu4 the fourth central moment) and the
// sample mean's square has relative standard error 2·cv/sqrt(n); the
// tolerance is 4 of each, added (a bound on the delta method's sum).
func checkCV2(t *testing.T, r *interp.Report, name string, m [5]float64) {
	t.Helper()
	o := observe(t, r, name)
	n := float64(o.Count)
	mu := m[1]
	v := m[2] - mu*mu
	mu4 := m[4] - 4*m[3]*mu + 6*m[2]*mu*mu - 3*mu*mu*mu*mu
	relS2 := math.Sqrt((mu4-v*v)/n) / v
	relMean2 := 2 * math.Sqrt(v/n) / mu
	checkRel(t, name+" cv2", o.CV2, v/(mu*mu), 4*(relS2+relMean2))
}

// erlangMoments are E[S^k] of ~erlang(k, mean): a gamma law of shape k and
// scale mean/k, E[S^j] = scale^j·k(k+1)…(k+j−1).
func erlangMoments(k int, mean float64) (m [5]float64) {
	scale := mean / float64(k)
	m[0] = 1
	for j := 1; j <= 4; j++ {
		m[j] = m[j-1] * scale * float64(k+j-1)
	}
	return m
}

// h2Moments are E[S^k] of ~h2(mean, cv2) as docs/language.md §6.4 draws it:
// with p = (1 + sqrt((v−1)/(v+1)))/2, exp of mean mean/(2p) with
// probability p, else exp of mean mean/(2(1−p)); E[S^j] = Σ p_i j! m_i^j.
func h2Moments(mean, cv2 float64) (m [5]float64) {
	v := math.Max(cv2, 1)
	p := (1 + math.Sqrt((v-1)/(v+1))) / 2
	m1, m2 := mean/(2*p), mean/(2*(1-p))
	fact := 1.0
	m[0] = 1
	for j := 1; j <= 4; j++ {
		fact *= float64(j)
		m[j] = fact * (p*math.Pow(m1, float64(j)) + (1-p)*math.Pow(m2, float64(j)))
	}
	return m
}

// TestKernelMErlang runs mg1.sq with ~erlang(4, 1) at rho = 0.8:
// cv² = 1/4, T = 1 + 0.8·1.25/0.4 = 3.5.
func TestKernelMErlang(t *testing.T) {
	t.Parallel()
	r := run(t, loadExample(t, "single-turn/mg1.sq", sets("law", "2")),
		interp.Options{Horizon: horizon(300000), Warmup: 2000, Seed: 8})
	checkMean(t, r, "response", pkResponse(0.8, 1, 0.25))
	checkMean(t, r, "service", 1)
	checkCV2(t, r, "service", erlangMoments(4, 1))
}

// TestKernelMH2 runs mg1.sq with the h2 law (cv² = 4) at rho = 0.5:
// T = 1 + 0.5·5/(2·0.5) = 3.5, a check of ~h2's second moment.
func TestKernelMH2(t *testing.T) {
	t.Parallel()
	r := run(t, loadExample(t, "single-turn/mg1.sq", sets("law", "3", "cv2", "4", "lam", "0.5")),
		interp.Options{Horizon: horizon(400000), Warmup: 2000, Seed: 3})
	checkMean(t, r, "response", pkResponse(0.5, 1, 4))
	checkMean(t, r, "service", 1)
	m := h2Moments(1, 4)
	if math.Abs(m[1]-1) > 1e-12 || math.Abs(m[2]-5) > 1e-12 {
		t.Fatalf("h2Moments(1, 4) = %v: want E[S] 1, E[S²] 5", m)
	}
	checkCV2(t, r, "service", m)
	checkUtil(t, r, "svc", 0.5, 0.5, 5, 1)
}

// ------------------------------------------------------------ M/M/c ----

// erlangC is the probability that an M/M/c arrival waits, offered load a.
func erlangC(c int, a float64) float64 {
	sum, term := 0.0, 1.0 // term = a^k/k!
	for k := 0; k < c; k++ {
		sum += term
		term *= a / float64(k+1)
	}
	top := term * float64(c) / (float64(c) - a)
	return top / (sum + top)
}

// TestKernelMMC runs mmc.sq at its defaults (c 4, lam 3, mean_s 1):
// C = 27/53, W = 27/53, T = 80/53.
func TestKernelMMC(t *testing.T) {
	t.Parallel()
	c := erlangC(4, 3)
	if math.Abs(c-27.0/53) > 1e-12 {
		t.Fatalf("erlangC(4, 3) = %v, want 27/53", c)
	}
	r := run(t, loadExample(t, "single-turn/mmc.sq", sets("lam", "3")),
		interp.Options{Horizon: horizon(200000), Warmup: 2000, Seed: 4})
	checkMean(t, r, "response", 1+c/(4-3))
	checkMean(t, r, "wait", c/(4-3))
	checkMean(t, r, "delayed", c)
	// fifo(4): the utilisation is the busy fraction of the 4 servers, a/c.
	checkUtil(t, r, "svc", 0.75, 3, 2, 4)
	checkNumber(t, r, "svc", "response", 3, 1+c)
}

// ----------------------------------------------------------- M/G/1-PS ----

// TestKernelPS runs ps.sq at its defaults (lam 0.7, h2 with cv² = 9):
// T = mean_s/(1 − rho) = 10/3 whatever the law, mean slowdown 10/3,
// E[N] = 7/3.
func TestKernelPS(t *testing.T) {
	t.Parallel()
	r := run(t, loadExample(t, "single-turn/ps.sq", sets("law", "3", "cv2", "9")),
		interp.Options{Horizon: horizon(1e6), Warmup: 2000, Seed: 5})
	checkMean(t, r, "response", 1/(1-0.7))
	checkMean(t, r, "slowdown", 1/(1-0.7))
	checkUtil(t, r, "svc", 0.7, 0.7, 10, 1)
	checkNumber(t, r, "svc", "response", 0.7, 1/(1-0.7))
}

// TestKernelPSInsensitive runs ps.sq with deterministic service: the same
// T = 10/3 (insensitivity), where FIFO would give 1 + 0.7/0.6 = 2.1667.
func TestKernelPSInsensitive(t *testing.T) {
	t.Parallel()
	r := run(t, loadExample(t, "single-turn/ps.sq", sets("law", "0")),
		interp.Options{Horizon: horizon(200000), Warmup: 2000, Seed: 10})
	checkMean(t, r, "response", 1/(1-0.7))
	checkMean(t, r, "slowdown", 1/(1-0.7))
}

// ------------------------------------------------------ M/M/1//N ----

// mva is exact mean-value analysis of one FIFO server of rate mu with n
// customers thinking Z: response R and throughput X.
func mva(n int, mu, z float64) (r, x float64) {
	l := 0.0
	for k := 1; k <= n; k++ {
		r = (1 + l) / mu
		x = float64(k) / (r + z)
		l = x * r
	}
	return r, x
}

// TestKernelClosed runs closed.sq at its defaults (N 8, mu 1, Z 4):
// R = 69372/16319, W = R − 1, X = 16319/16831.
func TestKernelClosed(t *testing.T) {
	t.Parallel()
	R, X := mva(8, 1, 4)
	if math.Abs(R-69372.0/16319) > 1e-12 || math.Abs(X-16319.0/16831) > 1e-12 {
		t.Fatalf("MVA gives R %v, X %v; closed.sq's header says 69372/16319, 16319/16831", R, X)
	}
	r := run(t, loadExample(t, "multi-turn/closed.sq", sets("N", "8", "mu", "1", "Z", "4")),
		interp.Options{Horizon: horizon(400000), Warmup: 2000, Seed: 6})
	checkMean(t, r, "response", R)
	checkMean(t, r, "wait", R-1)
	// Near saturation (U = 0.97) the utilisation and throughput vary
	// little: 1 %.
	svc := stageRow(t, r, "svc")
	checkRel(t, "svc utilisation", svc.Utilization, X, 0.01)
	checkRel(t, "svc throughput", svc.Throughput, X, 0.01)
	checkNumber(t, r, "svc", "response", X, R)
	checkRel(t, "think mean number", stageRow(t, r, "think").MeanNumber, X*4, 0.02)
	checkRel(t, "mean live", r.MeanLive, 8, 1e-9)
}

// TestKernelClosedSmall is M/M/1//N at N 2, mu 1, Z 1: p_k ∝ 1, 2, 2,
// so p_0 = 1/5, X = 4/5 and R = N/X − Z = 3/2 (MVA agrees), a small
// population where thinking and service overlap most.
func TestKernelClosedSmall(t *testing.T) {
	t.Parallel()
	R, X := mva(2, 1, 1)
	if math.Abs(R-1.5) > 1e-12 || math.Abs(X-0.8) > 1e-12 {
		t.Fatalf("MVA(2, 1, 1) = R %v, X %v; want 3/2, 4/5", R, X)
	}
	r := run(t, loadExample(t, "multi-turn/closed.sq", sets("N", "2", "Z", "1")),
		interp.Options{Horizon: horizon(200000), Warmup: 2000, Seed: 11})
	checkMean(t, r, "response", R)
	checkRel(t, "svc throughput", stageRow(t, r, "svc").Throughput, X, 0.01)
}

// ------------------------------------------------------------ tandem ----

// TestKernelTandem runs tandem.sq at its defaults (lam 0.5, m1 1, m2 1.5):
// T_1 = 2, T_2 = 6, T = 8 (Jackson).
func TestKernelTandem(t *testing.T) {
	t.Parallel()
	r := run(t, loadExample(t, "single-turn/tandem.sq", sets("lam", "0.5", "m1", "1", "m2", "1.5")),
		interp.Options{Horizon: horizon(600000), Warmup: 2000, Seed: 7})
	checkMean(t, r, "at_front", 2)
	checkMean(t, r, "at_back", 6)
	checkMean(t, r, "response", 8)
	checkUtil(t, r, "front", 0.5, 0.5, 2, 1)
	checkUtil(t, r, "back", 0.75, 0.5, 2*1.5*1.5, 1)
	checkNumber(t, r, "front", "at_front", 0.5, 2)
	checkNumber(t, r, "back", "at_back", 0.5, 6)
}

// ----------------------------------------------------------- max-min ----

// flowEnds runs a flow program to its end and returns each observe's one
// sample (a flow's completion time, `observe fN = now;`).
func flowEnds(t *testing.T, name, src string) (map[string]float64, *interp.Report) {
	t.Helper()
	r := run(t, loadInline(t, name, src), interp.Options{Horizon: 100, Seed: 1})
	out := map[string]float64{}
	for _, o := range r.Observes {
		if !strings.HasPrefix(o.Name, "f") {
			continue // the automatic `response`
		}
		if o.Count != 1 {
			t.Errorf("%s: observe %s has %d samples, want 1", name, o.Name, o.Count)
			continue
		}
		out[o.Name] = o.Mean
	}
	return out, r
}

// checkFlowStage checks a shared stage's row after a flow program: flows
// done there (a flow counts once at each of its stages), time-average
// flows present and utilisation Σ r_f/φ, over the horizon of 100.
func checkFlowStage(t *testing.T, r *interp.Report, name string, done uint64, number, util float64) {
	t.Helper()
	st := stageRow(t, r, name)
	if st.Completed != done || math.Abs(st.MeanNumber-number) > 1e-9 || math.Abs(st.Utilization-util) > 1e-9 {
		t.Errorf("stage %s: done %d, number %.12g, util %.12g; want %d, %.12g, %.12g",
			name, st.Completed, st.MeanNumber, st.Utilization, done, number, util)
	}
}

func checkEnds(t *testing.T, got map[string]float64, want map[string]float64) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(want)) {
		w := want[name]
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: no completion", name)
			continue
		}
		verdict := "ok"
		if math.Abs(g-w) > 1e-9 {
			verdict = "FAIL"
			t.Errorf("%s ends at %.12g, want %.12g", name, g, w)
		}
		t.Logf("%-4s %s ends at %.12g (want %.12g)", verdict, name, g, w)
	}
}

// maxminA is max-min example (a) (docs/engine.md §2): two work-1 flows share egress φ = 1,
// each with its own ingress φ = 1; both start at t = 1 (a delay of 1 on
// the `gate` stage first).
const maxminA = `fn main() {
  stage gate : delay;
  stage in1 : ps(1);
  stage in2 : ps(1);
  stage egress : ps(1);
  share RULE;
  workload { arrive batch(2); }
  server {
    run gate (cost(gate, 1));
    branch (serial == 0) {
      run in1, egress (cost(in1, egress, 1));
      observe f1 = now;
    } else {
      run in2, egress (cost(in2, egress, 1));
      observe f2 = now;
    }
  }
}
`

// maxminB is max-min example (b): A (φ = 1) carries f1 and f2, B
// (φ = 2) carries f1 and f3, all of work 1. Session k is flow k+1; the
// gate delay is serial·0 (all start at 0, through the same statements).
const maxminB = `fn main() {
  stage gate : delay;
  stage A : ps(1);
  stage B : ps(2);
  share RULE;
  workload { arrive batch(3); }
  server {
    run gate (cost(gate, serial * 0));
    branch (serial == 0) {
      run A, B (cost(A, B, 1));
      observe f1 = now;
    } else {
      branch (serial == 1) {
        run A (cost(A, 1));
        observe f2 = now;
      } else {
        run B (cost(B, 1));
        observe f3 = now;
      }
    }
  }
}
`

func TestMaxMinExamples(t *testing.T) {
	t.Parallel()
	for _, rule := range []string{"maxmin", "bottleneck"} {
		t.Run("a/"+rule, func(t *testing.T) {
			got, r := flowEnds(t, "a.sq", strings.Replace(maxminA, "RULE", rule, 1))
			checkEnds(t, got, map[string]float64{"f1": 3, "f2": 3})
			// Two flows on egress over [1, 3], carrying 1 in all.
			checkFlowStage(t, r, "egress", 2, 4.0/100, 2.0/100)
			checkFlowStage(t, r, "in1", 1, 2.0/100, 1.0/100)
		})
	}
	t.Run("b/maxmin", func(t *testing.T) {
		got, r := flowEnds(t, "b.sq", strings.Replace(maxminB, "RULE", "maxmin", 1))
		checkEnds(t, got, map[string]float64{"f1": 2, "f2": 2, "f3": 2.0 / 3})
		// A: f1, f2 over [0, 2]. B: f1, f3 over [0, 2/3], f1 to 2; it
		// carries 2 units of work at φ = 2.
		checkFlowStage(t, r, "A", 2, 4.0/100, 2.0/100)
		checkFlowStage(t, r, "B", 2, (2*2.0/3+4.0/3)/100, 1.0/100)
	})
	t.Run("b/bottleneck", func(t *testing.T) {
		got, r := flowEnds(t, "b.sq", strings.Replace(maxminB, "RULE", "bottleneck", 1))
		checkEnds(t, got, map[string]float64{"f1": 2, "f2": 2, "f3": 1})
		checkFlowStage(t, r, "A", 2, 4.0/100, 2.0/100)
		checkFlowStage(t, r, "B", 2, (2*1.0+1)/100, 1.0/100)
	})
	// (b) under maxmin with staggered starts through the gate (flow k+1
	// starts at k/2), so that rates are recomputed with work half done:
	//   [0, 1/2)    f1 alone: rate min(1, 2) = 1; 1/2 left at 1/2.
	//   [1/2, 1)    f2 joins A: A is the tightest (1/2 each); f1 has 1/4
	//               left at 1, f2 3/4.
	//   [1, 3/2)    f3 joins B: A still freezes f1, f2 at 1/2, B gives
	//               f3 the rest, 3/2; f1 ends at 1 + (1/4)/(1/2) = 3/2,
	//               f3 has 1 − 3/4 = 1/4 left, f2 1/2.
	//   [3/2, …)    f3 alone on B at 2: ends at 3/2 + 1/8 = 13/8; f2
	//               alone on A at 1: ends at 2.
	t.Run("b/maxmin-staggered", func(t *testing.T) {
		src := strings.Replace(maxminB, "RULE", "maxmin", 1)
		src = strings.Replace(src, "serial * 0", "serial / 2", 1)
		got, _ := flowEnds(t, "b2.sq", src)
		checkEnds(t, got, map[string]float64{"f1": 1.5, "f2": 2, "f3": 13.0 / 8})
	})
}

// ------------------------------------------------------- determinism ----

// reportJSON encodes the whole report, per-sample data included.
func reportJSON(t testing.TB, r *interp.Report) []byte { return testutil.JSON(t, r) }

// TestDeterminism runs the same program, seed and arguments twice, in
// fresh loads, and wants byte-identical JSON of the whole report (samples
// and gauge points included); a different seed must change it.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	cases := []struct {
		path    string
		args    []lang.Override
		horizon float64
	}{
		{"single-turn/mg1.sq", sets("law", "3", "cv2", "9"), 5000},
		{"single-turn/ps.sq", nil, 5000},
		{"multi-turn/closed.sq", sets("N", "4"), 5000},
		{"single-turn/vllm.sq", nil, 50},
		{"pd-disaggregation/llmd_nixl_pull.sq", sets("thr", "1"), 30},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			opt := interp.Options{Horizon: c.horizon, Warmup: c.horizon / 10, Seed: 42, Version: "test"}
			a := reportJSON(t, run(t, loadExample(t, c.path, c.args), opt))
			b := reportJSON(t, run(t, loadExample(t, c.path, c.args), opt))
			if !bytes.Equal(a, b) {
				i := 0
				for i < len(a) && i < len(b) && a[i] == b[i] {
					i++
				}
				lo := max(0, i-80)
				t.Fatalf("same seed, different reports (%d and %d bytes); first difference at byte %d:\n%s\n%s",
					len(a), len(b), i, a[lo:min(len(a), i+80)], b[lo:min(len(b), i+80)])
			}
			opt.Seed = 43
			if d := reportJSON(t, run(t, loadExample(t, c.path, c.args), opt)); bytes.Equal(a, d) {
				t.Errorf("seeds 42 and 43 give the same report")
			}
			t.Logf("%d bytes, identical", len(a))
		})
	}
	// Stepping and running agree: RunUntil at times between events, then
	// one event at a time, gives Run's bytes.
	t.Run("step", func(t *testing.T) {
		p := loadExample(t, "multi-turn/closed.sq", nil)
		opt := interp.Options{Horizon: 2000, Warmup: 200, Seed: 9}
		a := reportJSON(t, run(t, p, opt))
		s, err := interp.New(loadExample(t, "multi-turn/closed.sq", nil), opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []float64{0.5, 100, 100.25, 333.3, 1000} {
			if !s.RunUntil(u) {
				t.Fatalf("RunUntil(%g) ended the run", u)
			}
			if s.Now() != u {
				t.Fatalf("after RunUntil(%g) the clock is %g", u, s.Now())
			}
		}
		for s.Step() {
		}
		if s.Err() != nil {
			t.Fatal(s.Err())
		}
		if b := reportJSON(t, s.Report()); !bytes.Equal(a, b) {
			t.Fatalf("Step-by-step report differs from Run's (%d vs %d bytes)", len(b), len(a))
		}
	})
}

// Example-independent guard: the helpers above must see every observe of
// the examples they read (a renamed observe fails loudly, not silently).
func TestKernelExampleObserves(t *testing.T) {
	want := map[string][]string{
		"single-turn/mg1.sq":    {"response", "wait", "service"},
		"single-turn/mmc.sq":    {"response", "wait", "delayed"},
		"single-turn/ps.sq":     {"response", "slowdown"},
		"single-turn/tandem.sq": {"at_front", "at_back", "response"},
		"multi-turn/closed.sq":  {"response", "wait"},
	}
	for path, names := range want {
		p := loadExample(t, path, nil)
		got := fmt.Sprint(p.Observes)
		for _, n := range names {
			if !strings.Contains(got, n) {
				t.Errorf("%s: no observe %q (has %s)", path, n, got)
			}
		}
	}
}
