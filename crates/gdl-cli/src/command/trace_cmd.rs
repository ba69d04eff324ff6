//! `gdl trace FILE` (a random game) and `gdl replay FILE GAME` (a recorded
//! one): both print the game's trace, as text or JSON.

use super::ai::AiArgs;
use super::{load, read_file, write_file, Failure, LimitArgs};
use crate::trace::{moves_file, read_game, Replay, Trace};
use gdl::{Budget, RandomPlayer};
use std::path::PathBuf;
use std::process::ExitCode;

/// How to print a trace.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// For people: boards, legal moves, moves played.
    Text,
    /// For programs; `gdl replay` reads it back.
    Json,
}

/// Arguments of `gdl trace`.
#[derive(clap::Args)]
pub struct TraceArgs {
    /// The rules file.
    pub file: PathBuf,
    /// Seed of the random choices: a seed always gives the same game.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stop after this many steps if the game has not ended.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_steps: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also save the moves played to this file.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// The search player's seats and budget (1000 iterations a move
    /// unless `--think` or `--iterations` says otherwise).
    #[command(flatten)]
    pub ai: AiArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Arguments of `gdl replay`.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// The rules file.
    pub file: PathBuf,
    /// The recorded game: a JSON trace, a text trace or a moves file.
    pub game: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Save the moves that replayed (up to an error) to this file.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Prints the trace (as far as it went), saves its moves if asked, and
/// turns an error into a failure naming its step.
fn finish(
    replay: Replay,
    format: Format,
    spec: &crate::board::BoardSpec,
    save: Option<&PathBuf>,
    name: &str,
) -> Result<ExitCode, Failure> {
    let trace = &replay.trace;
    match format {
        Format::Text => print!("{}", trace.to_text(spec)),
        Format::Json => print!("{}", trace.to_json()),
    }
    if let Some(path) = save {
        write_file(path, &moves_file(name, &trace.roles, &trace.moves()))?;
    }
    match &replay.error {
        Some((step, e)) => Err(Failure::at_step(*step, e)),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The search player's budget a move in `gdl trace` and `gdl random`
/// when neither `--think` nor `--iterations` is given.
pub const DEFAULT_BUDGET: Budget = Budget::Iterations(1000);

/// Runs `gdl trace`.
pub fn trace(args: TraceArgs) -> Result<ExitCode, Failure> {
    let mut loaded = load(&args.file, &args.limits)?;
    let mut player = RandomPlayer::new(args.seed);
    let budget = args.ai.budget(DEFAULT_BUDGET);
    let mut seats = args.ai.seats(&loaded.game, budget, args.seed)?;
    let replay = Trace::play(&mut loaded.game, args.max_steps, |game, state| {
        let joint = seats.joint(game, state, &mut player)?;
        seats.observe(&joint);
        Ok(joint)
    });
    if seats.any() {
        eprintln!("{}", seats.summary());
    }
    finish(
        replay,
        args.format,
        &loaded.spec,
        args.save.as_ref(),
        &loaded.name,
    )
}

/// Runs `gdl replay`.
pub fn replay(args: ReplayArgs) -> Result<ExitCode, Failure> {
    let mut loaded = load(&args.file, &args.limits)?;
    let record = read_game(&read_file(&args.game)?)
        .map_err(|e| Failure::Usage(format!("{}: {e}", args.game.display())))?;
    if let Some(recorded) = &record.trace {
        let roles = Trace::new(&loaded.game).roles;
        if recorded.roles != roles {
            return Err(Failure::Game(format!(
                "{}: recorded for the roles {}, but the rules have {}",
                args.game.display(),
                recorded.roles.join(" "),
                roles.join(" ")
            )));
        }
    }
    let replay = Trace::replay(&mut loaded.game, &record.moves);
    let difference = record
        .trace
        .as_ref()
        .and_then(|recorded| recorded.first_difference(&replay.trace));
    let code = finish(
        replay,
        args.format,
        &loaded.spec,
        args.save.as_ref(),
        &loaded.name,
    )?;
    match difference {
        Some(d) => Err(Failure::Game(format!("{}: {d}", args.game.display()))),
        None => Ok(code),
    }
}
