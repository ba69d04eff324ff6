//! `gdl trace FILE` (a random game) and `gdl replay FILE GAME` (a recorded
//! one): both print the game's trace, as text or JSON.

use super::BoardMode;
use super::ai::AiArgs;
use super::read_record;
use super::{Failure, LimitArgs, load, read_file, regular_or_new, save_moves};
use crate::compare::{compare, describe_step, more_steps};
use gdl::record::{Replay, Trace};
use gdl::{Budget, RandomPlayer};
use std::path::PathBuf;
use std::process::ExitCode;

pub use super::Format;

/// Arguments of `gdl trace`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # A random game of tic-tac-toe, step by step (a seed gives one game):
  gdl trace rules/tictactoe.gdl --seed 3
  # The same game as JSON, which `gdl replay` reads back:
  gdl trace rules/tictactoe.gdl --seed 3 --format json > game.json")]
pub struct TraceArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// Seed of the random choices: a seed always gives the same game.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stop after this many steps if the game has not ended.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_steps: usize,
    /// Output format (`gdl replay` reads the JSON back).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also save the moves played to this file.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// How to draw each state: as the rules file's `;!` annotations say or
    /// as the facts look, never as a grid, or as a grid whenever one can be.
    #[arg(long, value_enum, default_value_t = BoardMode::Auto, value_name = "MODE")]
    pub board: BoardMode,
    /// The search player's seats and budget (1000 iterations a move
    /// unless `--think` or `--iterations` says otherwise).
    #[command(flatten)]
    pub ai: AiArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Arguments of `gdl replay`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Check a recorded game (of `gdl trace --format json`) against the rules:
  gdl replay rules/tictactoe.gdl game.json
  # Name every step where the record and the rules differ:
  gdl replay rules/tictactoe.gdl game.json --all")]
pub struct ReplayArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// The recorded game: a JSON trace (of gdl), a match record (of
    /// ggp-base's game server) or a moves file (`-`: standard input).
    pub game: PathBuf,
    /// Output format (`gdl replay` reads the JSON back).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Save the moves that replayed (up to an error) to this file.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// How to draw each state: as the rules file's `;!` annotations say or
    /// as the facts look, never as a grid, or as a grid whenever one can be.
    #[arg(long, value_enum, default_value_t = BoardMode::Auto, value_name = "MODE")]
    pub board: BoardMode,
    /// Name every step where the record and the rules differ, following the
    /// moves as far as they stay legal, not only the earliest, and every fact and move
    /// of each difference (not only the first 20 of each side).
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Prints the trace (as far as it went), saves its moves if asked, and
/// turns an error into a failure naming its step.
fn finish(
    replay: Replay,
    format: Format,
    spec: &gdl::record::BoardSpec,
    save: Option<&PathBuf>,
    name: &str,
    limit: u64,
) -> Result<ExitCode, Failure> {
    let trace = &replay.trace;
    print_trace(trace, format, spec)?;
    if let Some(path) = save {
        save_moves(path, name, &trace.roles, &trace.moves(), limit)?;
    }
    match &replay.error {
        Some((step, e)) => Err(Failure::at_fault(*step, e, replay.fault.as_deref())),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// Prints a trace on standard output a step at a time (a trace near the
/// memory budget is never held twice).
pub fn print_trace(
    trace: &Trace,
    format: Format,
    spec: &gdl::record::BoardSpec,
) -> Result<(), Failure> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = match format {
        Format::Text => trace.write_text(spec, &mut out),
        Format::Json => trace.write_json(&mut out),
    };
    written
        .and_then(|()| std::io::Write::flush(&mut out))
        .map_err(|e| Failure::Io(format!("cannot write to standard output: {e}")))
}

/// The search player's budget a move in `gdl trace` and `gdl random`
/// when neither `--think` nor `--iterations` is given.
pub const DEFAULT_BUDGET: Budget = Budget::Iterations(1000);

/// Runs `gdl trace`.
pub fn trace(args: TraceArgs) -> Result<ExitCode, Failure> {
    // A --save that could not be written is told before the game is played.
    if let Some(path) = &args.save {
        regular_or_new(path)?;
    }
    let mut loaded = load(&args.file, &args.limits)?;
    let mut player = RandomPlayer::new(args.seed);
    let budget = args.ai.budget(DEFAULT_BUDGET);
    let mut seats = args.ai.seats(&loaded.game, budget, args.seed)?;
    let replay = Trace::play(&mut loaded.game, args.max_steps, |game, state| {
        seats.play_joint(game, state, &mut player)
    });
    if seats.any() {
        eprintln!("{}", seats.summary());
    }
    finish(
        replay,
        args.format,
        &args.board.apply(loaded.spec),
        args.save.as_ref(),
        &loaded.name,
        args.limits.file_limit(),
    )
}

/// Runs `gdl replay`: the record's moves under the rules, the trace
/// printed as far as they could be followed, and the earliest step where
/// the record and the rules differ (every such step with `--all`) named in
/// full on standard error.
pub fn replay(args: ReplayArgs) -> Result<ExitCode, Failure> {
    if let Some(path) = &args.save {
        regular_or_new(path)?;
    }
    let mut loaded = load(&args.file, &args.limits)?;
    let game_name = super::file_name(&args.game);
    let record = read_record(
        &read_file(&args.game, &args.limits)?,
        &game_name,
        &args.limits,
    )?;
    let compared = compare(&mut loaded.game, &record);
    let trace = &compared.trace;
    if !trace.steps.is_empty() {
        print_trace(trace, args.format, &args.board.apply(loaded.spec.clone()))?;
    }
    if let Some(path) = &args.save {
        save_moves(
            path,
            &loaded.name,
            &trace.roles,
            &trace.moves(),
            args.limits.file_limit(),
        )?;
    }
    if compared.passed() {
        return Ok(ExitCode::SUCCESS);
    }
    let shown = if args.all { compared.steps.len() } else { 1 };
    let mut message = String::new();
    for s in &compared.steps[..shown] {
        message.push_str(&describe_step(s, &trace.roles, args.all));
    }
    let more = compared.steps.len() - shown;
    if more > 0 {
        message.push_str(&more_steps(more));
    }
    Err(Failure::Game(format!(
        "{game_name}: {}",
        message.trim_end()
    )))
}
