// The TextMate grammar of the extension, run as VS Code runs it
// (vscode-textmate with the Oniguruma regular expressions of VS Code) on
// lines of KIF and of infix: each word must get the scope that colours it.
const assert = require("assert");
const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const grammarPath = path.join(__dirname, "..", "syntaxes", "ggp-gdl.tmLanguage.json");
const infixPath = path.join(__dirname, "..", "syntaxes", "ggp-gdl-infix.tmLanguage.json");

async function grammar(scopeName = "source.ggp-gdl") {
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) => {
      const file = { "source.ggp-gdl": grammarPath, "source.ggp-gdl-infix": infixPath }[scope];
      return file ? vsctm.parseRawGrammar(fs.readFileSync(file, "utf8"), file) : null;
    },
  });
  return registry.loadGrammar(scopeName);
}

/** The innermost scope of the token that is `word` (white space aside). */
function scopeOf(g, line, word) {
  const { tokens } = g.tokenizeLine(line, vsctm.INITIAL);
  const token = tokens.find((t) => line.slice(t.startIndex, t.endIndex).trim() === word);
  assert.ok(token, `no token ${word} in ${line}`);
  return token.scopes[token.scopes.length - 1];
}

async function main() {
  const g = await grammar();
  const rule = "(<= (legal ?r (mark ?m 3)) (true (control ?r)) (not (distinct ?m b))) ; why";
  const expected = {
    "<=": "keyword.operator.rule.ggp-gdl",
    legal: "support.function.keyword.ggp-gdl",
    true: "support.function.keyword.ggp-gdl",
    mark: "entity.name.function.ggp-gdl",
    "?r": "variable.other.ggp-gdl",
    "3": "constant.numeric.ggp-gdl",
    not: "keyword.control.ggp-gdl",
    distinct: "keyword.control.ggp-gdl",
    "; why": "comment.line.semicolon.ggp-gdl",
  };
  for (const [word, scope] of Object.entries(expected)) {
    assert.strictEqual(scopeOf(g, rule, word), scope, word);
  }
  assert.strictEqual(scopeOf(g, "(<= terminal (line x))", "terminal"), "support.constant.keyword.ggp-gdl");
  assert.strictEqual(scopeOf(g, ";! board cell x=2 y=1 piece=3", ";! board cell x=2 y=1 piece=3"),
    "comment.line.semicolon.annotation.ggp-gdl");
  assert.strictEqual(scopeOf(g, '(role "white")', '"'), "invalid.illegal.ggp-gdl");
  const infix = await grammar("source.ggp-gdl-infix");
  const line = 'legal(R, mark(M, 3)) :- true(control(R)) & ~distinct(M, "B-1") % why';
  const infixExpected = {
    ":-": "keyword.operator.rule.ggp-gdl-infix",
    legal: "support.function.keyword.ggp-gdl-infix",
    true: "support.function.keyword.ggp-gdl-infix",
    mark: "entity.name.function.ggp-gdl-infix",
    R: "variable.other.ggp-gdl-infix",
    "3": "constant.numeric.ggp-gdl-infix",
    "&": "keyword.operator.logical.ggp-gdl-infix",
    "~": "keyword.operator.logical.ggp-gdl-infix",
    distinct: "keyword.control.ggp-gdl-infix",
    '"B-1"': "string.quoted.double.ggp-gdl-infix",
    "% why": "comment.line.percentage.ggp-gdl-infix",
  };
  for (const [word, scope] of Object.entries(infixExpected)) {
    assert.strictEqual(scopeOf(infix, line, word), scope, word);
  }
  assert.strictEqual(scopeOf(infix, "terminal :- ~open", "terminal"), "support.constant.keyword.ggp-gdl-infix");
  assert.strictEqual(scopeOf(infix, "p(?x)", "?"), "invalid.illegal.ggp-gdl-infix");
  console.log("grammar: every scope as expected");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
