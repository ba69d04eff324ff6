//! The command examples of the README and the manual, run through the real
//! binary and compared with what the docs show, so that the docs cannot
//! drift from the command.
//!
//! A session is a fenced block with lines that start with `$ `: each such
//! line is a shell command (run by `sh` with `gdl` on the `PATH`, standard
//! input empty, `2>&1`: standard output and error as a terminal shows
//! them), and the lines under it, up to the next command, are its output.
//! In the output, a line `...` stands for any number of lines left out and
//! `[..]` for any text on a line (a time, a rate: what changes from run to
//! run). Trailing blank lines and spaces do not count.
//!
//! Each block runs in a folder of its own that holds copies of `rules/`,
//! `tests/cli/` (the command's test games), `crates/gdl-cli/tests/record/`
//! and the files of `docs/examples/`. An HTML comment just before a block
//! can say more, one instruction a line:
//!
//! ```text
//! <!-- doc-test
//! in: loop                      run in this subfolder (made if missing)
//! continue                      go on in the previous block's folder
//! setup: cp ../rules/x.gdl .    a shell command run first (repeatable)
//! shared: slidingpieces.kif     a game of ../shared/corpus, copied in
//!                               (the block is skipped, saying so, without it)
//! needs: groff                  a program it runs (skipped, saying so, without)
//! skip: why                     not run (a server, a terminal), with why
//! -->
//! ```

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One fenced block with commands.
struct Block {
    /// The file and line of its fence, for messages.
    place: String,
    /// What its comment says.
    directive: Directive,
    /// Each command with its expected output lines and its line number.
    commands: Vec<(usize, String, Vec<String>)>,
}

#[derive(Default)]
struct Directive {
    folder: Option<String>,
    continues: bool,
    setup: Vec<String>,
    shared: Vec<String>,
    needs: Vec<String>,
    skip: Option<String>,
}

/// The sessions of a markdown file.
fn sessions(file: &str, text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut directive: Option<Directive> = None;
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if line.trim_start().starts_with("<!-- doc-test") {
            let mut d = Directive::default();
            let mut body = line
                .trim_start()
                .trim_start_matches("<!-- doc-test")
                .to_string();
            while !body.contains("-->") {
                let Some((_, next)) = lines.next() else { break };
                body.push('\n');
                body.push_str(next);
            }
            for item in body.trim_end().trim_end_matches("-->").lines() {
                let item = item.trim();
                match item.split_once(':') {
                    Some(("in", v)) => d.folder = Some(v.trim().to_string()),
                    Some(("setup", v)) => d.setup.push(v.trim().to_string()),
                    Some(("shared", v)) => d.shared.push(v.trim().to_string()),
                    Some(("needs", v)) => d.needs.push(v.trim().to_string()),
                    Some(("skip", v)) => d.skip = Some(v.trim().to_string()),
                    _ if item == "continue" => d.continues = true,
                    _ if item.is_empty() => {}
                    _ => panic!("{file}:{}: unknown doc-test instruction {item:?}", i + 1),
                }
            }
            directive = Some(d);
            continue;
        }
        if !line.starts_with("```") {
            if !line.trim().is_empty() {
                directive = None;
            }
            continue;
        }
        let mut commands: Vec<(usize, String, Vec<String>)> = Vec::new();
        for (j, inner) in lines.by_ref() {
            if inner.starts_with("```") {
                break;
            }
            match inner.strip_prefix("$ ") {
                Some(command) => commands.push((j + 1, command.to_string(), Vec::new())),
                None => {
                    if let Some(last) = commands.last_mut() {
                        last.2.push(inner.to_string());
                    }
                }
            }
        }
        let d = directive.take().unwrap_or_default();
        if !commands.is_empty() {
            blocks.push(Block {
                place: format!("{file}:{}", i + 1),
                directive: d,
                commands,
            });
        }
    }
    blocks
}

/// Whether a line of output matches a line of the docs (`[..]`: any text).
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("[..]").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Whether the output matches the docs' lines (`...`: any lines).
fn matches(expected: &[String], actual: &[&str]) -> bool {
    // The positions of `actual` each prefix of `expected` can end at.
    let mut reach = vec![false; actual.len() + 1];
    reach[0] = true;
    for e in expected {
        let mut next = vec![false; actual.len() + 1];
        if e.trim() == "..." {
            let mut on = false;
            for k in 0..=actual.len() {
                on |= reach[k];
                next[k] = on;
            }
        } else {
            for k in 0..actual.len() {
                if reach[k] && line_matches(e.trim_end(), actual[k]) {
                    next[k + 1] = true;
                }
            }
        }
        reach = next;
    }
    reach[actual.len()]
}

