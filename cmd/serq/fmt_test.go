package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	fmtMessy = "fn main(){\nstage s:fifo;\n  workload { arrive poisson(1) ; }\nserver{run s (cost(s,1));}   // one\n}\n"
	fmtTidy  = "fn main() {\n  stage s : fifo;\n  workload { arrive poisson(1); }\n  server { run s (cost(s, 1)); }  // one\n}\n"
	fmtBad   = "fn main() {\n  stage s : fifo\n}\n"
)

// fmtRun runs `serq fmt ARGS…` with stdin.
func fmtRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	old := fmtStdin
	fmtStdin = strings.NewReader(stdin)
	defer func() { fmtStdin = old }()
	return serq(t, append([]string{"fmt"}, args...)...)
}

func TestFmtStdin(t *testing.T) {
	if code, out, errs := fmtRun(t, fmtMessy); code != 0 || out != fmtTidy || errs != "" {
		t.Errorf("serq fmt < messy = %d, %q, %q; want 0, %q, \"\"", code, out, errs, fmtTidy)
	}
	if code, out, errs := fmtRun(t, fmtMessy, "--check"); code != 1 || out != "" || errs != "would reformat <stdin>\n" {
		t.Errorf("serq fmt --check < messy = %d, %q, %q", code, out, errs)
	}
	if code, out, errs := fmtRun(t, fmtTidy, "--check"); code != 0 || out != "" || errs != "" {
		t.Errorf("serq fmt --check < tidy = %d, %q, %q", code, out, errs)
	}
	want := "<stdin>:3:1: unexpected \"}\", want `;`\n | }\n | ^\n"
	if code, out, errs := fmtRun(t, fmtBad); code != 1 || out != "" || errs != want {
		t.Errorf("serq fmt < bad = %d, %q, %q; want 1, \"\", %q", code, out, errs, want)
	}
}

// write writes files into a fresh directory and returns their paths.
func writeFiles(t *testing.T, files map[string]string) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	paths := map[string]string{}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o640); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	return dir, paths
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFmtFiles(t *testing.T) {
	dir, p := writeFiles(t, map[string]string{"a.sq": fmtMessy, "b.sq": fmtTidy})
	// --check lists the file that would change, writes nothing.
	code, out, errs := fmtRun(t, "", "--check", p["a.sq"], p["b.sq"])
	if code != 1 || out != "" || errs != "would reformat "+p["a.sq"]+"\n" {
		t.Errorf("serq fmt --check = %d, %q, %q", code, out, errs)
	}
	if readFile(t, p["a.sq"]) != fmtMessy {
		t.Error("serq fmt --check wrote a.sq")
	}
	// Without --check it rewrites a.sq, keeping its permissions, and leaves b.sq.
	before, _ := os.Stat(p["b.sq"])
	if code, out, errs := fmtRun(t, "", p["a.sq"], p["b.sq"]); code != 0 || out != "" || errs != "" {
		t.Fatalf("serq fmt = %d, %q, %q", code, out, errs)
	}
	if got := readFile(t, p["a.sq"]); got != fmtTidy {
		t.Errorf("a.sq after serq fmt:\n%s", got)
	}
	info, _ := os.Stat(p["a.sq"])
	if info.Mode().Perm() != 0o640 {
		t.Errorf("a.sq mode %v, want 0640", info.Mode().Perm())
	}
	if after, _ := os.Stat(p["b.sq"]); !after.ModTime().Equal(before.ModTime()) {
		t.Error("serq fmt rewrote b.sq, which was formatted")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the directory, want 2 (a temporary file left?)", len(entries))
	}
	// Now clean.
	if code, _, errs := fmtRun(t, "", "--check", p["a.sq"], p["b.sq"]); code != 0 || errs != "" {
		t.Errorf("serq fmt --check after serq fmt = %d, %q", code, errs)
	}
}

