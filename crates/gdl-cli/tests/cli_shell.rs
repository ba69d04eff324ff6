//! What a shell user expects of `gdl`, through the real binary: completion
//! scripts and manual pages generated from the command line, `-` for
//! standard input wherever a file is read, and `--board` choosing how
//! states are drawn; exit status 130 on Ctrl-C (in `play`, with its save,
//! tested in `cli_play`).

use crate::common::{gdl, gdl_in, scratch};
use std::process::Command;

/// Whether a program can be run here (`PROGRAM --version` answers).
fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn completion_scripts_generate_and_their_shells_parse_them() {
    let dir = scratch("completions");
    for (shell, check) in [
        ("bash", &["-n"][..]),
        ("zsh", &["-n"][..]),
        ("fish", &["--no-execute"][..]),
    ] {
        let run = gdl(&["completions", shell], "");
        assert_eq!(run.code, 0, "{}", run.screen());
        // Every subcommand and a flag of each kind is offered.
        for word in [
            "check",
            "play",
            "replay",
            "manpage",
            "max-file-size",
            "board",
        ] {
            assert!(run.stdout.contains(word), "{shell}: no {word}");
        }
        if !have(shell) {
            eprintln!("skipped parsing the {shell} script: {shell} is not installed");
            continue;
        }
        let script = dir.join(format!("gdl.{shell}"));
        std::fs::write(&script, &run.stdout).unwrap();
        let parsed = Command::new(shell)
            .args(check)
            .arg(&script)
            .output()
            .unwrap();
        assert!(
            parsed.status.success(),
            "{shell} refuses the script: {}",
            String::from_utf8_lossy(&parsed.stderr)
        );
    }
    let bad = gdl(&["completions", "tcsh"], "");
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("possible values: bash"),
        "{}",
        bad.stderr
    );
}

/// Bash's completion of a partial command line, by the function the
/// script defines.
#[test]
fn bash_completes_subcommands_and_flags() {
    let run = gdl(&["completions", "bash"], "");
    let complete = |line: &str| {
        let words: Vec<&str> = line.split(' ').collect();
        let script = format!(
            "{}\nCOMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT={}; \
             _gdl gdl '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            run.stdout,
            words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(" "),
            words.len() - 1,
            line.len(),
            words[words.len() - 1],
            words[words.len() - 2],
        );
        let out = Command::new("bash").arg("-c").arg(script).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let subcommands = complete("gdl re");
    assert!(subcommands.lines().any(|l| l == "replay"), "{subcommands}");
    assert!(subcommands.lines().any(|l| l == "record"), "{subcommands}");
    let flags = complete("gdl trace --bo");
    assert_eq!(flags.trim(), "--board", "{flags}");
    let modes = complete("gdl trace --board ");
    let mut modes: Vec<&str> = modes.split_whitespace().collect();
    modes.sort_unstable();
    assert_eq!(modes, ["auto", "grid", "none"]);
}

#[test]
fn the_manual_pages_render() {
    let run = gdl(&["manpage"], "");
    assert_eq!(run.code, 0, "{}", run.screen());
    let roff = &run.stdout;
    assert!(roff.contains(".TH gdl 1"), "{roff}");
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH SUBCOMMANDS",
        "gdl\\-replay(1)",
    ] {
        assert!(roff.contains(section), "no {section} in\n{roff}");
    }
    // gdl(1) alone describes every command: its flags and examples.
    for command in [
        "check",
        "plan",
        "play",
        "trace",
        "replay",
        "record",
        "test",
        "random",
        "perft",
        "bench",
        "analyse",
        "player",
        "match",
        "completions",
        "manpage",
    ] {
        let heading = format!(".SH \"COMMAND: GDL {}\"", command.to_uppercase());
        let at = roff
            .find(&heading)
            .unwrap_or_else(|| panic!("no {heading}"));
        let section = &roff[at..];
        let end = section[1..].find(".SH ").map_or(section.len(), |e| e + 1);
        let section = &section[..end];
        for part in [".SS SYNOPSIS", ".SS OPTIONS", ".SS EXAMPLES"] {
            assert!(section.contains(part), "{command}: no {part} in\n{section}");
        }
    }
    // Every page, one a subcommand, in a folder.
    let dir = scratch("manpages");
    let out = dir.join("man1");
    let written = gdl_in(&dir, &["manpage", "--out", "man1"], "");
    assert_eq!(written.code, 0, "{}", written.screen());
    for page in ["gdl.1", "gdl-play.1", "gdl-check.1", "gdl-completions.1"] {
        assert!(out.join(page).is_file(), "no {page}");
    }
    let play = std::fs::read_to_string(out.join("gdl-play.1")).unwrap();
    assert!(play.contains("\\-\\-board"), "{play}");
    if !have("groff") {
        eprintln!("skipped rendering the pages: groff is not installed");
        return;
    }
    let text = Command::new("groff")
        .args(["-man", "-Tutf8", "-P-bcou", "-ww"])
        .arg(out.join("gdl-play.1"))
        .output()
        .unwrap();
    assert!(text.status.success());
    assert!(
        text.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("gdl-play - Step through a game"), "{text}");
    assert!(text.contains("--save <FILE>"), "{text}");
}

