//! `gdl trace` and `gdl replay`: traces as text and JSON, read back.

use crate::common::{gdl, scratch};

#[test]
fn trace_of_a_checkerboard_game_with_square_numbers() {
    let run = gdl(&["trace", "tests/cli/minidraughts.gdl", "--seed", "1"], "");
    assert_eq!(run.code, 0, "{}", run.screen());
    insta::assert_snapshot!(run.screen());
}

#[test]
fn trace_of_a_game_without_a_board_lists_the_facts() {
    let run = gdl(&["trace", "tests/cli/count.gdl", "--seed", "2"], "");
    assert_eq!(run.code, 0, "{}", run.screen());
    insta::assert_snapshot!(run.screen());
}

#[test]
fn a_seed_always_gives_the_same_game_and_seeds_differ() {
    let games: Vec<String> = (0..6)
        .map(|seed| {
            gdl(
                &[
                    "trace",
                    "tests/cli/tictactoe.gdl",
                    "--seed",
                    &seed.to_string(),
                ],
                "",
            )
            .stdout
        })
        .collect();
    let again = gdl(&["trace", "tests/cli/tictactoe.gdl", "--seed", "3"], "").stdout;
    assert_eq!(again, games[3]);
    let mut distinct = games.clone();
    distinct.sort();
    distinct.dedup();
    assert!(
        distinct.len() >= 5,
        "six seeds gave only {} games",
        distinct.len()
    );
}

#[test]
fn max_steps_stops_a_game_that_has_not_ended() {
    let run = gdl(
        &["trace", "tests/cli/tictactoe.gdl", "--max-steps", "2"],
        "",
    );
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("== step 2 =="));
    assert!(!run.stdout.contains("== step 3"));
    assert!(
        run.stdout.ends_with("not terminal at step 2\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn json_and_text_traces_replay_to_the_same_trace() {
    let dir = scratch("trace_roundtrip");
    for format in ["json", "text"] {
        let run = gdl(
            &[
                "trace",
                "tests/cli/minidraughts.gdl",
                "--seed",
                "4",
                "--format",
                format,
            ],
            "",
        );
        assert_eq!(run.code, 0, "{}", run.screen());
        let file = dir.join(format!("game.{format}"));
        std::fs::write(&file, &run.stdout).unwrap();
        let replayed = gdl(
            &[
                "replay",
                "tests/cli/minidraughts.gdl",
                file.to_str().unwrap(),
                "--format",
                format,
            ],
            "",
        );
        assert_eq!(replayed.code, 0, "{}", replayed.screen());
        assert_eq!(replayed.stdout, run.stdout, "{format}");
    }
    let json = gdl(
        &[
            "trace",
            "tests/cli/count.gdl",
            "--seed",
            "2",
            "--format",
            "json",
        ],
        "",
    );
    insta::assert_snapshot!(json.stdout);
}

#[test]
fn an_illegal_move_stops_the_replay_with_its_step_role_and_the_legal_moves() {
    let dir = scratch("replay_illegal");
    let game = dir.join("game.txt");
    std::fs::write(
        &game,
        "; white opens\n(move a 1 b 2) noop\nnoop (move b 4 b 3)\n",
    )
    .unwrap();
    let saved = dir.join("saved.txt");
    let run = gdl(
        &[
            "replay",
            "tests/cli/minidraughts.gdl",
            game.to_str().unwrap(),
            "--save",
            saved.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(run.code, 1);
    insta::assert_snapshot!(run.screen());
    // The moves that did replay are saved.
    let saved = std::fs::read_to_string(&saved).unwrap();
    assert!(saved.ends_with("\n(move a 1 b 2) noop\n"), "{saved}");
}

#[test]
fn replay_errors_for_people() {
    let dir = scratch("replay_errors");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let ttt = "tests/cli/tictactoe.gdl";
    let cases = [
        ("unbalanced", write("unbalanced.txt", "(mark 1 1) noop\n(mark 1\n"), 2),
        ("bad_json", write("bad.json", "{\"roles\": 3}"), 2),
        ("one_move_for_two_roles", write("short.txt", "(mark 1 1)\n"), 1),
        ("after_the_end", write("long.txt", "(mark 1 1) noop\nnoop (mark 2 1)\n(mark 1 2) noop\nnoop (mark 2 2)\n(mark 1 3) noop\nnoop (mark 2 3)\n"), 1),
        ("missing", dir.join("missing.txt").to_str().unwrap().to_string(), 2),
    ];
    for (name, file, code) in cases {
        let run = gdl(&["replay", ttt, &file], "");
        assert_eq!(run.code, code, "{name}: {}", run.screen());
        let stderr = run.stderr.replace(dir.to_str().unwrap(), "DIR");
        insta::assert_snapshot!(format!("replay_error_{name}"), stderr);
    }
}

#[test]
fn a_json_trace_of_other_roles_is_refused() {
    let dir = scratch("replay_roles");
    let run = gdl(&["trace", "tests/cli/count.gdl", "--format", "json"], "");
    let file = dir.join("count.json");
    std::fs::write(&file, &run.stdout).unwrap();
    let replayed = gdl(
        &["replay", "tests/cli/tictactoe.gdl", file.to_str().unwrap()],
        "",
    );
    assert_eq!(replayed.code, 1);
    assert_eq!(
        replayed.stderr.replace(dir.to_str().unwrap(), "DIR"),
        "error: DIR/count.json: recorded for the roles left right, but the rules have xplayer oplayer\n"
    );
    assert!(replayed.stdout.is_empty());
}

#[test]
fn a_recorded_trace_that_disagrees_with_the_rules_is_refused() {
    let dir = scratch("replay_mismatch");
    let run = gdl(
        &[
            "trace",
            "tests/cli/tictactoe.gdl",
            "--seed",
            "1",
            "--format",
            "json",
        ],
        "",
    );
    let edited = run
        .stdout
        .replacen("(control oplayer)", "(control nobody)", 1);
    assert_ne!(edited, run.stdout);
    let file = dir.join("edited.json");
    std::fs::write(&file, edited).unwrap();
    let replayed = gdl(
        &["replay", "tests/cli/tictactoe.gdl", file.to_str().unwrap()],
        "",
    );
    assert_eq!(replayed.code, 1);
    let stderr = replayed.stderr.replace(dir.to_str().unwrap(), "DIR");
    assert_eq!(
        stderr,
        "error: DIR/edited.json: step 1: the recorded state differs from the rules' state; \
         recorded only: [\"(control nobody)\"]; rules only: [\"(control oplayer)\"]\n"
    );
}
