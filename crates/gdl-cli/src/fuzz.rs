//! The body of the fuzz target for the command line (`fuzz/fuzz_targets/
//! command_line.rs`), here so that `cargo test` replays its checked-in
//! corpus through the very same code (`tests/fuzz_command_line.rs`); and
//! that of the target of `gdl player`'s requests ([`player_request`],
//! replayed by `tests/cli_player_bounds.rs`).
//!
//! An input is a command line and the files it works on, together:
//!
//! ```text
//! trace game.gdl --seed 3 --format json
//! (role x) (init (c 0)) ...          <- the file game.gdl
//! --- moves.txt                      <- a line `--- NAME` starts another file
//! (mark 1 1)
//! ```
//!
//! The first line is split at white space into the arguments after `gdl`;
//! the rest is `game.gdl`, cut into further files at each `--- NAME` line.
//! The files are written in a scratch folder that is the process's working
//! folder, emptied before each input, and the subcommand runs as the binary
//! runs it ([`Command::run`]) on a thread of its own. It must return (any
//! exit status) without panicking; a panic, an abort or a hang is a
//! finding.
//!
//! So that the fuzzer explores the command rather than the machine, inputs
//! that would reach outside the scratch folder or ask for long work are
//! passed over: arguments naming a path with `/`, `..` or `-` (standard
//! input, also as `--moves=-`), numbers above 3 (depths, limits, counts: all small) and sizes
//! above 512 MiB; commands that serve or wait on the network or a person.
//! What a command does by default is cut down too (a few games, a few
//! search iterations, 0.05 s of benchmark, 100 steps), and unless the input
//! sets it, `--max-memory 256M` is given.

use crate::cli::{Args, Command, STACK_BYTES, is_print_failure, message};
use crate::command::ai::AiArgs;
use crate::command::match_cmd::Spec;
use clap::Parser;
use gdl::Budget;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The largest plain number an argument may be.
const MAX_NUMBER: f64 = 3.0;

/// The largest size (`512M`) an argument may be.
const MAX_SIZE: f64 = 512.0 * 1024.0 * 1024.0;

/// The most files an input may write.
const MAX_FILES: usize = 4;

/// The memory budget given when the input sets none.
const MEMORY: &str = "256M";

/// Runs one input (see the module's documentation); whether it ran (false:
/// passed over, as asking for too much or for the world outside).
pub fn command_line(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let (line, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let words: Vec<&str> = line.split_whitespace().collect();
    if !words.iter().all(|w| admissible(w)) {
        return false;
    }
    let Some(files) = files(rest) else {
        return false;
    };
    let Some(mut args) = parse(&words) else {
        return false;
    };
    if !bounded(&mut args.command) {
        return false;
    }
    let folder = scratch_folder();
    for (name, contents) in files {
        // A file that cannot be written is an input passed over.
        let path = folder.join(name);
        let folder_made = path
            .parent()
            .is_none_or(|p| std::fs::create_dir_all(p).is_ok());
        if !folder_made || std::fs::write(path, contents).is_err() {
            return false;
        }
    }
    let command = std::thread::Builder::new()
        .name("gdl".into())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            // Its failure is an answer like any other; only a panic is not.
            let _ = args.command.run();
        })
        .expect("the command's thread starts");
    if let Err(panic) = command.join() {
        // Standard output may be closed under the fuzzer: failing to print
        // is the binary's exit status 2, not a finding.
        if !message(&*panic).is_some_and(is_print_failure) {
            std::panic::resume_unwind(panic);
        }
    }
    true
}

/// Whether an argument stays inside the scratch folder and asks for little
/// work.
fn admissible(word: &str) -> bool {
    if word.contains('/') || word == ".." || word == "-" || word.ends_with("=-") {
        return false;
    }
    match magnitude(word) {
        Some((n, false)) => n.abs() <= MAX_NUMBER,
        Some((n, true)) => n.abs() <= MAX_SIZE,
        None => true,
    }
}

