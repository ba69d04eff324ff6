//! The files `gdl` writes and reads back, under attack (issue 34): a save
//! or a record never replaces anything but a regular file, a record without
//! `--force` never replaces a file that appeared while it was written,
//! what `record` writes `test` reads under the same limits, an empty record
//! is no game, and `gdl test` does not follow links to folders.

use crate::common::{Run, expect, gdl_in, here, scratch};
use std::path::{Path, PathBuf};

/// A scratch folder holding tic-tac-toe as `ttt.gdl`.
fn with_tictactoe(test: &str) -> PathBuf {
    let dir = scratch(test);
    std::fs::copy(here().join("tests/cli/tictactoe.gdl"), dir.join("ttt.gdl")).unwrap();
    dir
}

/// The names in a folder, sorted (temporary files left behind show here).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Makes a named pipe (FIFO) at `path`.
#[cfg(unix)]
fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path that outlives the call.
    let made = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    assert_eq!(made, 0, "mkfifo {}", path.display());
}

#[cfg(unix)]
fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// What `gdl` says of a path that is not a regular file.
fn not_regular(path: &str, what: &str) -> String {
    format!(
        "error: cannot write {path}: it is {what}, not a regular file; gdl writes only regular \
         files (replacing them whole) and new ones, never through a link\n"
    )
}

#[cfg(unix)]
#[test]
fn saves_and_records_refuse_a_fifo_a_link_and_a_folder() {
    let dir = with_tictactoe("special_files");
    mkfifo(&dir.join("fifo"));
    std::os::unix::fs::symlink("/dev/null", dir.join("null")).unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    std::fs::write(dir.join("moves.txt"), "(mark 1 1) noop\n").unwrap();
    let targets = [
        ("fifo", "a named pipe (FIFO)"),
        ("null", "a symbolic link (to /dev/null)"),
        ("folder", "a folder"),
    ];
    for (target, what) in targets {
        let commands: [&[&str]; 5] = [
            &["trace", "ttt.gdl", "--save", target],
            &["replay", "ttt.gdl", "moves.txt", "--save", target],
            &["play", "ttt.gdl", "--save", target],
            &["record", "ttt.gdl", "--out", target],
            &["record", "ttt.gdl", "--out", target, "--force"],
        ];
        for args in commands {
            let run = expect(&dir, args, 2);
            assert_eq!(run.stderr, not_regular(target, what), "{args:?}");
            // Refused before anything was played.
            assert_eq!(run.stdout, "", "{args:?}");
        }
    }
    assert!(is_fifo(&dir.join("fifo")));
    assert_eq!(
        std::fs::read_link(dir.join("null")).unwrap(),
        Path::new("/dev/null")
    );
    assert!(std::fs::metadata("/dev/null").is_ok_and(|m| !m.is_file()));
    // A match series, and the pages of `gdl manpage --out`, the same.
    std::fs::create_dir(dir.join("series")).unwrap();
    mkfifo(&dir.join("series/match-0.json"));
    let run = expect(
        &dir,
        &["match", "ttt.gdl", "--players", "random", "random"]
            .into_iter()
            .chain(["--out", "series", "--force"])
            .collect::<Vec<_>>(),
        2,
    );
    assert_eq!(
        run.stderr,
        not_regular("series/match-0.json", "a named pipe (FIFO)")
    );
    std::fs::create_dir(dir.join("man1")).unwrap();
    mkfifo(&dir.join("man1/gdl.1"));
    let run = expect(&dir, &["manpage", "--out", "man1"], 2);
    assert_eq!(run.stderr, not_regular("man1/gdl.1", "a named pipe (FIFO)"));
    assert!(is_fifo(&dir.join("man1/gdl.1")));
    // No temporary file is left anywhere; a regular file is still replaced.
    assert_eq!(
        names(&dir),
        [
            "fifo",
            "folder",
            "man1",
            "moves.txt",
            "null",
            "series",
            "ttt.gdl"
        ]
    );
    std::fs::write(dir.join("old.txt"), "old\n").unwrap();
    expect(&dir, &["trace", "ttt.gdl", "--save", "old.txt"], 0);
    let saved = std::fs::read_to_string(dir.join("old.txt")).unwrap();
    assert!(saved.starts_with("; a game of ttt.gdl"), "{saved}");
}

