//! `gdl record FILE`: records a game (a random one, or the moves of a
//! moves file) as a JSON trace in `FILE.games/`, where `gdl test` finds it.

use super::read_record;
use super::{
    Existing, Failure, Format, LimitArgs, file_name, is_stdin, load, print_json, read_file,
    readable_back, regular_or_new, write_file,
};
use crate::compare::{compare, describe_step};
use gdl::RandomPlayer;
use gdl::record::{Provenance, Trace, record_file};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gdl record`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Record the random game of seed 1 in rules/tictactoe.games/seed-1.json:
  gdl record rules/tictactoe.gdl --seed 1
  # Record the games of seeds 1 to 5 (seed-1.json to seed-5.json):
  gdl record rules/tictactoe.gdl --seed 1 --games 5 --force
  # Record a game played by hand (saved by `gdl play --save`):
  gdl record rules/tictactoe.gdl --moves game.moves")]
pub struct RecordArgs {
    /// The rules file (`-`: standard input).
    pub file: PathBuf,
    /// Record the game of this moves file (one joint move a line, as
    /// `play` saves it; `-`: standard input, with --out) instead of a
    /// random one.
    #[arg(long, value_name = "MOVES")]
    pub moves: Option<PathBuf>,
    /// Seed of the random game: a seed always gives the same game.
    #[arg(long, default_value_t = 0, conflicts_with = "moves")]
    pub seed: u64,
    /// Record this many random games, of seeds S, S+1, ... (each in
    /// FILE.games/seed-N.json).
    #[arg(long, default_value_t = 1, value_name = "N", conflicts_with_all = ["moves", "out"])]
    pub games: usize,
    /// Stop the random game after this many steps if it has not ended.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_steps: usize,
    /// Where to write the game [default: FILE.games/seed-N.json, or
    /// FILE.games/MOVES.json with --moves].
    #[arg(long, short, value_name = "GAME")]
    pub out: Option<PathBuf>,
    /// Write over a game already recorded there.
    #[arg(long)]
    pub force: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The folder of the recorded games of a rules file: `NAME.games` beside
/// `NAME.gdl`.
pub fn games_folder(rules: &Path) -> PathBuf {
    rules.with_extension("games")
}

/// The error of a game already recorded where `gdl record` would write.
fn already_recorded(out: &Path) -> Failure {
    Failure::Usage(format!(
        "{} is already recorded; `gdl test --update` records it again under the current \
         rules, and --force writes over it",
        out.display()
    ))
}

/// Runs `gdl record`: one game (of `--seed`, or of `--moves`), or the
/// random games of `--games N` seeds from `--seed`, each in its own file.
pub fn record(args: RecordArgs) -> Result<ExitCode, Failure> {
    // The default file is named after the rules file and the moves file:
    // standard input (`-`) gives it no name.
    let unnamed = is_stdin(&args.file) || args.moves.as_deref().is_some_and(is_stdin);
    if unnamed && args.out.is_none() {
        return Err(Failure::Usage(
            "a game read from standard input (`-`) has no FILE.games/ to go to: \
             name the file with --out GAME"
                .into(),
        ));
    }
    if args.games == 0 {
        return Err(Failure::Usage("--games 0: record at least one game".into()));
    }
    let seeds: Vec<u64> = (0..args.games as u64)
        .map(|i| args.seed.wrapping_add(i))
        .collect();
    let outs: Vec<PathBuf> = match (&args.out, &args.moves) {
        (Some(out), _) => vec![out.clone()],
        (None, Some(path)) => vec![games_folder(&args.file).join(format!(
            "{}.json",
            path.file_stem().unwrap_or_default().to_string_lossy()
        ))],
        (None, None) => (seeds.iter())
            .map(|seed| games_folder(&args.file).join(format!("seed-{seed}.json")))
            .collect(),
    };
    // Told before any game is played: a file already recorded (without
    // --force), or anything there but a regular file (even with it).
    for out in &outs {
        if regular_or_new(out)? && !args.force {
            return Err(already_recorded(out));
        }
    }
    let mut loaded = load(&args.file, &args.limits)?;
    let mut written = Vec::new();
    for (out, seed) in outs.iter().zip(&seeds) {
        let trace = play(&mut loaded, &args, *seed)?;
        write(&args, out, &trace)?;
        written.push((out, trace));
    }
    if args.format == Format::Json {
        let games: Vec<serde_json::Value> =
            written.iter().map(|(out, t)| summary(out, t)).collect();
        match games.as_slice() {
            [one] => print_json(one),
            _ => print_json(&serde_json::json!({ "games": games })),
        }
        return Ok(ExitCode::SUCCESS);
    }
    for (out, trace) in &written {
        let end = match &trace.goals {
            Some(goals) => format!("terminal, goals {}", trace.goals_text(goals)),
            None => "not terminal".to_string(),
        };
        println!(
            "recorded {} joint moves to {} ({end})",
            trace.moves().len(),
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The game to record: that of `--moves`, or the random game of `seed`,
/// with what made it ([`Provenance`]).
fn play(loaded: &mut super::Loaded, args: &RecordArgs, seed: u64) -> Result<Trace, Failure> {
    let mut made = Provenance::new(&loaded.name, &loaded.game.source().text);
    let mut trace = match &args.moves {
        Some(path) => {
            let name = file_name(path);
            let moves = read_record(&read_file(path, &args.limits)?, &name, &args.limits)?;
            let compared = compare(&mut loaded.game, &moves);
            if let Some(first) = compared.steps.first() {
                let why = describe_step(first, &compared.trace.roles, true);
                return Err(Failure::Game(format!("{name}: {}", why.trim_end())));
            }
            made.moves = Some(name);
            compared.trace
        }
        None => {
            let replay = random_game(&mut loaded.game, seed, args.max_steps);
            if let Some((step, e)) = &replay.error {
                return Err(Failure::at_fault(*step, e, replay.fault.as_deref()));
            }
            made.seed = Some(seed);
            made.max_steps = Some(args.max_steps);
            replay.trace
        }
    };
    trace.recorded = Some(made);
    Ok(trace)
}

/// The random game of `seed` that `gdl record --seed` records (and `gdl
/// trace --seed` plays), stopped after `max_steps`.
pub fn random_game(game: &mut gdl::Game, seed: u64, max_steps: usize) -> gdl::record::Replay {
    let mut player = RandomPlayer::new(seed);
    Trace::random(game, &mut player, max_steps)
}

/// Writes one recorded game to `out`: refused when `gdl test` would refuse
/// to read it back, or (without `--force`) when a file appeared there
/// meanwhile.
fn write(args: &RecordArgs, out: &Path, trace: &Trace) -> Result<(), Failure> {
    let text = record_file(trace);
    readable_back(out, &text, args.limits.file_limit())?;
    if args.out.is_none() {
        let folder = games_folder(&args.file);
        std::fs::create_dir_all(&folder)
            .map_err(|e| Failure::Io(format!("cannot create {}: {e}", folder.display())))?;
    }
    // Without --force, a file that appeared while the game was played (a
    // second `gdl record` to the same file) is kept, and this one fails.
    let existing = if args.force {
        Existing::Replace
    } else {
        Existing::Keep
    };
    write_file(out, text.as_bytes(), existing)
}

/// One recorded game as `--format json` says it.
fn summary(out: &Path, trace: &Trace) -> serde_json::Value {
    let mut value = serde_json::json!({
        "game": out.display().to_string(),
        "moves": trace.moves().len(),
        "terminal": trace.goals.is_some(),
        "roles": trace.roles,
    });
    if let Some(goals) = &trace.goals {
        value["goals"] = serde_json::json!(goals);
    }
    value
}
