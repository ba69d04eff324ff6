//! Hostile input: what the real binary prints, and its exit status, for
//! each kind of bad input a user may feed it. Never a panic, a hang or a
//! silent wrong answer: a message naming the file, line and column (or the
//! limit and the flag that raises it). Big inputs are generated here, never
//! checked in. The whole file takes about 5 s in release mode.

use crate::common::{gdl, gdl_in, library, scratch, Run};
use std::path::PathBuf;

/// A minimal complete game, for inputs built around it.
const GAME: &str = "(role you)\n(init (count 0))\n(legal you go)\n\
                    (<= (next (count 1)) (does you go))\n(<= terminal (true (count 1)))\n\
                    (goal you 100)\n";

/// Writes `files` into a fresh directory named after the test.
fn files(test: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = scratch(test);
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).expect("write a test file");
    }
    dir
}

/// Runs `gdl ARGS` in `dir`, requires exit status `code`, and returns the
/// run for its snapshot.
fn expect(dir: &std::path::Path, args: &[&str], code: i32) -> Run {
    let run = gdl_in(dir, args, "");
    assert_eq!(run.code, code, "{args:?}:\n{}", run.screen());
    run
}

/// `gdl check` of one of the checker's example files.
fn check_example(name: &str) -> Run {
    let run = gdl_in(
        &library(),
        &["check", &format!("tests/check/invalid/{name}.gdl")],
        "",
    );
    assert_eq!(run.code, 1, "{name}:\n{}", run.screen());
    run
}

#[test]
fn empty_file() {
    insta::assert_snapshot!(check_example("empty").screen());
}

#[test]
fn binary_file() {
    let elf: Vec<u8> = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00\x01"
        .iter()
        .copied()
        .chain((0..=255u8).cycle().take(4096))
        .collect();
    // Bytes that are UTF-8 (ASCII) but hold a NUL.
    let ascii: Vec<u8> = (0..128u8).cycle().take(4096).collect();
    let dir = files("binary_file", &[("a.out", &elf), ("ascii.bin", &ascii)]);
    insta::assert_snapshot!("binary_file", expect(&dir, &["check", "a.out"], 1).screen());
    insta::assert_snapshot!(
        "binary_file_of_ascii",
        expect(&dir, &["check", "ascii.bin"], 1).screen()
    );
}

#[test]
fn text_that_is_not_utf8() {
    let dir = files(
        "not_utf8",
        &[("latin1.gdl", b"(role you)\n(role caf\xe9)\n")],
    );
    insta::assert_snapshot!(expect(&dir, &["check", "latin1.gdl"], 1).screen());
}

#[test]
fn unbalanced_and_stray_parentheses() {
    let text = format!("{GAME}(<= (legal you stop)) (true (count 0)))\n(init (count 2)\n");
    let dir = files("parentheses", &[("p.gdl", text.as_bytes())]);
    insta::assert_snapshot!(expect(&dir, &["check", "p.gdl"], 1).screen());
}

#[test]
fn a_50_megabyte_rules_file_is_refused_by_its_size() {
    let mut text = String::from(GAME);
    let mut i = 0;
    while text.len() < 50 << 20 {
        text.push_str(&format!("(filler {i} (cell {} {} x))\n", i % 3, i % 7));
        i += 1;
    }
    let dir = files("fifty_megabytes", &[("big.gdl", text.as_bytes())]);
    for command in ["check", "trace"] {
        let run = expect(&dir, &[command, "big.gdl"], 1);
        insta::assert_snapshot!(format!("fifty_megabytes_{command}"), run.screen());
    }
    // The flag works both ways: a small limit refuses a small game.
    let run = gdl(
        &["check", "tests/cli/tictactoe.gdl", "--max-file-size", "100"],
        "",
    );
    assert_eq!(run.code, 1, "{}", run.screen());
    assert!(run.stderr.contains("raise it with --max-file-size"));
}

