package main

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzShard reads any manifest and runs.csv as a shard of sweep merge:
// a usage error or the sweep's rows, never a panic; and what is accepted
// is exactly the sweep's runs, each once, in job order.
func FuzzShard(f *testing.F) {
	manifest := `{"serq_version": "0.1.0", "file": "sw.sq", "sha256": "x", "sets": [], "defs": [], "args": [],
  "vary": [{"name": "lam", "values": [1, 2]}], "seeds": [1, 2], "horizon": 5, "warmup": 0, "points": 2, "runs": 4,
  "shard": null, "shard_runs": 4, "done": 4, "failed": 0, "complete": true}`
	runs := "point,lam,seed,response.count,response.mean,response.ci,response.p99,busy.mean,rejected,stuck,error\n" +
		"0,1,1,9,1.36,inf,2.26,0.5,0,0,\n0,1,2,5,0.56,inf,0.80,0.5,0,0,\n1,2,1,,,,,,,,'=cmd|' /C calc'!A0\n1,2,2,9,0.81,NaN,1.19,-1,0,0,\n"
	f.Add([]byte(manifest), []byte(runs))
	f.Add([]byte(manifest), []byte("point,lam,seed,rejected,stuck,error\n0,1,1,0,0,\n0,1,1,0,0,\n"))
	f.Add([]byte(`{"vary": [{"name": "a", "values": [1e300]}], "seeds": [18446744073709551615], "runs": 1, "shard": "0/1", "shard_runs": 1, "done": 1, "complete": true}`),
		[]byte("point,a,seed,x.count,x.mean,rejected,stuck,error\n0,1e300,18446744073709551615,1,2,0,0,\n"))
	f.Fuzz(func(t *testing.T, manifest, runs []byte) {
		if len(manifest)+len(runs) > 64<<10 {
			return
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, sweepManifest), manifest, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sweepRunsCSV), runs, 0o600); err != nil {
			t.Fatal(err)
		}
		spec, rows, err := mergeShards([]string{dir})
		if err != nil {
			if _, ok := err.(*usageError); !ok {
				t.Fatalf("not a usage error: %v", err)
			}
			return
		}
		if len(rows) != spec.runs() {
			t.Fatalf("%d rows for %d runs", len(rows), spec.runs())
		}
		for k := range rows {
			if rows[k].Job != k {
				t.Fatalf("row %d is run %d", k, rows[k].Job)
			}
		}
	})
}
