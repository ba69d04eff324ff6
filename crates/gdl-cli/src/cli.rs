//! The `gdl` command line as clap reads it: the arguments, the subcommands
//! and what each one runs. In the library (not `main.rs`) so that the fuzz
//! target for the command line (`fuzz::command_line`) runs exactly what the
//! binary runs; `main.rs` adds only what belongs to a process (signals, the
//! command's thread, the time limit, the exit status).

use crate::command;
use clap::{CommandFactory, Parser, Subcommand};
use std::any::Any;
use std::process::ExitCode;

/// Step through, replay, record and explore a GDL rules file.
#[derive(Parser)]
#[command(name = "gdl", version, about, after_long_help = OVERVIEW)]
pub struct Args {
    /// The subcommand and its own arguments.
    #[command(subcommand)]
    pub command: Command,
    /// Stop the command after this many seconds (exit status 1), whatever
    /// it is doing, waiting for input included.
    #[arg(long, global = true, value_name = "SECONDS", value_parser = positive_seconds,
          help_heading = command::LIMITS, display_order = 1000)]
    pub timeout: Option<f64>,
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

A file argument `-` is standard input.

Exit status: 0 success; 1 invalid rules or a game gone wrong (an illegal move,
a limit reached); 2 a usage or I/O error; 130 interrupted (Ctrl-C).";

/// Reads `--timeout`: a positive number of seconds.
fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s.is_finite() => Ok(s),
        _ => Err("expected a positive number of seconds".into()),
    }
}

/// The subcommands of `gdl`.
#[derive(Subcommand)]
pub enum Command {
    /// Check a rules file: print its diagnostics and a summary.
    Check(command::check::CheckArgs),
    /// Print the stratification and join plans of a rules file.
    Plan(command::check::PlanArgs),
    /// Lay rules files out in one canonical layout (or check that they are).
    Fmt(command::fmt::FmtArgs),
    /// Serve an editor: a Language Server Protocol server on standard I/O.
    Lsp(command::lsp::LspArgs),
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
    /// Serve a GGP player over HTTP (the GGP match protocol).
    Player(command::player::PlayerArgs),
    /// Run matches between built-in and HTTP players, as a game manager.
    Match(command::match_cmd::MatchArgs),
    /// Write, see, play and test a game in the browser: a local web page.
    Studio(command::studio::StudioArgs),
    /// Print the completion script of a shell (bash, zsh, fish, ...).
    Completions(command::generate::CompletionsArgs),
    /// Print the manual page of gdl (roff), or write every page to a folder.
    Manpage(command::generate::ManpageArgs),
}

pub use crate::command::STACK_BYTES;

impl Command {
    /// Runs the subcommand: what it printed is on standard output, its
    /// failure (if any) is returned to be reported at the edge.
    pub fn run(self) -> Result<ExitCode, command::Failure> {
        match self {
            Command::Check(a) => command::check::check(a),
            Command::Plan(a) => command::check::plan(a),
            Command::Fmt(a) => command::fmt::fmt(a),
            Command::Lsp(a) => command::lsp::lsp(a),
            Command::Play(a) => command::play::play(a),
            Command::Trace(a) => command::trace_cmd::trace(a),
            Command::Replay(a) => command::trace_cmd::replay(a),
            Command::Record(a) => command::record_cmd::record(a),
            Command::Test(a) => command::test_cmd::test(a),
            Command::Random(a) => command::random::random(a),
            Command::Perft(a) => command::perft::perft(a),
            Command::Bench(a) => command::bench::bench(a),
            Command::Analyse(a) => command::analyse::analyse(a),
            Command::Player(a) => command::player::player(a),
            Command::Match(a) => command::match_cmd::run(a),
            Command::Studio(a) => command::studio::studio(a),
            Command::Completions(a) => command::generate::completions(a, Args::command()),
            Command::Manpage(a) => command::generate::manpage(a, Args::command()),
        }
    }
}

/// How the panic of print! and eprint! starts when their stream cannot be
/// written ("failed printing to stdout: ...").
const PRINT_FAILURE: &str = "failed printing to ";

/// Whether a panic's message is that of print! or eprint! failing.
pub fn is_print_failure(message: &str) -> bool {
    message.starts_with(PRINT_FAILURE)
}

/// The message of a panic that carries one.
pub fn message(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
}
