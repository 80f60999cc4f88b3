package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/serq/serq/internal/testutil"
)

// The hostile corpus, testdata/hostile/*.txtar: programs, IR and
// instance files that once crashed, hung, read or wrote what they should
// not. Each archive's comment holds lines
//
//	args: run prog.sq --horizon 10   (the command line, split at spaces)
//	exit: 1                          (the exit status)
//	alloc: 64                        (optional: the MiB it may allocate, default 256)
//	mkfifo: lib/fifo.sq              (optional, repeatable: a FIFO to make)
//	symlink: out/a.csv -> ../victim  (optional, repeatable: a symlink to make)
//	slow: why                        (optional: skipped with -short)
//	writes: out                      (optional, repeatable: a path the
//	                                  command may create or change; every
//	                                  other file must stay as it was)
//	made: out/d/x.csv                (optional, repeatable: with it, the
//	                                  new entries are exactly these)
//
// and its files are written into a fresh directory, which becomes the
// working directory. A file named NAME.tmpl is expanded as a text/template
// with {{repeat S N}} into NAME, so that a 75,000-deep nesting takes one
// line. The section "stderr" is the exact stderr expected ({{dir}} stands
// for the directory) and "stdout" the exact stdout (empty if absent).
//
// Each case must end within hostileDeadline (a hang fails the test
// instead of stalling it), allocate at most its bound in all, and never
// hold more than hostileHeap live: both are measured with
// runtime.MemStats, so the cases run one at a time.

const (
	hostileDeadline = 2 * time.Minute
	hostileHeap     = 1 << 30
)

func TestHostileCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/hostile/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, file := range files {
		file, _ := filepath.Abs(file)
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			c := readHostile(t, file)
			if c.slow && testing.Short() {
				t.Skip("slow: skipped with -short")
			}
			dir := t.TempDir()
			for _, f := range c.files {
				p := filepath.Join(dir, f.Name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range c.fifos {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, l := range c.symlinks {
				p := filepath.Join(dir, l[0])
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(l[1], p); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			before := snapshot(t, dir)
			code, stdout, stderr, alloc := runBounded(t, c.args)
			after := snapshot(t, dir)
			if err := unchanged(before, after, c.writes); err != nil {
				t.Error(err)
			}
			if c.made != nil {
				var made []string
				for p := range after {
					if _, ok := before[p]; !ok {
						made = append(made, filepath.ToSlash(p))
					}
				}
				slices.Sort(made)
				if !slices.Equal(made, c.made) {
					t.Errorf("made %q, want %q", made, c.made)
				}
			}
			if code != c.exit {
				t.Errorf("exit %d, want %d", code, c.exit)
			}
			if testutil.Update() {
				rewriteHostile(t, file, strings.ReplaceAll(stderr, dir, "{{dir}}"), stdout, code)
				return
			}
			want := strings.ReplaceAll(c.stderr, "{{dir}}", dir)
			if stderr != want {
				t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
			}
			if stdout != c.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, c.stdout)
			}
			if alloc > c.alloc {
				t.Errorf("allocated %d MiB, more than the case's bound of %d MiB", alloc>>20, c.alloc>>20)
			}
		})
	}
}

type hostileCase struct {
	args           []string
	exit           int
	alloc          uint64 // bytes
	stdout, stderr string
	files          []txtar.File
	slow           bool
	fifos          []string
	symlinks       [][2]string // name, target
	writes         []string    // paths (files or directories) it may change
	made           []string    // the entries it makes, sorted; nil: not checked
}

// snapshot is every entry under dir: a file's bytes, a symlink's target,
// "dir" or "fifo".
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[rel] = "link " + target
			return err
		case d.IsDir():
			out[rel] = "dir"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			out[rel] = "file " + string(b)
			return err
		default:
			out[rel] = "special"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unchanged says which entry changed, appeared or went away, outside the
