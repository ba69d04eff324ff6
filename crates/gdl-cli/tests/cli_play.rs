//! `gdl play` through its scripted mode: moves and commands on standard
//! input or in a `--moves` file, echoed after the prompt.

use crate::common::{gdl, scratch};

const TTT: &str = "tests/cli/tictactoe.gdl";

#[test]
fn a_game_played_to_the_end_with_numbers_terms_and_commands() {
    // x takes the centre by number, o answers by term, x takes it back
    // (undo), o plays elsewhere; x wins on the diagonal.
    let input =
        "5\nlegal\nmark 1 2\nundo\nmark 1 2\n(mark 1 1)\nhelp\nfacts\n1\nmoves\n(mark 3 3)\n";
    let run = gdl(&["play", TTT], input);
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(
        run.stdout
            .ends_with("game over after 5 steps; goals: xplayer 100, oplayer 0\n")
    );
    insta::assert_snapshot!(run.screen());
}

#[test]
fn scripted_errors_stop_with_status_1_and_say_why() {
    let cases = [
        ("occupied", "5\n(mark 2 2)\n"),
        ("out_of_range", "10\n"),
        ("bad_text", "(mark 1\n"),
        ("not_a_move", "(frobnicate ?x)\n"),
        ("save_without_file", "save\n"),
    ];
    for (name, input) in cases {
        let run = gdl(&["play", TTT], input);
        assert_eq!(run.code, 1, "{name}: {}", run.screen());
        assert!(
            run.stderr.starts_with("error: step "),
            "{name}: {}",
            run.stderr
        );
        insta::assert_snapshot!(format!("play_error_{name}"), run.stderr);
    }
}

#[test]
fn the_machine_plays_a_role_reproducibly() {
    let dir = scratch("play_machine");
    let moves = dir.join("moves.txt");
    std::fs::write(&moves, "5\n1\n1\n1\n1\n").unwrap();
    let args = [
        "play",
        TTT,
        "--random",
        "oplayer",
        "--seed",
        "7",
        "--moves",
        moves.to_str().unwrap(),
    ];
    let run = gdl(&args, "");
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(run.stdout.contains("oplayer plays (mark"), "{}", run.stdout);
    assert_eq!(
        gdl(&args, "").stdout,
        run.stdout,
        "the same seed gives the same game"
    );
    insta::assert_snapshot!(run.screen());
    let run = gdl(&["play", TTT, "--random", "nobody"], "");
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: --random nobody: no such role; the roles are xplayer oplayer\n"
    );
}

#[test]
fn a_game_saved_after_an_error_replays_to_the_same_position() {
    let dir = scratch("play_save");
    let saved = dir.join("game.txt");
    let saved = saved.to_str().unwrap();
    // Three moves, then an illegal one: the game so far is saved.
    let run = gdl(&["play", TTT, "--save", saved], "5\n1\n2\n(mark 2 2)\n");
    assert_eq!(run.code, 1, "{}", run.screen());
    let text = std::fs::read_to_string(saved).unwrap();
    insta::assert_snapshot!(text);
    // `replay` ends on the board where the error happened...
    let replayed = gdl(&["replay", TTT, saved], "");
    assert_eq!(replayed.code, 0, "{}", replayed.screen());
    assert_eq!(last_board(&replayed.stdout), last_board(&run.stdout));
    // ... and `play --load` takes the game up from there.
    let resumed = gdl(&["play", TTT, "--load", saved], "quit\n");
    assert_eq!(resumed.code, 0, "{}", resumed.screen());
    assert!(
        resumed.stdout.starts_with("loaded 3 moves from"),
        "{}",
        resumed.stdout
    );
    assert_eq!(last_board(&resumed.stdout), last_board(&run.stdout));
    // The `save` command writes the same file at any point.
    let copy = dir.join("copy.txt");
    let run = gdl(
        &["play", TTT, "--load", saved],
        &format!("save {}\nquit\n", copy.display()),
    );
    assert_eq!(run.code, 0, "{}", run.screen());
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), text);
}

#[test]
fn a_saved_game_with_an_illegal_move_does_not_load() {
    let dir = scratch("play_bad_load");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "(mark 2 2) noop\nnoop (mark 2 2)\n").unwrap();
    let run = gdl(&["play", TTT, "--load", bad.to_str().unwrap()], "");
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr,
        "error: step 1: illegal move (mark 2 2) for oplayer\n  legal moves of oplayer: \
         (mark 1 1) (mark 1 2) (mark 1 3) (mark 2 1) (mark 2 3) (mark 3 1) (mark 3 2) (mark 3 3)\n"
    );
}

/// Ctrl-C in the middle of a game: SIGINT sent to the real binary while it
/// waits for the fourth move. It exits with status 130 saying where the
/// game is, and the file kept by `--save` (written whole after every move)
/// replays to the position on the screen at that time.
#[cfg(unix)]
#[test]
fn a_game_interrupted_by_ctrl_c_replays_to_the_same_position() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let dir = scratch("play_sigint");
    let saved = dir.join("game.txt");
    let mut command = Command::new(env!("CARGO_BIN_EXE_gdl"));
    command
        .args(["play", TTT, "--save", saved.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    crate::common::default_sigint(&mut command);
    let mut child = command.spawn().expect("the gdl binary runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    input.write_all(b"5\n1\n2\n").unwrap();
    // Standard input stays open: the game waits for the next move. The
    // board of step 3 is drawn once the third move is saved.
    let mut shown = Vec::new();
    let mut lines = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
    for line in lines.by_ref() {
        let line = line.expect("a line of output");
        let step3 = shown.iter().any(|l: &String| l == "== step 3 ==");
        let waiting = step3 && line.ends_with(" to move:");
        shown.push(line);
        if waiting {
            break;
        }
    }
    let screen = shown.join("\n");
    assert!(screen.contains("== step 3 =="), "{screen}");
    // SAFETY: a plain kill(2) of our own child process.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let status = child.wait().expect("gdl ends");
    drop(input);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{status:?} {stderr}");
    assert_eq!(
        stderr,
        format!(
            "interrupted at step 3; the game so far is in {}\n",
            saved.display()
        )
    );
    let replayed = gdl(&["replay", TTT, saved.to_str().unwrap()], "");
    assert_eq!(replayed.code, 0, "{}", replayed.screen());
    assert!(
        replayed.stdout.contains("== step 3 =="),
        "{}",
        replayed.stdout
    );
    assert_eq!(last_board(&replayed.stdout), last_board(&screen));
    let resumed = gdl(&["play", TTT, "--load", saved.to_str().unwrap()], "quit\n");
    assert!(
        resumed.stdout.starts_with("loaded 3 moves from"),
        "{}",
        resumed.stdout
    );
    assert_eq!(last_board(&resumed.stdout), last_board(&screen));
}

/// The last board a session printed: the step line and the grid under it.
fn last_board(out: &str) -> String {
    out.rsplit("== step")
        .next()
        .unwrap()
        .lines()
        .take(6)
        .collect::<Vec<_>>()
        .join("\n")
}
