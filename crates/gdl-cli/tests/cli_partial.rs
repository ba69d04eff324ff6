//! Ctrl-C and `--timeout` keep the work done: `random`, `analyse` and
//! `bench` stopped early print the summary of what finished, marked
//! partial, in the format asked for, and end with the exit status of the
//! interrupt (130) or of the time limit (1, its error naming the flag).
//! The figures themselves depend on the machine's speed: only their shape
//! is asserted.

use crate::common::{default_sigint, expect, scratch};
use std::path::PathBuf;

/// A game that never ends (no step limit reached before the time is up
/// matters not: its games end at `--max-steps`), and its rules warn, which
/// gives a line on standard error once the rules are loaded.
const ENDLESS: &str = "(role you)\n(init (count 0))\n(legal you go)\n\
                       (<= (next (count 0)) (does you go))\n(<= terminal (true never))\n\
                       (goal you 0)\n";

/// A folder with `endless.gdl` and tic-tac-toe.
fn games(test: &str) -> PathBuf {
    let dir = scratch(test);
    std::fs::write(dir.join("endless.gdl"), ENDLESS).unwrap();
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cli/tictactoe.gdl"),
        dir.join("ttt.gdl"),
    )
    .unwrap();
    dir
}

/// The error of the time limit, last on standard error.
const TIMED_OUT: &str = "error: the time limit (1 seconds) was reached; raise it with --timeout\n";

#[test]
fn random_stopped_by_the_time_limit_prints_what_finished() {
    let dir = games("partial_random");
    let args = [
        "random",
        "ttt.gdl",
        "--games",
        "1000000000",
        "--timeout",
        "1",
    ];
    let run = expect(&dir, &args, 1);
    let first = run.stdout.lines().next().unwrap_or("");
    assert!(
        first.starts_with("partial: stopped by the time limit after ")
            && first.ends_with(" of the 1000000000 games asked for"),
        "{}",
        run.screen()
    );
    assert!(run.stdout.contains("\ngames: "), "{}", run.screen());
    assert!(run.stderr.ends_with(TIMED_OUT), "{}", run.screen());
    let json = ["--format", "json"];
    let run = expect(&dir, &[&args[..], &json].concat(), 1);
    let value: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(value["partial"], true, "{}", run.stdout);
    assert_eq!(value["stopped_by"], "timeout");
    assert_eq!(value["games_asked"], 1_000_000_000u64);
    assert!(value["games"].as_u64().is_some());
    assert!(run.stderr.ends_with(TIMED_OUT), "{}", run.screen());
    // A run that finishes says it is whole.
    let whole = expect(
        &dir,
        &["random", "ttt.gdl", "--games", "3", "--format", "json"],
        0,
    );
    let value: serde_json::Value = serde_json::from_str(&whole.stdout).expect("JSON");
    assert_eq!(value["partial"], false);
    assert!(value.get("stopped_by").is_none());
}

#[test]
fn analyse_and_bench_stopped_by_the_time_limit_print_what_finished() {
    let dir = games("partial_analyse");
    let args = ["analyse", "ttt.gdl", "--games", "1000000", "--timeout", "1"];
    let run = expect(&dir, &args, 1);
    assert!(
        run.stdout
            .starts_with("partial: stopped by the time limit after ")
            && run.stdout.contains(" games of self-play"),
        "{}",
        run.screen()
    );
    assert!(run.stderr.ends_with(TIMED_OUT), "{}", run.screen());
    let run = expect(&dir, &[&args[..], &["--format", "json"]].concat(), 1);
    let value: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(value["partial"], true);
    assert_eq!(value["stopped_by"], "timeout");
    let args = ["bench", "ttt.gdl", "--seconds", "1000", "--timeout", "1"];
    let run = expect(&dir, &args, 1);
    assert!(
        run.stdout
            .starts_with("partial: stopped by the time limit after ")
            && run.stdout.contains("of the 1000 seconds asked for")
            && run.stdout.contains("\nrules: ttt.gdl\n"),
        "{}",
        run.screen()
    );
    let run = expect(&dir, &[&args[..], &["--json"]].concat(), 1);
    let value: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(value["partial"], true);
    assert_eq!(value["stopped_by"], "timeout");
    assert!(run.stderr.ends_with(TIMED_OUT), "{}", run.screen());
}

