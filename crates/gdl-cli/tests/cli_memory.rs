//! The memory budget through the binary: inputs that once held gigabytes
//! stop at `--max-facts` or `--max-memory` with an error naming the flag and
//! what was being computed, and a run bounded by a small budget finishes.
//! The inputs are generated here (reproductions of hostile inputs: a file
//! of half a kilobyte that derives 30^12 facts, rules whose `or`s expand
//! into hundreds of thousands of clauses). About 3 s in release mode.

use crate::common::{Run, scratch};
use std::path::{Path, PathBuf};

/// A one-role game that holds `(c k0)` to `(c k29)` and reads `rule`'s
/// head from `next`, so that the rule's facts are derived at load.
fn join_game(test: &str, rule: &str, read: &str) -> PathBuf {
    let mut text = String::from(
        "(role p)\n(init s)\n(legal p go)\n(<= (next s) (true s))\n\
         (<= terminal (true s))\n(goal p 100)\n",
    );
    for i in 0..30 {
        text.push_str(&format!("(c k{i})\n"));
    }
    text.push_str(&format!("{rule}\n(<= (next t) {read})\n"));
    let dir = scratch(test);
    std::fs::write(dir.join("join.kif"), text).expect("write the game");
    dir
}

/// Twelve variables joined over 30 constants: 30^12 facts.
const JOIN12: &str = "(<= (big ?v0 ?v1 ?v2 ?v3 ?v4 ?v5 ?v6 ?v7 ?v8 ?v9 ?v10 ?v11) \
                      (c ?v0) (c ?v1) (c ?v2) (c ?v3) (c ?v4) (c ?v5) (c ?v6) (c ?v7) \
                      (c ?v8) (c ?v9) (c ?v10) (c ?v11))";

/// `big` asked with every place free: it must be derived whole (asked
/// bound, it is derived on demand: see the test after these).
const FREE12: &str = "(big ?v0 ?v1 ?v2 ?v3 ?v4 ?v5 ?v6 ?v7 ?v8 ?v9 ?v10 ?v11)";

/// Runs `gdl ARGS` in `dir`, expecting exit status `code`; where ARGS
/// set `--max-memory`, the process's peak resident set (measured by the
/// kernel) stays within it, but for [`OWN_MEMORY`].
fn expect(dir: &Path, args: &[&str], code: i32) -> Run {
    let (run, peak) = crate::common::gdl_peak(dir, args);
    assert_eq!(run.code, code, "{args:?}:\n{}", run.screen());
    let budget = args
        .iter()
        .position(|&a| a == "--max-memory")
        .and_then(|i| args.get(i + 1))
        .and_then(|b| mib(b));
    if let (Some(budget), 0 | 1) = (budget, code) {
        let peak = peak.unwrap_or_else(|| panic!("{args:?}: no peak said\n{}", run.screen()));
        assert!(
            peak >> 20 <= budget + OWN_MEMORY,
            "{args:?}: peak {} MiB under a budget of {budget} MiB",
            peak >> 20
        );
    }
    run
}

/// What the process holds beyond what its budget counts, in MiB: its code
/// and stacks (6 MiB for a small game), and memory freed but kept by the
/// system's allocator (the runs here peak at most 8 MiB past their budget).
const OWN_MEMORY: usize = 12;

/// A `--max-memory` value of these tests (`16M`) in MiB; `None` for the
/// values the usage tests give, which gdl refuses.
fn mib(text: &str) -> Option<usize> {
    text.strip_suffix('M')?.parse().ok()
}

#[test]
fn a_runaway_join_stops_at_the_facts_limit() {
    let dir = join_game("join12_facts", JOIN12, FREE12);
    insta::assert_snapshot!(
        expect(&dir, &["check", "join.kif", "--max-facts", "1000"], 1).screen()
    );
}

#[test]
fn a_runaway_join_stops_at_the_memory_limit() {
    let dir = join_game("join12_memory", JOIN12, FREE12);
    let args = [
        "check",
        "join.kif",
        "--max-memory",
        "48M",
        "--max-facts",
        "1000000000000",
        "--max-work",
        "1000000000000",
    ];
    insta::assert_snapshot!(expect(&dir, &args, 1).screen());
}

/// The same join asked one bound question (the reproduction of the
/// published report, which aborted at 4.27 GB): `big` is derived on demand,
/// for that question only, whatever the limits.
#[test]
fn a_runaway_join_asked_bound_is_answered_on_demand() {
    let dir = join_game(
        "join12_bound",
        JOIN12,
        "(big k1 k1 k1 k1 k1 k1 k1 k1 k1 k1 k1 k1)",
    );
    let run = expect(&dir, &["check", "join.kif", "--max-facts", "1000"], 0);
    assert!(run.stdout.contains("join.kif: valid"), "{}", run.screen());
    let run = expect(&dir, &["plan", "join.kif"], 0);
    assert!(run.stdout.contains("big?/12"), "{}", run.screen());
}

