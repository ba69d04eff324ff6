//! Hostile input: what the real binary prints, and its exit status, for
//! each kind of bad input a user may feed it. Never a panic, a hang or a
//! silent wrong answer: a message naming the file, line and column (or the
//! limit and the flag that raises it). Big inputs are generated here, never
//! checked in. The whole file takes about 5 s in release mode.

use crate::common::{Run, gdl, gdl_in, library, scratch};
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

/// Text in another encoding is read with each byte that is not UTF-8
/// replaced (the allowance `not-utf8`, as ggp-base reads it): harmless in
/// a comment, a syntax error in a name.
#[test]
fn text_that_is_not_utf8() {
    let comment = [b"; caf\xe9 au lait\n".as_slice(), GAME.as_bytes()].concat();
    let dir = files(
        "not_utf8",
        &[
            ("latin1.gdl", b"(role you)\n(role caf\xe9)\n".as_slice()),
            ("comment.gdl", comment.as_slice()),
        ],
    );
    insta::assert_snapshot!(expect(&dir, &["check", "latin1.gdl"], 1).screen());
    insta::assert_snapshot!(
        "text_that_is_not_utf8_in_a_comment",
        expect(&dir, &["check", "comment.gdl"], 0).screen()
    );
    expect(&dir, &["check", "--strict", "comment.gdl"], 1);
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
    // Static: the natural numbers, all of them (asked with a free place,
    // so they must all be derived; `(num 0)` is answered on demand).
    let statics = format!("{GAME}(num 0)\n(<= (num (s ?x)) (num ?x))\n(<= terminal (num ?n))\n");
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
        expect(&dir, &["check", "ghost.gdl"], 0).screen()
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
    assert!(
        run.stderr.ends_with(
            "error: the time limit (0.5 seconds) was reached; raise it with --timeout\n"
        )
    );
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
    // 40^6 candidate joins for facts that never hold (asked with every
    // place free; asked bound, `slow` would be derived on demand).
    let mut text = String::from(GAME);
    for i in 0..40 {
        text.push_str(&format!("(d {i})\n"));
    }
    text.push_str("(<= (slow ?a ?b ?c ?d ?e ?f) (d ?a) (d ?b) (d ?c) (d ?d) (d ?e) (d ?f) (distinct ?f ?f))\n");
    text.push_str("(<= terminal (slow ?a ?b ?c ?d ?e ?f))\n");
    let dir = files("work", &[("slow.gdl", text.as_bytes())]);
    let run = expect(&dir, &["check", "slow.gdl", "--max-work", "1000000"], 1);
    insta::assert_snapshot!(run.screen());
}

#[test]
fn a_timeout_too_long_to_count_is_no_timeout_and_bad_ones_are_refused() {
    // 1e20 seconds does not fit a Duration: the run goes on without a limit
    // (it used to panic the timeout thread).
    let run = gdl(
        &["check", "tests/cli/tictactoe.gdl", "--timeout", "1e20"],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    assert_eq!(run.stderr, "");
    for bad in ["nan", "-1", "inf"] {
        let bad = &format!("--timeout={bad}");
        let run = gdl(&["check", "tests/cli/tictactoe.gdl", bad], "");
        assert_eq!(run.code, 2, "{bad}: {}", run.screen());
        assert!(
            run.stderr.contains("--timeout") && run.stderr.contains("positive number"),
            "{bad}: {}",
            run.stderr
        );
    }
}

/// The directory of the reproductions of hostile inputs (`tests/cli/hostile`).
fn hostile() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/hostile"))
}

#[test]
fn perft_reports_a_role_without_legal_move_as_the_other_commands_do() {
    let run = expect(&hostile(), &["perft", "nolegal.kif", "--depth", "2"], 1);
    insta::assert_snapshot!(run.screen());
    let trace = expect(&hostile(), &["trace", "nolegal.kif"], 1);
    assert!(
        trace
            .stderr
            .contains("b has no legal move in a state that is not terminal"),
        "{}",
        trace.stderr
    );
}

