//! `gdl trace` and `gdl replay`: traces as text and JSON, read back, and
//! recorded games compared with the rules step by step. The records of
//! `tests/cli/replay/` are edited by hand to disagree: goals swapped, a
//! terminal flag cleared, a state fact named `played:go`.

use crate::common::{DOUBLE_STEP, append, copy_of_the_records, expect, gdl, gdl_in, here, scratch};
use serde_json::Value;

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
fn a_json_trace_replays_to_the_same_trace_and_a_text_trace_is_refused() {
    let dir = scratch("trace_roundtrip");
    let trace = |format: &str| {
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
        run.stdout
    };
    let json = dir.join("game.json");
    std::fs::write(&json, trace("json")).unwrap();
    for format in ["json", "text"] {
        let replayed = gdl(
            &[
                "replay",
                "tests/cli/minidraughts.gdl",
                json.to_str().unwrap(),
                "--format",
                format,
            ],
            "",
        );
        assert_eq!(replayed.code, 0, "{}", replayed.screen());
        assert_eq!(replayed.stdout, trace(format), "{format}");
    }
    // A text trace draws its states: it cannot be checked, and says so.
    let text = dir.join("game.txt");
    std::fs::write(&text, trace("text")).unwrap();
    let replayed = gdl(
        &[
            "replay",
            "tests/cli/minidraughts.gdl",
            text.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(replayed.code, 2, "{}", replayed.screen());
    let stderr = replayed.stderr.replace(dir.to_str().unwrap(), "DIR");
    insta::assert_snapshot!("replay_of_a_text_trace", stderr);
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
    insta::assert_snapshot!("json_and_text_traces_replay_to_the_same_trace", json.stdout);
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
    insta::assert_snapshot!(run.screen().replace(dir.to_str().unwrap(), "DIR"));
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
        (
            "unbalanced",
            write("unbalanced.txt", "(mark 1 1) noop\n(mark 1\n"),
            2,
        ),
        ("bad_json", write("bad.json", "{\"roles\": 3}"), 2),
        (
            "one_move_for_two_roles",
            write("short.txt", "(mark 1 1)\n"),
            1,
        ),
        (
            "after_the_end",
            write(
                "long.txt",
                "(mark 1 1) noop\nnoop (mark 2 1)\n(mark 1 2) noop\nnoop (mark 2 2)\n(mark 1 3) noop\nnoop (mark 2 3)\n",
            ),
            1,
        ),
        (
            "missing",
            dir.join("missing.txt").to_str().unwrap().to_string(),
            2,
        ),
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
        "error: DIR/edited.json: step 1: the rules differ from the record \
         (+ the rules only, - the record only)\n  \
         state:\n    + (control oplayer)\n    - (control nobody)\n"
    );
}

#[test]
fn replay_checks_goals_terminal_flags_and_step_numbers() {
    let dir = here().join("tests/cli/replay");
    for (name, game) in [
        ("goals_swapped", "goals_swapped.json"),
        ("terminal_false", "terminal_false.json"),
    ] {
        let run = expect(&dir, &["replay", "ttt.kif", game], 1);
        insta::assert_snapshot!(format!("replay_{name}"), run.stderr);
    }
    // A step numbered otherwise, and moves played after the end.
    let scratch = scratch("replay_numbers");
    let mut trace: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("goals_swapped.json")).unwrap())
            .unwrap();
    trace["steps"][3]["step"] = 30.into();
    let last = trace["steps"].as_array().unwrap().len() - 1;
    trace["steps"][last]["moves"] = serde_json::json!(["noop", "(mark 3 3)"]);
    let mut extra = trace["steps"][last].clone();
    extra["step"] = (last + 1).into();
    extra.as_object_mut().unwrap().remove("moves");
    trace["steps"].as_array_mut().unwrap().push(extra);
    std::fs::write(scratch.join("edited.json"), trace.to_string()).unwrap();
    std::fs::copy(dir.join("ttt.kif"), scratch.join("ttt.kif")).unwrap();
    let run = expect(&scratch, &["replay", "ttt.kif", "edited.json", "--all"], 1);
    insta::assert_snapshot!("replay_numbers_and_extra_steps", run.stderr);
}

#[test]
fn replay_refuses_a_text_trace_whatever_its_facts() {
    // A state fact `played:go` looks like a trace's `played:` line.
    let dir = here().join("tests/cli/replay");
    let run = expect(&dir, &["replay", "playedfact.kif", "playedfact.txt"], 2);
    insta::assert_snapshot!(run.screen());
}

#[test]
fn states_and_legal_moves_are_sets_in_any_order_and_spacing() {
    // As another tool may write them: sorted as plain strings (here:
    // reversed), in upper case, with spaces inside the parentheses.
    let dir = scratch("replay_sets");
    let text = std::fs::read_to_string(here().join("tests/record/bt6.games/seed-3.json")).unwrap();
    let mut trace: Value = serde_json::from_str(&text).unwrap();
    let shout = |v: &mut Value| {
        let s = v.as_str().unwrap().to_uppercase();
        *v = s.replace('(', "( ").replace(')', " )").into();
    };
    for step in trace["steps"].as_array_mut().unwrap() {
        let state = step["state"].as_array_mut().unwrap();
        state.reverse();
        state.iter_mut().for_each(shout);
        for legal in step["legal"].as_array_mut().unwrap() {
            let legal = legal.as_array_mut().unwrap();
            legal.reverse();
            legal.iter_mut().for_each(shout);
        }
    }
    std::fs::write(dir.join("other.json"), trace.to_string()).unwrap();
    let rules = here().join("tests/record/bt6.gdl");
    let run = gdl_in(
        &dir,
        &[
            "replay",
            rules.to_str().unwrap(),
            "other.json",
            "--format",
            "json",
        ],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    let replayed: Value = serde_json::from_str(&run.stdout).unwrap();
    let recorded: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(replayed, recorded);
}

#[test]
fn replay_names_the_earliest_difference_in_full_and_all_with_all() {
    let dir = copy_of_the_records("replay_difference");
    append(&dir.join("bt6.gdl"), DOUBLE_STEP);
    let run = expect(&dir, &["replay", "bt6.gdl", "bt6.games/seed-3.json"], 1);
    insta::assert_snapshot!("replay_earliest", run.stderr);
    let run = expect(
        &dir,
        &["replay", "bt6.gdl", "bt6.games/seed-3.json", "--all"],
        1,
    );
    insta::assert_snapshot!("replay_all", run.stderr);
}

#[test]
fn match_records_of_ggp_base_replay_and_their_goals_are_checked() {
    let dir = here().join("tests/record");
    let run = expect(&dir, &["replay", "bt6.gdl", "bt6.games/ggp-match.json"], 0);
    assert!(
        run.stdout.ends_with("goals: white 0, black 100\n"),
        "{}",
        run.stdout
    );
    let scratch = scratch("match_goals");
    let text = std::fs::read_to_string(dir.join("tictactoe.games/ggp-match-1.json")).unwrap();
    let mut record: Value = serde_json::from_str(&text).unwrap();
    record["goalValues"] = serde_json::json!([0, 100]);
    std::fs::write(scratch.join("match.json"), record.to_string()).unwrap();
    std::fs::copy(dir.join("tictactoe.kif"), scratch.join("tictactoe.kif")).unwrap();
    let run = expect(&scratch, &["replay", "tictactoe.kif", "match.json"], 1);
    assert_eq!(
        run.stderr,
        "error: match.json: step 5: goals recorded: xplayer 0, oplayer 100; \
         goals of the rules: xplayer 100, oplayer 0\n"
    );
}