/// Six variables joined into a function term (the hostile report's
/// `legal` join, which peaked at 385 MB under a 256 MiB budget): the term
/// table and the join's buffer double in blocks of tens of megabytes, so
/// each asks for its growth before it happens, and the blocks they free go
/// back to the system; the process peaks within its budget (`expect`).
#[test]
fn a_join_of_growing_tables_stays_within_the_memory_limit() {
    let rule = "(<= (big (m ?v0 ?v1 ?v2 ?v3 ?v4 ?v5)) \
                (c ?v0) (c ?v1) (c ?v2) (c ?v3) (c ?v4) (c ?v5))";
    let dir = join_game("join6_terms", rule, "(big ?m)");
    let run = expect(&dir, &["check", "join.kif", "--max-memory", "64M"], 1);
    assert!(
        run.stdout
            .contains("the memory limit (`max_memory`, 64 MiB) was reached")
            && run.stdout.contains("raise it with --max-memory"),
        "{}",
        run.screen()
    );
}

/// Seven variables joined, of which the head keeps two: 900 facts. Each
/// later scan only has to find one match for the head to hold, so the join
/// looks at thousands of candidates, not 30^7.
#[test]
fn a_join_whose_head_keeps_few_variables_derives_few_facts() {
    let rule = "(<= (pair ?v0 ?v6) (c ?v0) (c ?v1) (c ?v2) (c ?v3) (c ?v4) (c ?v5) (c ?v6))";
    let dir = join_game("join7_head2", rule, "(pair k1 k2)");
    let run = expect(&dir, &["trace", "join.kif", "--max-work", "100000"], 0);
    assert!(run.stdout.contains("terminal"), "{}", run.screen());
}

/// `rules` rules, each of twelve `or`s of two: 4,096 clauses each.
fn or_game(test: &str, rules: usize) -> PathBuf {
    let mut text = String::from(
        "(role p)\n(init s)\n(legal p go)\n(<= (next t) (true s))\n\
         (<= terminal (true t))\n(goal p 100)\n(a 1) (b 1)\n",
    );
    for r in 0..rules {
        text.push_str(&format!("(<= (h{r} ?x0)"));
        for x in 0..12 {
            text.push_str(&format!(" (or (a ?x{x}) (b ?x{x}))"));
        }
        text.push_str(")\n");
        text.push_str(&format!("(<= (next (h{r})) (h{r} 1))\n"));
    }
    let dir = scratch(test);
    std::fs::write(dir.join("or.kif"), text).expect("write the game");
    dir
}

#[test]
fn or_expansion_is_bounded_for_the_whole_file() {
    let dir = or_game("or_expansion", 20);
    let run = expect(&dir, &["check", "or.kif"], 1);
    let summary = run.stdout.lines().find(|l| l.starts_with("error"));
    insta::assert_snapshot!(summary.expect("an error line"));
}

/// The bound is on what `or` adds: a file of 70,000 sentences without any
/// `or` (facts and rules, one clause each) is a valid game.
#[test]
fn many_sentences_without_or_are_not_an_expansion() {
    let mut text = String::from(
        "(role p)\n(init s)\n(legal p go)\n(<= (next t) (true s))\n\
         (<= terminal (true t))\n(goal p 100)\n",
    );
    for i in 0..35_000 {
        text.push_str(&format!("(f {i})\n(<= (g {i}) (f {i}))\n"));
    }
    let dir = scratch("many_sentences");
    std::fs::write(dir.join("many.kif"), text).expect("write the game");
    let run = expect(&dir, &["check", "many.kif"], 0);
    assert!(
        !run.stdout.contains("too-many-alternatives"),
        "{}",
        run.screen()
    );
}

#[test]
fn a_bad_memory_budget_is_a_usage_error() {
    let dir = or_game("bad_budget", 0);
    for (value, message) in [
        ("12Q", "unknown unit `q`: use K, M, G or T"),
        ("0", "expected a positive size that fits in memory"),
        ("lots", "expected a number of bytes"),
    ] {
        let run = expect(&dir, &["check", "or.kif", "--max-memory", value], 2);
        assert!(run.stderr.contains(message), "{value}: {}", run.screen());
    }
    expect(&dir, &["check", "or.kif", "--max-memory", "1.5G"], 0);
}

