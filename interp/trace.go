package interp

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/serq/serq/internal/safeio"
	"github.com/serq/serq/model"
)

// A trace workload replays recorded sessions: a CSV with the columns
// session,turn,new,out,think[,forced]. Unordered, each arriving session
// samples one recorded session (the trace stream); ordered, session i
// replays recorded session i modulo their count. At each `turn;` the next
// recorded turn sets the attributes new, out, think and forced, and `more`
// is 1 while another recorded turn remains.

type traceData struct {
	sessions [][]model.TraceTurn
	slots    [4]int // attribute slots of new, out, think, forced; -1 if absent
	stream   *stream
}

// TraceError is a trace file that cannot be read or is malformed. Row and
// Col are 1-based (a CSV row and field); both are 0 when the error is about
// the whole file. Err is the cause when the file could not be read (an
// [os.PathError], a [safeio.TooLargeError]): [errors.Is] and [errors.As] see
// it through Unwrap.
type TraceError struct {
	Path     string
	Row, Col int
	Msg      string
	Err      error
}

func (e *TraceError) Error() string {
	if e.Row == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Row, e.Col, e.Msg)
}

// Unwrap returns the cause of a read failure, nil for a malformed file.
func (e *TraceError) Unwrap() error { return e.Err }

// An Opener opens the file at path for reading. The interpreter opens no
// file itself: a program's `trace` is read through the Opener of its
// [Options].
type Opener func(path string) (io.ReadCloser, error)

// MaxTraceSize caps a trace file, in bytes.
const MaxTraceSize = 256 << 20

// TraceKind is a trace as serq reads it (internal/safeio): a regular .csv
// file of at most [MaxTraceSize] bytes. TraceKind.Opener() is the
// [Options.OpenTrace] of serq's commands.
var TraceKind = safeio.Kind{What: "a trace", Exts: []string{".csv"}, Limit: MaxTraceSize}

// cellText quotes a cell in an error if it is short printable text, else
// names it: a file that is not the CSV it should be is not echoed.
func cellText(c string) string {
	if len(c) > 24 || !utf8.ValidString(c) || strings.IndexFunc(c, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return fmt.Sprintf("a cell of %d bytes", len(c))
	}
	return strconv.Quote(c)
}

// errNoOpener is the cause of a trace read without an [Opener].
var errNoOpener = errors.New("no trace opener was given (interp.Options.OpenTrace)")

// ReadTrace opens the trace CSV at path with open and parses it: its
// recorded sessions in the order of their first rows, each with its turns
// in row order.
func ReadTrace(path string, open Opener) ([][]model.TraceTurn, error) {
	if open == nil {
		return nil, &TraceError{Path: path, Msg: "cannot read: " + errNoOpener.Error(), Err: errNoOpener}
	}
	f, err := open(path)
	if err != nil {
		msg := err
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg = pe.Err
		}
		return nil, &TraceError{Path: path, Msg: "cannot read: " + msg.Error(), Err: err}
	}
	defer f.Close()
	return parseTrace(path, f)
}

