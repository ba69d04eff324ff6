//! Recorded games as regression tests: `gdl record` writes a game beside
//! its rules (`NAME.games/`), and `gdl test` replays every recorded game
//! against the current rules and names what changed. Also `play --moves`
//! given a recorded game.
//!
//! The recorded games are in `tests/record/`: `bt6.gdl` (breakthrough on
//! 6x6) with three random games and a match of ggp-base's game server, and
//! `tictactoe.kif` with a random game and two ggp-base matches.

use crate::common::{
    DOUBLE_STEP, append, copy, copy_of_the_records, expect, gdl, gdl_in, here, scratch,
};
use serde_json::Value;

/// The centre of tic-tac-toe made unplayable: a recorded move becomes
/// illegal.
const NO_CENTRE: &str = "
(centre 2 2)
(<= (forbidden ?r (mark ?m ?n)) (role ?r) (centre ?m ?n))
";

#[test]
fn recorded_games_pass_under_the_rules_they_were_recorded_with() {
    let run = expect(&here(), &["test", "tests/record"], 0);
    insta::assert_snapshot!(run.screen());
    // Naming the rules file, its games folder or one game runs those.
    for path in [
        "tests/record/bt6.gdl",
        "tests/record/bt6.games",
        "tests/record/bt6.games/seed-1.json",
    ] {
        let run = expect(&here(), &["test", path], 0);
        assert!(
            run.stdout
                .contains("test tests/record/bt6.games/seed-1.json ... ok")
        );
    }
}

#[test]
fn a_rule_change_shows_in_every_game_it_touches() {
    let dir = copy_of_the_records("test_rule_change");
    append(&dir.join("bt6.gdl"), DOUBLE_STEP);
    let run = expect(&dir, &["test"], 1);
    insta::assert_snapshot!("rule_change", run.screen());
    // --all follows the moves and lists every step that differs.
    let run = expect(&dir, &["test", "bt6.games/seed-3.json", "--all"], 1);
    insta::assert_snapshot!("rule_change_all", run.screen());
    let run = expect(&dir, &["test", "bt6.gdl", "--format", "json"], 1);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    // ggp-base's match records no legal moves: it passes.
    assert_eq!(json["passed"], 1);
    assert_eq!(json["failed"], 3);
    let seed_3 = &json["games"][3];
    assert_eq!(seed_3["game"], "bt6.games/seed-3.json");
    assert_eq!(seed_3["outcome"], "failed");
    assert_eq!(seed_3["more"], 3);
    insta::assert_snapshot!(
        "rule_change_json_one_game",
        serde_json::to_string_pretty(seed_3).unwrap()
    );
}

