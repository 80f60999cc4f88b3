package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lang/syntax"
)

// fmtCmd is `serq fmt`: the canonical layout of syntax.Format. Without
// files it formats stdin to stdout; with files it rewrites those that
// change, after every one has parsed, each by an atomic rename; with
// --check it lists on stderr the files that would change and writes
// nothing.
type fmtCmd struct {
	Check bool     `help:"Write nothing; list the files that would change (on stderr) and exit 1 if any would."`
	Files []string `arg:"" optional:"" name:"FILE" help:"The .sq files to format in place (none: stdin to stdout)."`
}

// fmtStdin is what `serq fmt` without files reads (tests replace it).
var fmtStdin io.Reader = os.Stdin

// errReported is a failure whose lines are printed already: exit 1 and
// nothing more (an empty error list renders as nothing).
var errReported = &loadError{err: lang.ErrorList{}}

// scanFmt checks fmt's arguments (after the command): --check and file
// names; any other option is a usage error.
func scanFmt(args []string) error {
	for _, a := range args {
		switch {
		case a == "--check":
		case strings.HasPrefix(a, "--check="):
			return fmt.Errorf("--check takes no value, found `%s`", a)
		case strings.HasPrefix(a, "-") && a != "-":
			return fmt.Errorf("unknown option `%s`\nhelp: serq fmt takes --check and .sq files", a)
		}
	}
	return nil
}

func (c *fmtCmd) Run(e *env) error {
	files := append(append([]string(nil), c.Files...), e.progArgs...)
	if len(files) == 0 {
		return c.stdin(e)
	}
	// Read and format every file before writing any.
	type job struct {
		path     string
		src, out []byte
		mode     fs.FileMode
	}
	var jobs []job
	var failed []*loadError
	for _, path := range files {
		if filepath.Ext(path) != ".sq" {
			failed = append(failed, &loadError{file: path, err: errors.New("fmt expects a .sq file")})
			continue
		}
		src, err := lang.SQKind.Read(path)
		var info fs.FileInfo
		if err == nil {
			info, err = os.Stat(path)
		}
		if err != nil {
			var perr *fs.PathError
			if errors.As(err, &perr) {
				err = perr.Err
			}
			failed = append(failed, &loadError{file: path, err: fmt.Errorf("cannot read: %w", err)})
			continue
		}
		out, err := syntax.Format(path, src)
		if err != nil {
			failed = append(failed, &loadError{file: path, err: err, sources: map[string][]byte{path: src}})
			continue
		}
		jobs = append(jobs, job{path: path, src: src, out: out, mode: info.Mode().Perm()})
	}
	if len(failed) > 0 {
		for _, f := range failed {
			renderLoadError(e.stderr, f)
		}
		if len(failed) == 1 {
			return errReported
		}
		fmt.Fprintf(e.stderr, "serq fmt: %d of %d files have errors; no file was written\n", len(failed), len(files))
		return errReported
	}
	changed := false
	defer safeio.Guard()() // a signal during the writes leaves no temporary file
	for _, j := range jobs {
		if bytes.Equal(j.src, j.out) {
			continue
		}
		changed = true
		if c.Check {
			fmt.Fprintf(e.stderr, "would reformat %s\n", j.path)
			continue
		}
		if err := writeAtomic(j.path, j.out, j.mode); err != nil {
			return &loadError{file: j.path, err: fmt.Errorf("cannot write: %w", err)}
		}
	}
	if c.Check && changed {
		return errReported
	}
	return nil
}

// stdin formats stdin to stdout.
func (c *fmtCmd) stdin(e *env) error {
	const name = "<stdin>"
	src, err := io.ReadAll(safeio.LimitReader(fmtStdin, lang.MaxSourceSize, "a source file"))
	if err != nil {
		return &loadError{file: name, err: fmt.Errorf("cannot read: %w", err)}
	}
	out, err := syntax.Format(name, src)
	if err != nil {
		return &loadError{file: name, err: err, sources: map[string][]byte{name: src}}
	}
	if c.Check {
		if !bytes.Equal(src, out) {
			fmt.Fprintf(e.stderr, "would reformat %s\n", name)
			return errReported
		}
		return nil
	}
	_, err = e.stdout.Write(out)
	return err
}

// writeAtomic replaces path (or the file a link at path names) by data
// with the permissions mode, as every output is written (safeio): a
// temporary file in the same directory renamed over it, so that a
// failure or a signal leaves the old file whole and no temporary.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	// A symbolic link stays one: the file it names is replaced.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	b := safeio.Batch{Mode: mode}
	defer b.Abort()
	if err := b.Create(path, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		if err == nil && signalHook != nil {
			w.Flush()
			signalHook("fmt", nil) // the tests' signal, while the temporary file exists
		}
		return err
	}); err != nil {
		return err
	}
	return b.Commit()
}
