package model

import (
	"math"
	"strconv"
)

// Walk calls f on every statement of the program's session side and
// server (workload init, turn, session, server), depth first.
func (p *Program) Walk(f func(*Stmt)) {
	for _, b := range []*Block{p.Workload.Init, p.Workload.Turn, p.Workload.Session, p.Server} {
		b.Walk(f)
	}
}

// Walk calls f on every statement of b and of the blocks nested in it.
func (b *Block) Walk(f func(*Stmt)) {
	if b == nil {
		return
	}
	for _, st := range b.Stmts {
		f(st)
		st.Body.Walk(f)
		st.Else.Walk(f)
	}
}

// FormatNum writes a number as a program would: the shortest round-trip
// form, or inf and -inf.
func FormatNum(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
