//! `gdl lsp` driven over standard input and output as an editor drives it:
//! the real binary, messages framed by `Content-Length`, and what it
//! answers snapshotted (initialize, open, diagnostics, hover, definition,
//! references, rename, formatting, a quick fix, change, shutdown, exit).
//! Then the text an editor sends while a file is typed: every prefix of a
//! real rules file, each answered without a crash or a silence.
//!
//! Every server runs under `gdl --timeout`, so that a server that stops
//! answering fails the test (its output ends) rather than hanging it.

use crate::common::root;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A client of one `gdl lsp` process.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
    /// The notifications received while waiting for responses.
    notifications: Vec<Value>,
}

impl Client {
    /// Starts `gdl lsp` and initializes it.
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gdl"))
            .args(["--timeout", "300", "lsp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("gdl lsp starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let mut client = Client {
            child,
            stdin,
            stdout,
            next_id: 0,
            notifications: Vec::new(),
        };
        let capabilities = client.request("initialize", json!({"capabilities": {}}));
        assert!(capabilities["result"]["capabilities"]["hoverProvider"] == json!(true));
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        let stdin = self.stdin.as_mut().expect("stdin is open");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    }

    /// Reads one message; `None` at the end of the output.
    fn receive(&mut self) -> Option<Value> {
        let mut length = None;
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.parse::<usize>().ok();
            }
        }
        let mut body = vec![0; length?];
        self.stdout.read_exact(&mut body).ok()?;
        serde_json::from_slice(&body).ok()
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its response, keeping the notifications
    /// that come before it.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self
                .receive()
                .unwrap_or_else(|| panic!("gdl lsp stopped answering: no response to {method}"));
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            self.notifications.push(message);
        }
    }

    /// The next diagnostics published (received now or before).
    fn diagnostics(&mut self) -> Value {
        loop {
            if let Some(i) = (self.notifications.iter())
                .position(|n| n["method"] == "textDocument/publishDiagnostics")
            {
                return self.notifications.remove(i)["params"].clone();
            }
            let message = self
                .receive()
                .expect("gdl lsp stopped answering: no diagnostics");
            self.notifications.push(message);
        }
    }

    /// Shuts the server down and returns its exit status.
    fn shut_down(mut self) -> (Value, Option<i32>) {
        let response = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        drop(self.stdin.take());
        let status = self.child.wait().expect("gdl lsp ends");
        (response, status.code())
    }
}

const URI: &str = "file:///game.gdl";

/// A small game with mistakes: a variable only under `not` (read as
/// ggp-base reads it, with the warning `negated-unbound`), a misspelt
/// keyword (the Neovim test opens it too).
pub const GAME: &str = "(role white) (role black)
(init (cell a 1 x))
(<= (legal white (move ?x)) (true (cell ?x ?y ?z)) (not (blocked ?w)))
(<= (legal black noop) (true (cell a 1 x)))
(<= (next (cell a 1 x)) (does white (move a)))
(<= terminal (true (cell a 1 x)))
(<= (goal ?r 100)   (role ?r) terminal)
(<= (blocked ?x) (intit ?x))
";

fn at(line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}})
}

/// A response's result, pretty, for a snapshot.
fn shown(response: &Value) -> String {
    assert!(response.get("error").is_none(), "{response}");
    serde_json::to_string_pretty(&response["result"]).unwrap()
}

