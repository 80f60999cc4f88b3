package main

// `serq sweep merge --out DIR SHARD_DIR…`: the directories of the n shards
// of one sweep (serq sweep --shard i/n) combined into exactly the files
// the unsharded sweep writes.

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/serq/serq/internal/safeio"
)

// sweepUsage is the usage line of `serq sweep`.
const sweepUsage = "serq sweep FILE --vary NAME=V1,V2,…|A:B:STEP... [--seeds A-B] --horizon T [--warmup T] " +
	"[--jobs N] [--out DIR] [--shard i/n] [--fail-fast] [--plot [--metric NAME]...] " +
	"[--set name=expr]... [--def name=expr]... [-- --name value ...] | serq sweep merge --out DIR SHARD_DIR..."

const mergeUsage = "serq sweep merge --out DIR SHARD_DIR..."

// runSweepMerge runs `serq sweep merge` with the arguments after "merge".
func runSweepMerge(args []string, stdout, stderr io.Writer) int {
	fail := func(msg string) int {
		fmt.Fprintf(stderr, "error: %s\nusage: %s\n", msg, mergeUsage)
		return 2
	}
	var out string
	var dirs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--help" || a == "-h":
			fmt.Fprintf(stdout, "usage: %s\n\nCombine the output directories of the shards of one sweep (serq sweep --shard i/n --out SHARD_DIR)\n"+
				"into DIR: the same files, byte for byte, as the sweep run unsharded.\n", mergeUsage)
			return 0
		case a == "--out":
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return fail("missing value for --out\nhelp: supply a value immediately after --out")
			}
			i++
			out = args[i]
		case strings.HasPrefix(a, "--out="):
			out = strings.TrimPrefix(a, "--out=")
		case strings.HasPrefix(a, "-"):
			return fail(fmt.Sprintf("unknown option `%s`\nhelp: use the options in the usage below", a))
		default:
			dirs = append(dirs, a)
		}
	}
	if out == "" {
		return fail("missing --out DIR\nhelp: name the directory to write the merged sweep into")
	}
	if len(dirs) == 0 {
		return fail("no shard directories\nhelp: list the --out directories of every shard")
	}
	spec, rows, err := mergeShards(dirs)
	if err != nil {
		var uerr *usageError
		if errors.As(err, &uerr) {
			return fail(uerr.msg)
		}
		fmt.Fprintf(stderr, "serq sweep merge: %v\n", err)
		return 1
	}
	// A signal while the files are written leaves no temporary behind,
	// and DIR is refused while another serq writes it.
	defer safeio.Guard()()
	err = os.MkdirAll(out, 0o777)
	var unlock func()
	if err == nil {
		unlock, err = safeio.LockDir(out)
	}
	if err == nil {
		err = writeSweepDir(out, spec, "", rows, spec.runs())
		unlock()
	}
	if err != nil {
		fmt.Fprintf(stderr, "serq sweep merge: cannot write %s: %v\n", out, err)
		return 1
	}
	fmt.Fprintf(stdout, "merge: %s, %s; wrote %s\n", plural(len(dirs), "shard"), plural(len(rows), "run"), out)
	return 0
}

// manifest is sweep.json as read back.
type manifest struct {
	Version string   `json:"serq_version"`
	File    string   `json:"file"`
	SHA256  string   `json:"sha256"`
	Sets    []string `json:"sets"`
	Defs    []string `json:"defs"`
	Args    []string `json:"args"`
	Vary    []struct {
		Name   string    `json:"name"`
		Values []float64 `json:"values"`
	} `json:"vary"`
	Seeds     []uint64 `json:"seeds"`
	Horizon   float64  `json:"horizon"`
	Warmup    float64  `json:"warmup"`
	Points    int      `json:"points"`
	Runs      int      `json:"runs"`
	Shard     *string  `json:"shard"`
	ShardRuns int      `json:"shard_runs"`
	Done      int      `json:"done"`
	Complete  bool     `json:"complete"`
}

// The files of a shard as merge reads them (internal/safeio): regular
// files, of at most these sizes. A sweep is at most maxSweepRuns runs;
// its manifest lists its values and seeds (20 bytes or so each), its
// runs.csv has a row per run.
var (
	manifestKind = safeio.Kind{What: "a sweep's manifest", Exts: []string{".json"}, Limit: 64 << 20}
	runsKind     = safeio.Kind{What: "a sweep's runs", Exts: []string{".csv"}, Limit: 1 << 30}
)