/// The lines without trailing spaces and trailing blank lines.
fn trimmed<S: AsRef<str>>(lines: &[S]) -> Vec<&str> {
    let mut out: Vec<&str> = lines.iter().map(|l| l.as_ref().trim_end()).collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// A fresh folder with the files the examples use.
fn world(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let repo = repository();
    copy(&repo.join("rules"), &dir.join("rules"));
    copy(
        &repo.join("crates/gdl-cli/tests/cli"),
        &dir.join("tests/cli"),
    );
    copy(
        &repo.join("crates/gdl-cli/tests/record"),
        &dir.join("crates/gdl-cli/tests/record"),
    );
    copy(&repo.join("docs/examples"), dir);
}

/// Runs `command` with `sh` in `dir`, `$?` set to `status`: its exit
/// status and what it printed on standard output and error, together.
fn shell(dir: &Path, command: &str, status: i32) -> (i32, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_gdl")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{{ (exit {status}); {command}\n}} 2>&1"))
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("sh runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Runs every session of `file` (relative to the repository); the
/// differences, one message each.
fn check(file: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repository().join(file)).unwrap();
    let blocks = sessions(file, &text);
    assert!(!blocks.is_empty(), "{file} has no command examples");
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs");
    let mut failures = Vec::new();
    let mut root = PathBuf::new();
    let shared = repository().join("../shared/corpus");
    for (n, block) in blocks.iter().enumerate() {
        let d = &block.directive;
        if let Some(why) = &d.skip {
            eprintln!("{}: skipped: {why}", block.place);
            continue;
        }
        if let Some(missing) = d.shared.iter().find(|f| !shared.join(f).is_file()) {
            eprintln!(
                "{}: skipped: ../shared/corpus/{missing} is not here",
                block.place
            );
            continue;
        }
        let absent =
            (d.needs.iter()).find(|p| shell(Path::new("."), &format!("command -v {p}"), 0).0 != 0);
        if let Some(program) = absent {
            eprintln!("{}: skipped: {program} is not installed", block.place);
            continue;
        }
        if !d.continues {
            root = base.join(format!("{}-{n}", file.replace('/', "-")));
            world(&root);
        }
        let dir = match &d.folder {
            Some(f) => root.join(f),
            None => root.clone(),
        };
        std::fs::create_dir_all(&dir).unwrap();
        for f in &d.shared {
            std::fs::copy(shared.join(f), dir.join(f)).unwrap();
        }
        for setup in &d.setup {
            let (code, out) = shell(&dir, setup, 0);
            assert_eq!(code, 0, "{}: setup {setup:?} failed: {out}", block.place);
        }
        let mut status = 0;
        for (line, command, expected) in &block.commands {
            // Its output would keep the pipe open: the test would never end.
            let background = command.split('#').next().unwrap_or("").trim_end();
            assert!(
                !background.ends_with('&'),
                "{file}:{line}: a command left running in the background needs `skip:`"
            );
            let (code, out) = shell(&dir, command, status);
            status = code;
            let actual: Vec<&str> = out.lines().collect();
            let expected: Vec<String> = trimmed(expected).iter().map(|s| s.to_string()).collect();
            if !matches(&expected, &trimmed(&actual)) {
                failures.push(format!(
                    "{file}:{line}: $ {command}\n--- the docs show\n{}\n--- the command prints (exit status {code})\n{}",
                    expected.join("\n"),
                    trimmed(&actual).join("\n")
                ));
            }
        }
    }
    failures
}

#[test]
fn the_readme_examples_are_what_gdl_prints() {
    let failures = check("README.md");
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn the_manual_examples_are_what_gdl_prints() {
    let failures = check("docs/manual.md");
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

#[test]
fn elisions_match_what_they_stand_for_and_nothing_else() {
    let lines = |t: &str| t.lines().map(String::from).collect::<Vec<_>>();
    assert!(matches(&lines("a\n...\nd"), &["a", "b", "c", "d"]));
    assert!(matches(&lines("a\n...\nb"), &["a", "b"]));
    assert!(matches(&lines("...\nc"), &["a", "b", "c"]));
    assert!(!matches(&lines("a\n...\nd"), &["a", "b", "c"]));
    assert!(!matches(&lines("a\nb"), &["a", "b", "c"]));
    assert!(matches(&lines("time: [..]s"), &["time: 0.31s"]));
    assert!(matches(
        &lines("rate [..]/s ([..] to [..])"),
        &["rate 5.0/s (1 to 7)"]
    ));
    assert!(!matches(&lines("time: [..]s"), &["time: 0.31s left"]));
    assert!(!matches(&lines("[..]: 1"), &["time: 2"]));
    assert!(!matches(&lines("a[..]a"), &["a"]));
}