#[test]
fn update_records_again_the_games_whose_moves_are_still_legal() {
    let dir = copy_of_the_records("test_update");
    append(&dir.join("bt6.gdl"), DOUBLE_STEP);
    let ttt = dir.join("tictactoe.kif");
    let text = std::fs::read_to_string(&ttt).unwrap().replace(
        "(<= (legal ?r (mark ?m ?n)) (true (control ?r)) (true (cell ?m ?n b)))",
        "(<= (legal ?r (mark ?m ?n)) (true (control ?r)) (true (cell ?m ?n b))\n    \
         (not (forbidden ?r (mark ?m ?n))))",
    );
    std::fs::write(&ttt, text + NO_CENTRE).unwrap();
    let before = std::fs::read_to_string(dir.join("bt6.games/seed-1.json")).unwrap();
    let run = expect(&dir, &["test", "bt6.gdl", "tictactoe.kif", "--update"], 1);
    insta::assert_snapshot!("update", run.screen());
    // The updated file differs by what made it (the record had no such
    // metadata) and the moves the new rule allows, one a line (and the
    // comma JSON puts after the line before one at the end).
    let after = std::fs::read_to_string(dir.join("bt6.games/seed-1.json")).unwrap();
    let (made, after) = after.split_once("\n  },\n").expect("what made it, first");
    assert!(made.contains("\"rules\": \"bt6.gdl\""), "{made}");
    let bare = |l: &str| l.trim_end_matches(',').to_string();
    let added: Vec<&str> = after
        .lines()
        .filter(|l| !before.lines().any(|b| bare(b) == bare(l)))
        .collect();
    assert!(
        added.iter().all(|l| l.contains(" 2 ") && l.contains(" 4)")),
        "{added:?}"
    );
    // Now they pass; the others still fail.
    let run = expect(&dir, &["test"], 1);
    assert!(
        run.stdout.ends_with("\n4 passed, 3 failed\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn test_finds_no_games_or_rules_that_do_not_load() {
    let dir = scratch("test_errors");
    std::fs::write(dir.join("alone.gdl"), "(role you)\n").unwrap();
    let run = expect(&dir, &["test"], 2);
    insta::assert_snapshot!("no_games_here", run.screen());
    let run = expect(&dir, &["test", "alone.gdl"], 2);
    insta::assert_snapshot!("no_games_of_a_file", run.screen());
    // Rules that do not load fail each of their games; a game that cannot
    // be read fails alone.
    let dir = copy_of_the_records("test_broken");
    std::fs::write(dir.join("bt6.gdl"), "(role white) (role black)\n").unwrap();
    std::fs::write(dir.join("tictactoe.games/junk.json"), "{ \"roles\": 3 }").unwrap();
    let run = expect(&dir, &["test"], 1);
    insta::assert_snapshot!("broken_rules_and_a_junk_game", run.screen());
}

#[test]
fn record_writes_a_game_that_diffs_well_beside_its_rules() {
    let dir = scratch("record");
    std::fs::copy(here().join("tests/cli/count.gdl"), dir.join("count.gdl")).unwrap();
    let run = expect(&dir, &["record", "count.gdl", "--seed", "2"], 0);
    insta::assert_snapshot!("record", run.screen());
    let file = std::fs::read_to_string(dir.join("count.games/seed-2.json")).unwrap();
    insta::assert_snapshot!("recorded_file", file);
    let run = expect(&dir, &["record", "count.gdl", "--seed", "2"], 2);
    insta::assert_snapshot!("record_again", run.stderr);
    expect(&dir, &["record", "count.gdl", "--seed", "2", "--force"], 0);
    // A game played by hand and saved is recorded from its moves.
    let saved = expect(
        &dir,
        &["trace", "count.gdl", "--seed", "7", "--save", "mine.txt"],
        0,
    );
    let run = expect(&dir, &["record", "count.gdl", "--moves", "mine.txt"], 0);
    assert!(
        run.stdout.starts_with("recorded ") && run.stdout.contains("count.games/mine.json"),
        "{}",
        run.stdout
    );
    let run = expect(&dir, &["test"], 0);
    assert!(
        run.stdout.ends_with("\n2 passed, 0 failed\n"),
        "{}",
        run.stdout
    );
    let replayed = expect(&dir, &["replay", "count.gdl", "count.games/mine.json"], 0);
    assert_eq!(replayed.stdout, saved.stdout);
}

#[test]
fn play_moves_given_a_recorded_game_says_to_load_it() {
    let dir = scratch("play_moves_saved");
    let ttt = here().join("tests/cli/tictactoe.gdl");
    let ttt = ttt.to_str().unwrap();
    let run = gdl_in(&dir, &["play", ttt], "1\n1\nsave saved.moves\nquit\n");
    assert_eq!(run.code, 0, "{}", run.screen());
    let run = expect(&dir, &["play", ttt, "--moves", "saved.moves"], 2);
    assert_eq!(
        run.stderr,
        "error: saved.moves is a recorded game, not typed input: start from it with \
         --load saved.moves (--moves reads what would be typed, one move or command a line)\n"
    );
    let run = expect(
        &dir,
        &[
            "play",
            ttt,
            "--load",
            "saved.moves",
            "--random",
            "xplayer",
            "--random",
            "oplayer",
        ],
        0,
    );
    assert!(
        run.stdout.starts_with("loaded 2 moves from saved.moves\n"),
        "{}",
        run.stdout
    );
    // What a session typed still plays.
    let run = gdl(&["play", "tests/cli/tictactoe.gdl"], "1\n1\n");
    assert_eq!(run.code, 0, "{}", run.screen());
}

/// A failing game's new version is written beside it, pending; `--review`
/// shows each beside its recorded game and asks (here: accept the first,
/// an answer it does not know then reject the second, and the end of the
/// input skips the third); `--reject` removes the rest.
#[test]
fn new_versions_are_pending_until_reviewed() {
    let dir = copy_of_the_records("test_review");
    append(&dir.join("bt6.gdl"), DOUBLE_STEP);
    let run = expect(&dir, &["test", "bt6.gdl"], 1);
    assert!(
        run.stdout
            .contains("    new version: bt6.games/seed-1.json.new\n")
            && run.stdout.ends_with(
                "3 new versions pending: `gdl test --review` shows each and asks, --accept or \
                 --reject takes them all\n"
            ),
        "{}",
        run.stdout
    );
    let before = std::fs::read_to_string(dir.join("bt6.games/seed-1.json")).unwrap();
    let review = gdl_in(&dir, &["test", "bt6.gdl", "--review"], "a\nmaybe\nr\n");
    assert_eq!(review.code, 0, "{}", review.screen());
    insta::assert_snapshot!("review", review.screen());
    let after = std::fs::read_to_string(dir.join("bt6.games/seed-1.json")).unwrap();
    assert_ne!(before, after);
    assert!(after.contains("\"rules_sha256\""), "{after}");
    assert!(!dir.join("bt6.games/seed-1.json.new").exists());
    assert!(!dir.join("bt6.games/seed-2.json.new").exists());
    assert!(dir.join("bt6.games/seed-3.json.new").exists());
    let run = expect(&dir, &["test", "bt6.gdl", "--reject"], 0);
    assert!(
        run.stdout
            .ends_with("\n0 accepted, 1 rejected, 0 skipped\n"),
        "{}",
        run.stdout
    );
    let run = expect(&dir, &["test", "bt6.gdl"], 1);
    assert!(
        run.stdout.contains("test bt6.games/seed-1.json ... ok"),
        "{}",
        run.stdout
    );
    // --accept takes every pending version of the games named.
    expect(&dir, &["test", "bt6.games/seed-2.json", "--accept"], 0);
    let run = expect(&dir, &["test", "bt6.games/seed-2.json"], 0);
    assert!(run.stdout.contains("seed-2.json ... ok"), "{}", run.stdout);
}

/// A game that ends, whose rules change so that its seed's game no longer
/// does: the new version is the seed's game played again (not the old
/// moves cut short), and `--update` does not put it in place: it says so
/// and leaves it to review.
#[test]
fn update_is_for_the_rules_named_and_never_weakens_a_game_silently() {
    let dir = scratch("test_weaken");
    let rules = "(role p)\n(init (c 0))\n(<= (legal p go) (true (c ?x)))\n\
                 (<= (next (c 1)) (true (c 0)))\n(<= (next (c 2)) (true (c 1)))\n\
                 (<= (next (c 2)) (true (c 2)))\n(<= terminal (true (c 2)))\n(goal p 100)\n";
    std::fs::write(dir.join("walk.gdl"), rules).unwrap();
    expect(
        &dir,
        &["record", "walk.gdl", "--seed", "4", "--max-steps", "5"],
        0,
    );
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("walk.games/seed-4.json")).unwrap())
            .unwrap();
    assert_eq!(recorded["recorded"]["seed"], 4);
    assert_eq!(recorded["recorded"]["max_steps"], 5);
    assert_eq!(recorded["recorded"]["rules"], "walk.gdl");
    assert_eq!(
        recorded["recorded"]["rules_sha256"].as_str().unwrap().len(),
        64
    );
    std::fs::write(
        dir.join("walk.gdl"),
        rules.replace("(<= terminal (true (c 2)))", "(<= terminal (true (c 3)))"),
    )
    .unwrap();
    let run = expect(&dir, &["test", "--update"], 2);
    assert!(
        run.stderr
            .contains("--update records games again for the rules files named only"),
        "{}",
        run.stderr
    );
    let run = expect(&dir, &["test", "walk.gdl", "--update"], 1);
    insta::assert_snapshot!("update_weakening", run.screen());
    let pending: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("walk.games/seed-4.json.new")).unwrap(),
    )
    .unwrap();
    // The seed's game under the new rules: its five steps, unfinished.
    assert_eq!(pending["steps"].as_array().unwrap().len(), 6);
    assert!(pending.get("goals").is_none());
    let review = gdl_in(&dir, &["test", "walk.gdl", "--review"], "s\n");
    assert!(
        review.stdout.contains(
            "  warning: the recorded game ends and the new version does not: accepting it \
             weakens the test\n"
        ),
        "{}",
        review.stdout
    );
}