// paths the command may write.
func unchanged(before, after map[string]string, writes []string) error {
	allowed := func(p string) bool {
		for _, w := range writes {
			if p == w || strings.HasPrefix(p, w+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	var diffs []string
	for p, b := range before {
		if a, ok := after[p]; !allowed(p) && (!ok || a != b) {
			diffs = append(diffs, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok && !allowed(p) {
			diffs = append(diffs, p)
		}
	}
	if len(diffs) > 0 {
		slices.Sort(diffs)
		return fmt.Errorf("it changed, made or removed what it must not: %s", strings.Join(diffs, ", "))
	}
	return nil
}

func readHostile(t *testing.T, file string) hostileCase {
	t.Helper()
	a, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := hostileCase{exit: -1, alloc: 256 << 20}
	for _, line := range strings.Split(string(a.Comment), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "args":
			c.args = strings.Fields(val)
		case "exit":
			c.exit, err = strconv.Atoi(val)
		case "slow":
			c.slow = true
		case "mkfifo":
			c.fifos = append(c.fifos, val)
		case "symlink":
			name, target, ok := strings.Cut(val, " -> ")
			if !ok {
				t.Fatalf("%s: %q: want NAME -> TARGET", file, line)
			}
			c.symlinks = append(c.symlinks, [2]string{name, target})
		case "made":
			c.made = append(c.made, val)
			slices.Sort(c.made)
		case "writes":
			c.writes = append(c.writes, filepath.FromSlash(val))
		case "alloc":
			var mib uint64
			mib, err = strconv.ParseUint(val, 10, 64)
			c.alloc = mib << 20
		}
		if err != nil {
			t.Fatalf("%s: %q: %v", file, line, err)
		}
	}
	if c.args == nil || c.exit < 0 {
		t.Fatalf("%s: the comment needs args: and exit: lines", file)
	}
	funcs := template.FuncMap{"repeat": strings.Repeat}
	for _, f := range a.Files {
		switch {
		case f.Name == "stderr":
			c.stderr = string(f.Data)
		case f.Name == "stdout":
			c.stdout = string(f.Data)
		case strings.HasSuffix(f.Name, ".tmpl"):
			tm, err := template.New(f.Name).Funcs(funcs).Parse(string(f.Data))
			if err != nil {
				t.Fatalf("%s: %s: %v", file, f.Name, err)
			}
			var b bytes.Buffer
			if err := tm.Execute(&b, nil); err != nil {
				t.Fatalf("%s: %s: %v", file, f.Name, err)
			}
			c.files = append(c.files, txtar.File{Name: strings.TrimSuffix(f.Name, ".tmpl"), Data: b.Bytes()})
		default:
			c.files = append(c.files, f)
		}
	}
	return c
}

// runBounded runs the CLI in process and returns what it returned and
// the bytes it allocated, failing the test if it runs past
// hostileDeadline or its live heap passes hostileHeap.
func runBounded(t *testing.T, args []string) (code int, stdout, stderr string, alloc uint64) {
	t.Helper()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	type result struct {
		code     int
		out, err string
		panicked any
	}
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		r := result{}
		defer func() {
			r.panicked = recover()
			r.out, r.err = out.String(), errb.String()
			done <- r
		}()
		r.code = run(args, &out, &errb)
	}()
	deadline := time.After(hostileDeadline)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			if r.panicked != nil {
				t.Fatalf("serq %s panicked: %v", strings.Join(args, " "), r.panicked)
			}
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			return r.code, r.out, r.err, after.TotalAlloc - before.TotalAlloc
		case <-deadline:
			t.Fatalf("serq %s did not end within %v: a hang", strings.Join(args, " "), hostileDeadline)
		case <-tick.C:
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > hostileHeap {
				t.Fatalf("serq %s holds %d MiB of heap, more than %d MiB: it grows without bound",
					strings.Join(args, " "), m.HeapAlloc>>20, hostileHeap>>20)
			}
		}
	}
}

// rewriteHostile stores what a case printed as its expectation (-update);
// the exit status is kept, and a case whose status changed fails.
func rewriteHostile(t *testing.T, file, stderr, stdout string, code int) {
	a, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var files []txtar.File
	for _, f := range a.Files {
		if f.Name != "stderr" && f.Name != "stdout" {
			files = append(files, f)
		}
	}
	if stdout != "" {
		files = append(files, txtar.File{Name: "stdout", Data: []byte(stdout)})
	}
	files = append(files, txtar.File{Name: "stderr", Data: []byte(stderr)})
	a.Files = files
	if err := os.WriteFile(file, txtar.Format(a), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := readHostile(t, file); c.exit != code {
		t.Errorf("exit %d, want %d", code, c.exit)
	}
}
