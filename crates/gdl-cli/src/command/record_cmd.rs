//! `gdl record FILE`: records a game (a random one, or the moves of a
//! moves file) as a JSON trace in `FILE.games/`, where `gdl test` finds it.

use super::read_record;
use super::{
    file_name, is_stdin, load, print_json, read_file, readable_back, regular_or_new, write_file,
    Existing, Failure, Format, LimitArgs,
};
use crate::compare::{compare, describe_step};
use gdl::record::{record_file, Trace};
use gdl::RandomPlayer;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gdl record`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Record the random game of seed 1 in rules/tictactoe.games/seed-1.json:
  gdl record rules/tictactoe.gdl --seed 1
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

/// Runs `gdl record`.
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
    let default_name = match &args.moves {
        Some(path) => format!(
            "{}.json",
            path.file_stem().unwrap_or_default().to_string_lossy()
        ),
        None => format!("seed-{}.json", args.seed),
    };
    let out = match &args.out {
        Some(out) => out.clone(),
        None => games_folder(&args.file).join(default_name),
    };
    // Told before the game is played: a file already recorded (without
    // --force), or anything there but a regular file (even with it).
    if regular_or_new(&out)? && !args.force {
        return Err(already_recorded(&out));
    }
    let mut loaded = load(&args.file, &args.limits)?;
    let trace = match &args.moves {
        Some(path) => {
            let name = file_name(path);
            let moves = read_record(&read_file(path, &args.limits)?, &name, &args.limits)?;
            let compared = compare(&mut loaded.game, &moves);
            if let Some(first) = compared.steps.first() {
                let why = describe_step(first, &compared.trace.roles);
                return Err(Failure::Game(format!("{name}: {}", why.trim_end())));
            }
            compared.trace
        }
        None => {
            let mut player = RandomPlayer::new(args.seed);
            let replay = Trace::random(&mut loaded.game, &mut player, args.max_steps);
            if let Some((step, e)) = &replay.error {
                return Err(Failure::at_step(*step, e));
            }
            replay.trace
        }
    };
    // What test and replay would refuse to read is not written.
    let text = record_file(&trace);
    readable_back(&out, &text, args.limits.file_limit())?;
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
    write_file(&out, text.as_bytes(), existing)?;
    if args.format == Format::Json {
        let mut value = serde_json::json!({
            "game": out.display().to_string(),
            "moves": trace.moves().len(),
            "terminal": trace.goals.is_some(),
            "roles": trace.roles,
        });
        if let Some(goals) = &trace.goals {
            value["goals"] = serde_json::json!(goals);
        }
        print_json(&value);
        return Ok(ExitCode::SUCCESS);
    }
    let end = match &trace.goals {
        Some(goals) => format!("terminal, goals {}", trace.goals_text(goals)),
        None => "not terminal".to_string(),
    };
    println!(
        "recorded {} joint moves to {} ({end})",
        trace.moves().len(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}
