package interp

import (
	"math"
	"math/rand/v2"

	"github.com/serq/serq/model"
)

// splitmix64 derives well-spread seeds from a few integers.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Stream kinds, mixed into the seeds so that streams never coincide.
const (
	kindArrival uint64 = iota + 1
	kindTurn
	kindSession
	kindLeg
	kindMachine
	kindTrace
	kindFault // a fault's laws (faults.go): (line, member)
)

// stream is a reseedable random source: a PCG named by (seed, kind, a, b).
// Seeding only records the name; the PCG's state is derived from it at the
// stream's first draw, so a stream that is seeded and never drawn from (a
// session whose statements draw nothing) costs nothing. Its draws are
// math/rand/v2's Rand.Float64 over the PCG, bit for bit, without the
// interface call.
type stream struct {
	pcg     rand.PCG
	key     [4]uint64 // (seed, kind, a, b) of a seed not yet applied
	pending bool      // key names the stream; pcg is not seeded yet
	hashed  bool      // key[0] is kindHash(seed, kind), not the seed
}

func newStream() *stream { return &stream{} }

// seed resets the stream to the one named by (seed, kind, a, b).
func (s *stream) seed(seed, kind, a, b uint64) {
	s.key = [4]uint64{seed, kind, a, b}
	s.pending, s.hashed = true, false
}

// seedHashed is seed with the (seed, kind) part of the hash done once by
// the caller: h is kindHash(seed, kind). The stream is the same.
func (s *stream) seedHashed(h, kind, a, b uint64) {
	s.key = [4]uint64{h, kind, a, b}
	s.pending, s.hashed = true, true
}

// kindHash is the part of a stream's seed that depends on the seed and
// the kind alone.
func kindHash(seed, kind uint64) uint64 { return splitmix64(seed ^ splitmix64(kind)) }

// apply seeds the PCG from the pending key.
func (s *stream) apply() {
	h, kind, a, b := s.key[0], s.key[1], s.key[2], s.key[3]
	if !s.hashed {
		h = kindHash(h, kind)
	}
	s.pcg.Seed(splitmix64(h^splitmix64(a)), splitmix64(h^splitmix64(b)+kind))
	s.pending = false
}

// u returns a uniform number in [0, 1): math/rand/v2's Rand.Float64.
func (s *stream) u() float64 {
	if s.pending {
		s.apply()
	}
	return float64(s.pcg.Uint64()<<11>>11) / (1 << 53)
}

// draw samples a distribution exactly as docs/language.md §6.4 defines it.
func draw(f model.Func, args []float64, s *stream) float64 {
	switch f {
	case model.DExp:
		return -args[0] * math.Log(1-s.u())
	case model.DDet:
		return args[0]
	case model.DUniform:
		return args[0] + (args[1]-args[0])*s.u()
	case model.DErlang:
		k := math.Max(1, math.Floor(args[0]))
		m := args[1] / k
		sum := 0.0
		for i := 0.0; i < k; i++ {
			sum += -m * math.Log(1-s.u())
		}
		return sum
	case model.DH2:
		mean := args[0]
		v := math.Max(args[1], 1)
		p := (1 + math.Sqrt((v-1)/(v+1))) / 2
		u := s.u()
		if u < p {
			return -mean / (2 * p) * math.Log(1-s.u())
		}
		return -mean / (2 * (1 - p)) * math.Log(1-s.u())
	case model.DBernoulli:
		if s.u() < args[0] {
			return 1
		}
		return 0
	}
	panic("interp: unknown distribution " + f.String())
}