#[test]
fn a_session_answers_what_an_editor_asks() {
    let mut client = Client::start();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "gdl", "version": 1, "text": GAME}}),
    );
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics["uri"], URI);
    let codes: Vec<&str> = (diagnostics["diagnostics"].as_array().unwrap().iter())
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"negated-unbound"), "{codes:?}");
    insta::assert_snapshot!(
        "lsp_diagnostics",
        serde_json::to_string_pretty(&diagnostics).unwrap()
    );

    // `legal` on line 3, `blocked` in the body of line 3, `cell` of line 2.
    let hover = client.request("textDocument/hover", at(2, 6));
    insta::assert_snapshot!("lsp_hover_keyword", shown(&hover));
    let hover = client.request("textDocument/hover", at(2, 60));
    insta::assert_snapshot!("lsp_hover_relation", shown(&hover));
    let definition = client.request("textDocument/definition", at(2, 60));
    insta::assert_snapshot!("lsp_definition", shown(&definition));
    let mut references = at(1, 8);
    references["context"] = json!({"includeDeclaration": true});
    let references = client.request("textDocument/references", references);
    assert_eq!(references["result"].as_array().unwrap().len(), 5);
    insta::assert_snapshot!("lsp_references", shown(&references));
    let mut rename = at(2, 60);
    rename["newName"] = json!("stuck");
    let rename = client.request("textDocument/rename", rename);
    insta::assert_snapshot!("lsp_rename", shown(&rename));
    let mut keyword = at(2, 6);
    keyword["newName"] = json!("allowed");
    let refused = client.request("textDocument/rename", keyword);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("keyword")
    );
    let formatting = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": URI}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    insta::assert_snapshot!("lsp_formatting", shown(&formatting));
    let fixes = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": URI},
               "range": {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 30}},
               "context": {"diagnostics": []}}),
    );
    let titles: Vec<&str> = (fixes["result"].as_array().unwrap().iter())
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Change `intit` to `init`"]);

    // The `?w` made `?x`: the variable only under `not` is gone.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 2, "character": 65},
                                             "end": {"line": 2, "character": 67}},
                                   "text": "?x"}]}),
    );
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics["version"], 2);
    let codes: Vec<&str> = (diagnostics["diagnostics"].as_array().unwrap().iter())
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(!codes.contains(&"negated-unbound"), "{codes:?}");
    let unknown = client.request("workspace/symbol", json!({"query": ""}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    let (response, status) = client.shut_down();
    assert_eq!(response["result"], Value::Null);
    assert_eq!(status, Some(0));
}

#[test]
fn symbols_tokens_and_completions_of_a_rules_file() {
    let text = std::fs::read_to_string(root().join("rules/tictactoe.gdl")).unwrap();
    let mut client = Client::start();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "gdl", "version": 1, "text": text}}),
    );
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics["diagnostics"], json!([]), "{diagnostics}");
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": URI}}),
    );
    let names: Vec<&str> = (symbols["result"].as_array().unwrap().iter())
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(&names[..4], ["xplayer", "oplayer", "index/1", "mark/1"]);
    let tokens = client.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": URI}}),
    );
    let data = tokens["result"]["data"].as_array().unwrap();
    assert!(
        data.len() > 500 && data.len().is_multiple_of(5),
        "{}",
        data.len()
    );
    let completion = client.request("textDocument/completion", at(20, 1));
    let labels: Vec<&str> = (completion["result"].as_array().unwrap().iter())
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    for label in ["legal", "<=", "distinct", "line", "open", "xplayer"] {
        assert!(labels.contains(&label), "{label}: {labels:?}");
    }
    let (_, status) = client.shut_down();
    assert_eq!(status, Some(0));
}

#[test]
fn every_prefix_of_a_rules_file_is_answered() {
    // What an editor sends while the file is typed from its start: every
    // prefix (at a stride, for time), each followed by requests at its end.
    let text = std::fs::read_to_string(root().join("rules/breakthrough.gdl")).unwrap();
    let mut client = Client::start();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "gdl", "version": 0, "text": ""}}),
    );
    client.diagnostics();
    let mut ends: Vec<usize> = (0..text.len())
        .step_by(11)
        .filter(|&i| text.is_char_boundary(i))
        .collect();
    ends.push(text.len());
    for (version, &end) in ends.iter().enumerate() {
        let prefix = &text[..end];
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": version + 1},
                   "contentChanges": [{"text": prefix}]}),
        );
        let diagnostics = client.diagnostics();
        assert_eq!(diagnostics["version"], version + 1);
        let line = prefix.matches('\n').count() as u32;
        let column = prefix.rsplit('\n').next().unwrap_or("").len() as u32;
        for method in [
            "textDocument/hover",
            "textDocument/definition",
            "textDocument/completion",
        ] {
            let response = client.request(method, at(line, column.saturating_sub(1)));
            assert!(
                response.get("error").is_none(),
                "{method} at {end}: {response}"
            );
        }
        let tokens = client.request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": URI}}),
        );
        assert!(tokens.get("error").is_none(), "tokens at {end}: {tokens}");
    }
    let (_, status) = client.shut_down();
    assert_eq!(status, Some(0));
}

#[test]
fn an_exit_without_shutdown_or_a_closed_input_is_status_1() {
    let mut client = Client::start();
    client.notify("exit", Value::Null);
    drop(client.stdin.take());
    assert_eq!(client.child.wait().unwrap().code(), Some(1));
    let mut client = Client::start();
    drop(client.stdin.take());
    assert_eq!(client.child.wait().unwrap().code(), Some(1));
}

#[test]
fn the_fuzz_corpus_is_answered_without_a_panic() {
    // The fuzz target of the server (`fuzz/fuzz_targets/lsp.rs`) on the
    // checked-in corpus of the parser and the checker, as CI's smoke run.
    let mut inputs: Vec<_> = std::fs::read_dir(root().join("fuzz/corpus"))
        .expect("fuzz/corpus is checked in")
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 30, "{} inputs", inputs.len());
    for path in inputs {
        gdl_cli::fuzz::lsp_document(&std::fs::read(&path).unwrap());
    }
}

/// `GAME` in infix, as `gdl fmt --to infix` writes it.
pub const INFIX_GAME: &str = "role(white)
role(black)
init(cell(a, 1, x))
legal(white, move(X)) :- true(cell(X, Y, Z)) & ~blocked(W)
legal(black, noop) :- true(cell(a, 1, x))
next(cell(a, 1, x)) :- does(white, move(a))
terminal :- true(cell(a, 1, x))
goal(R, 100) :- role(R) & terminal
blocked(X) :- intit(X)
";