#[test]
fn perft_counts_that_overflow_are_an_error() {
    // One role with two moves and a state that never changes: 2^d sequences.
    let run = expect(
        &hostile(),
        &["perft", "perft_overflow.kif", "--depth", "130"],
        1,
    );
    assert!(
        run.stdout
            .contains("\n  127            1 170141183460469231731687303715884105728          0\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("\n  128 "), "{}", run.stdout);
    // After the file's warning (its `terminal` never holds, on purpose).
    assert!(
        run.stderr.ends_with(
            "\nerror: depth 128: the number of sequences exceeds \
             340282366920938463463374607431768211455 (2^128 - 1), the most perft can count\n"
        ),
        "{}",
        run.stderr
    );
}

/// 1000 roles of two moves each: 2^1000 joint moves from the initial
/// state. The count is known past 2^128 - 1 before any is played, and said
/// at once. No clock guards the test: the rules' `next` is a join of
/// 60^3 candidate facts and the join work limit is 10,000, so playing any
/// joint move (enumerating them one by one, as perft once did) would end
/// at once with the join work error instead of the overflow error.
#[test]
fn perft_counts_joint_moves_past_the_bound_before_playing_them() {
    let constants: String = (0..60).map(|k| format!("(c k{k}) ")).collect();
    let next = format!("{constants}\n(<= (next (p ?a ?b ?c)) (true s) (c ?a) (c ?b) (c ?c))");
    let rules = roles_of_two_moves(1000, &next);
    let dir = scratch("perft-1000-roles");
    std::fs::write(dir.join("roles.gdl"), rules).unwrap();
    // The guard holds: one joint move played is the join work error.
    let traced = expect(
        &dir,
        &[
            "trace",
            "roles.gdl",
            "--max-steps",
            "1",
            "--engine",
            "interpreter",
            "--max-work",
            "10000",
            "--board",
            "none",
        ],
        1,
    );
    assert!(
        traced.stderr.contains("join work limit"),
        "{}",
        traced.screen()
    );
    let args = [
        "perft",
        "roles.gdl",
        "--depth",
        "1",
        "--engine",
        "interpreter",
        "--max-work",
        "10000",
    ];
    let run = expect(&dir, &args, 1);
    assert_eq!(
        run.stdout,
        "depth    positions        sequences   terminal\n\
         \x20   0            1                1          0\n"
    );
    assert!(
        run.stderr.ends_with(
            "error: depth 1: the number of sequences exceeds \
             340282366920938463463374607431768211455 (2^128 - 1), the most perft can count\n"
        ),
        "{}",
        run.screen()
    );
}

/// 250,000 legal moves, (m ?a ?b) over 500 x 500 constants: listing them
/// and playing one cost their number on the ground engine, not its square
/// (which took 300 s to load and play 90,000 of them, and hours for
/// these). Every engine plays the game: the one chosen by counting work at
/// load, and each one asked for. The test measures no time and sets no
/// time limit: a listing gone quadratic again would not end.
#[test]
fn a_quarter_million_legal_moves_are_listed_in_one_pass() {
    let mut rules = String::from("(role p)\n(init (step 0))\n");
    for i in 0..500 {
        rules.push_str(&format!("(c k{i})\n"));
    }
    rules.push_str(
        "(succ 0 1) (succ 1 2) (succ 2 3)\n\
         (<= (legal p (m ?a ?b)) (true (step ?k)) (c ?a) (c ?b))\n\
         (<= (next (step ?n)) (true (step ?k)) (succ ?k ?n))\n\
         (<= terminal (true (step 3)))\n(goal p 50)\n",
    );
    let dir = scratch("many-legal-moves");
    std::fs::write(dir.join("many.gdl"), rules).unwrap();
    for engine in ["auto", "ground", "interpreter"] {
        let args = ["random", "many.gdl", "--games", "2", "--engine", engine];
        let run = gdl_in(&dir, &args, "");
        assert_eq!(run.code, 0, "{engine}: {}", run.screen());
        assert!(
            run.stdout.contains("length: mean 3.0"),
            "{engine}: {}",
            run.stdout
        );
    }
    // The listing itself, on the ground engine: every move once, in order.
    let args = [
        "trace",
        "many.gdl",
        "--max-steps",
        "0",
        "--engine",
        "ground",
        "--format",
        "json",
    ];
    let run = gdl_in(&dir, &args, "");
    assert_eq!(run.code, 0, "{}", run.screen());
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let legal = v["steps"][0]["legal"][0].as_array().unwrap();
    assert_eq!(legal.len(), 250_000);
    assert_eq!(legal[0], "(m k0 k0)");
    assert_eq!(legal[249_999], "(m k499 k499)");
}

#[test]
fn perft_stops_where_the_game_tree_ends() {
    let depth = u64::MAX.to_string();
    let run = gdl(&["perft", "tests/cli/tictactoe.gdl", "--depth", &depth], "");
    assert_eq!(run.code, 0, "{}", run.screen());
    insta::assert_snapshot!(run.screen());
    // An endless game whose one position repeats with one sequence: every
    // depth would print the same line for ever.
    let run = expect(
        &hostile(),
        &["perft", "board_overflow.kif", "--depth", &depth],
        0,
    );
    assert_eq!(
        run.stdout,
        "depth    positions        sequences   terminal\n\
         \x20   0            1                1          0\n\
         depth 1 has the positions and counts of depth 0: so has every depth after it\n"
    );
}

/// Rules of `roles` roles, each with the moves `a` and `b` in every state,
/// from the state `s`; `next` says where a joint move leads, `t` is
/// terminal.
fn roles_of_two_moves(roles: usize, next: &str) -> String {
    let mut text = String::new();
    for r in 0..roles {
        text.push_str(&format!("(role r{r})\n"));
    }
    text.push_str(
        "(init s)\n(<= (legal ?r a) (role ?r))\n(<= (legal ?r b) (role ?r))\n\
         (<= terminal (true t))\n(<= (goal ?r 50) (role ?r))\n",
    );
    text.push_str(next);
    text.push('\n');
    text
}

#[test]
fn perft_with_many_roles_counts_every_joint_move() {
    // 16 roles of two moves each: 65,536 joint moves from one state, made
    // one at a time (26 roles, 67 million, no longer need 7.8 GB).
    let text = roles_of_two_moves(16, "(<= (next t) (true s))");
    let dir = files("many_roles", &[("roles16.kif", text.as_bytes())]);
    let run = expect(&dir, &["perft", "roles16.kif", "--depth", "3"], 0);
    assert_eq!(
        run.stdout,
        "depth    positions        sequences   terminal\n\
         \x20   0            1                1          0\n\
         \x20   1            1            65536          1\n\
         every position at depth 1 is terminal: the game tree ends there\n"
    );
}

#[test]
fn a_typed_number_that_is_a_legal_move_is_that_move() {
    // The legal moves are `2` and `3`: typing 2 plays the move 2 (it used to
    // play the second move of the list, 3); `#2` is the second, always.
    let run = expect(
        &hostile(),
        &["play", "nummoves.kif", "--moves", "m2.txt"],
        0,
    );
    insta::assert_snapshot!(run.screen());
    let run = gdl_in(&hostile(), &["play", "nummoves.kif"], "#2\n");
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(run.stdout.contains("played: 3\n"), "{}", run.stdout);
    // A number that is neither a move nor a position, with or without `#`.
    for typed in ["7\n", "#2x\n", "#3\n"] {
        let run = gdl_in(&hostile(), &["play", "nummoves.kif"], typed);
        assert_eq!(run.code, 1, "{typed}: {}", run.screen());
    }
    let run = gdl(&["play", "tests/cli/tictactoe.gdl"], "#9\n");
    assert!(
        run.stdout.contains("played: (mark 3 3) noop\n"),
        "{}",
        run.stdout
    );
}

/// Runs `gdl ARGS` in the crate's directory with standard output, or
/// standard error, going to `/dev/full`, where every write fails (no space
/// left on device): the exit status, and what the other stream shows.
#[cfg(target_os = "linux")]
fn to_full(args: &[&str], stdout_full: bool) -> (i32, String) {
    use std::process::{Command, Stdio};
    let full = || Stdio::from(std::fs::File::create("/dev/full").expect("/dev/full"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_gdl"));
    command
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null());
    if stdout_full {
        command.stdout(full()).stderr(Stdio::piped());
    } else {
        command.stdout(Stdio::piped()).stderr(full());
    }
    let out = command.output().expect("gdl runs");
    let other = if stdout_full { out.stderr } else { out.stdout };
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&other).into_owned(),
    )
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_or_error_is_an_io_error_not_a_panic() {
    const FULL: &str =
        "error: cannot write to standard output: No space left on device (os error 28)\n";
    let ttt = "tests/cli/tictactoe.gdl";
    // A report, a trace, a command that fails after printing, an
    // interactive game, statistics.
    for args in [
        &["check", ttt][..],
        &["trace", ttt],
        &["perft", "tests/cli/hostile/nolegal.kif", "--depth", "2"],
        &["play", ttt],
        &["random", ttt, "--games", "3"],
    ] {
        assert_eq!(to_full(args, true), (2, FULL.to_string()), "{args:?}");
    }
    // Nothing on standard error to write: the run goes on as usual.
    let (code, stdout) = to_full(&["check", ttt], false);
    assert_eq!(code, 0);
    assert!(stdout.contains("valid, 2 roles"), "{stdout}");
    // A failure that cannot be told keeps its exit status.
    let (code, _) = to_full(
        &["perft", "tests/cli/hostile/nolegal.kif", "--depth", "2"],
        false,
    );
    assert_eq!(code, 1);
    // Standard error, where the statistics' time goes, cannot be written.
    let (code, stdout) = to_full(&["random", ttt, "--games", "3"], false);
    assert_eq!(code, 2);
    assert!(stdout.contains("games: 3"), "{stdout}");
}

#[cfg(unix)]
#[test]
fn files_that_are_not_regular_are_read_no_further_than_the_size_limit() {
    // /dev/zero never ends: it used to be read whole (4 GB) before failing.
    let run = gdl(&["check", "/dev/zero", "--max-file-size", "1000"], "");
    assert_eq!(run.code, 1, "{}", run.screen());
    insta::assert_snapshot!("dev_zero", run.screen());
    // A pipe on standard input, refused once past the limit...
    let zeros = "0".repeat(1 << 20);
    let run = gdl(&["check", "/dev/stdin", "--max-file-size", "1000"], &zeros);
    assert_eq!(run.code, 1, "{}", run.screen());
    assert_eq!(
        run.stderr,
        "error: /dev/stdin holds more than the 1000-byte limit on rules files; \
         raise it with --max-file-size\n"
    );
    // ... and read when it fits.
    let run = gdl(&["check", "/dev/stdin"], GAME);
    assert_eq!(run.code, 0, "{}", run.screen());
}

#[test]
fn moves_files_and_input_lines_are_bounded_by_the_size_limit() {
    // A moves file of 64 KiB under a 4 KiB limit stands for the 1 GiB one
    // that used to take 7.6 GB and abort.
    let moves = "go\n".repeat(1 << 15);
    let dir = files(
        "big_moves",
        &[
            ("game.gdl", GAME.as_bytes()),
            ("moves.txt", moves.as_bytes()),
            ("binary.txt", b"go\n\xff\xfe\n"),
        ],
    );
    let limit = ["--max-file-size", "4096"];
    let args = |a: &[&'static str]| -> Vec<&'static str> { [a, &limit[..]].concat() };
    let run = expect(&dir, &args(&["replay", "game.gdl", "moves.txt"]), 1);
    insta::assert_snapshot!("big_moves_replay", run.screen());
    for a in [
        &["play", "game.gdl", "--load", "moves.txt"][..],
        &["play", "game.gdl", "--moves", "moves.txt"],
    ] {
        let run = expect(&dir, &args(a), 1);
        assert_eq!(
            run.stderr,
            "error: moves.txt is 98304 bytes, more than the 4096-byte limit on recorded games and moves files; raise it with --max-file-size\n"
        );
    }
    // A line of play's input without end.
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/tictactoe.gdl"),
        dir.join("ttt.gdl"),
    )
    .unwrap();
    let run = gdl_in(&dir, &args(&["play", "ttt.gdl"]), &"9".repeat(1 << 20));
    assert_eq!(run.code, 1, "{}", run.screen());
    assert_eq!(
        run.stderr,
        "error: a line of the input is longer than 4096 bytes; raise it with --max-file-size\n"
    );
    // A file that is not text says where.
    let run = expect(&dir, &["replay", "game.gdl", "binary.txt"], 2);
    assert_eq!(
        run.stderr,
        "error: binary.txt:2:1: not UTF-8 text (is it a binary file?)\n"
    );
}

/// The tic-tac-toe of the CLI tests, copied into `dir` as `ttt.gdl`.
fn tictactoe_in(dir: &std::path::Path) {
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/tictactoe.gdl"),
        dir.join("ttt.gdl"),
    )
    .expect("copy tic-tac-toe");
}

#[cfg(unix)]
#[test]
fn saving_never_writes_through_a_planted_symbolic_link() {
    let dir = files("planted_link", &[("victim.txt", b"precious data\n")]);
    tictactoe_in(&dir);
    // The name the temporary file used to have, planted by someone else.
    std::os::unix::fs::symlink("victim.txt", dir.join("save.txt.tmp")).unwrap();
    expect(&dir, &["trace", "ttt.gdl", "--save", "save.txt"], 0);
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert_eq!(read("victim.txt"), "precious data\n");
    assert!(read("save.txt").starts_with("; a game of ttt.gdl"));
    expect(&dir, &["replay", "ttt.gdl", "save.txt"], 0);
    // Nothing but the files of the test is left in the directory.
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["save.txt", "save.txt.tmp", "ttt.gdl", "victim.txt"]);
}

