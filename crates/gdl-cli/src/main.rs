//! `gdl`: step through, replay, record and explore a GDL rules file.
//!
//! A thin layer over the library: each subcommand lives in its own module
//! under `command/` of the `gdl_cli` crate. Exit status: 0 success, 1 a rules file or game that fails
//! (invalid rules, an illegal move, an error of the rules while playing),
//! 2 a usage or I/O error.

use clap::{Parser, Subcommand};
use gdl_cli::command;
use std::any::Any;
use std::io::Write;
use std::process::ExitCode;

/// Counts the bytes the process holds, so that `--max-memory` is enforced.
#[global_allocator]
static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;

/// Step through, replay, record and explore a GDL rules file.
#[derive(Parser)]
#[command(name = "gdl", version, about, after_long_help = OVERVIEW)]
struct Args {
    #[command(subcommand)]
    command: Command,
    /// Stop the command after this many seconds (exit status 1), whatever
    /// it is doing, waiting for input included.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = positive_seconds,
          help_heading = command::LIMITS, display_order = 1000)]
    timeout: Option<f64>,
}

/// The end of `gdl --help`: a few first commands and the exit statuses.
const OVERVIEW: &str = "\
Examples:
  # Check a rules file, then watch a random game of it:
  gdl check rules/tictactoe.gdl
  gdl trace rules/tictactoe.gdl --seed 1
  # Play it against the search player:
  gdl play rules/tictactoe.gdl --ai oplayer

`gdl help COMMAND` (or `gdl COMMAND --help`) describes a command with examples;
docs/manual.md has whole sessions.

Exit status: 0 success; 1 invalid rules or a game gone wrong (an illegal move,
a limit reached); 2 a usage or I/O error.";

/// Reads `--timeout`: a positive number of seconds.
fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => Ok(s),
        _ => Err("expected a positive number of seconds".into()),
    }
}

/// Ends the process with exit status 1 once `seconds` have passed. Games
/// saved with `--save` are written whole after every move, so what a
/// timeout interrupts is never half-written. A time too long for a
/// `Duration` (`1e20`, billions of years) is no time limit at all.
fn watchdog(seconds: f64) {
    let Ok(limit) = std::time::Duration::try_from_secs_f64(seconds) else {
        return;
    };
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        // Not eprintln!: a full standard error must not stop the exit.
        let _ = writeln!(
            std::io::stderr(),
            "error: the time limit ({seconds} seconds) was reached; raise it with --timeout"
        );
        std::process::exit(1);
    });
}

#[derive(Subcommand)]
enum Command {
    /// Check a rules file: print its diagnostics and a summary.
    Check(command::check::CheckArgs),
    /// Print the stratification and join plans of a rules file.
    Plan(command::check::PlanArgs),
    /// Step through a game, alone or against the machine.
    Play(command::play::PlayArgs),
    /// Play a random game and print its trace.
    Trace(command::trace_cmd::TraceArgs),
    /// Check a recorded game against the rules and print its trace.
    Replay(command::trace_cmd::ReplayArgs),
    /// Record a game (random, or from a moves file) in FILE.games/.
    Record(command::record_cmd::RecordArgs),
    /// Replay recorded games against the current rules: regression tests.
    Test(command::test_cmd::TestArgs),
    /// Play many random games: lengths, goals, wins and draws.
    Random(command::random::RandomArgs),
    /// Count positions and joint-move sequences at each depth.
    Perft(command::perft::PerftArgs),
    /// Measure random playouts per second.
    Bench(command::bench::BenchArgs),
    /// Self-play of the search player: balance, length, branching.
    Analyse(command::analyse::AnalyseArgs),
}

/// The stack of the thread that runs the command: reading rules nested
/// `MAX_NESTING_CEILING` deep recurses that far (only the pages touched
/// are ever allocated).
const STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    // Die quietly when the reader of standard output goes away (`gdl trace
    // FILE | head`), as command-line tools do, instead of panicking.
    #[cfg(unix)]
    // SAFETY: restoring the default action of a signal at start-up, before
    // any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // A stream that cannot be written (`> /dev/full`, a full disk) makes
    // print! panic; that panic is not a bug to show with a backtrace but
    // an I/O error, reported below.
    let bug = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.payload_as_str().is_some_and(is_print_failure) {
            bug(info);
        }
    }));
    let command = std::thread::Builder::new()
        .name("gdl".into())
        .stack_size(STACK_BYTES)
        .spawn(run)
        .expect("the command's thread starts");
    match command.join() {
        Ok(code) => code,
        Err(panic) => match message(&*panic).filter(|m| is_print_failure(m)) {
            Some(m) => {
                // "failed printing to stdout: No space left on device ...",
                // said on standard error unless that is what failed.
                if let Some(why) = m.strip_prefix("failed printing to stdout") {
                    let _ = writeln!(
                        std::io::stderr(),
                        "error: cannot write to standard output{why}"
                    );
                }
                ExitCode::from(2)
            }
            None => std::panic::resume_unwind(panic),
        },
    }
}

/// How the panic of print! and eprint! starts when their stream cannot be
/// written ("failed printing to stdout: ...").
const PRINT_FAILURE: &str = "failed printing to ";

/// Whether a panic's message is that of print! or eprint! failing.
fn is_print_failure(message: &str) -> bool {
    message.starts_with(PRINT_FAILURE)
}

/// The message of a panic that carries one.
fn message(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
}

fn run() -> ExitCode {
    let args = Args::parse();
    if let Some(seconds) = args.timeout {
        watchdog(seconds);
    }
    let result = match args.command {
        Command::Check(a) => command::check::check(a),
        Command::Plan(a) => command::check::plan(a),
        Command::Play(a) => command::play::play(a),
        Command::Trace(a) => command::trace_cmd::trace(a),
        Command::Replay(a) => command::trace_cmd::replay(a),
        Command::Record(a) => command::record_cmd::record(a),
        Command::Test(a) => command::test_cmd::test(a),
        Command::Random(a) => command::random::random(a),
        Command::Perft(a) => command::perft::perft(a),
        Command::Bench(a) => command::bench::bench(a),
        Command::Analyse(a) => command::analyse::analyse(a),
    };
    // What print! left in the buffer is written at exit, where a failure
    // goes unnoticed: write it now, and say so when it cannot be.
    let flushed = std::io::stdout()
        .flush()
        .map_err(|e| command::Failure::Io(format!("cannot write to standard output: {e}")));
    match result.and_then(|code| flushed.map(|()| code)) {
        Ok(code) => code,
        Err(failure) => failure.report(),
    }
}
