// The bundled extension (out/extension.js, one file with its language
// client, as the .vsix ships it) loads in Node with a stand-in for VS Code's
// `vscode` module, and its activation registers the four commands. The
// stand-in gives too little of VS Code for the language client to start
// (nor is there a `gdl` at the path the settings give): that must end in
// an error message that says how to fix it, not in an exception.
const assert = require("assert");
const Module = require("module");
const path = require("path");

const commands = [];
const errors = [];
// Anything the client reads of `vscode` that this stand-in does not give
// is a function or object that does nothing.
const nothing = new Proxy(function () {}, {
  get: (target, key) => (key === "then" ? undefined : nothing),
  apply: () => nothing,
  construct: () => nothing,
});
const vscode = new Proxy(
  {
    commands: { registerCommand: (name) => (commands.push(name), { dispose() {} }) },
    window: {
      showErrorMessage: (message) => (errors.push(message), Promise.resolve(undefined)),
      createOutputChannel: () => nothing,
    },
    workspace: {
      getConfiguration: () => ({ get: (key) => (key === "path" ? "/nonexistent/gdl" : undefined) }),
    },
  },
  { get: (target, key) => (key in target ? target[key] : nothing) },
);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "vscode" ? "vscode" : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: "vscode", filename: "vscode", loaded: true, exports: vscode };

(async () => {
  const extension = require(path.join(__dirname, "..", "out", "extension.js"));
  assert.strictEqual(typeof extension.activate, "function");
  assert.strictEqual(typeof extension.deactivate, "function");
  await extension.activate({ subscriptions: [] });
  assert.deepStrictEqual(commands, ["ggp-gdl.check", "ggp-gdl.trace", "ggp-gdl.play", "ggp-gdl.restart"]);
  assert.strictEqual(errors.length, 1, JSON.stringify(errors));
  assert.match(errors[0], /install gdl or set ggp-gdl\.path/);
  console.log("bundle: activated; commands", commands.join(", "), "; errors:", JSON.stringify(errors));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
