//! `gdl random`, `gdl perft` and `gdl bench`.

use crate::common::{gdl, gdl_in, root};

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

/// Every number of a timed run replaced by `N`, leaving what a user sees
/// of its shape.
fn masked(text: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in text.chars() {
        if c.is_ascii_digit() || (in_number && c == '.') {
            if !in_number {
                out.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

#[test]
fn bench_gives_median_rates_depth_and_memory_as_text_and_json() {
    let run = gdl(
        &[
            "bench",
            "tests/cli/tictactoe.gdl",
            "--seconds",
            "0.4",
            "--rounds",
            "4",
            "--json",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let number = |key: &str| {
        v[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} missing in {v}"))
    };
    assert!(number("playouts") > 0.0, "{v}");
    let depth = number("mean_depth");
    assert!(
        (5.0..=9.0).contains(&depth),
        "tic-tac-toe lasts 5 to 9 steps: {depth}"
    );
    assert_eq!(number("states"), (number("playouts") * depth).round());
    assert_eq!((number("threads"), number("rounds")), (1.0, 4.0));
    assert_eq!(number("cut_short"), 0.0);
    for what in ["playouts", "states"] {
        let [low, median, high] =
            ["_low", "", "_high"].map(|suffix| number(&format!("{what}_per_second{suffix}")));
        assert!(low > 0.0 && low <= median && median <= high, "{what}: {v}");
    }
    assert!(number("seconds") >= 0.4, "{v}");
    assert!(number("peak_rss_kib") > 1000.0, "{v}");
    assert!(v["engine"].as_str().unwrap().starts_with("ground rules"));

    let run = gdl(
        &[
            "bench",
            "tests/cli/count.gdl",
            "--seconds",
            "0.2",
            "--threads",
            "2",
            "--max-steps",
            "1",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    for fixed in [
        "threads: 2, seconds: ",
        ", rounds: 5\n",
        "mean depth: 1.0\n",
        " playouts reached --max-steps 1 before the end\n",
    ] {
        assert!(run.stdout.contains(fixed), "{fixed:?} in {}", run.stdout);
    }
    // Every game is cut short after one step: the count needs two or more
    // to reach 5 (its goals hold in every state).
    insta::assert_snapshot!(masked(&run.stdout));

    // Tic-tac-toe gives goals only at the end: a game cut short is counted,
    // not an error.
    let run = gdl(
        &[
            "bench",
            "tests/cli/tictactoe.gdl",
            "--seconds",
            "0.2",
            "--max-steps",
            "3",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(
        run.stdout
            .contains(" playouts reached --max-steps 3 before the end\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn bench_refuses_out_of_range_flags_and_a_file_that_is_not_there() {
    for (flag, value, error) in [
        ("--rounds", "0", "--rounds 0: must be 1 to 1000"),
        ("--rounds", "1001", "--rounds 1001: must be 1 to 1000"),
        (
            "--seconds",
            "1e19",
            "--seconds 10000000000000000000: must be a positive number up to 1000000",
        ),
        (
            "--threads",
            "100000",
            "--threads 100000: must be 0 (every core) to 1024",
        ),
    ] {
        let run = gdl(&["bench", "tests/cli/tictactoe.gdl", flag, value], "");
        assert_eq!(run.code, 2, "{}", run.screen());
        assert_eq!(run.stderr, format!("error: {error}\n"));
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    let run = gdl_in(
        &root(),
        &["bench", "rules/no_such_game.gdl", "--seconds", "0.1"],
        "",
    );
    assert_eq!(run.code, 2, "{}", run.screen());
    assert!(
        run.stderr.contains("cannot read rules/no_such_game.gdl"),
        "{}",
        run.stderr
    );
}

#[test]
fn max_ground_atoms_chooses_the_engine_and_both_play_the_same_games() {
    // Tic-tac-toe has 130 atoms: ground by default and under a limit of
    // 130; under 129 its rules with their fixed questions derived on
    // demand (122 atoms) ground instead; interpreted under 121 or 0; a seed
    // gives the same games either way.
    let engine = |limit: Option<&str>| {
        let mut args = vec!["bench", "tests/cli/tictactoe.gdl", "--seconds", "0.1"];
        args.extend(
            limit
                .map(|l| ["--max-ground-atoms", l])
                .into_iter()
                .flatten(),
        );
        let run = gdl(&args, "");
        assert_eq!(run.code, 0, "{}", run.screen());
        run.stdout.lines().nth(1).unwrap_or("").to_string()
    };
    assert!(engine(None).starts_with("engine: ground rules (130 atoms"));
    assert!(engine(Some("130")).starts_with("engine: ground rules"));
    assert!(engine(Some("129")).starts_with("engine: ground rules (122 atoms"));
    assert!(engine(Some("121")).starts_with("engine: interpreter"));
    assert!(engine(Some("0")).starts_with("engine: interpreter"));
    let random = |limit: &str| {
        let args = [
            "random",
            "tests/cli/tictactoe.gdl",
            "--games",
            "50",
            "--max-ground-atoms",
            limit,
        ];
        let run = gdl(&args, "");
        assert_eq!(run.code, 0, "{}", run.screen());
        run.stdout
            .lines()
            .filter(|l| !l.starts_with("time:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(random("100000"), random("0"));
}
