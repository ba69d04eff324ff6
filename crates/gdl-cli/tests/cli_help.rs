//! `gdl --help`, `gdl help COMMAND` and `gdl COMMAND --help`: the flags
//! grouped under headings, the limits in one order everywhere, and examples
//! that run.

use crate::common::{copy, gdl, root, scratch};
use std::path::Path;
use std::process::Command;

/// Every subcommand, in the order of `gdl --help` (which is also an order
/// in which their examples can run one after another: `trace` writes the
/// `game.json` that `replay` reads, `play` the `game.moves` that `record`
/// reads).
const COMMANDS: [&str; 11] = [
    "check", "plan", "play", "trace", "replay", "record", "test", "random", "perft", "bench",
    "analyse",
];

/// The limit flags, in the order every command's help lists them.
const LIMITS: [&str; 9] = [
    "--max-facts",
    "--max-term-depth",
    "--max-nesting",
    "--max-work",
    "--max-ground-work",
    "--max-ground-atoms",
    "--max-file-size",
    "--max-memory",
    "--timeout",
];

/// The lines of `help` under the heading `heading`, up to the next
/// heading (a line that is not indented) or a blank line followed by one.
fn section<'a>(help: &'a str, heading: &str) -> Vec<&'a str> {
    help.lines()
        .skip_while(|l| *l != heading)
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn help_lists_the_limits_last_under_their_own_heading_in_one_order() {
    for command in COMMANDS {
        let run = gdl(&["help", command], "");
        assert_eq!(run.code, 0, "gdl help {command}: {}", run.screen());
        let help = &run.stdout;
        let limits: Vec<&str> = section(help, "Limits:")
            .into_iter()
            .filter_map(|l| l.trim_start().split([' ', '=']).next())
            .filter(|w| w.starts_with("--"))
            .collect();
        assert_eq!(limits, LIMITS, "gdl help {command}:\n{help}");
        // The command's own flags come first; no limit among them.
        let options = section(help, "Options:").join("\n");
        for limit in LIMITS {
            assert!(!options.contains(limit), "{command}: {limit}\n{help}");
        }
        let at = |needle: &str| help.find(needle).unwrap_or(usize::MAX);
        assert!(at("Options:") < at("Limits:"), "{command}:\n{help}");
        // `gdl COMMAND --help` is the same text.
        let long = gdl(&[command, "--help"], "");
        assert_eq!(long.stdout, run.stdout, "{command}");
    }
}

#[test]
fn the_short_help_has_no_examples_and_the_long_help_has_them() {
    let short = gdl(&["check", "-h"], "");
    assert_eq!(short.code, 0);
    assert!(!short.stdout.contains("Examples:"), "{}", short.stdout);
    assert!(short.stdout.contains("Limits:"), "{}", short.stdout);
    let top = gdl(&["--help"], "");
    assert!(top.stdout.contains("gdl help COMMAND"), "{}", top.stdout);
    assert!(top.stdout.contains("Exit status:"), "{}", top.stdout);
}

#[test]
fn the_search_player_flags_have_a_heading_of_their_own() {
    for command in ["play", "trace", "random"] {
        let help = gdl(&["help", command], "").stdout;
        let flags = section(&help, "Search player:").join("\n");
        for flag in ["--ai <ROLE>", "--think", "--iterations", "--ai-threads"] {
            assert!(flags.contains(flag), "{command}: {flag}\n{help}");
        }
    }
}

/// The commands of the `Examples:` of `gdl help COMMAND`: the lines that
/// start with `gdl `.
fn examples(command: &str) -> Vec<String> {
    let help = gdl(&["help", command], "").stdout;
    section(&help, "Examples:")
        .into_iter()
        .map(str::trim)
        .filter(|l| l.starts_with("gdl "))
        .map(String::from)
        .collect()
}

/// A scratch folder `name` holding a copy of `rules/`, where examples run
/// (what they write goes there), and the `PATH` that finds this `gdl`.
fn examples_folder(name: &str) -> (std::path::PathBuf, String) {
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    copy(&root().join("rules"), &dir.join("rules"));
    let bin = Path::new(env!("CARGO_BIN_EXE_gdl")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (dir, path)
}

#[test]
fn every_command_has_examples_and_they_run() {
    // In a copy of `rules/`, so that what the examples write (recorded
    // games, saved moves) goes there.
    let (dir, path) = examples_folder("help-examples");
    for command in COMMANDS {
        let examples = examples(command);
        assert!(!examples.is_empty(), "gdl help {command} has no example");
        for example in examples {
            assert!(
                example.starts_with(&format!("gdl {command}")) || command == "test",
                "an example of {command}: {example}"
            );
            run_example(&example, &dir, &path);
        }
    }
}

/// `player` and `match` end with examples too; those of `match` that need
/// no player over HTTP run (`player`'s serve until stopped).
#[test]
fn player_and_match_help_end_with_examples() {
    for command in ["player", "match"] {
        let help = gdl(&["help", command], "").stdout;
        let examples = examples(command);
        assert!(examples.len() >= 2, "gdl help {command}:\n{help}");
        let last = help.trim_end().lines().last().unwrap_or("");
        assert!(last.trim_start().starts_with("gdl "), "{command}: {last}");
    }
    let dir = scratch("help-match-examples");
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::fs::copy(
        root().join("rules/tictactoe.gdl"),
        dir.join("rules/tictactoe.gdl"),
    )
    .unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_gdl")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for example in examples("match").iter().filter(|e| !e.contains("http://")) {
        run_example(example, &dir, &path);
    }
}

/// Runs an example of the help through `sh` in `dir`, with `path` as its
/// `PATH`, and asserts that it succeeds.
fn run_example(example: &str, dir: &Path, path: &str) {
    let out = Command::new("sh")
        .args(["-c", example])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("sh runs");
    assert!(
        out.status.success(),
        "{example}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `gdl fmt` reads no game (its limits are only those of reading a file):
/// its examples run too, on a copy of `rules/` (formatted already).
#[test]
fn fmt_help_has_examples_that_run() {
    let (dir, path) = examples_folder("help-fmt-examples");
    let examples = examples("fmt");
    assert!(examples.len() >= 3, "{examples:?}");
    for example in examples {
        run_example(&example, &dir, &path);
    }
}