#[test]
fn two_processes_saving_to_one_file_both_succeed() {
    // Long moves make saves long enough to overlap (20,000 steps of 300
    // bytes: 6 MB a save).
    let (a, b) = ("a".repeat(300), "b".repeat(300));
    let rules = format!(
        "(role p)\n(init s)\n(legal p {a})\n(legal p {b})\n(<= (next s) (true s))\n\
         (<= terminal (true t))\n(goal p 0)\n"
    );
    let dir = files("two_savers", &[("long.gdl", rules.as_bytes())]);
    for round in 0..5 {
        let savers: Vec<_> = ["1", "2"]
            .iter()
            .map(|seed| {
                std::process::Command::new(env!("CARGO_BIN_EXE_gdl"))
                    .args(["trace", "long.gdl", "--max-steps", "20000", "--seed", seed])
                    .args(["--save", "same.txt"])
                    .current_dir(&dir)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .expect("gdl runs")
            })
            .collect();
        for saver in savers {
            let out = saver.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "round {round}: {stderr}");
        }
        // The file is one whole save, of one or the other.
        let saved = std::fs::read_to_string(dir.join("same.txt")).unwrap();
        assert_eq!(saved.lines().count(), 20_001, "round {round}");
        expect(&dir, &["replay", "long.gdl", "same.txt"], 0);
    }
}