/// Runs `args` in `dir` (relative to this crate), which must stop at the
/// memory budget of `budget` with an error saying what it was doing
/// (`doing`) and naming the flag.
fn stops_at_the_budget(dir: &str, args: &[&str], budget: &str, doing: &str) -> Run {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--max-memory", budget])
        .collect();
    let run = expect(&dir, &args, 1);
    assert!(
        run.stderr.contains(doing) && run.stderr.contains("raise it with --max-memory"),
        "{}",
        run.stderr
    );
    run
}

/// A trace of millions of steps (of a game that never ends) stops at the
/// memory budget, which the steps it keeps until it prints them count in,
/// with the trace so far and an error naming the flag (it once ran on to
/// 11 GB under `--max-memory 48M`).
#[test]
fn a_trace_too_long_to_keep_stops_at_the_memory_limit() {
    let args = [
        "trace",
        "walk24.kif",
        "--max-steps",
        "10000000",
        "--board",
        "none",
    ];
    // Reached where the next allocation is: keeping the trace, or the
    // model of the next state.
    let doing = "the memory limit (`max_memory`, 24 MiB) was reached while deriving";
    let run = stops_at_the_budget("tests/cli/hostile", &args, "24M", doing);
    assert!(
        run.stdout.starts_with("roles: p\n"),
        "{}",
        &run.stdout[..200]
    );
}

/// perft keeps every position of a depth: deep enough, the positions
/// outgrow the memory budget, and the command stops there with an error
/// naming the flag (it once grew without bound).
#[test]
fn perft_stops_at_the_memory_limit() {
    let args = ["perft", "breakthrough.gdl", "--depth", "8"];
    let doing = "the memory limit (`max_memory`, 32 MiB) was reached";
    let run = stops_at_the_budget("../../rules", &args, "32M", doing);
    assert!(run.stdout.contains("\n    3 "), "{}", run.stdout);
}

/// Tic-tac-toe, the rules every input below is read against.
const TICTACTOE: &str = "tests/cli/tictactoe.gdl";

/// A fresh folder holding tic-tac-toe and `name`, written by `write`.
fn with_input(test: &str, name: &str, write: impl FnOnce(&mut dyn std::io::Write)) -> PathBuf {
    let dir = scratch(test);
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(TICTACTOE),
        dir.join("ttt.gdl"),
    )
    .expect("copy the rules");
    let mut file = std::io::BufWriter::new(std::fs::File::create(dir.join(name)).unwrap());
    write(&mut file);
    std::io::Write::flush(&mut file).unwrap();
    dir
}

/// The error of a record whose reading reached the budget of `budget`.
fn reading_stopped(run: &Run, file: &str, budget: &str) {
    let said = format!("error: {file}: line ");
    let limit = format!(
        "the memory limit (`max_memory`, {budget}) was reached while reading the record; \
         raise it with --max-memory"
    );
    assert!(
        run.stderr.contains(&said) && run.stderr.contains(&limit),
        "{}",
        run.screen()
    );
}

/// A recorded game of one step whose state lists 400,000 facts (7 MB of
/// JSON, some 30 MB once read) stops at a budget of 16 MiB, located where
/// the reading stopped (a 79 MB one once peaked at 926 MB under 256 MiB).
#[test]
fn a_recorded_game_stops_at_the_memory_limit_while_it_is_read() {
    let dir = with_input("big_record", "big.json", |out| {
        write!(
            out,
            "{{\"roles\":[\"xplayer\",\"oplayer\"],\"steps\":[{{\"step\":0,\"state\":["
        )
        .unwrap();
        for i in 0..400_000 {
            let comma = if i > 0 { "," } else { "" };
            write!(out, "{comma}\"(filler {i})\"").unwrap();
        }
        write!(
            out,
            "],\"legal\":[[\"(mark 1 1)\"],[\"noop\"]],\"moves\":[\"(mark 1 1)\",\"noop\"]}}]}}"
        )
        .unwrap();
    });
    for command in ["replay", "play"] {
        let args: &[&str] = match command {
            "replay" => &["replay", "ttt.gdl", "big.json", "--max-memory", "16M"],
            _ => &[
                "play",
                "ttt.gdl",
                "--load",
                "big.json",
                "--max-memory",
                "16M",
            ],
        };
        let run = expect(&dir, args, 1);
        reading_stopped(&run, "big.json", "16 MiB");
    }
}