/// The value of a word that reads as a number (`2.5`, `1e3`) or a size
/// (`64K`, `1.5GiB`), and whether it was a size.
fn magnitude(word: &str) -> Option<(f64, bool)> {
    if let Ok(n) = word.parse::<f64>() {
        return Some((n, false));
    }
    let upper = word.to_ascii_uppercase();
    let digits = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let unit = digits.chars().last()?;
    let scale = match unit {
        'K' => 1024.0,
        'M' => 1024.0 * 1024.0,
        'G' => 1024.0 * 1024.0 * 1024.0,
        'T' => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let number = &digits[..digits.len() - unit.len_utf8()];
    Some((number.parse::<f64>().ok()? * scale, true))
}

/// Whether a file's name is a path inside the scratch folder: relative,
/// with no `..`, naming a file.
fn inside(name: &Path) -> bool {
    use std::path::Component;
    name.file_name().is_some() && name.components().all(|c| matches!(c, Component::Normal(_)))
}

/// The files of an input: `game.gdl` first, then one per `--- NAME` line
/// (`NAME` may name a subfolder: `game.games/seed-1.json`); `None` when a
/// name would leave the scratch folder or there are too many.
fn files(rest: &str) -> Option<Vec<(String, String)>> {
    let mut files = vec![("game.gdl".to_string(), String::new())];
    for line in rest.split_inclusive('\n') {
        if let Some(name) = line.trim_end().strip_prefix("--- ") {
            let name = name.trim();
            if !inside(Path::new(name)) {
                return None;
            }
            files.push((name.to_string(), String::new()));
            if files.len() > MAX_FILES {
                return None;
            }
        } else {
            files.last_mut()?.1.push_str(line);
        }
    }
    Some(files)
}

/// The command line as clap reads it, with `--max-memory` added after the
/// subcommand when the input sets none (and the subcommand takes it).
fn parse(words: &[&str]) -> Option<Args> {
    let given = std::iter::once("gdl").chain(words.iter().copied());
    if !words.iter().any(|w| w.starts_with("--max-memory")) && !words.is_empty() {
        let mut bounded: Vec<&str> = given.clone().take(2).collect();
        bounded.extend(["--max-memory", MEMORY]);
        bounded.extend(words[1..].iter().copied());
        if let Ok(args) = Args::try_parse_from(bounded) {
            return Some(args);
        }
    }
    Args::try_parse_from(given).ok()
}

/// The most steps a game of the input may take.
const MAX_STEPS: usize = 100;

/// Whether a subcommand runs to its end on its own (not one that waits for
/// a person at the keyboard), after cutting what it was asked to do, or
/// does by default, down to a few games, a few search iterations and a
/// fraction of a second of benchmark: the fuzzer is after the paths, not
/// the work.
fn bounded(command: &mut Command) -> bool {
    match command {
        Command::Play(args) => {
            few_iterations(&mut args.ai);
            args.moves.is_some()
        }
        Command::Trace(args) => {
            few_iterations(&mut args.ai);
            args.max_steps = args.max_steps.min(MAX_STEPS);
            true
        }
        Command::Record(args) => {
            args.max_steps = args.max_steps.min(MAX_STEPS);
            true
        }
        Command::Random(args) => {
            few_iterations(&mut args.ai);
            args.games = args.games.min(3);
            args.max_steps = args.max_steps.min(MAX_STEPS);
            true
        }
        Command::Bench(args) => {
            args.seconds = args.seconds.min(0.05);
            args.rounds = args.rounds.min(2);
            args.max_steps = args.max_steps.min(MAX_STEPS);
            true
        }
        Command::Analyse(args) => {
            args.games = args.games.min(2);
            args.iterations = args.iterations.min(20);
            args.think = args.think.map(|s| s.min(0.01));
            args.max_steps = args.max_steps.min(MAX_STEPS);
            true
        }
        Command::Match(args) => {
            // Built-in players only, a few iterations a move.
            for spec in &mut args.players {
                match spec {
                    Spec::Http(_) => return false,
                    Spec::Ai(budget) => *budget = Budget::Iterations(10),
                    Spec::Random => {}
                }
            }
            args.matches = args.matches.min(2);
            args.max_steps = args.max_steps.min(MAX_STEPS);
            true
        }
        // They serve the network until they are stopped; `lsp` serves an
        // editor on standard input until it exits.
        Command::Player(_) | Command::Studio(_) | Command::Lsp(_) => false,
        // It writes only files named without `/`: in the scratch folder.
        Command::Fmt(_) => true,
        Command::Check(_)
        | Command::Plan(_)
        | Command::Replay(_)
        | Command::Test(_)
        | Command::Perft(_) => true,
        // They print, or write pages into a folder named without `/`: in
        // the scratch folder.
        Command::Completions(_) | Command::Manpage(_) => true,
    }
}

/// Cuts the search player's budget to a few iterations a move.
fn few_iterations(ai: &mut AiArgs) {
    ai.think = None;
    ai.iterations = Some(ai.iterations.unwrap_or(10).min(10));
}

/// The working folder of the process, made a scratch folder of its own the
/// first time and emptied at every call. The folders live side by side in
/// `$TMPDIR/gdl-fuzz/`, one per process id; a fuzzer's forked runs end
/// without cleaning up, so each new process removes the folders of processes
/// that are gone (on Linux, where `/proc` says which are alive).
fn scratch_folder() -> &'static Path {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    let folder = FOLDER.get_or_init(|| {
        let parent = std::env::temp_dir().join("gdl-fuzz");
        remove_folders_of_ended_processes(&parent);
        let folder = parent.join(std::process::id().to_string());
        std::fs::create_dir_all(&folder).expect("the scratch folder can be made");
        std::env::set_current_dir(&folder).expect("the scratch folder can be entered");
        folder
    });
    if let Ok(entries) = std::fs::read_dir(folder) {
        for entry in entries.flatten() {
            let path = entry.path();
            let _ = std::fs::remove_dir_all(&path).or_else(|_| std::fs::remove_file(&path));
        }
    }
    folder
}

