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

// Exprs calls f with each expression of the statement itself (not of the
// blocks inside it): its value, count, keys, its hold's units, reserves,
// reuse, cache and lease, and the indexes of the members it names.
func (st *Stmt) Exprs(f func(*Expr)) {
	for _, e := range []*Expr{st.Value, st.N, st.Reuse, st.Cache, st.LeaseFor} {
		if e != nil {
			f(e)
		}
	}
	for _, e := range st.Keys {
		f(e)
	}
	for i := range st.Holds {
		f(st.Holds[i].Units)
		if r := st.Holds[i].Reserve; r != nil {
			f(r)
		}
		if x := st.Holds[i].Pool.Index; x != nil {
			f(x)
		}
	}
	for _, r := range []*Ref{st.Pool, st.Growing} {
		if r != nil && r.Index != nil {
			f(r.Index)
		}
	}
	for i := range st.Stages {
		if x := st.Stages[i].Index; x != nil {
			f(x)
		}
	}
	if r := st.Reading; r != nil {
		if r.Source.Index != nil {
			f(r.Source.Index)
		}
		if r.Index != nil {
			f(r.Index)
		}
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
