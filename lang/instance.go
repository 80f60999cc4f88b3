package lang

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/serq/serq/lang/syntax"
	"github.com/serq/serq/model"
)

// Instance is a parsed instance file.
type Instance struct {
	Sets     []Override // input bindings, in file order
	Horizon  *float64
	Warmup   *float64
	Seed     *uint64 // an unsigned 64-bit integer, read exactly
	Arrivals *uint64
}

// ReadInstance reads an instance file; read nil means [ReadSource].
func ReadInstance(path string, read func(string) ([]byte, error)) (*Instance, error) {
	if read == nil {
		read = ReadSource
	}
	src, err := read(path)
	if err != nil {
		return nil, &Error{Pos: model.Pos{File: path}, Msg: "cannot read: " + describeIOError(err)}
	}
	f, err := syntax.ParseInstance(path, src)
	if err != nil {
		return nil, err
	}
	in := &Instance{}
	var errs ErrorList
	errorf := func(pos lexer.Position, format string, args ...any) {
		errs = append(errs, &Error{Pos: syntax.ToPos(pos), Msg: fmt.Sprintf(format, args...)})
	}
	seen := map[string]bool{}
	runs := 0
	junk := false
	for _, it := range f.Items {
		switch {
		case it.Let != nil:
			if seen[it.Let.Name] {
				errorf(it.Let.Pos, "`let %s` is given twice", it.Let.Name)
			}
			seen[it.Let.Name] = true
			in.Sets = append(in.Sets, Override{Name: it.Let.Name, Expr: exprText(it.Let.Value)})
		case it.Run != nil:
			runs++
			if runs > 1 {
				errorf(it.Run.Pos, "a second `run { … }`: an instance holds at most one")
				continue
			}
			for _, s := range it.Run.Settings {
				if s.Name == "seed" || s.Name == "arrivals" {
					n, x, ok := instanceCount(path, s.Value)
					switch {
					case ok && (s.Name == "seed" || n > 0):
						*map[string]**uint64{"seed": &in.Seed, "arrivals": &in.Arrivals}[s.Name] = &n
					case math.IsNaN(x):
						errorf(s.Value.Pos, "`%s` takes a number", s.Name)
					case settingRange(s.Name, x) != "" && x < 1<<53:
						errorf(s.Value.Pos, "`%s` must be %s, not %s", s.Name, settingRange(s.Name, x), fmtNum(x))
					default:
						errorf(s.Value.Pos, "`%s` takes an unsigned 64-bit integer, in digits: at most 18446744073709551615", s.Name)
					}
					continue
				}
				l := newLowerer(path, Options{})
				v, _ := l.expr(s.Value, &scope{l: l, mom: momConst})
				x, ok := v.IsConst()
				if len(l.errs) > 0 || !ok || math.IsNaN(x) {
					errorf(s.Value.Pos, "`%s` takes a number", s.Name)
					continue
				}
				dst := map[string]**float64{"horizon": &in.Horizon, "warmup": &in.Warmup}[s.Name]
				if dst == nil {
					errorf(s.Pos, "`%s` is no run setting: they are horizon, warmup, seed and arrivals", s.Name)
					continue
				}
				// The ranges of --horizon, --warmup, --seed and --arrivals,
				// said here, where the value is written.
				if want := settingRange(s.Name, x); want != "" {
					errorf(s.Value.Pos, "`%s` must be %s, not %s", s.Name, want, fmtNum(x))
					continue
				}
				*dst = &x
			}
		case !junk:
			junk = true
			errorf(it.Pos, "an instance file holds only `let NAME = expr;` entries and one `run { horizon …; warmup …; seed …; arrivals …; }`")
		}
	}
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	return in, nil
}

// settingRange is what a run setting's value must be when x is not that,
// else "".
func settingRange(name string, x float64) string {
	whole := x == math.Trunc(x) && x >= 0 && x < 1<<64
	switch {
	case name == "horizon" && !(x > 0 && !math.IsInf(x, 0)):
		return "a finite positive number"
	case name == "warmup" && !(x >= 0 && !math.IsInf(x, 0)):
		return "a finite number ≥ 0"
	case name == "seed" && !whole:
		return "a whole number ≥ 0"
	case name == "arrivals" && !(whole && x >= 1):
		return "a whole number ≥ 1"
	}
	return ""
}

// instanceCount is a seed's or an arrivals' value n: a literal whole
// number read exactly as an unsigned 64-bit integer (a float64 would
// round 9007199254740993), or a constant expression whose value is a
// whole number that a float64 holds exactly (at most 2^53). Otherwise ok
// is false and x is the expression's value, NaN if it has none.
func instanceCount(path string, e *syntax.Expr) (n uint64, x float64, ok bool) {
	var text strings.Builder
	for _, t := range e.Tokens {
		text.WriteString(t.Value)
	}
	if n, err := strconv.ParseUint(strings.ReplaceAll(strings.TrimSpace(text.String()), "_", ""), 10, 64); err == nil {
		return n, float64(n), true
	}
	l := newLowerer(path, Options{})
	v, _ := l.expr(e, &scope{l: l, mom: momConst})
	x, isConst := v.IsConst()
	if len(l.errs) > 0 || !isConst {
		return 0, math.NaN(), false
	}
	if x < 0 || x > 1<<53 || x != math.Trunc(x) {
		return 0, x, false
	}
	return uint64(x), x, true
}
