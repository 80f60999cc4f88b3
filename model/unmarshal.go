package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Reading the IR back: every type that marshals as text or as a custom
// JSON value unmarshals from what it prints, so that
// json.Unmarshal(json.Marshal(p)) is p again (pointer sharing aside). A
// program read this way has passed no checks: call [Program.Validate]
// before anything runs it.

// enumText finds text among the names of an enum. field is the JSON key
// and what the enum's name, for the error.
func enumText(names []string, text []byte, field, what string) (int, error) {
	for i, n := range names {
		if n == string(text) {
			return i, nil
		}
	}
	var want []string
	for _, n := range names {
		if n != "" && !slices.Contains(want, n) {
			want = append(want, n)
		}
	}
	return 0, fmt.Errorf("%q: unknown %s %q (want %s)", field, what, text, strings.Join(want, ", "))
}

var stageKindNames = []string{"fifo", "ps", "delay", "step"}

func (k *StageKind) UnmarshalText(text []byte) error {
	i, err := enumText(stageKindNames, text, "kind", "stage kind")
	*k = StageKind(i)
	return err
}

var preemptKindNames = []string{"none", "lifo", "by"}

func (k *PreemptKind) UnmarshalText(text []byte) error {
	i, err := enumText(preemptKindNames, text, "preempt", "preempt policy")
	*k = PreemptKind(i)
	return err
}

var serveKindNames = []string{"vllm", "exclusive_prefill", "body"}

func (k *ServeKind) UnmarshalText(text []byte) error {
	i, err := enumText(serveKindNames, text, "serve", "serve kind")
	*k = ServeKind(i)
	return err
}

var schedOpNames = []string{"advance", "admit", "branch", "set"}

func (k *SchedOp) UnmarshalText(text []byte) error {
	i, err := enumText(schedOpNames, text, "op", "schedule step")
	*k = SchedOp(i)
	return err
}

var arrivalKindNames = []string{"none", "poisson", "renewal", "closed", "batch", "constant"}

func (k *ArrivalKind) UnmarshalText(text []byte) error {
	i, err := enumText(arrivalKindNames, text, "arrive", "arrival process")
	*k = ArrivalKind(i)
	return err
}

func (o *Op) UnmarshalText(text []byte) error {
	i, err := enumText(opNames[:], text, "op", "statement kind")
	*o = Op(i)
	return err
}

var runModeNames = []string{"", "prefill", "decode"}

func (r *ReadPolicy) UnmarshalText(text []byte) error {
	i, err := enumText(readPolicyNames[:], text, "expiry", "read policy")
	*r = ReadPolicy(i)
	return err
}

func (m *RunMode) UnmarshalText(text []byte) error {
	i, err := enumText(runModeNames, text, "mode", "run mode")
	*m = RunMode(i)
	return err
}

func (o *ExprOp) UnmarshalText(text []byte) error {
	i, err := enumText(exprOpNames[:], text, "op", "expression op")
	*o = ExprOp(i)
	return err
}

// UnmarshalText reads a function name. "exp" is both the pure function
// and the distribution; it reads as [FExp], and [Expr.UnmarshalJSON]
// makes it [DExp] under a draw. The debugger's built-ins (KQuery,
// KQueryOnly) are no part of a program, so the IR does not know them.
func (f *Func) UnmarshalText(text []byte) error {
	i, err := enumText(programFuncNames, text, "fn", "function")
	*f = Func(i)
	return err
}

// programFuncNames are the names of the Funcs a program may hold, by
// Func ("" for the debugger's).
var programFuncNames = func() []string {
	names := make([]string, len(funcNames))
	for f, b := range funcInfo {
		if b != nil && !b.Debugger() {
			names[f] = b.Name
		}
	}
	return names
}()

// UnmarshalJSON reads what MarshalJSON writes: the fields, and for a
// constant its "num" (a number, or "inf", "-inf" or "NaN").
func (e *Expr) UnmarshalJSON(b []byte) error {
	type plain Expr
	*e = Expr{}
	aux := struct {
		*plain
		Num json.RawMessage `json:"num"`
	}{plain: (*plain)(e)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	switch {
	case e.Op == ENum && aux.Num == nil:
		return fmt.Errorf(`"num": missing from a constant expression`)
	case e.Op != ENum && aux.Num != nil:
		return fmt.Errorf(`"num": given on a %q expression, which is no constant`, e.Op.String())
	case e.Op == ENum:
		x, err := parseNum(aux.Num)
		if err != nil {
			return fmt.Errorf(`"num": %w`, err)
		}
		e.Num = x
	}
	if e.Op == EDraw && e.Fn == FExp {
		e.Fn = DExp
	}
	return nil
}

// UnmarshalJSON reads a number, or "inf", "-inf" or "NaN".
func (f *F64) UnmarshalJSON(b []byte) error {
	x, err := parseNum(b)
	if err != nil {
		return err
	}
	*f = F64(x)
	return nil
}

// parseNum reads a JSON number or one of the strings formatNum writes for
// the non-finite values.
func parseNum(b []byte) (float64, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, err
		}
		switch s {
		case "inf":
			return math.Inf(1), nil
		case "-inf":
			return math.Inf(-1), nil
		case "NaN":
			return math.NaN(), nil
		}
		return 0, fmt.Errorf("%q is no number (want a number, \"inf\", \"-inf\" or \"NaN\")", s)
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil || n == "" {
		return 0, fmt.Errorf("%s is no number (want a number, \"inf\", \"-inf\" or \"NaN\")", b)
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return 0, fmt.Errorf("%s is out of range for a float64", n)
	}
	return x, nil
}