#[test]
fn a_save_that_fails_in_play_is_told_and_the_game_goes_on() {
    let moves = std::fs::read_to_string(hostile().join("save_bad_path_moves.txt")).unwrap();
    let dir = scratch("save_fails");
    tictactoe_in(&dir);
    let run = gdl_in(&dir, &["play", "ttt.gdl", "--save", "autosave.txt"], &moves);
    // The game went on after the failed save (the move after it was
    // played and saved); the exit status says a save failed.
    insta::assert_snapshot!(run.screen());
    let saved = std::fs::read_to_string(dir.join("autosave.txt")).unwrap();
    assert_eq!(saved.lines().count(), 3, "{saved}");
}

#[cfg(unix)]
#[test]
fn a_newline_in_the_rules_file_name_keeps_the_moves_file_readable() {
    let dir = scratch("newline_name");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cli/tictactoe.gdl"),
        dir.join("odd\nname.gdl"),
    )
    .unwrap();
    expect(
        &dir,
        &["trace", "odd\nname.gdl", "--seed", "1", "--save", "s.txt"],
        0,
    );
    let saved = std::fs::read_to_string(dir.join("s.txt")).unwrap();
    assert!(
        saved.starts_with("; a game of odd\\nname.gdl: one joint move per line"),
        "{saved}"
    );
    expect(&dir, &["replay", "odd\nname.gdl", "s.txt"], 0);
}