/// Removes the scratch folders under `parent` whose process has ended.
fn remove_folders_of_ended_processes(parent: &Path) {
    let proc = Path::new("/proc");
    if !proc.is_dir() {
        return;
    }
    for entry in std::fs::read_dir(parent).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let ended = name
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
            .is_some_and(|pid| !proc.join(pid.to_string()).exists());
        if ended {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The bounds of the server under [`player_request`]: small, so that the
/// fuzzer reaches the limit of a body.
const REQUEST_BOUNDS: crate::server::Bounds = crate::server::Bounds {
    max_body: 4096,
    read_time: std::time::Duration::from_secs(1),
    max_connections: 1,
};

/// Runs one input of the target of the player's requests
/// (`fuzz/fuzz_targets/player_request.rs`): `data` is what a client sends
/// to `gdl player` before closing its writing half, served by the server's
/// own code for a connection ([`crate::server::serve_bytes`]); a message
/// that comes through is read as the player reads it
/// ([`crate::protocol::read_request`]) and answered with the message
/// written back, or the error, without playing. A panic, a hang or a reply
/// that is not HTTP is a finding. Returns the reply.
pub fn player_request(data: &[u8]) -> Vec<u8> {
    use crate::server::{Answer, Job};
    static PLAYER: OnceLock<std::sync::mpsc::Sender<Job>> = OnceLock::new();
    let player = PLAYER.get_or_init(|| {
        let (send, receive) = std::sync::mpsc::channel::<Job>();
        std::thread::spawn(move || {
            for (message, answer) in receive {
                let reply = match crate::protocol::read_request(&message.text) {
                    Ok(r) => Answer {
                        status: 200,
                        body: r.to_kif(),
                    },
                    Err(why) => Answer {
                        status: 400,
                        body: why,
                    },
                };
                let _ = answer.send(reply);
            }
        });
        send
    });
    let reply = crate::server::serve_bytes(data, REQUEST_BOUNDS, player.clone());
    assert!(
        reply.is_empty() || reply.starts_with(b"HTTP/1."),
        "not an HTTP reply: {:?}",
        String::from_utf8_lossy(&reply)
    );
    reply
}

/// The body of the fuzz target of the language server
/// (`fuzz/fuzz_targets/lsp.rs`): any bytes as the text of an open document,
/// asked every question the server answers (`crate::lsp::exercise`).
pub fn lsp_document(data: &[u8]) {
    crate::lsp::exercise(&String::from_utf8_lossy(data));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_sizes_are_bounded() {
        assert!(admissible("3"));
        assert!(!admissible("4"));
        assert!(!admissible("1e400"));
        assert!(admissible("512M"));
        assert!(admissible("64kib"));
        assert!(!admissible("1G"));
        assert!(admissible("(mark"));
        assert!(!admissible("/etc/passwd"));
        assert!(!admissible(".."));
        assert!(admissible("x\u{fffd}"), "a word ending in a wide character");
    }

    #[test]
    fn files_are_cut_at_their_names() {
        let files = files("(role x)\n--- moves.txt\n(a)\n(b)\n").unwrap();
        assert_eq!(files[0], ("game.gdl".into(), "(role x)\n".into()));
        assert_eq!(files[1], ("moves.txt".into(), "(a)\n(b)\n".into()));
        assert!(super::files("--- ../x\n").is_none());
        assert!(super::files("--- /etc/x\n").is_none());
        assert!(super::files("--- game.games/seed-1.json\n{}").is_some());
    }

    #[test]
    fn a_memory_budget_is_added_where_the_subcommand_takes_one() {
        let Command::Check(check) = parse(&["check", "game.gdl"]).expect("parses").command else {
            panic!("not read as check");
        };
        assert_eq!(check.limits.max_memory, Some(256 << 20));
        let Command::Check(check) = parse(&["check", "game.gdl", "--max-memory", "1M"])
            .expect("parses")
            .command
        else {
            panic!("not read as check");
        };
        assert_eq!(check.limits.max_memory, Some(1 << 20));
        assert!(parse(&["nonsense"]).is_none());
    }
}
