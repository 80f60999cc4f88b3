// The serQ extension: the grammar and language configuration are declared in
// package.json; this starts the language server, `serq lsp` over stdio,
// unless the setting serq.languageServer is off.
const vscode = require("vscode");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("serq");
  if (!config.get("languageServer")) {
    return;
  }
  const { LanguageClient } = require("vscode-languageclient/node");
  const command = config.get("path") || "serq";
  client = new LanguageClient(
    "serq",
    "serQ language server",
    { command, args: ["lsp"] },
    { documentSelector: [{ scheme: "file", language: "serq" }] }
  );
  context.subscriptions.push(client);
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
