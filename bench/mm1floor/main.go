// Command mm1floor is a hand-written M/M/1 FIFO queue simulated event by
// event: the floor that an interpreter of the same model (serq run on
// examples/single-turn/mg1.sq) can approach. Like the interpreter it keeps
// a heap calendar ordered by (time, sequence), so the comparison is of
// interpretation against compiled code, not of algorithms. It prints
// the mean response time after the warm-up, the number of samples and the
// number of events. bench/run.sh times it.
package main

import (
	"container/heap"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
)

type event struct {
	t      float64
	seq    uint64
	depart bool
}

// calendar is a min-heap of events by (t, seq), through container/heap,
// as a hand-written Go simulation would keep it.
type calendar []event

func (c calendar) Len() int { return len(c) }
func (c calendar) Less(i, j int) bool {
	return c[i].t < c[j].t || (c[i].t == c[j].t && c[i].seq < c[j].seq)
}
func (c calendar) Swap(i, j int) { c[i], c[j] = c[j], c[i] }
func (c *calendar) Push(x any)   { *c = append(*c, x.(event)) }
func (c *calendar) Pop() any {
	old := *c
	e := old[len(old)-1]
	*c = old[:len(old)-1]
	return e
}

func main() {
	lambda := flag.Float64("lambda", 0.8, "arrival rate (the service rate is 1)")
	horizon := flag.Float64("horizon", 250000, "simulated end time")
	warmup := flag.Float64("warmup", 25000, "responses before this time are not counted")
	seed := flag.Uint64("seed", 1, "seed of the arrival and service streams")
	flag.Parse()
	arrivals := rand.New(rand.NewPCG(*seed, 0xa))
	service := rand.New(rand.NewPCG(*seed, 0x5))
	exp := func(r *rand.Rand, rate float64) float64 { return -math.Log(1-r.Float64()) / rate }

	var cal calendar
	var seq uint64
	schedule := func(t float64, depart bool) {
		seq++
		heap.Push(&cal, event{t: t, seq: seq, depart: depart})
	}
	schedule(0, false)
	var present []float64 // arrival times of the jobs in the system, in order
	head := 0
	var sum float64
	var samples, events int
	for len(cal) > 0 {
		e := heap.Pop(&cal).(event)
		if e.t > *horizon {
			break
		}
		events++
		if !e.depart {
			present = append(present, e.t)
			if len(present)-head == 1 {
				schedule(e.t+exp(service, 1), true)
			}
			schedule(e.t+exp(arrivals, *lambda), false)
			continue
		}
		if e.t >= *warmup {
			sum += e.t - present[head]
			samples++
		}
		head++
		if head > 1024 && head*2 > len(present) {
			present = append(present[:0], present[head:]...)
			head = 0
		}
		if len(present) > head {
			schedule(e.t+exp(service, 1), true)
		}
	}
	fmt.Printf("mean_response %.4f samples %d events %d\n", sum/float64(samples), samples, events)
}