#[test]
fn an_infix_file_is_answered_in_infix() {
    const HRF: &str = "file:///game.hrf";
    let on = |line: u32, character: u32| json!({"textDocument": {"uri": HRF}, "position": {"line": line, "character": character}});
    let mut client = Client::start();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": HRF, "languageId": "gdl-infix", "version": 1, "text": INFIX_GAME}}),
    );
    // The diagnostics are located in the infix text: `intit` on line 9.
    let diagnostics = client.diagnostics();
    let found: Vec<(String, u64, u64)> = (diagnostics["diagnostics"].as_array().unwrap().iter())
        .map(|d| {
            let start = &d["range"]["start"];
            (
                d["code"].as_str().unwrap().to_string(),
                start["line"].as_u64().unwrap(),
                start["character"].as_u64().unwrap(),
            )
        })
        .collect();
    let column =
        |line: usize, word: &str| INFIX_GAME.lines().nth(line).unwrap().find(word).unwrap() as u64;
    let expected = [
        ("never-true", 3, column(3, "blocked(")),
        ("negated-unbound", 3, column(3, "W)")),
        ("undefined-relation", 8, column(8, "intit")),
    ];
    for (code, line, character) in expected {
        assert!(
            found.contains(&(code.into(), line, character)),
            "{code}: {found:?}"
        );
    }
    // Their messages quote the rules in infix, as `gdl check` does.
    for d in diagnostics["diagnostics"].as_array().unwrap() {
        let message = d["message"].as_str().unwrap();
        let kif_variable = (message.match_indices("`?"))
            .any(|(i, _)| message[i + 2..].starts_with(|c: char| c.is_alphanumeric()));
        assert!(!kif_variable, "{message}");
    }
    // `blocked` in the body of line 4: a relation defined on line 9.
    let blocked = column(3, "blocked") as u32 + 2;
    let hover = client.request("textDocument/hover", on(3, blocked));
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("blocked"), "{text}");
    let definition = client.request("textDocument/definition", on(3, blocked));
    assert_eq!(
        definition["result"][0]["range"]["start"],
        json!({"line": 8, "character": 0})
    );
    // `~` is `not`.
    let hover = client.request("textDocument/hover", on(3, column(3, "~") as u32));
    let text = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("(not literal)"), "{text}");
    let mut rename = on(3, blocked);
    rename["newName"] = json!("Stuck");
    let refused = client.request("textDocument/rename", rename);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("infix"),
        "{refused}"
    );
    let mut rename = on(3, blocked);
    rename["newName"] = json!("stuck");
    let rename = client.request("textDocument/rename", rename);
    assert_eq!(
        rename["result"]["changes"][HRF].as_array().unwrap().len(),
        2,
        "{rename}"
    );
    let formatting = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": HRF}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(
        formatting["result"],
        json!([]),
        "already in the infix layout"
    );
    let (_, status) = client.shut_down();
    assert_eq!(status, Some(0));
}

/// The server's diagnostics are `gdl check`'s: a file that published games'
/// looseness makes valid (a relation written with two arities, read as two
/// relations) gets the same warnings, allowances included, and no error.
#[test]
fn diagnostics_are_those_of_gdl_check_on_loose_rules() {
    const URI: &str = "file:///loose.gdl";
    let text = "(role x)\n(init (c 1))\n(legal x m)\n(next (c 1))\n\
                (<= terminal (true (c 1)))\n(goal x 100)\n(arg terminal)\n(arg does 0 black)\n";
    let mut client = Client::start();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "ggp-gdl", "version": 1, "text": text}}),
    );
    let diagnostics = client.diagnostics();
    let mut found: Vec<(String, u64)> = (diagnostics["diagnostics"].as_array().unwrap().iter())
        .map(|d| {
            let line = d["range"]["start"]["line"].as_u64().unwrap();
            (d["code"].as_str().unwrap().to_string(), line + 1)
        })
        .collect();
    let (file, checked) = gdl::check_source("loose.gdl", text);
    let mut expected: Vec<(String, u64)> = (checked.iter())
        .map(|d| {
            (
                d.code.to_string(),
                file.line_col(d.span.start as usize).line as u64,
            )
        })
        .collect();
    found.sort();
    expected.sort();
    assert!(
        expected.contains(&("several-arities".into(), 8)),
        "{expected:?}"
    );
    assert_eq!(found, expected);
}

#[test]
fn the_editors_language_decides_the_syntax_of_a_document() {
    // Its start reads as KIF (a fact of no argument first), its name says
    // nothing: the language the editor gives it decides.
    let text = "open\nrole(x)\n";
    let codes = |language: &str| {
        let mut client = Client::start();
        client.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": "untitled:Untitled-1", "languageId": language, "version": 1, "text": text}}),
        );
        let diagnostics = client.diagnostics();
        client.shut_down();
        (diagnostics["diagnostics"].as_array().unwrap().iter())
            .map(|d| d["code"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let infix = codes("ggp-gdl-infix");
    assert!(!infix.contains(&"keyword-arity".to_string()), "{infix:?}");
    assert!(infix.contains(&"missing-keyword".to_string()), "{infix:?}");
    let kif = codes("ggp-gdl");
    assert!(kif.contains(&"keyword-arity".to_string()), "{kif:?}");
}
