package interp

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/serq/serq/internal/safeio"
)

// A trace workload replays recorded sessions: a CSV with the columns
// session,turn,new,out,think[,forced]. Unordered, each arriving session
// samples one recorded session (the trace stream); ordered, session i
// replays recorded session i modulo their count. At each `turn;` the next
// recorded turn sets the attributes new, out, think and forced, and `more`
// is 1 while another recorded turn remains.

type traceTurn struct {
	new, out, think, forced float64
}

type traceData struct {
	sessions [][]traceTurn
	slots    [4]int // attribute slots of new, out, think, forced; -1 if absent
	stream   *stream
}

// TraceError is a malformed trace file.
type TraceError struct {
	Path     string
	Row, Col int
	Msg      string
}

func (e *TraceError) Error() string {
	if e.Row == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Row, e.Col, e.Msg)
}

// MaxTraceSize caps a trace file, in bytes.
const MaxTraceSize = 256 << 20

// cellText quotes a cell in an error if it is short printable text, else
// names it: a file that is not the CSV it should be is not echoed.
func cellText(c string) string {
	if len(c) > 24 || !utf8.ValidString(c) || strings.IndexFunc(c, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return fmt.Sprintf("a cell of %d bytes", len(c))
	}
	return strconv.Quote(c)
}

func readTrace(path string) ([][]traceTurn, error) {
	f, err := safeio.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &TraceError{Path: path, Msg: "cannot read: " + err.Error()}
	}
	defer f.Close()
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
	var out [][]traceTurn
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
			return nil, &TraceError{Path: path, Msg: "cannot read: " + tooLarge.Error()}
		}
		if err != nil {
			return nil, &TraceError{Path: path, Row: row, Col: 1, Msg: err.Error()}
		}
		if len(rec) < 5 {
			return nil, &TraceError{Path: path, Row: row, Col: len(rec) + 1, Msg: "a row needs session,turn,new,out,think"}
		}
		num := func(col int) (float64, error) {
			x, err := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64)
			if err != nil || x != x {
				return 0, &TraceError{Path: path, Row: row, Col: col + 1, Msg: cellText(rec[col]) + " is not a number"}
			}
			return x, nil
		}
		var t traceTurn
		var errs [4]error
		t.new, errs[0] = num(2)
		t.out, errs[1] = num(3)
		t.think, errs[2] = num(4)
		if forced && len(rec) > 5 {
			t.forced, errs[3] = num(5)
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
	if w.Trace == "" {
		return nil
	}
	sessions, err := readTrace(w.Trace)
	if err != nil {
		return err
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

// traceTurn loads the session's next recorded turn.
func (s *Sim) traceNext(ss *session) {
	td := s.traceData
	if td == nil {
		return
	}
	turns := td.sessions[ss.traceIdx]
	if ss.traceTurn < len(turns) {
		t := turns[ss.traceTurn]
		vals := [4]float64{t.new, t.out, t.think, t.forced}
		for i, slot := range td.slots {
			if slot >= 0 {
				ss.attrs[slot] = vals[i]
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
