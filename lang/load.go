package lang

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// Load reads, parses, lowers and checks the program at path. The error is
// an [ErrorList] (every static error, sorted by position) or a single
// [*Error].
func Load(path string, opts Options) (*model.Program, error) {
	read := opts.ReadFile
	if read == nil {
		read = ReadSource
	}
	src, err := read(path)
	if err != nil {
		return nil, &Error{Pos: model.Pos{File: path}, Msg: "cannot read: " + describeIOError(err)}
	}
	return LoadSource(path, src, opts)
}

func describeIOError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// LoadSource is [Load] for a program given as text; its `use` paths are
// relative to filename's directory.
func LoadSource(filename string, src []byte, opts Options) (*model.Program, error) {
	if opts.ReadFile == nil {
		opts.ReadFile = ReadSource
	}
	f, err := syntax.Parse(filename, src)
	if err != nil {
		return nil, withRanges(err, map[string][]byte{filename: src})
	}
	l := newLowerer(filename, opts)
	l.sources[filename] = src
	prog := l.program(f)
	l.sendBindings()
	if l.limitHit {
		l.errs = l.errs[:l.errsAtLimit]
	}
	if len(l.errs) > 0 {
		return nil, l.errList()
	}
	return prog, nil
}

// CheckLibrary checks the library at filename, given as text, as a
// program that uses it checks it: its `use`s are read and every item is a
// `use` or a `def`. The error is that of [Load].
func CheckLibrary(filename string, src []byte, opts Options) error {
	if opts.ReadFile == nil {
		opts.ReadFile = ReadSource
	}
	f, err := syntax.Parse(filename, src)
	if err != nil {
		return withRanges(err, map[string][]byte{filename: src})
	}
	l := newLowerer(filename, opts)
	l.sources[filename] = src
	l.used[filename] = true
	l.libItems(f)
	l.checkDefOrder()
	l.sendBindings()
	if len(l.errs) > 0 {
		return l.errList()
	}
	return nil
}

// loadUse reads a library named by `use` in file from. It returns nil after
// reporting an error.
func (l *lowerer) loadUse(u *syntax.UseItem, from string) *syntax.File {
	p := unquote(u.Path)
	if p == "std/args" {
		l.usesArgs = true
		return nil
	}
	// A relative path is relative to the using file's directory; an
	// absolute one is read as written.
	full := filepath.FromSlash(p)
	if !filepath.IsAbs(full) {
		full = filepath.Join(filepath.Dir(from), full)
	}
	if filepath.Ext(full) != ".sq" {
		err := l.errorf(u.Pos, "`use %s`: a library is a .sq file", u.Path)
		err.Hint = "`use` reads serQ source only, a path ending in .sq (or the built-in \"std/args\")"
		return nil
	}
	if l.used[full] {
		return nil
	}
	l.used[full] = true
	src, err := l.opts.ReadFile(full)
	if err != nil && l.opts.Lib != nil && path.Base(path.Dir(p)) == "lib" {
		if b, err2 := fs.ReadFile(l.opts.Lib, path.Base(p)); err2 == nil {
			src, err = b, nil
		}
	}
	if err != nil {
		l.errorf(u.Pos, "cannot read library %q: %s", p, describeIOError(err))
		return nil
	}
	l.sources[full] = src
	f, perr := syntax.Parse(full, src)
	if perr != nil {
		l.addErr(perr)
		return nil
	}
	return f
}

func unquote(s string) string { return strings.Trim(s, `"`) }

func parseNumber(s string) (float64, error) {
	return strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
}
