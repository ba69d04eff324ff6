//! The files `gdl` writes and reads back, under attack (issue 34): an
//! empty record is no game, and `gdl test` does not follow links to
//! folders.

use crate::common::{expect, gdl_in, here, scratch};
use std::path::PathBuf;

/// A scratch folder holding tic-tac-toe as `ttt.gdl`.
fn with_tictactoe(test: &str) -> PathBuf {
    let dir = scratch(test);
    std::fs::copy(here().join("tests/cli/tictactoe.gdl"), dir.join("ttt.gdl")).unwrap();
    dir
}

#[test]
fn an_empty_record_is_not_a_game() {
    let dir = with_tictactoe("empty_record");
    std::fs::create_dir(dir.join("ttt.games")).unwrap();
    let empty = "the file is empty: an empty record is not a game (a game of no moves, as gdl \
                 saves it, still has its first line `; a game of ...`)";
    let comments = "no moves, only comments: not a recorded game (a game of no moves, as gdl \
                    saves it, begins with the line `; a game of ...`)";
    let no_steps = "bad JSON trace: no steps; a trace has at least the initial state, step 0";
    let cases = [
        ("empty.json", "", empty),
        ("blank.json", "\n  \n\n", empty),
        ("comment.json", "; nothing here\n", comments),
        (
            "steps.json",
            "{\"roles\": [\"x\", \"o\"], \"steps\": []}\n",
            no_steps,
        ),
    ];
    for (name, text, why) in cases {
        let game = format!("ttt.games/{name}");
        std::fs::write(dir.join(&game), text).unwrap();
        let run = expect(&dir, &["test", &game], 1);
        assert_eq!(
            run.stdout,
            format!("test {game} ... FAILED\n    {why}\n\n0 passed, 1 failed\n")
        );
        let run = expect(&dir, &["replay", "ttt.gdl", &game], 2);
        assert_eq!(run.stderr, format!("error: {game}: {why}\n"));
        expect(&dir, &["play", "ttt.gdl", "--load", &game], 2);
        let run = expect(
            &dir,
            &["record", "ttt.gdl", "--moves", &game, "--out", "r.json"],
            2,
        );
        assert_eq!(run.stderr, format!("error: {game}: {why}\n"));
        // `--update` does not make it pass.
        expect(&dir, &["test", &game, "--update"], 1);
        assert_eq!(std::fs::read_to_string(dir.join(&game)).unwrap(), text);
    }
    // A game of no moves, as gdl saves it, is one: its first line says so.
    let run = gdl_in(&dir, &["play", "ttt.gdl", "--save", "none.txt"], "quit\n");
    assert_eq!(run.code, 0, "{}", run.screen());
    let saved = std::fs::read_to_string(dir.join("none.txt")).unwrap();
    assert_eq!(saved.lines().count(), 1, "{saved}");
    expect(&dir, &["replay", "ttt.gdl", "none.txt"], 0);
    expect(&dir, &["record", "ttt.gdl", "--moves", "none.txt"], 0);
    expect(&dir, &["test", "ttt.games/none.json"], 0);
}

#[cfg(unix)]
#[test]
fn test_does_not_follow_links_to_folders() {
    let dir = with_tictactoe("test_links");
    expect(&dir, &["record", "ttt.gdl", "--seed", "1"], 0);
    // A link to the folder itself, twice: the walk used to test the game
    // 41 times with one, and never end with two.
    std::os::unix::fs::symlink(".", dir.join("self")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("self2")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("up")).unwrap();
    let run = expect(&dir, &["test", "."], 0);
    assert_eq!(
        run.stdout,
        "test ttt.games/seed-1.json ... ok\n\n1 passed, 0 failed\n"
    );
    // A folder named on the command line is searched, even through a link.
    let run = expect(&dir, &["test", "self"], 0);
    assert_eq!(
        run.stdout,
        "test self/ttt.games/seed-1.json ... ok\n\n1 passed, 0 failed\n"
    );
}