/// A moves file of 400,000 joint moves (6 MB; each a step of its own once
/// read) stops at a budget of 16 MiB: `replay`, and `record --moves`.
#[test]
fn a_moves_file_stops_at_the_memory_limit_while_it_is_read() {
    let dir = with_input("big_moves", "moves.txt", |out| {
        for _ in 0..400_000 {
            out.write_all(b"(mark 1 1) noop\n").unwrap();
        }
    });
    let run = expect(
        &dir,
        &["replay", "ttt.gdl", "moves.txt", "--max-memory", "16M"],
        1,
    );
    reading_stopped(&run, "moves.txt", "16 MiB");
    let args = [
        "record",
        "ttt.gdl",
        "--moves",
        "moves.txt",
        "--max-memory",
        "16M",
    ];
    let run = expect(&dir, &args, 1);
    reading_stopped(&run, "moves.txt", "16 MiB");
    assert!(!dir.join("ttt.games").exists());
}

/// A file the budget has no room for is refused before it is read, by its
/// size; one of unknown size (standard input) once it outgrows the room:
/// an error naming `--max-memory`, never an abort (a 1 GiB moves file let
/// in by `--max-file-size` once aborted at 5.8 GB).
#[test]
fn a_file_larger_than_the_budget_allows_is_refused_naming_the_budget() {
    let line = "(mark 1 1) noop\n";
    let dir = with_input("huge_moves", "moves.txt", |out| {
        for _ in 0..(12 << 20) / line.len() {
            out.write_all(line.as_bytes()).unwrap();
        }
    });
    let args = [
        "replay",
        "ttt.gdl",
        "moves.txt",
        "--max-file-size",
        "100000000",
        "--max-memory",
        "8M",
    ];
    let run = expect(&dir, &args, 1);
    assert!(
        run.stderr
            .contains("error: moves.txt: reading it would take more than the memory limit (8 MiB)")
            && run.stderr.ends_with("raise it with --max-memory\n"),
        "{}",
        run.screen()
    );
    let text = std::fs::read_to_string(dir.join("moves.txt")).unwrap();
    let args = [
        "replay",
        "ttt.gdl",
        "-",
        "--max-file-size",
        "100000000",
        "--max-memory",
        "8M",
    ];
    let run = crate::common::gdl_in(&dir, &args, &text);
    assert_eq!(run.code, 1, "{}", run.screen());
    assert!(
        run.stderr
            .contains("error: <stdin>: reading it would take more than the memory limit"),
        "{}",
        run.screen()
    );
}

/// `gdl test` reads its recorded games within the budget too, and stops
/// the run at it.
#[test]
fn recorded_games_under_test_stop_at_the_memory_limit() {
    let dir = with_input("big_test", "notes.txt", |_| {});
    expect(&dir, &["record", "ttt.gdl", "--seed", "1"], 0);
    // The recorded game, its first state swollen by 400,000 facts.
    let path = dir.join("ttt.games/seed-1.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let filler: Vec<String> = (0..400_000).map(|i| format!("\"(filler {i})\"")).collect();
    let swollen = text.replacen(
        "\"state\": [",
        &format!("\"state\": [{},", filler.join(",")),
        1,
    );
    assert_ne!(swollen, text);
    std::fs::write(&path, swollen).unwrap();
    let run = expect(&dir, &["test", "--max-memory", "16M"], 1);
    reading_stopped(&run, "ttt.games/seed-1.json", "16 MiB");
}

/// A trace of 2,000 facts a state and thousands of steps stops at the
/// budget, as JSON as well as text, and what it printed is the trace so
/// far (written a step at a time, never held twice: it once peaked at 2.7
/// times its budget).
#[test]
fn a_json_trace_stops_at_the_memory_limit() {
    let mut text = String::from("(role p)\n(init (t 0))\n(legal p go)\n");
    for i in 0..2000 {
        text.push_str(&format!("(d k{i})\n"));
    }
    text.push_str(
        "(<= (next (f ?x)) (d ?x))\n(<= (next (t 0)) (true (t 0)))\n\
         (<= terminal (true (t 1)))\n(goal p 100)\n",
    );
    let dir = scratch("json_trace_budget");
    std::fs::write(dir.join("wide.kif"), text).unwrap();
    let args = [
        "trace",
        "wide.kif",
        "--max-steps",
        "100000",
        "--format",
        "json",
        "--max-memory",
        "16M",
    ];
    let run = expect(&dir, &args, 1);
    assert!(
        run.stderr
            .contains("the memory limit (`max_memory`, 16 MiB) was reached")
            && run.stderr.contains("raise it with --max-memory"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout
            .starts_with("{\n  \"roles\": [\"p\"],\n  \"steps\": [\n")
    );
    assert!(
        run.stdout.ends_with("\n  ]\n}\n"),
        "{}",
        &run.stdout[run.stdout.len() - 200..]
    );
}