// parseTrace reads the CSV of a trace from f; path names it in errors.
func parseTrace(path string, f io.Reader) ([][]model.TraceTurn, error) {
	r := csv.NewReader(safeio.LimitReader(f, MaxTraceSize, "a trace"))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, &TraceError{Path: path, Row: 1, Col: 1, Msg: "no header row"}
	}
	want := []string{"session", "turn", "new", "out", "think"}
	for i, w := range want {
		if i >= len(header) || strings.TrimSpace(header[i]) != w {
			return nil, &TraceError{Path: path, Row: 1, Col: i + 1, Msg: "the header must be session,turn,new,out,think[,forced]"}
		}
	}
	forced := len(header) > 5 && strings.TrimSpace(header[5]) == "forced"
	var out [][]model.TraceTurn
	index := map[string]int{}
	row := 1
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		row++
		var tooLarge *safeio.TooLargeError
		if errors.As(err, &tooLarge) {
			return nil, &TraceError{Path: path, Msg: "cannot read: " + tooLarge.Error(), Err: err}
		}
		if err != nil {
			return nil, &TraceError{Path: path, Row: row, Col: 1, Msg: err.Error(), Err: err}
		}
		if len(rec) < 5 {
			return nil, &TraceError{Path: path, Row: row, Col: len(rec) + 1, Msg: "a row needs session,turn,new,out,think"}
		}
		num := func(col int) (model.F64, error) {
			x, err := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64)
			if err != nil || x != x {
				return 0, &TraceError{Path: path, Row: row, Col: col + 1, Msg: cellText(rec[col]) + " is not a number"}
			}
			return model.F64(x), nil
		}
		var t model.TraceTurn
		var errs [4]error
		t.New, errs[0] = num(2)
		t.Out, errs[1] = num(3)
		t.Think, errs[2] = num(4)
		if forced && len(rec) > 5 {
			t.Forced, errs[3] = num(5)
		}
		for _, e := range errs {
			if e != nil {
				return nil, e
			}
		}
		key := strings.TrimSpace(rec[0])
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], t)
	}
	if len(out) == 0 {
		return nil, &TraceError{Path: path, Msg: "the trace holds no turns"}
	}
	return out, nil
}

func (s *Sim) initTrace() error {
	w := &s.p.Workload
	sessions := w.Sessions
	if len(sessions) == 0 {
		if w.Trace == "" {
			return nil
		}
		var err error
		if sessions, err = ReadTrace(w.Trace, s.opt.OpenTrace); err != nil {
			return err
		}
	}
	td := &traceData{sessions: sessions, stream: newStream()}
	td.stream.seed(s.opt.Seed, kindTrace, 0, 0)
	for i, name := range []string{"new", "out", "think", "forced"} {
		td.slots[i] = -1
		for k, a := range s.p.Attrs {
			if a.Name == name {
				td.slots[i] = k
			}
		}
	}
	s.traceData = td
	return nil
}

// traceSession picks the recorded session a new session replays.
func (s *Sim) traceSession(ss *session) {
	td := s.traceData
	if td == nil {
		return
	}
	n := len(td.sessions)
	if s.p.Workload.Ordered {
		ss.traceIdx = int(ss.serial % uint64(n))
	} else {
		ss.traceIdx = int(td.stream.u() * float64(n))
		if ss.traceIdx >= n {
			ss.traceIdx = n - 1
		}
	}
	ss.traceTurn = 0
}

// traceNext loads the session's next recorded turn.
func (s *Sim) traceNext(ss *session) {
	td := s.traceData
	if td == nil {
		return
	}
	turns := td.sessions[ss.traceIdx]
	if ss.traceTurn < len(turns) {
		t := turns[ss.traceTurn]
		vals := [4]model.F64{t.New, t.Out, t.Think, t.Forced}
		for i, slot := range td.slots {
			if slot >= 0 {
				ss.attrs[slot] = float64(vals[i])
			}
		}
	}
	ss.traceTurn++
	more := 0.0
	if ss.traceTurn < len(turns) {
		more = 1
	}
	ss.attrs[s.p.Builtin.More] = more
}

// InlineTrace writes the program's ordered trace into it as explicit
// sessions (Workload.Sessions), read with open, and drops the file: the
// program then runs without the CSV, and as it ran with it (`serq ir
// --inline-trace`).
func InlineTrace(p *model.Program, open Opener) error {
	w := &p.Workload
	if w.Trace == "" {
		return errors.New("the program replays no trace (its workload has no `trace \"…\";`)")
	}
	if !w.Ordered {
		return errors.New("the trace is not ordered: each session samples a recorded one at random, so there are no explicit sessions to write\n" +
			"help: write `trace \"" + filepath.ToSlash(w.Trace) + "\" ordered;` to replay session i as recorded session i")
	}
	sessions, err := ReadTrace(w.Trace, open)
	if err != nil {
		return err
	}
	w.Sessions, w.Trace = sessions, ""
	return nil
}