/// Runs `gdl ARGS` in `dir` reading its rules from the FIFO `rules` (named
/// in ARGS): `meanwhile` runs once `gdl` has opened it (so after every
/// check made before the rules are read), then the rules of tic-tac-toe
/// are written to it. No clock is raced: opening a FIFO for writing waits
/// for its reader.
#[cfg(unix)]
fn with_rules_from_fifo(dir: &Path, args: &[&str], meanwhile: impl FnOnce()) -> Run {
    use std::io::Write;
    let rules = std::fs::read(here().join("tests/cli/tictactoe.gdl")).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_gdl"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the gdl binary runs");
    let mut fifo = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("rules.fifo"))
        .expect("gdl opens its rules");
    meanwhile();
    fifo.write_all(&rules).unwrap();
    drop(fifo);
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[cfg(unix)]
#[test]
fn a_record_never_replaces_a_file_that_appears_while_it_is_written() {
    let dir = scratch("record_race");
    mkfifo(&dir.join("rules.fifo"));
    let args = ["record", "rules.fifo", "--seed", "1", "--out", "game.json"];
    // Another process records its game there after `gdl` looked: without
    // --force, its file is kept, and this record fails rather than say
    // "recorded".
    let run = with_rules_from_fifo(&dir, &args, || {
        std::fs::write(dir.join("game.json"), "the other game\n").unwrap();
    });
    assert_eq!(run.code, 2, "{}", run.screen());
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: cannot write game.json: a file is already there (written meanwhile by another \
         process?); it is left as it is and nothing was written; --force writes over it\n"
    );
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert_eq!(read("game.json"), "the other game\n");
    assert_eq!(names(&dir), ["game.json", "rules.fifo"]);
    // With --force it is replaced; but a FIFO put there meanwhile is not.
    std::fs::remove_file(dir.join("game.json")).unwrap();
    let forced = [&args[..], &["--force"]].concat();
    let run = with_rules_from_fifo(&dir, &forced, || {
        std::fs::write(dir.join("game.json"), "the other game\n").unwrap();
    });
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(read("game.json").starts_with("{\n  \"recorded\""));
    std::fs::remove_file(dir.join("game.json")).unwrap();
    let run = with_rules_from_fifo(&dir, &forced, || mkfifo(&dir.join("game.json")));
    assert_eq!(run.code, 2, "{}", run.screen());
    assert_eq!(run.stderr, not_regular("game.json", "a named pipe (FIFO)"));
    assert!(is_fifo(&dir.join("game.json")));
    assert_eq!(names(&dir), ["game.json", "rules.fifo"]);
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

/// Rules of one role that never end: `go 1` or `go 2` forever.
const ENDLESS: &str = "(role p)\n(init (c 0))\n(legal p (go 1))\n(legal p (go 2))\n\
                       (<= (next (c ?x)) (does p (go ?x)))\n(<= terminal (true (c 3)))\n\
                       (goal p 0)\n";

#[test]
fn record_writes_nothing_that_test_would_refuse_under_the_same_limit() {
    let dir = scratch("record_limit");
    std::fs::write(dir.join("endless.gdl"), ENDLESS).unwrap();
    // 1000 steps make some 230 KB of JSON (200,000 steps, 45 MB, past the
    // default 16 MiB: the same refusal).
    let limit = ["--max-file-size", "65536"];
    let record = ["record", "endless.gdl", "--max-steps", "1000"];
    let run = expect(&dir, &[&record[..], &limit].concat(), 1);
    // After the warning that the game never ends (`(c 3)` never holds).
    let error = &run.stderr[run.stderr.find("error: ").unwrap()..];
    let size = error
        .strip_prefix("error: endless.games/seed-0.json not written: it would be ")
        .and_then(|rest| rest.split_once(' '))
        .map(|(n, _)| n.parse::<u64>().unwrap())
        .unwrap_or_else(|| panic!("{}", run.stderr));
    assert!(size > 65536, "{size}");
    assert_eq!(
        error,
        format!(
            "error: endless.games/seed-0.json not written: it would be {size} bytes, more than \
             the 65536-byte limit on recorded games and moves files, and gdl would refuse to \
             read it back (`gdl test`, `gdl replay`); raise the limit with --max-file-size, here \
             and where it is read\n"
        )
    );
    // Nothing was written, not even the folder.
    assert_eq!(names(&dir), ["endless.gdl"]);
    // Under a limit it fits, what is recorded is tested under the same.
    let fits = size.to_string();
    let limit = ["--max-file-size", &fits];
    expect(&dir, &[&record[..], &limit].concat(), 0);
    let run = expect(&dir, &["test", "endless.gdl", limit[0], limit[1]], 0);
    assert!(
        run.stdout.ends_with("1 passed, 0 failed\n"),
        "{}",
        run.stdout
    );
    // A moves file saved is bounded the same way.
    let run = expect(
        &dir,
        &[
            "trace",
            "endless.gdl",
            "--save",
            "m.txt",
            "--max-file-size",
            "1000",
        ],
        1,
    );
    assert!(
        run.stderr.contains(
            "\nerror: m.txt not written: it would be 7053 bytes, more than the 1000-byte"
        ),
        "{}",
        run.stderr
    );
    assert!(!dir.join("m.txt").exists());
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