#[test]
fn boards_at_the_ends_of_i64_are_drawn() {
    // Files -2^63 and 2^63 - 1: filling the gap between them overflowed
    // (\"capacity overflow\" in trace, play and replay).
    let run = expect(
        &hostile(),
        &["trace", "board_overflow.kif", "--max-steps", "1"],
        0,
    );
    insta::assert_snapshot!(run.screen());
    // A text replay draws the same boards.
    let dir = files("board_overflow", &[("one.txt", b"go\n")]);
    std::fs::copy(
        hostile().join("board_overflow.kif"),
        dir.join("board_overflow.kif"),
    )
    .unwrap();
    let replay = expect(&dir, &["replay", "board_overflow.kif", "one.txt"], 0);
    assert!(run.stdout.starts_with(&replay.stdout), "{}", replay.stdout);
}

#[test]
fn a_board_too_large_to_draw_is_listed_and_says_so() {
    // 3,000 files and 3,000 ranks: drawing took 186 s a step.
    let names = |prefix: &str| -> String { (0..3000).map(|i| format!(" {prefix}{i}")).collect() };
    let rules = format!(
        ";! board cell x=1 y=2 piece=3\n;! files{}\n;! ranks{}\n\
         (role p)\n(init (cell f1 r1 x))\n(legal p go)\n\
         (<= (next (cell ?x ?y ?z)) (true (cell ?x ?y ?z)))\n\
         (<= terminal (true (cell ?x r1 o)))\n(goal p 100)\n",
        names("f"),
        names("r")
    );
    let dir = files("big_board", &[("big.kif", rules.as_bytes())]);
    let start = std::time::Instant::now();
    let run = expect(&dir, &["trace", "big.kif", "--max-steps", "1"], 0);
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
    insta::assert_snapshot!(run.screen());
}