/// `gdl test` looks in the folder it is given (the current one by
/// default), not below it unless `--recursive`; a games folder whose rules
/// file is gone is named as orphaned.
#[test]
fn test_searches_one_folder_and_names_orphaned_games_folders() {
    let dir = scratch("test_folders");
    std::fs::create_dir_all(dir.join("games")).unwrap();
    copy(&here().join("tests/record"), &dir.join("games"));
    let run = expect(&dir, &["test"], 2);
    assert!(
        run.stderr.contains("no recorded games under .")
            && run
                .stderr
                .contains("--recursive searches the subfolders too"),
        "{}",
        run.stderr
    );
    let run = expect(&dir, &["test", "--recursive"], 0);
    assert!(
        run.stdout.ends_with("\n7 passed, 0 failed\n"),
        "{}",
        run.stdout
    );
    std::fs::rename(dir.join("games/bt6.gdl"), dir.join("games/bt7.gdl")).unwrap();
    let run = expect(&dir, &["test", "games"], 0);
    assert!(
        run.stderr.contains(
            "warning: games/bt6.games is orphaned: it holds recorded games, but no games/bt6.gdl \
             or games/bt6.kif is beside it (was the rules file renamed?"
        ),
        "{}",
        run.stderr
    );
    let run = expect(&dir, &["test", "games/bt6.games"], 2);
    assert!(run.stderr.contains("is orphaned"), "{}", run.stderr);
    std::fs::remove_file(dir.join("games/tictactoe.kif")).unwrap();
    let run = expect(&dir, &["test", "games"], 2);
    insta::assert_snapshot!("only_orphans", run.stderr);
}

#[test]
fn record_games_records_a_series_of_seeds() {
    let dir = scratch("record_games");
    std::fs::copy(here().join("tests/cli/count.gdl"), dir.join("count.gdl")).unwrap();
    let run = expect(
        &dir,
        &["record", "count.gdl", "--seed", "3", "--games", "3"],
        0,
    );
    assert_eq!(run.stdout.lines().count(), 3, "{}", run.stdout);
    for seed in 3..6 {
        let file = dir.join(format!("count.games/seed-{seed}.json"));
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(&format!("\"seed\": {seed}")), "{text}");
    }
    let run = expect(&dir, &["test"], 0);
    assert!(
        run.stdout.ends_with("\n3 passed, 0 failed\n"),
        "{}",
        run.stdout
    );
    // Nothing is played when one of the files is there already.
    let run = expect(
        &dir,
        &["record", "count.gdl", "--seed", "5", "--games", "2"],
        2,
    );
    assert!(
        run.stderr.contains("seed-5.json is already recorded"),
        "{}",
        run.stderr
    );
    assert!(!dir.join("count.games/seed-6.json").exists());
}
