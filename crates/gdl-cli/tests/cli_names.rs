//! Names as the rules file writes them: `tests/cli/mixedcase.gdl` writes
//! `Red`, `(Mark A 1)`, `(do thrustCounter)` and `isMarked`, and every
//! command shows them so (traces as text and JSON, play's menus, plan,
//! check's diagnostics, random, analyse, records), while moves typed or
//! read from a file, and recorded games, are read without case.

use crate::common::{append, gdl, gdl_in, scratch};
use serde_json::Value;

const GAME: &str = "tests/cli/mixedcase.gdl";

/// The names of the game in lower case, as they were shown before.
const LOWERED: [&str; 10] = [
    "red",
    "blue",
    "cell",
    "control",
    "mark",
    "empty",
    "thrustcounter",
    "noop",
    "ismarked",
    "usedthrust",
];

/// Fails when `text` holds a word that is a name of the game in lower case.
fn no_lowercased_names(text: &str) {
    let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    for word in words {
        assert!(!LOWERED.contains(&word), "`{word}` in:\n{text}");
    }
}

#[test]
fn check_and_trace_show_names_as_written() {
    let check = gdl(&["check", GAME], "");
    assert_eq!(check.code, 0, "{}", check.screen());
    assert!(
        check.stdout.contains("2 roles (Red Blue)"),
        "{}",
        check.screen()
    );
    let trace = gdl(&["trace", GAME, "--seed", "1"], "");
    assert_eq!(trace.code, 0, "{}", trace.screen());
    no_lowercased_names(&trace.stdout);
    insta::assert_snapshot!(trace.screen());
}

#[test]
fn plan_random_and_analyse_show_names_as_written() {
    let plan = gdl(&["plan", GAME], "");
    assert_eq!(plan.code, 0, "{}", plan.screen());
    assert!(plan.stdout.contains("isMarked/2"), "{}", plan.stdout);
    assert!(
        plan.stdout.contains("rule (legal/2 ?p (do thrustCounter))"),
        "{}",
        plan.stdout
    );
    no_lowercased_names(&plan.stdout);
    let random = gdl(&["random", GAME, "--games", "20", "--seed", "1"], "");
    assert_eq!(random.code, 0, "{}", random.screen());
    assert!(
        random.stdout.contains("wins: Red 14, Blue 6"),
        "{}",
        random.stdout
    );
    no_lowercased_names(&random.stdout);
    let analyse = gdl(
        &[
            "analyse",
            GAME,
            "--games",
            "2",
            "--iterations",
            "20",
            "--seed",
            "1",
        ],
        "",
    );
    assert_eq!(analyse.code, 0, "{}", analyse.screen());
    assert!(analyse.stdout.contains("\nRed "), "{}", analyse.stdout);
    no_lowercased_names(&analyse.stdout);
}

#[test]
fn typed_moves_match_without_case_and_menus_show_them_as_written() {
    let run = gdl(&["play", GAME], "(MARK b 2)\n(mark X 9)\n");
    assert_eq!(run.code, 1, "{}", run.screen());
    insta::assert_snapshot!(run.screen());
}

#[test]
fn json_traces_keep_the_spelling_and_replay_in_any_case() {
    let json = gdl(&["trace", GAME, "--seed", "1", "--format", "json"], "");
    assert_eq!(json.code, 0, "{}", json.screen());
    let value: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["roles"], serde_json::json!(["Red", "Blue"]));
    assert_eq!(value["steps"][0]["legal"][1], serde_json::json!(["noOp"]));
    assert!(
        (value["steps"][0]["state"].as_array().unwrap())
            .contains(&Value::from("(thrustCounter 0)")),
        "{}",
        json.stdout
    );
    // The same game written by a tool that lowers every name (ggp-base),
    // and in capitals: both agree with the rules.
    let dir = scratch("names-replay");
    for (file, text) in [
        ("lower.json", json.stdout.to_ascii_lowercase()),
        ("upper.json", upper_strings(value.clone()).to_string()),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, text).unwrap();
        let replay = gdl(&["replay", GAME, path.to_str().unwrap()], "");
        assert_eq!(replay.code, 0, "{file}: {}", replay.screen());
        // What is printed is the rules' own spelling.
        assert!(
            replay.stdout.contains("goals: Red 100, Blue 0"),
            "{}",
            replay.stdout
        );
        no_lowercased_names(&replay.stdout);
    }
    // A real difference is still found, and shown as the record writes it.
    let changed = json
        .stdout
        .to_ascii_lowercase()
        .replacen("(control red)", "(control green)", 1);
    let path = dir.join("changed.json");
    std::fs::write(&path, changed).unwrap();
    let replay = gdl(&["replay", GAME, path.to_str().unwrap()], "");
    assert_eq!(replay.code, 1, "{}", replay.screen());
    let all = replay.stdout + &replay.stderr;
    assert!(all.contains("+ (Control Red)"), "{all}");
    assert!(all.contains("- (control green)"), "{all}");
}

/// The JSON with every string in capitals.
fn upper_strings(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(s.to_ascii_uppercase()),
        Value::Array(items) => Value::Array(items.into_iter().map(upper_strings).collect()),
        Value::Object(fields) => Value::Object(
            (fields.into_iter())
                .map(|(k, v)| (k, upper_strings(v)))
                .collect(),
        ),
        other => other,
    }
}

#[test]
fn records_keep_the_spelling_and_moves_files_are_read_without_case() {
    let dir = scratch("names-record");
    std::fs::copy(GAME, dir.join("mixedcase.gdl")).unwrap();
    std::fs::write(
        dir.join("moves.txt"),
        "(mark b 2) NOOP\nnoop (MARK A 2)\n(Mark a 1) noop\nNoOp (DO THRUSTCOUNTER)\n\
         (mark b 1) noop\n",
    )
    .unwrap();
    let record = gdl_in(
        &dir,
        &["record", "mixedcase.gdl", "--moves", "moves.txt"],
        "",
    );
    assert_eq!(record.code, 0, "{}", record.screen());
    assert!(
        record.stdout.contains("goals Red 100, Blue 0"),
        "{}",
        record.stdout
    );
    let saved = std::fs::read_to_string(dir.join("mixedcase.games/moves.json")).unwrap();
    assert!(saved.contains("\"(do thrustCounter)\""), "{saved}");
    no_lowercased_names(&saved);
    // A record whose names another tool lowered still passes.
    std::fs::write(
        dir.join("mixedcase.games/moves.json"),
        saved.to_ascii_lowercase(),
    )
    .unwrap();
    let test = gdl_in(&dir, &["test"], "");
    assert_eq!(test.code, 0, "{}", test.screen());
    assert!(
        test.stdout.contains("1 passed, 0 failed"),
        "{}",
        test.stdout
    );
}

#[test]
fn diagnostics_show_names_as_written() {
    let dir = scratch("names-check");
    let file = dir.join("mixedcase.gdl");
    std::fs::copy(GAME, &file).unwrap();
    append(
        &file,
        "(<= (goal Blue 50) (isMarkd A 1))\n\
         (<= (legal Blue (Mark A)) (true (Control Blue)))\n\
         (<= (legal Green noOp) (true (Control Red)))\n",
    );
    let run = gdl_in(&dir, &["check", "mixedcase.gdl"], "");
    assert_eq!(run.code, 0, "{}", run.screen());
    insta::assert_snapshot!(run.screen());
}
