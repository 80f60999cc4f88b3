package lang

import (
	"strconv"
	"strings"
	"testing"
)

func TestLoweringLimitKeepsOnlyItsError(t *testing.T) {
	var b strings.Builder
	b.WriteString("def g0(x) { x * 2 }\n")
	for i := 1; i <= 20; i++ {
		b.WriteString("def g" + strconv.Itoa(i) + "(x) { g" + strconv.Itoa(i-1) + "(x) + g" + strconv.Itoa(i-1) + "(x) }\n")
	}
	b.WriteString("fn main() { stage s : delay; workload { arrive poisson(1); } server { run s (cost(s, g20(1))); } }\n")
	_, err := LoadSource("p.sq", []byte(b.String()), Options{})
	list, ok := err.(ErrorList)
	if !ok || len(list) != 1 {
		t.Fatalf("err = %v, want one error", err)
	}
	if want := "the program expands to more than 100000 expressions and statements once defs are expanded, the limit"; list[0].Msg != want {
		t.Errorf("msg %q, want %q", list[0].Msg, want)
	}
}
