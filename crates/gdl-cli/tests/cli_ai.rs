//! The search player in a seat, through the binary: `gdl play --ai`,
//! `gdl trace --ai` and `gdl random --ai`, with iteration budgets so that
//! a seed gives one game.

use crate::common::{gdl, gdl_in, root};

const TTT: &str = "tests/cli/tictactoe.gdl";

#[test]
fn play_against_the_search_player() {
    // The person plays o by numbers; x (the search player) wins.
    let run = gdl(
        &["play", TTT, "--ai", "xplayer", "--iterations", "2000"],
        "1\n2\n3\n4\n",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(run.stdout.contains("xplayer plays (mark"), "{}", run.stdout);
    assert!(
        run.stdout.ends_with("goals: xplayer 100, oplayer 0\n"),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!(run.screen());
}

#[test]
fn play_with_a_time_budget_answers() {
    let run = gdl(&["play", TTT, "--ai", "oplayer", "--think", "0.05"], "5\n");
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(run.stdout.contains("oplayer plays (mark"), "{}", run.stdout);
}

#[test]
fn trace_with_the_search_player_in_a_seat_is_reproducible() {
    let args = [
        "trace",
        "rules/connect_four.gdl",
        "--ai",
        "white",
        "--iterations",
        "300",
        "--seed",
        "4",
    ];
    let first = gdl_in(&root(), &args, "");
    let second = gdl_in(&root(), &args, "");
    assert_eq!(first.code, 0, "{}", first.screen());
    assert!(first.stderr.starts_with("search: "), "{}", first.stderr);
    assert_eq!(first.stdout, second.stdout);
    insta::assert_snapshot!(first.stdout);
}

#[test]
fn random_with_the_search_player_counts_its_wins() {
    let args = [
        "random",
        "rules/tictactoe.gdl",
        "--games",
        "20",
        "--ai",
        "oplayer",
        "--iterations",
        "1000",
        "--seed",
        "100",
    ];
    let run = gdl_in(&root(), &args, "");
    assert_eq!(run.code, 0, "{}", run.screen());
    // The same games on two threads.
    let threaded = gdl_in(&root(), &[&args[..], &["--threads", "2"]].concat(), "");
    assert_eq!(run.stdout, threaded.stdout);
    assert!(run.stdout.contains("oplayer 1"), "{}", run.stdout);
    assert!(run.stdout.contains("wins: xplayer 0,"), "{}", run.stdout);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn bad_ai_flags_are_usage_errors() {
    let cases: [&[&str]; 5] = [
        &["trace", TTT, "--ai", "nobody"],
        &["random", TTT, "--ai", "xplayer", "--think", "0"],
        &[
            "trace",
            TTT,
            "--ai",
            "xplayer",
            "--think",
            "1",
            "--iterations",
            "5",
        ],
        &["play", TTT, "--ai", "xplayer", "--random", "xplayer"],
        &["trace", TTT, "--ai", "xplayer", "--iterations", "0"],
    ];
    for args in cases {
        let run = gdl(args, "");
        assert_eq!(run.code, 2, "{args:?}: {}", run.screen());
        assert!(run.stderr.contains("error"), "{args:?}: {}", run.stderr);
    }
    let run = gdl(&["trace", TTT, "--ai", "nobody"], "");
    assert_eq!(
        run.stderr,
        "error: --ai nobody: no such role; the roles are xplayer oplayer\n"
    );
}

#[test]
fn analyse_reports_self_play_as_a_table_and_as_json() {
    let args = ["analyse", TTT, "--games", "10", "--iterations", "300"];
    let run = gdl(&args, "");
    assert_eq!(run.code, 0, "{}", run.screen());
    insta::assert_snapshot!(run.stdout);
    // The same games on two threads.
    let threaded = gdl(&[&args[..], &["--threads", "2"]].concat(), "");
    assert_eq!(run.stdout, threaded.stdout);
    let json = gdl(&[&args[..], &["--format", "json"]].concat(), "");
    assert_eq!(json.code, 0, "{}", json.screen());
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("JSON");
    assert_eq!(v["games"], 10);
    assert_eq!(v["seats"][0]["role"], "xplayer");
    let seat = &v["seats"][1];
    let total = ["wins", "draws", "losses"]
        .iter()
        .map(|k| seat[k]["count"].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(total, 10);
}

/// Rules whose state after step 3 gives the role no legal move: the search
/// player at step 0 meets that fault four steps down its playouts, which is
/// no fault of step 0. The trace goes on to the step that has it, and the
/// error names it, as without `--ai`.
#[test]
fn a_fault_the_search_meets_ahead_is_told_at_its_own_step() {
    let dir = crate::common::scratch("ai-fault-ahead");
    std::fs::write(
        dir.join("ahead.gdl"),
        "(role p) (init (step 0)) (succ 0 1) (succ 1 2) (succ 2 3) (c 1) (c 2)\n\
         (<= (legal p (go ?c)) (true (step ?k)) (c ?c))\n\
         (<= (next (step ?n)) (true (step ?k)) (succ ?k ?n))\n\
         (<= terminal (true over)) (goal p 50)\n",
    )
    .unwrap();
    let error = "error: step 4: p has no legal move in a state that is not terminal\n";
    let plain = gdl_in(&dir, &["trace", "ahead.gdl"], "");
    assert_eq!(plain.code, 1, "{}", plain.screen());
    assert!(plain.stderr.contains(error), "{}", plain.screen());
    for engine in ["ground", "interpreter"] {
        let args = [
            "trace",
            "ahead.gdl",
            "--ai",
            "p",
            "--iterations",
            "50",
            "--engine",
            engine,
        ];
        let run = gdl_in(&dir, &args, "");
        assert_eq!(run.code, 1, "{}", run.screen());
        assert!(run.stderr.contains(error), "{}", run.screen());
        assert!(run.stdout.contains("\n== step 3 ==\n"), "{}", run.screen());
    }
}