/// A game whose one rule `h` has `n` variables: `(e ?v0)`, `(d ?vI)` for
/// the middle ones and `(f ?vLAST)`; `h` holds (e 1, d 1 and f 2 are facts)
/// and ends the game with goal 100.
fn game_of_variables(n: usize) -> String {
    let mut body = String::from("(e ?v0)");
    for i in 1..n - 1 {
        body.push_str(&format!(" (d ?v{i})"));
    }
    body.push_str(&format!(" (f ?v{})", n - 1));
    format!(
        "(role p)\n(init s)\n(legal p go)\n(e 1)\n(f 2)\n(d 1)\n(<= h {body})\n\
         (<= (next t) h (true s))\n(<= terminal (true t))\n\
         (<= (goal p 100) (true t))\n(<= (goal p 0) (not (true t)))\n"
    )
}

#[test]
fn a_rule_of_more_variables_than_a_join_numbers_is_refused() {
    // 65,537 variables: the last one, numbered in 16 bits, was `?v0` again,
    // and the game ended 0 where it ends 100.
    let many = game_of_variables(65_537);
    let most = game_of_variables(65_535);
    let dir = files(
        "many_variables",
        &[("many.kif", many.as_bytes()), ("most.kif", most.as_bytes())],
    );
    let run = expect(&dir, &["check", "many.kif"], 1);
    insta::assert_snapshot!(run.screen());
    // The most variables a rule may have, with the right answer.
    let run = expect(&dir, &["trace", "most.kif"], 0);
    assert!(run.stdout.ends_with("goals: p 100\n"), "{}", run.stdout);
}

#[test]
fn a_file_size_limit_past_32_bit_offsets_is_refused() {
    // Offsets in a file are 32 bits: a limit that would let a larger file
    // in is refused by name.
    let run = gdl(
        &[
            "check",
            "tests/cli/tictactoe.gdl",
            "--max-file-size",
            "4294967296",
        ],
        "",
    );
    assert_eq!(run.code, 2, "{}", run.screen());
    assert!(
        run.stderr
            .contains("invalid value '4294967296' for '--max-file-size <BYTES>': 4294967296 is not in 1..=4294967295"),
        "{}",
        run.stderr
    );
    let run = gdl(
        &[
            "check",
            "tests/cli/tictactoe.gdl",
            "--max-file-size",
            "4294967295",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
}

#[test]
fn play_stops_a_game_that_goes_on_without_anyone_choosing() {
    // One role with one move and no end: play used to go on by itself
    // forever, its output and memory growing (gigabytes in minutes). The
    // same with the machine playing every role.
    for args in [
        &["play", "board_overflow.kif"][..],
        &["play", "perft_overflow.kif", "--random", "p"],
    ] {
        let run = expect(&hostile(), args, 0);
        assert!(
            run.stdout.ends_with(
                "stopped at step 1000: no one has had a choice for 1000 steps, \
                 the game may never end\n"
            ),
            "{args:?}: {}",
            &run.stdout[run.stdout.len().saturating_sub(500)..]
        );
    }
}
