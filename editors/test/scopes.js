// Tokenizes a serQ file with the TextMate grammar of this extension, in
// VS Code's own engine (the npm packages vscode-textmate and
// vscode-oniguruma), and prints the scopes at chosen places as JSON.
// editors/editors_test.go runs it:
//
//   node scopes.js GRAMMAR FILE PROBES
//
// PROBES is a JSON list of [at, n]: the place n characters into the first
// `at` of the file. The output is a JSON list, for each probe, of the
// scopes of the token there, outermost first.
"use strict";
const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

async function main() {
  const [grammarPath, file, probesJSON] = process.argv.slice(2);
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async () => vsctm.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath),
  });
  const grammar = await registry.loadGrammar("source.serq");
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  // The tokens of every line, the rule stack carried from line to line.
  const tokens = [];
  let stack = vsctm.INITIAL;
  for (const line of lines) {
    const r = grammar.tokenizeLine(line, stack);
    tokens.push(r.tokens);
    stack = r.ruleStack;
  }
  const out = [];
  for (const [at, n] of JSON.parse(probesJSON)) {
    const i = text.indexOf(at);
    if (i < 0) {
      throw new Error(`no ${JSON.stringify(at)} in ${file}`);
    }
    const before = text.slice(0, i + n);
    const line = before.split("\n").length - 1;
    const col = before.length - (before.lastIndexOf("\n") + 1);
    const t = tokens[line].find((t) => t.startIndex <= col && col < t.endIndex);
    out.push(t ? t.scopes : []);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