/// Ctrl-C, sent once the rules are loaded (their warning is the first line
/// on standard error): the summary of the games that finished, marked
/// partial, and exit status 130.
/// Runs `gdl ARGS` in `dir`, sends it Ctrl-C once the rules are loaded
/// (their warning, `never-true`, is the first line on standard error), and
/// checks that it ends as interrupted (exit status 130, the last line of
/// standard error saying so): its standard output.
#[cfg(unix)]
fn interrupted_once_loaded(dir: &std::path::Path, args: &[&str]) -> String {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    let mut command = Command::new(env!("CARGO_BIN_EXE_gdl"));
    command
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    default_sigint(&mut command);
    let mut child = command.spawn().expect("the gdl binary runs");
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    assert!(first.starts_with("warning[never-true]"), "{first}");
    // SAFETY: a plain kill(2) of our own child process.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{rest}");
    assert!(
        rest.ends_with("interrupted (Ctrl-C): the summary above is of what finished\n"),
        "{rest}"
    );
    stdout
}

#[cfg(unix)]
#[test]
fn random_interrupted_by_ctrl_c_prints_what_finished() {
    let dir = games("partial_sigint");
    for format in ["text", "json"] {
        let args = ["random", "endless.gdl", "--games", "1000000000"];
        let stdout = interrupted_once_loaded(
            &dir,
            &[&args[..], &["--max-steps", "100", "--format", format]].concat(),
        );
        if format == "text" {
            assert!(
                stdout.starts_with("partial: stopped by Ctrl-C after ")
                    && stdout.contains("\ngames: "),
                "{stdout}"
            );
        } else {
            let value: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
            assert_eq!(value["partial"], true);
            assert_eq!(value["stopped_by"], "interrupt");
        }
    }
}

/// A game whose every step is long on the interpreter (the transitive
/// closure of a path of [`SLOW_PATH`] edges, some two million facts, in
/// each state, and every state new), and which warns once loaded.
fn slow_steps() -> String {
    let mut rules = String::from("(role you)\n(init (count 0))\n");
    for i in 0..SLOW_PATH {
        rules.push_str(&format!("(e {i} {})\n", i + 1));
    }
    rules.push_str(
        "(<= (r ?x ?y) (true (count ?k)) (e ?x ?y))\n\
         (<= (r ?x ?z) (r ?x ?y) (e ?y ?z))\n\
         (<= (legal you go) (r 0 5))\n(<= (next (count (s ?n))) (true (count ?n)))\n\
         (<= terminal (true never))\n(goal you 0)\n",
    );
    rules
}

/// The edges of [`slow_steps`]' path.
const SLOW_PATH: usize = 2000;

/// Ctrl-C in the middle of a step that lasts longer than the second the
/// command has to print its summary: the step stops where it is (the
/// library looks at the stop inside its joins), and the summary of the
/// games that finished (none) still comes.
#[cfg(unix)]
#[test]
fn random_interrupted_inside_a_long_step_prints_what_finished() {
    let dir = scratch("partial_long_step");
    std::fs::write(dir.join("slow.gdl"), slow_steps()).unwrap();
    let args = ["random", "slow.gdl", "--games", "1000000000"];
    let stdout = interrupted_once_loaded(
        &dir,
        &[&args[..], &["--engine", "interpreter", "--format", "json"]].concat(),
    );
    let value: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(value["partial"], true, "{stdout}");
    assert_eq!(value["stopped_by"], "interrupt");
}
