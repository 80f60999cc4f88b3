# serq's developer targets (CONTRIBUTING.md). Each check calls the step of
# .ci/run that CI runs, so that what passes here passes there:
#
#   make            every step of CI, in its order (.ci/run)
#   make lint       gofmt, goimports grouping, go vet, staticcheck
#   make test       go test ./... (the editors' engines installed if root)
#   make race       the packages with goroutines under the race detector
#   make fuzz-smoke a 10-second run of every fuzz target
#   make bench      the benchmarks of bench/baseline.txt, compared with it
#                   by benchstat (make bench-baseline records it anew)

BENCH     := BenchmarkMM1$$|BenchmarkSeed$$|BenchmarkSeedStep$$|BenchmarkChooseIndex$$|BenchmarkObserveAdd$$|BenchmarkLoadSeed$$
BENCHPKGS := ./interp ./lang
BENCHSTAT := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

.PHONY: ci lint test race fuzz-smoke bench bench-baseline

ci:
	bash .ci/run

lint test race fuzz-smoke:
	bash .ci/run $@

bench:
	go test -run '^$$' -bench '$(BENCH)' -benchmem -count 5 $(BENCHPKGS) > bench/new.txt
	go run $(BENCHSTAT) bench/baseline.txt bench/new.txt

bench-baseline:
	go test -run '^$$' -bench '$(BENCH)' -benchmem -count 5 $(BENCHPKGS) > bench/baseline.txt
