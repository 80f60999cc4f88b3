package calib

import (
	"math"
	"testing"

	"github.com/serq/serq/vllmimport"
)

// numpy.percentile([1, 2, 3, 4, 5], 90) = 4.6, 99: 4.96; the mean 3.
func TestDist(t *testing.T) {
	d := dist([]float64{5, 1, 4, 2, 3})
	if d.Mean != 3 || math.Abs(d.P90-4.6) > 1e-12 || math.Abs(d.P99-4.96) > 1e-12 {
		t.Errorf("dist = %+v, want 3, 4.6, 4.96", d)
	}
	if d := dist(nil); !math.IsNaN(d.Mean) {
		t.Errorf("no samples: %+v", d)
	}
}

func TestGolden(t *testing.T) {
	x, err := golden(func(x float64) (float64, error) { return (x - 0.3) * (x - 0.3), nil }, 0, 1, 30)
	if err != nil || math.Abs(x-0.3) > 1e-5 {
		t.Errorf("golden = %v, %v, want 0.3", x, err)
	}
}

// The least squares finds the constants the rows were made with, and
// keeps every one at least 0 (one that would come out negative is 0).
func TestSolveStep(t *testing.T) {
	want := vllmimport.Calibration{TStep: 1.7e-3, TRequest: 20e-6, EtaMemory: 0.9, THop: 5e-6}
	var rows []stepRow
	for _, n := range []float64{10, 40, 80, 120} {
		for k, hops := range []float64{0, 192, 960} {
			bytes := ([]float64{13e9, 34e9, 47e9}[k] + n*4e8) / 3.35e12
			itl := want.TStep + want.TRequest*n + bytes/want.EtaMemory + want.THop*hops
			rows = append(rows, stepRow{itl: itl, terms: [4]float64{1, n, bytes, hops}})
		}
	}
	var got vllmimport.Calibration
	if err := solveStep(rows, &got); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]float64{{got.TStep, want.TStep}, {got.TRequest, want.TRequest}, {got.EtaMemory, want.EtaMemory}, {got.THop, want.THop}} {
		if math.Abs(c[0]-c[1]) > 1e-9*c[1] {
			t.Errorf("solveStep: %+v, want %+v", got, want)
			break
		}
	}
	// ITLs that fall with the all-reduces: t_hop would be negative
	for i := range rows {
		rows[i].itl -= 1.2 * want.THop * rows[i].terms[3]
	}
	if err := solveStep(rows, &got); err != nil || got.THop != 0 {
		t.Errorf("falling ITLs: t_hop %v, %v", got.THop, err)
	}
}

// The measured runs as calib reads them: twelve, eighteen stages, four
// overloaded, BLIS's predictions for four; a stage's ITL is (mean E2E −
// mean TTFT) / (output_len − 1), for 70B roleplay (4.5616 − 0.05475) /
// 250 = 18.03 ms (BLIS, dividing each request by its measured output
// tokens, says 18.10), which BLIS's trained physics predicted as 18.50.
func TestLoad(t *testing.T) {
	exps, err := Load("../validation/groundtruth")
	if err != nil {
		t.Fatal(err)
	}
	stages, over, blis := 0, 0, 0
	for _, e := range exps {
		stages += len(e.Stages)
		if e.Overloaded() {
			over++
		}
		if e.BLIS[0] != nil {
			blis++
		}
	}
	if len(exps) != 12 || stages != 18 || over != 4 || blis != 4 {
		t.Errorf("%d runs, %d stages, %d overloaded, %d with BLIS", len(exps), stages, over, blis)
	}
	for _, e := range exps {
		if e.Short() == "llama-2-70b-tp4-roleplay" {
			m := e.Stages[0]
			want := (4.56157099792086 - 0.05475399409082153) / 250
			if math.Abs(m.ITL-want) > 1e-12*want || e.BLIS[0]["itl_mean"] != 18.50315184777778 {
				t.Errorf("ITL %v, want %v; BLIS's prediction %v", m.ITL, want, e.BLIS[0]["itl_mean"])
			}
		}
	}
	r, err := TokenRatio(exps)
	if err != nil || math.Abs(r-1.0456) > 5e-5 {
		t.Errorf("token ratio %v, %v", r, err)
	}
}

// TestFind names the one run a part of its name picks, and says why where
// none or several do.
func TestFind(t *testing.T) {
	exps := []*Experiment{{Name: "20260218-084319-llama-2-70b-tp4-roleplay"}, {Name: "20260218-141024-mixtral-8x7b-v0-1-tp2-roleplay"}}
	if i, err := Find(exps, "70b-tp4-role"); i != 0 || err != nil {
		t.Errorf("Find 70b-tp4-role: %d, %v", i, err)
	}
	for part, want := range map[string]string{
		"roleplay": `"roleplay" names more than one run: 20260218-084319-llama-2-70b-tp4-roleplay and 20260218-141024-mixtral-8x7b-v0-1-tp2-roleplay`,
		"codegen":  `no run's name contains "codegen"; the runs: 20260218-084319-llama-2-70b-tp4-roleplay, 20260218-141024-mixtral-8x7b-v0-1-tp2-roleplay`,
	} {
		if i, err := Find(exps, part); i != -1 || err == nil || err.Error() != want {
			t.Errorf("Find %s: %d, %v; want %s", part, i, err, want)
		}
	}
}