#[test]
fn terms_nested_100000_deep() {
    let deep = "(f ".repeat(100_000) + "x" + &")".repeat(100_000);
    let rules = format!("{GAME}(<= terminal (true {deep}))\n");
    let moves = format!("{deep} noop\n");
    let dir = files(
        "nested",
        &[
            ("deep.gdl", rules.as_bytes()),
            ("deep.txt", moves.as_bytes()),
        ],
    );
    insta::assert_snapshot!(
        "terms_nested_100000_deep_rules",
        expect(&dir, &["check", "deep.gdl"], 1).screen()
    );
    // Raising the limit cannot go past what the reader can hold.
    let run = expect(&dir, &["check", "deep.gdl", "--max-nesting", "10000"], 1);
    assert!(
        run.stdout.contains("this is the most the reader accepts"),
        "{}",
        run.stdout
    );
    let run = expect(&dir, &["check", "deep.gdl", "--max-nesting", "10001"], 2);
    assert!(
        run.stderr.contains("10001 is not in 1..=10000"),
        "{}",
        run.stderr
    );
    // A typed move or a moves file nested as deep.
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/tictactoe.gdl"),
        dir.join("ttt.gdl"),
    )
    .unwrap();
    insta::assert_snapshot!(
        "terms_nested_100000_deep_moves",
        expect(&dir, &["replay", "ttt.gdl", "deep.txt"], 2).screen()
    );
}

#[test]
fn a_rule_body_of_10000_literals() {
    let body: Vec<String> = (0..10_000).map(|i| format!("(r ?x{i})")).collect();
    let text = format!(
        "{GAME}(r 1)\n(<= (q ?x) (r ?x) {})\n(<= terminal (q 1))\n",
        body.join(" ")
    );
    let dir = files("long_body", &[("long.gdl", text.as_bytes())]);
    insta::assert_snapshot!(expect(&dir, &["check", "long.gdl"], 0).screen());
    // The game is over at once: the long rule holds.
    let run = expect(&dir, &["trace", "long.gdl"], 0);
    assert!(run.stdout.contains("goals: you 100"), "{}", run.stdout);
}

#[test]
fn a_symbol_of_one_megabyte() {
    let name = "s".repeat(1 << 20);
    let text = GAME
        .replace("(role you)", &format!("(role {name})"))
        .replace("you", &name);
    let dir = files("long_symbol", &[("long.gdl", text.as_bytes())]);
    insta::assert_snapshot!(expect(&dir, &["check", "long.gdl"], 0).screen());
}

#[test]
fn unsafe_variables() {
    insta::assert_snapshot!(check_example("unsafe_variable").screen());
}

#[test]
fn negation_through_recursion() {
    insta::assert_snapshot!(check_example("negation_cycle").screen());
}

#[test]
fn a_recursion_that_builds_ever_larger_terms() {
    // Static: the natural numbers, all of them.
    let statics = format!("{GAME}(num 0)\n(<= (num (s ?x)) (num ?x))\n(<= terminal (num 0))\n");
    // In play: a counter that grows a level every step and never ends.
    let growing = "(role you)\n(init (count 0))\n(legal you go)\n\
                   (<= (next (count (s ?x))) (true (count ?x)))\n\
                   (<= terminal (true never))\n(goal you 0)\n";
    let dir = files(
        "larger_terms",
        &[
            ("nat.gdl", statics.as_bytes()),
            ("grow.gdl", growing.as_bytes()),
        ],
    );
    insta::assert_snapshot!(
        "ever_larger_terms_static",
        expect(&dir, &["trace", "nat.gdl"], 1).screen()
    );
    let run = expect(
        &dir,
        &["random", "grow.gdl", "--games", "1", "--max-steps", "1000"],
        1,
    );
    insta::assert_snapshot!("ever_larger_terms_in_play", run.screen());
}

#[test]
fn no_role() {
    let text = GAME.replace("(role you)\n", "");
    let dir = files("no_role", &[("norole.gdl", text.as_bytes())]);
    insta::assert_snapshot!(expect(&dir, &["check", "norole.gdl"], 1).screen());
}

#[test]
fn a_role_declared_twice() {
    insta::assert_snapshot!(check_example("duplicate_role").screen());
}

#[test]
fn a_move_of_an_unknown_role() {
    let text = format!(
        "{GAME}(legal ghost go)\n(<= (legal ?r wait) (true (turn ?r)))\n(<= (next done) (does gost go))\n"
    );
    let dir = files("unknown_role", &[("ghost.gdl", text.as_bytes())]);
    insta::assert_snapshot!(
        "unknown_role_in_rules",
        expect(&dir, &["check", "ghost.gdl"], 1).screen()
    );
    let run = gdl(
        &["play", "tests/cli/tictactoe.gdl", "--random", "ghost"],
        "",
    );
    assert_eq!(run.code, 2, "{}", run.screen());
    insta::assert_snapshot!("unknown_role_on_the_command_line", run.screen());
}

