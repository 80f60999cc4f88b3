package interp_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/serq/serq/interp"
)

// TestTraceOrdered replays a two-session trace in order: session i takes
// recorded session i mod 2; `more` is 1 while a recorded turn remains.
func TestTraceOrdered(t *testing.T) {
	dir := t.TempDir()
	csv := "session,turn,new,out,think\na,1,100,10,1\na,2,50,20,2\nb,1,300,5,0.5\n"
	src := `fn main() {
  stage svc : fifo;
  stage think : delay;
  workload {
    arrive batch(4);
    trace "t.csv" ordered;
    session { turn; while (more) { run think (cost(think, think)); turn; } }
  }
  server { run svc (cost(svc, new / 100)); observe n = new; }
}
`
	if err := os.WriteFile(filepath.Join(dir, "t.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := loadInline(t, filepath.Join(dir, "t.sq"), src)
	rep, err := interp.Run(context.Background(), prog, interp.Options{Horizon: 100, Seed: 1, OpenTrace: interp.TraceKind.Opener()})
	if err != nil {
		t.Fatal(err)
	}
	// fifo svc: s0 100 (0–1), s1 300 (1–4), s2 100 (4–5), s3 300 (5–8);
	// s0 thinks 1 after t=1 and asks 50 at t=2, served 8–8.5; s2 at 6, 8.5–9.
	var got [][2]float64
	for _, sm := range rep.Observes[0].Samples {
		got = append(got, [2]float64{sm.Time, sm.Value})
	}
	want := [][2]float64{{1, 100}, {4, 300}, {5, 100}, {8, 300}, {8.5, 50}, {9, 50}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples (time, new) = %v, want %v", got, want)
	}
	if rep.Turns != 6 || rep.Ended != 4 {
		t.Errorf("turns %d ended %d, want 6 and 4", rep.Turns, rep.Ended)
	}
}

// TestTraceErrors names the path, row and column of a bad trace.
func TestTraceErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.csv"), []byte("session,turn,new,out,think\na,1,x,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "fn main() { stage svc : fifo; workload { arrive batch(1); trace \"t.csv\"; } server { run svc (cost(svc, new)); } }\n"
	prog := loadInline(t, filepath.Join(dir, "t.sq"), src)
	_, err := interp.New(prog, interp.Options{Horizon: 10, Seed: 1, OpenTrace: interp.TraceKind.Opener()})
	want := filepath.Join(dir, "t.csv") + `:2:3: "x" is not a number`
	if err == nil || err.Error() != want {
		t.Errorf("New error = %v, want %s", err, want)
	}
}

// TestTraceErrorCause keeps the cause of a trace that cannot be read:
// errors.Is sees the OS error through the TraceError, and without an
// opener the interpreter reads no file.
func TestTraceErrorCause(t *testing.T) {
	dir := t.TempDir()
	src := "fn main() { stage svc : fifo; workload { arrive batch(1); trace \"missing.csv\"; } server { run svc (cost(svc, new)); } }\n"
	prog := loadInline(t, filepath.Join(dir, "t.sq"), src)
	_, err := interp.New(prog, interp.Options{Horizon: 10, Seed: 1, OpenTrace: interp.TraceKind.Opener()})
	var te *interp.TraceError
	if !errors.As(err, &te) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("New error = %#v, want a TraceError wrapping fs.ErrNotExist", err)
	}
	want := filepath.Join(dir, "missing.csv") + ": cannot read: no such file or directory"
	if err.Error() != want {
		t.Errorf("New error = %q, want %q", err, want)
	}
	_, err = interp.New(prog, interp.Options{Horizon: 10, Seed: 1})
	want = filepath.Join(dir, "missing.csv") + ": cannot read: no trace opener was given (interp.Options.OpenTrace)"
	if !errors.As(err, &te) || err.Error() != want {
		t.Errorf("New error without an opener = %v, want %s", err, want)
	}
}