// readManifest reads dir/sweep.json.
func readManifest(dir string) (*manifest, error) {
	b, err := manifestKind.Read(filepath.Join(dir, sweepManifest))
	if err != nil {
		return nil, usagef("%s is not a sweep's output: %v\nhelp: list directories written by serq sweep --shard i/n --out DIR", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, usagef("%s: %s does not read: %v", dir, sweepManifest, err)
	}
	return &m, nil
}

// identity is what two shards of one sweep share, field by field.
func (m *manifest) identity() [][2]string {
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	return [][2]string{
		{"serq_version", m.Version}, {"file", m.File}, {"sha256", m.SHA256},
		{"sets", j(m.Sets)}, {"defs", j(m.Defs)}, {"args", j(m.Args)},
		{"vary", j(m.Vary)}, {"seeds", j(m.Seeds)},
		{"horizon", j(m.Horizon)}, {"warmup", j(m.Warmup)}, {"runs", j(m.Runs)},
	}
}

// mergeShards reads and checks the shards and returns the sweep's spec
// and all its rows in job order.
func mergeShards(dirs []string) (*sweepSpec, []sweepRow, error) {
	var first *manifest
	seen := map[int]string{}
	n := 0
	var rows []sweepRow
	var spec *sweepSpec
	for _, dir := range dirs {
		m, err := readManifest(dir)
		if err != nil {
			return nil, nil, err
		}
		i, k := 0, 1
		if m.Shard != nil {
			if i, k, err = parseShard(*m.Shard); err != nil {
				return nil, nil, usagef("%s: bad shard %q in %s", dir, *m.Shard, sweepManifest)
			}
		}
		if first == nil {
			first, n = m, k
			spec = &sweepSpec{Version: m.Version, File: m.File, SHA256: m.SHA256, Sets: m.Sets, Defs: m.Defs, Args: m.Args,
				Seeds: m.Seeds, Horizon: m.Horizon, Warmup: m.Warmup, Shards: 1}
			for _, v := range m.Vary {
				spec.Vary = append(spec.Vary, sweepVary{Name: v.Name, Values: v.Values})
			}
			if len(spec.Vary) == 0 || len(spec.Seeds) == 0 || spec.checkRuns() != nil || spec.runs() != m.Runs {
				return nil, nil, usagef("%s: %s does not describe a sweep", dir, sweepManifest)
			}
		} else {
			a, b := first.identity(), m.identity()
			for f := range a {
				if a[f][1] != b[f][1] {
					return nil, nil, usagef("%s and %s are shards of different sweeps: they differ in %s (%s, %s)\nhelp: merge the shards of one serq sweep command line",
						dirs[0], dir, a[f][0], a[f][1], b[f][1])
				}
			}
			if k != n {
				return nil, nil, usagef("%s and %s are shards of different sweeps: one of %d parts, one of %d\nhelp: merge the shards of one serq sweep command line", dirs[0], dir, n, k)
			}
		}
		if other, dup := seen[i]; dup {
			return nil, nil, usagef("%s and %s are both shard %d/%d", other, dir, i, n)
		}
		seen[i] = dir
		want := shardJobs(&sweepSpec{Vary: spec.Vary, Seeds: spec.Seeds, Shards: n}, i).n
		if m.ShardRuns != want {
			return nil, nil, usagef("%s: %s says shard %d/%d has %s; it has %d\nhelp: run that shard again", dir, sweepManifest, i, n, plural(m.ShardRuns, "run"), want)
		}
		if !m.Complete || m.Done != m.ShardRuns {
			return nil, nil, usagef("shard %s is incomplete: %d of its %d runs done\nhelp: run that shard again to the end", dir, m.Done, m.ShardRuns)
		}
		got, err := readRunsCSV(dir, spec, want)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range got {
			if r.Job%n != i {
				return nil, nil, usagef("%s: run %d is not one of shard %d/%d", dir, r.Job, i, n)
			}
		}
		if len(got) != m.ShardRuns {
			return nil, nil, usagef("%s: %s has %d runs, %s says %d", dir, sweepRunsCSV, len(got), sweepManifest, m.ShardRuns)
		}
		rows = append(rows, got...)
	}
	var missing []string
	for i := range n {
		if _, ok := seen[i]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, nil, usagef("shard(s) %s of %d missing\nhelp: list the directory of every shard", strings.Join(missing, ", "), n)
	}
	slices.SortFunc(rows, func(a, b sweepRow) int { return a.Job - b.Job })
	if err := exactlyTheJobs(spec, rows, dirs); err != nil {
		return nil, nil, err
	}
	return spec, rows, nil
}

// exactlyTheJobs checks that rows, in job order, are the sweep's runs,
// each once: a shard whose rows were doubled or lost (edited, or written
// by another serq) is refused at its first duplicated or missing run.
func exactlyTheJobs(spec *sweepSpec, rows []sweepRow, dirs []string) error {
	label := func(j int) string {
		p := j / len(spec.Seeds)
		return fmt.Sprintf("run %d (point %d, %s, seed %d)", j, p, pointLabel(spec, p), spec.Seeds[j%len(spec.Seeds)])
	}
	for k := range rows {
		switch j := rows[k].Job; {
		case j > k:
			return usagef("%s is in no shard's %s\nhelp: run its shard again", label(k), sweepRunsCSV)
		case j < k:
			return usagef("%s appears twice in the shards' %s\nhelp: run its shard again", label(j), sweepRunsCSV)
		}
	}
	if len(rows) < spec.runs() {
		return usagef("%s is in no shard's %s\nhelp: run its shard again", label(len(rows)), sweepRunsCSV)
	}
	return nil
}

// readRunsCSV reads dir/runs.csv back into rows, the raw values of its
// neutralised cells (safeio.CSVValue); a file of more than want rows is
// refused at the first past them.
func readRunsCSV(dir string, spec *sweepSpec, want int) ([]sweepRow, error) {
	path := filepath.Join(dir, sweepRunsCSV)
	f, r, err := runsKind.Open(path)
	if err != nil {
		return nil, usagef("%s: %v", dir, err)
	}
	defer f.Close()
	cr := csv.NewReader(r)
	cr.ReuseRecord = false
	read := func() ([]string, error) {
		rec, err := cr.Read()
		for i := range rec {
			rec[i] = safeio.CSVValue(rec[i])
		}
		return rec, err
	}
	head, err := read()
	if err != nil {
		return nil, usagef("%s does not read as a sweep's runs: %v", path, err)
	}
	bad := func(line int, what string) error {
		return usagef("%s:%d: %s", path, line, what)
	}
	nv := len(spec.Vary)
	// The columns after the metrics: rejected, stuck, the failures totals
	// of a program that can fail a request, error.
	tail := append([]string{"rejected", "stuck"}, failureMetrics[:]...)
	tail = append(tail, "error")
	if len(head) < nv+2+len(tail) || !slices.Equal(head[len(head)-len(tail):], tail) {
		tail = []string{"rejected", "stuck", "error"}
	}
	nt := len(tail)
	if len(head) < nv+2+nt || head[0] != "point" || head[nv+1] != "seed" || !slices.Equal(head[len(head)-nt:], tail) {
		return nil, bad(1, "not the header of a sweep's runs")
	}
	metricCols := head[nv+2 : len(head)-nt]
	seedIndex := make(map[uint64]int, len(spec.Seeds)) // a lookup per row, not a scan: up to 1,000,000 each
	for i, s := range spec.Seeds {
		seedIndex[s] = i
	}
	var rows []sweepRow
	for line := 2; ; line++ {
		rec, err := read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, usagef("%s does not read as a sweep's runs: %v", path, err)
		}
		if len(rows) == want {
			return nil, bad(line, fmt.Sprintf("more rows than the shard's %d runs", want))
		}
		p, err := strconv.Atoi(rec[0])
		if err != nil || p < 0 || p >= spec.points() {
			return nil, bad(line, "bad point "+rec[0])
		}
		seed, err := parseCount(rec[nv+1])
		s, ok := seedIndex[seed]
		if err != nil || !ok {
			return nil, bad(line, "bad seed "+rec[nv+1])
		}
		row := sweepRow{Job: p*len(spec.Seeds) + s, Err: rec[len(rec)-1]}
		cells := rec[nv+2 : len(rec)-nt]
		num := func(c int) (float64, error) { return strconv.ParseFloat(cells[c], 64) }
		for c := 0; c < len(metricCols); {
			name, field, _ := strings.Cut(metricCols[c], ".")
			if field == "count" && c+3 < len(metricCols) {
				c0 := c
				c += 4
				if cells[c0] == "" {
					continue
				}
				o := sweepObs{Name: name}
				var e [4]error
				o.Count, e[0] = parseCount(cells[c0])
				o.Mean, e[1] = num(c0 + 1)
				o.CI, e[2] = num(c0 + 2)
				o.P99, e[3] = num(c0 + 3)
				if errors.Join(e[:]...) != nil {
					return nil, bad(line, "bad values of observe "+name)
				}
				row.Obs = append(row.Obs, o)
				continue
			}
			c++
			if cells[c-1] == "" {
				continue
			}
			x, err := num(c - 1)
			if err != nil {
				return nil, bad(line, "bad value of "+metricCols[c-1])
			}
			row.Gauges = append(row.Gauges, sweepGauge{Name: name, Mean: x})
		}
		after := rec[len(rec)-nt : len(rec)-1]
		if row.Err == "" {
			var e1, e2 error
			row.Rejected, e1 = parseCount(after[0])
			row.Stuck, e2 = parseCount(after[1])
			if e1 != nil || e2 != nil {
				return nil, bad(line, "bad rejected or stuck")
			}
		}
		if nt > 3 && after[2] != "" {
			row.Failures = new(sweepFailures)
			for k := range failureMetrics {
				if row.Failures[k], err = parseCount(after[2+k]); err != nil {
					return nil, bad(line, "bad "+failureMetrics[k])
				}
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}
