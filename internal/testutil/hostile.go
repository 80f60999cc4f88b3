package testutil

import (
	"fmt"
	"strings"
)

// HostileSeeds are fuzz seeds at and past the loader's limits: deep
// nesting of each kind that recurses (parentheses, unary operators, ?:,
// ^, branches) and wide defs (each using the previous one twice, as an
// expression and as statements). Each comes just inside the limit (it
// loads and runs) and just past it (a positioned error), small enough
// that a mutation stays quick.
func HostileSeeds() [][]byte {
	prog := func(let, server string) []byte {
		return []byte(let + "\nfn main() {\n  stage s : fifo(1);\n  workload { arrive poisson(1); }\n  server { set b = 1; " +
			server + " run s (cost(s, 1)); observe x = b; }\n}\n")
	}
	var out [][]byte
	for _, n := range []int{200, 300} {
		out = append(out,
			prog("let c = "+strings.Repeat("(", n)+"1"+strings.Repeat(")", n)+";", ""),
			prog("let c = "+strings.Repeat("- ", n)+"1;", ""),
			prog("let c = "+strings.Repeat("!", n)+"0;", ""),
			prog("let c = "+strings.Repeat("1 ? 2 : ", n)+"3;", ""),
			prog("let c = 1"+strings.Repeat(" ^ 1", n)+";", ""),
			prog("", strings.Repeat("branch (b > 0) { ", n)+"set b = b + 1;"+strings.Repeat(" }", n)),
		)
	}
	for _, n := range []int{8, 18} {
		var b strings.Builder
		b.WriteString("def g0(x) { x * 2 }\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "def g%d(x) { g%d(x) + g%d(x) }\n", i, i-1, i-1)
		}
		out = append(out, prog(b.String(), fmt.Sprintf("set b = g%d(b);", n)))
		b.Reset()
		b.WriteString("def f0(x) { x + 1 }\n")
		for i := 1; i <= n/2+3; i++ {
			fmt.Fprintf(&b, "def f%d(x) { f%d(f%d(x)) }\n", i, i-1, i-1)
		}
		out = append(out, prog(b.String(), fmt.Sprintf("set b = f%d(b);", n/2+3)))
		b.Reset()
		b.WriteString("def s0() { set b = b + 1; }\n")
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "def s%d() { s%d(); s%d(); }\n", i, i-1, i-1)
		}
		out = append(out, prog(b.String(), fmt.Sprintf("s%d();", n)))
	}
	return out
}
