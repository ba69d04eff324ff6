//! Running the real `gdl` binary for the CLI tests, and showing what a user
//! sees: the exit status, standard output and standard error.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What one run of `gdl` printed.
pub struct Run {
    /// The exit status (-1 if killed by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl Run {
    /// Everything a user sees, for a snapshot.
    pub fn screen(&self) -> String {
        format!(
            "exit status: {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs `gdl ARGS` in the crate's directory (`tests/cli/x.gdl` is a file of
/// its tests) with `stdin` as its input.
pub fn gdl(args: &[&str], stdin: &str) -> Run {
    gdl_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, stdin)
}

/// The repository's root, where `rules/` is: `gdl_in(&root(), ...)` runs a
/// game of `rules/` as a user in the checkout would.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The library's crate, where the checker's test files are
/// (`tests/check/invalid/x.gdl`).
pub fn library() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../gdl")
}

/// Runs `gdl ARGS` in `dir` (so that file names print as given) with
/// `stdin` as its input.
pub fn gdl_in(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gdl"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gdl binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    // The command may stop reading early (an error): ignore a closed pipe.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let out = child.wait_with_output().expect("gdl finishes");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A fresh scratch directory for files a test writes.
pub fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// The crate's directory, where `tests/record` is.
pub fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `gdl ARGS` in `dir`, requires exit status `code`.
pub fn expect(dir: &Path, args: &[&str], code: i32) -> Run {
    let run = gdl_in(dir, args, "");
    assert_eq!(run.code, code, "{args:?}:\n{}", run.screen());
    run
}

/// A fresh copy of `tests/record` to change.
pub fn copy_of_the_records(test: &str) -> PathBuf {
    let dir = scratch(test);
    copy(&here().join("tests/record"), &dir);
    dir
}

/// Copies a folder and what it holds.
pub fn copy(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Adds rules at the end of a rules file.
pub fn append(file: &Path, rules: &str) {
    let mut text = std::fs::read_to_string(file).unwrap();
    text.push_str(rules);
    std::fs::write(file, text).unwrap();
}

/// A changed pawn rule: white may step two squares from its second rank.
/// Every recorded move stays legal; white's legal moves change.
pub const DOUBLE_STEP: &str = "
(<= (legal white (move ?x 2 ?x 4))
    (true (control white))
    (true (cell ?x 2 white))
    (not (occupied ?x 3))
    (not (occupied ?x 4)))
";