/// A rules file whose 4th line leaves a `(` open.
const UNCLOSED: &str =
    "(role a)\n(init (p))\n(<= (legal a x) (true (p)))\n(<= (next (p)) (does a x)\n";

#[test]
fn a_rules_file_from_standard_input_is_named_stdin_in_its_diagnostics() {
    let run = gdl(&["check", "-"], UNCLOSED);
    assert_eq!(run.code, 1, "{}", run.screen());
    assert!(
        run.screen()
            .contains("error[syntax]: <stdin>:4:1: unclosed `(`"),
        "{}",
        run.screen()
    );
    assert!(
        run.stdout.contains("<stdin>: invalid, 1 error"),
        "{}",
        run.stdout
    );
    let json = gdl(&["check", "-", "--format", "json"], UNCLOSED);
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["file"], "<stdin>");
    assert_eq!(value["diagnostics"][0]["line"], 4);
    assert_eq!(value["diagnostics"][0]["column"], 1);
    // A valid one plays as the file does.
    let rules = std::fs::read_to_string(crate::common::here().join("tests/cli/count.gdl")).unwrap();
    let piped = gdl(&["trace", "-", "--seed", "2"], &rules);
    let named = gdl(&["trace", "tests/cli/count.gdl", "--seed", "2"], "");
    assert_eq!(piped.code, 0, "{}", piped.screen());
    assert_eq!(piped.stdout, named.stdout);
    let valid = gdl(&["check", "-"], &rules);
    assert!(
        valid
            .stdout
            .ends_with("<stdin>: valid, 2 roles (left right), 1 warning\n"),
        "{}",
        valid.stdout
    );
    let invalid = gdl(&["trace", "-"], UNCLOSED);
    assert!(
        invalid
            .stderr
            .ends_with("<stdin>: not a valid game description; see `gdl check -`\n"),
        "{}",
        invalid.stderr
    );
}

#[test]
fn standard_input_is_bounded_by_the_size_limit_and_read_once() {
    let rules = std::fs::read_to_string(crate::common::here().join("tests/cli/count.gdl")).unwrap();
    let big = gdl(&["check", "-", "--max-file-size", "100"], &rules);
    assert_eq!(big.code, 1, "{}", big.screen());
    assert_eq!(
        big.stderr,
        "error: <stdin> holds more than the 100-byte limit on rules files; \
         raise it with --max-file-size\n"
    );
    let twice = gdl(&["replay", "-", "-"], &rules);
    assert_eq!(twice.code, 2, "{}", twice.screen());
    assert!(
        twice.stderr.contains("can be read only once"),
        "{}",
        twice.stderr
    );
    // Play's moves would be typed on standard input: not with rules there.
    let play = gdl(&["play", "-"], &rules);
    assert_eq!(play.code, 2);
    assert!(
        play.stderr.contains("give them with --moves FILE"),
        "{}",
        play.stderr
    );
    // Nothing names the file of a game recorded from standard input.
    let record = gdl(&["record", "-"], &rules);
    assert_eq!(record.code, 2);
    assert!(record.stderr.contains("--out GAME"), "{}", record.stderr);
}

#[test]
fn moves_and_recorded_games_from_standard_input() {
    let dir = scratch("stdin_moves");
    std::fs::copy(
        crate::common::here().join("tests/cli/tictactoe.gdl"),
        dir.join("ttt.gdl"),
    )
    .unwrap();
    // play --moves -: the typed input, read from standard input.
    let play = gdl_in(
        &dir,
        &["play", "ttt.gdl", "--moves", "-", "--save", "g.moves"],
        "5\n1\nquit\n",
    );
    assert_eq!(play.code, 0, "{}", play.screen());
    assert!(play.stdout.contains("stopped at step 2"), "{}", play.stdout);
    let saved = std::fs::read_to_string(dir.join("g.moves")).unwrap();
    // replay FILE -: the game saved, read back from standard input.
    let replay = gdl_in(&dir, &["replay", "ttt.gdl", "-"], &saved);
    assert_eq!(replay.code, 0, "{}", replay.screen());
    assert!(replay.stdout.contains("== step 2 =="), "{}", replay.stdout);
    // play --load -, with the moves in a file.
    std::fs::write(dir.join("quit.txt"), "quit\n").unwrap();
    let load = gdl_in(
        &dir,
        &["play", "ttt.gdl", "--load", "-", "--moves", "quit.txt"],
        &saved,
    );
    assert_eq!(load.code, 0, "{}", load.screen());
    assert!(
        load.stdout.starts_with("loaded 2 moves from <stdin>"),
        "{}",
        load.stdout
    );
    // record --moves - --out: the game recorded where asked.
    let record = gdl_in(
        &dir,
        &["record", "ttt.gdl", "--moves", "-", "--out", "g.json"],
        &saved,
    );
    assert_eq!(record.code, 0, "{}", record.screen());
    assert_eq!(
        record.stdout,
        "recorded 2 joint moves to g.json (not terminal)\n"
    );
    // A moves file with an illegal move, located in standard input's text.
    let bad = gdl_in(
        &dir,
        &["replay", "ttt.gdl", "-"],
        "(mark 2 2) noop\nnoop (mark 2 2)\n",
    );
    assert_eq!(bad.code, 1, "{}", bad.screen());
    assert!(
        bad.stderr
            .starts_with("error: <stdin>: step 1: illegal move (mark 2 2) for oplayer"),
        "{}",
        bad.stderr
    );
}

