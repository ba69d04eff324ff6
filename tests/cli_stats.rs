//! `gdl random`, `gdl perft` and `gdl bench`.

#[path = "cli_common/mod.rs"]
mod common;
use common::gdl;

#[test]
fn random_summarises_lengths_goals_wins_and_draws_whatever_the_threads() {
    let args = [
        "random",
        "tests/cli/tictactoe.gdl",
        "--games",
        "300",
        "--seed",
        "5",
    ];
    let one = gdl(&args, "");
    assert_eq!(one.code, 0, "{}", one.screen());
    let mut threaded = args.to_vec();
    threaded.extend(["--threads", "2"]);
    let two = gdl(&threaded, "");
    assert_eq!(two.stdout, one.stdout);
    assert!(one.stderr.starts_with("time: "), "{}", one.stderr);
    insta::assert_snapshot!(one.stdout);
}

#[test]
fn random_game_i_is_the_trace_of_seed_s_plus_i() {
    // One game from seed 9 is the game `gdl trace --seed 9` shows.
    let run = gdl(
        &[
            "random",
            "tests/cli/count.gdl",
            "--games",
            "1",
            "--seed",
            "9",
        ],
        "",
    );
    let trace = gdl(&["trace", "tests/cli/count.gdl", "--seed", "9"], "").stdout;
    let goals = trace
        .lines()
        .last()
        .unwrap()
        .trim_start_matches("goals: ")
        .to_string();
    let steps = trace.matches("== step").count() - 1;
    assert!(
        run.stdout.contains(&format!(
            "length: mean {steps}.0, min {steps}, max {steps}\n"
        )),
        "{}",
        run.stdout
    );
    let winner = if goals == "left 100, right 0" {
        "left 1, right 0"
    } else {
        "left 0, right 1"
    };
    assert!(run.stdout.contains(winner), "{}\n{goals}", run.stdout);
}

#[test]
fn random_reports_games_that_do_not_end() {
    let run = gdl(
        &[
            "random",
            "tests/cli/tictactoe.gdl",
            "--games",
            "3",
            "--max-steps",
            "2",
        ],
        "",
    );
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stdout,
        "games: 3 (seeds 0 to 2)\nlength: mean 2.0, min 2, max 2\nunfinished: 3 (no end after 2 steps)\n"
    );
}

#[test]
fn perft_of_tic_tac_toe_matches_the_known_counts() {
    let run = gdl(&["perft", "tests/cli/tictactoe.gdl", "--depth", "9"], "");
    assert_eq!(run.code, 0, "{}", run.screen());
    // 255168 complete games; 5478 distinct positions in all; 958 terminal.
    let rows: Vec<Vec<u64>> = run
        .stdout
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(|w| w.parse().unwrap()).collect())
        .collect();
    let positions: u64 = rows.iter().map(|r| r[1]).sum();
    let terminal: u64 = rows.iter().map(|r| r[3]).sum();
    assert_eq!(positions, 5478);
    assert_eq!(terminal, 958);
    assert_eq!(rows[9][2], 127872);
    insta::assert_snapshot!(run.stdout);
}

#[test]
fn bench_gives_rates_as_text_and_json() {
    let run = gdl(
        &[
            "bench",
            "tests/cli/tictactoe.gdl",
            "--seconds",
            "0.3",
            "--json",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(v["playouts"].as_u64().unwrap() > 0, "{v}");
    let depth = v["mean_depth"].as_f64().unwrap();
    assert!(
        (5.0..=9.0).contains(&depth),
        "tic-tac-toe lasts 5 to 9 steps: {depth}"
    );
    for key in [
        "states",
        "playouts_per_second",
        "states_per_second",
        "seconds",
        "threads",
    ] {
        assert!(v.get(key).is_some(), "{key} missing in {v}");
    }
    let run = gdl(
        &[
            "bench",
            "tests/cli/tictactoe.gdl",
            "--seconds",
            "0.2",
            "--threads",
            "2",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(run.stdout.contains("threads: 2,"), "{}", run.stdout);
    assert!(run.stdout.contains("playouts: "), "{}", run.stdout);
}