#[test]
fn goal_values_that_are_not_numbers_from_0_to_100() {
    insta::assert_snapshot!(
        "goal_values_in_the_rules",
        check_example("goal_value").screen()
    );
    // A value computed in play is checked when asked for.
    let text = "(role you)\n(init (score 150))\n(legal you go)\n\
                (<= (next (score 150)) (does you go))\n(<= terminal (true (score ?x)))\n\
                (<= (goal you ?x) (true (score ?x)))\n";
    let dir = files("goal_in_play", &[("score.gdl", text.as_bytes())]);
    insta::assert_snapshot!(
        "goal_values_in_play",
        expect(&dir, &["trace", "score.gdl"], 1).screen()
    );
}

#[test]
fn init_that_depends_on_true() {
    insta::assert_snapshot!(check_example("init_dependency").screen());
}

#[test]
fn gdl_ii_keywords_are_refused_by_name() {
    insta::assert_snapshot!(check_example("gdl_ii").screen());
}

#[test]
fn moves_files_with_junk_unknown_moves_too_many_or_too_few() {
    let dir = files(
        "moves_files",
        &[
            ("junk.txt", b"(mark 1 1) noop\nnoop \"mark 2 2\"\n"),
            ("unknown.txt", b"(mark 1 1) noop\nnoop (mark 9 9)\n"),
            ("many.txt", b"(mark 1 1) noop noop\n"),
            ("few.txt", b"(mark 1 1)\n"),
        ],
    );
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/tictactoe.gdl"),
        dir.join("ttt.gdl"),
    )
    .unwrap();
    for (file, code) in [("junk", 2), ("unknown", 1), ("many", 1), ("few", 1)] {
        let run = expect(&dir, &["replay", "ttt.gdl", &format!("{file}.txt")], code);
        insta::assert_snapshot!(format!("moves_file_{file}"), run.screen());
        // `play --moves` reads the same files (as commands) and agrees.
        let run = gdl_in(
            &dir,
            &["play", "ttt.gdl", "--load", &format!("{file}.txt")],
            "",
        );
        assert_eq!(run.code, code, "play --load {file}:\n{}", run.screen());
    }
}

#[test]
fn a_timeout_stops_any_command_and_names_its_flag() {
    // An endless random series (a game that never ends, no step limit).
    let text = "(role you)\n(init (count 0))\n(legal you go)\n\
                (<= (next (count 0)) (does you go))\n(<= terminal (true never))\n(goal you 0)\n";
    let dir = files("timeout", &[("endless.gdl", text.as_bytes())]);
    let run = expect(
        &dir,
        &[
            "random",
            "endless.gdl",
            "--games",
            "1000000000",
            "--timeout",
            "0.5",
        ],
        1,
    );
    assert!(run
        .stderr
        .ends_with("error: the time limit (0.5 seconds) was reached; raise it with --timeout\n"));
    let run = expect(&dir, &["random", "endless.gdl", "--threads", "1000000"], 2);
    assert!(
        run.stderr.contains("from 0 (every core) to 1024"),
        "{}",
        run.stderr
    );
    let run = expect(&dir, &["check", "endless.gdl", "--timeout", "0"], 2);
    assert!(
        run.stderr.contains("expected a positive number of seconds"),
        "{}",
        run.stderr
    );
}

#[test]
fn joins_that_would_run_for_hours_stop_at_the_work_limit() {
    // 40^6 candidate joins for one fact that never holds.
    let mut text = String::from(GAME);
    for i in 0..40 {
        text.push_str(&format!("(d {i})\n"));
    }
    text.push_str("(<= (slow ?a ?b ?c ?d ?e ?f) (d ?a) (d ?b) (d ?c) (d ?d) (d ?e) (d ?f) (distinct ?f ?f))\n");
    text.push_str("(<= terminal (slow 1 2 3 4 5 6))\n");
    let dir = files("work", &[("slow.gdl", text.as_bytes())]);
    let run = expect(&dir, &["check", "slow.gdl", "--max-work", "1000000"], 1);
    insta::assert_snapshot!(run.screen());
}
