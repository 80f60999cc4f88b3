package syntax

import (
	"os"
	"testing"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

const seedPath = "../../examples/pd-disaggregation/llmd_nixl_pull.sq"

// seedBench reads the seed program for a benchmark over its bytes.
func seedBench(b *testing.B) []byte {
	src, err := os.ReadFile(seedPath)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	return src
}

// lexAll reads lx to its end.
func lexAll(b *testing.B, lx lexer.Lexer) {
	for {
		t, err := lx.Next()
		if err != nil {
			b.Fatal(err)
		}
		if t.EOF() {
			break
		}
	}
}

// BenchmarkLexSeed lexes the seed program to its end.
func BenchmarkLexSeed(b *testing.B) {
	src := seedBench(b)
	for b.Loop() {
		lx, _ := sqLexer.LexBytes("seed.sq", src)
		lexAll(b, lx)
	}
}

// BenchmarkLexSeedRegexp lexes the seed program with the regexp lexer
// that lexer.go replaces (lexer_test.go), for comparison.
func BenchmarkLexSeedRegexp(b *testing.B) {
	src := seedBench(b)
	for b.Loop() {
		lx, _ := regexpLexer.LexString("seed.sq", string(src))
		lexAll(b, lx)
	}
}

// BenchmarkParseSeed parses the seed program: the checks before the parse
// and the parse, on one lexing.
func BenchmarkParseSeed(b *testing.B) {
	src := seedBench(b)
	for b.Loop() {
		if _, err := Parse("seed.sq", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildParser builds the program parser, as the first Parse of
// a process does.
func BenchmarkBuildParser(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		participle.MustBuild[File](parserOptions...)
	}
}