// TestFmtBadFiles checks that one file with a syntax error, or one that is
// no .sq file, leaves every file untouched.
func TestFmtBadFiles(t *testing.T) {
	_, p := writeFiles(t, map[string]string{"a.sq": fmtMessy, "bad.sq": fmtBad, "notes.txt": "x"})
	code, out, errs := fmtRun(t, "", p["a.sq"], p["bad.sq"])
	want := p["bad.sq"] + ":3:1: unexpected \"}\", want `;`\n | }\n | ^\n"
	if code != 1 || out != "" || errs != want {
		t.Errorf("serq fmt a.sq bad.sq = %d, %q, %q; want 1, \"\", %q", code, out, errs, want)
	}
	if readFile(t, p["a.sq"]) != fmtMessy || readFile(t, p["bad.sq"]) != fmtBad {
		t.Error("serq fmt wrote a file although one has a syntax error")
	}
	code, _, errs = fmtRun(t, "", p["a.sq"], p["notes.txt"], p["bad.sq"])
	want = p["notes.txt"] + ": fmt expects a .sq file\n" + want + "serq fmt: 2 of 3 files have errors; no file was written\n"
	if code != 1 || errs != want {
		t.Errorf("serq fmt with a .txt = %d, %q; want 1, %q", code, errs, want)
	}
	if readFile(t, p["a.sq"]) != fmtMessy {
		t.Error("serq fmt wrote a.sq")
	}
	code, _, errs = fmtRun(t, "", filepath.Join(filepath.Dir(p["a.sq"]), "none.sq"))
	if code != 1 || !strings.HasSuffix(errs, "none.sq: cannot read: no such file or directory\n") {
		t.Errorf("serq fmt none.sq = %d, %q", code, errs)
	}
}

func TestFmtUsage(t *testing.T) {
	const usage = "usage: serq fmt [--check] [FILE...]\n"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--horizon", "1"}, "error: unknown option `--horizon`\nhelp: serq fmt takes --check and .sq files\n" + usage},
		{[]string{"--check=1", "a.sq"}, "error: --check takes no value, found `--check=1`\n" + usage},
	} {
		if code, out, errs := fmtRun(t, "", tt.args...); code != 2 || out != "" || errs != tt.want {
			t.Errorf("serq fmt %q = %d, %q, %q; want 2, \"\", %q", tt.args, code, out, errs, tt.want)
		}
	}
}

// TestFmtSymlink checks that formatting through a symbolic link rewrites
// the file it names and keeps the link.
func TestFmtSymlink(t *testing.T) {
	dir, p := writeFiles(t, map[string]string{"a.sq": fmtMessy})
	link := filepath.Join(dir, "link.sq")
	if err := os.Symlink(p["a.sq"], link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if code, _, errs := fmtRun(t, "", link); code != 0 || errs != "" {
		t.Fatalf("serq fmt link.sq = %d, %q", code, errs)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.sq is no longer a link: %v %v", fi, err)
	}
	if got := readFile(t, p["a.sq"]); got != fmtTidy {
		t.Errorf("a.sq through the link:\n%s", got)
	}
}

// fmt padded the trailing comments of the lines after a 119 KB line to
// its width: the file grew to 200 MB, which serq check then refused while
// fmt --check said nothing. A comment after code wider than 100 columns
// keeps to its line, and the short lines' comments share their own
// column; the result loads, and fmt --check of it is clean.
func TestFmtTrailingPad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "p.sq")
	long := "let a = " + strings.Repeat("1 + ", 30000) + "1; // long\n"
	src := long + "let b = 2; // short\nlet bb = 2;   // shorter\n" +
		"fn main() { stage s : delay; workload { arrive none; } server { run s (cost(s, 1)); } }\n"
	os.WriteFile(p, []byte(src), 0o644)
	if code, _, stderr := serq(t, "fmt", p); code != 0 {
		t.Fatalf("fmt: exit %d, %s", code, stderr)
	}
	b, _ := os.ReadFile(p)
	longOut := strings.Replace(long, "1; // long", "1;  // long", 1) // two spaces after its own code
	want := longOut + "let b = 2;   // short\nlet bb = 2;  // shorter\n" +
		"fn main() { stage s : delay; workload { arrive none; } server { run s (cost(s, 1)); } }\n"
	if string(b) != want {
		t.Errorf("formatted:\n%.300s\nwant:\n%.300s", b[min(len(b), len(longOut)-20):], want[len(longOut)-20:])
	}
	if code, _, stderr := serq(t, "fmt", "--check", p); code != 0 {
		t.Errorf("fmt --check of fmt's output: exit %d, %s", code, stderr)
	}
	if code, _, stderr := serq(t, "check", p); code != 0 {
		t.Errorf("check of fmt's output: exit %d, %s", code, stderr)
	}
}
