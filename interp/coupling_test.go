package interp_test

import (
	"context"
	"testing"

	"github.com/serq/serq/interp"
	"github.com/serq/serq/lang"
	"github.com/serq/serq/lib"
)

// TestDecoderPressureRetainsPrefillerMemory is the seed's coupling: a
// prefiller's finished blocks stay leased until the decoder can read them,
// so shrinking the decoders' memory (--blocksD) makes the leases longer and
// the prefillers' time-average used KV larger, with the same workload (the
// same seed draws the same sessions).
func TestDecoderPressureRetainsPrefillerMemory(t *testing.T) {
	run := func(blocksD string) (lease, prefillerKV float64, preemptions uint64) {
		t.Helper()
		p, err := lang.Load("../examples/pd-disaggregation/llmd_nixl_pull.sq", lang.Options{Lib: lib.FS,
			Sets: []lang.Override{{Name: "blocksD", Expr: blocksD}}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := interp.Run(context.Background(), p, interp.Options{Horizon: 400, Warmup: 40, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range r.Observes {
			if o.Name == "lease" {
				lease = o.Mean
			}
		}
		for _, pl := range r.Pools {
			if pl.Name == "P.kv" {
				prefillerKV += pl.MeanUsed
			}
			if pl.Name == "D.kv" {
				preemptions += pl.Preemptions
			}
		}
		return
	}
	lease0, kv0, pre0 := run("10000")
	lease1, kv1, pre1 := run("1100")
	t.Logf("blocksD 10000: lease %.4f s, P.kv used %.0f, D.kv preemptions %d", lease0, kv0, pre0)
	t.Logf("blocksD  1100: lease %.4f s, P.kv used %.0f, D.kv preemptions %d", lease1, kv1, pre1)
	if !(lease1 > 1.5*lease0) {
		t.Errorf("mean lease %.4f s under pressure, %.4f s without: want at least 1.5 times longer", lease1, lease0)
	}
	if !(kv1 > 1.5*kv0) {
		t.Errorf("prefillers' used KV %.0f under pressure, %.0f without: want at least 1.5 times more", kv1, kv0)
	}
	if pre0 != 0 || pre1 == 0 {
		t.Errorf("decoder preemptions %d without pressure and %d with it: want 0 and some", pre0, pre1)
	}
}