/// A game whose state has 4-argument cells `(cell QUADRANT X Y CONTENT)`,
/// as pentago writes them: the automatic board takes quadrants for files,
/// a wrong grid.
const QUADRANTS: &str = "
(role red)
(init (cell 1 1 1 b)) (init (cell 1 1 2 b)) (init (cell 2 1 1 b)) (init (cell 2 1 2 r))
(<= (legal red noop) (true (cell 1 1 1 b)))
(<= (next (cell ?q ?x ?y ?c)) (true (cell ?q ?x ?y ?c)))
(<= terminal (true (cell 2 1 2 r)))
(goal red 100)
";

#[test]
fn board_none_lists_the_facts_and_board_grid_forces_a_grid() {
    let dir = scratch("board_modes");
    std::fs::write(dir.join("quadrants.gdl"), QUADRANTS).unwrap();
    let auto = gdl_in(&dir, &["trace", "quadrants.gdl"], "");
    assert_eq!(auto.code, 0, "{}", auto.screen());
    assert!(
        auto.stdout.contains("   1   2\n1  2 b 2 r  1\n"),
        "a grid of quadrants: {}",
        auto.stdout
    );
    let none = gdl_in(&dir, &["trace", "quadrants.gdl", "--board", "none"], "");
    assert_eq!(
        none.stdout,
        "roles: red\n\n== step 0: terminal ==\n\
         (cell 1 1 1 b)\n(cell 1 1 2 b)\n(cell 2 1 1 b)\n(cell 2 1 2 r)\n\
         goals: red 100\n"
    );
    // `;! board none` in the file: facts, unless --board grid.
    std::fs::write(
        dir.join("annotated.gdl"),
        format!(";! board none\n{QUADRANTS}"),
    )
    .unwrap();
    let annotated = gdl_in(&dir, &["trace", "annotated.gdl"], "");
    assert_eq!(annotated.stdout, none.stdout);
    let grid = gdl_in(&dir, &["trace", "annotated.gdl", "--board", "grid"], "");
    assert_eq!(grid.stdout, auto.stdout);
    // Two cells are too few for the automatic board; grid draws them.
    let two = "(role a)\n(init (cell x 1 p))\n(init (cell y 1 q))\n(legal a noop)\n\
               (<= terminal (true (cell x 1 p)))\n(goal a 0)\n";
    std::fs::write(dir.join("two.gdl"), two).unwrap();
    let listed = gdl_in(&dir, &["trace", "two.gdl"], "");
    assert!(
        listed.stdout.contains("(cell x 1 p)\n(cell y 1 q)\n"),
        "{}",
        listed.stdout
    );
    let drawn = gdl_in(&dir, &["trace", "two.gdl", "--board", "grid"], "");
    assert!(
        drawn.stdout.contains("   x y\n1  p q  1\n"),
        "{}",
        drawn.stdout
    );
    // play and replay take it too.
    let play = gdl_in(&dir, &["play", "annotated.gdl", "--board", "grid"], "");
    assert!(play.stdout.contains("   1   2\n"), "{}", play.stdout);
    // A game of no moves, as gdl saves it (an empty record is no game).
    let replay = gdl_in(
        &dir,
        &["replay", "quadrants.gdl", "-", "--board", "none"],
        "; a game of quadrants.gdl: one joint move per line (red)\n",
    );
    assert_eq!(replay.stdout, none.stdout);
    let bad = gdl_in(&dir, &["trace", "two.gdl", "--board", "square"], "");
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("possible values: auto, none, grid"),
        "{}",
        bad.stderr
    );
}

/// Ctrl-C ends any command with exit status 130: here `gdl player`, which
/// serves until stopped.
#[cfg(unix)]
#[test]
fn ctrl_c_ends_a_command_with_status_130() {
    let (mut player, _) = crate::common::gdl_player(&[]);
    let status = player.interrupt();
    assert_eq!(status.code(), Some(130), "{status:?}\n{}", player.stderr());
}

/// A command started with SIGINT ignored (as a shell starts one in the
/// background: `gdl player &`) keeps ignoring it.
#[cfg(unix)]
#[test]
fn a_command_started_with_sigint_ignored_keeps_ignoring_it() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    let mut command = Command::new(env!("CARGO_BIN_EXE_gdl"));
    command
        .args(["player", "--port", "0", "--timeout", "60"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            Ok(())
        });
    }
    let mut child = command.spawn().expect("the gdl binary runs");
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("gdl player listening on"), "{first}");
    // SAFETY: a plain kill(2) of our own child process.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let still = child.try_wait().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(still.is_none(), "SIGINT ended it: {still:?}");
}
