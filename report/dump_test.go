package report

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/serq/serq/interp"
)

// writeDump writes the --dump files of a report that kept its samples and
// change points, as a run with a Dump for its sink writes them.
func writeDump(dir string, r *interp.Report) error {
	var obs, gauges []string
	for _, o := range r.Observes {
		obs = append(obs, o.Name)
	}
	for _, g := range r.Gauges {
		gauges = append(gauges, g.Name)
	}
	d, err := NewDump(dir, obs, gauges)
	if err != nil {
		return err
	}
	for i, o := range r.Observes {
		for _, s := range o.Samples {
			d.Sample(i, s)
		}
	}
	for i, g := range r.Gauges {
		for _, p := range g.Points {
			d.Point(i, p)
		}
	}
	d.Failures(r.Failures)
	return d.Commit(nil, nil)
}

func TestWriteDump(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "deep") // created like mkdir -p
	r := &interp.Report{
		Observes: []interp.ObserveRow{
			{Name: "rt", Samples: []interp.Sample{
				{Time: 12.5, Session: 3, Turn: 0, Value: 0.30000000000000004},
				{Time: 250000, Session: 18446744073709551615, Turn: 4294967295, Value: 0.0000001},
				{Time: 1e21, Session: 0, Turn: 1, Value: nan},
			}},
			{Name: "none"},
		},
		Gauges: []interp.GaugeRow{
			{Name: "load", Points: []interp.TimePoint{{Time: 0, Value: 0}, {Time: 1.5, Value: 2}, {Time: 3, Value: inf}}},
			{Name: "flat"},
		},
	}
	if err := writeDump(dir, r); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"rt.csv": "time,session,turn,value\n" +
			"12.5,3,0,0.30000000000000004\n" +
			"250000,18446744073709551615,4294967295,0.0000001\n" +
			"1000000000000000000000,0,1,NaN\n",
		"none.csv":       "time,session,turn,value\n",
		"gauge/load.csv": "time,value\n0,0\n1.5,2\n3,inf\n",
		"gauge/flat.csv": "time,value\n",
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	// no gauges: no gauge directory
	dir2 := t.TempDir()
	if err := writeDump(dir2, &interp.Report{Observes: []interp.ObserveRow{{Name: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir2, "gauge")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("gauge directory without gauges: %v", err)
	}

	// a DIR that is a file cannot be written
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := writeDump(file, r); err == nil {
		t.Errorf("writeDump into a file: no error")
	}
}

// TestDumpFailures checks the faults files of a program that can fail:
// a row per cause (a cause with a comma quoted, one that starts with `=`
// neutralised) and per leased pool.
func TestDumpFailures(t *testing.T) {
	dir := t.TempDir()
	r := &interp.Report{Observes: []interp.ObserveRow{{Name: "x"}}, Failures: &interp.Failures{
		Causes: []interp.FailCause{{Cause: "lease expired, read declined", Requests: 3, Sessions: 2}, {Cause: "=cmd", Requests: 1, Sessions: 1}},
		Leases: []interp.LeaseRow{{Pool: "P.kv", Granted: 10, Expired: 2, LateReads: 1, FailedReads: 1, Lost: 0, Stranded: 1, Live: 3}},
	}}
	if err := writeDump(dir, r); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"faults/causes.csv": "cause,requests,sessions\n\"lease expired, read declined\",3,2\n'=cmd,1,1\n",
		"faults/leases.csv": "pool,granted,expired,late_reads,failed_reads,lost,stranded,live\nP.kv,10,2,1,1,0,1,3\n",
	} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q (%v), want %q", name, got, err, want)
		}
	}
}

// TestDumpStopped checks that a dump whose stop says so before its second
// file is abandoned with ErrStopped, each called after the first file
// only, and that it leaves no file and removes the directory it made; and
// that Abort after a Commit changes nothing.
func TestDumpStopped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "made")
	d, err := NewDump(dir, []string{"a", "b"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	asked, each := 0, 0
	err = d.Commit(func() bool { asked++; return asked > 1 }, func() { each++ })
	if !errors.Is(err, ErrStopped) || each != 1 {
		t.Errorf("Commit = %v after %d file(s), want ErrStopped after 1", err, each)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stopped dump left %s: %v", dir, err)
	}
	d, err = NewDump(dir, []string{"a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(nil, nil); err != nil {
		t.Fatal(err)
	}
	d.Abort()
	if got, err := os.ReadFile(filepath.Join(dir, "a.csv")); err != nil || string(got) != "time,session,turn,value\n" {
		t.Errorf("a.csv after Commit and Abort = %q, %v", got, err)
	}
}
