//! The files `gdl` writes and reads back, under attack (issue 34): `gdl
//! test` does not follow links to folders.

use crate::common::{expect, here, scratch};
use std::path::PathBuf;

/// A scratch folder holding tic-tac-toe as `ttt.gdl`.
fn with_tictactoe(test: &str) -> PathBuf {
    let dir = scratch(test);
    std::fs::copy(here().join("tests/cli/tictactoe.gdl"), dir.join("ttt.gdl")).unwrap();
    dir
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
