//! `gdl test [PATH...]`: recorded games as regression tests. The games of
//! a rules file `NAME.gdl` (or `NAME.kif`) are the JSON files in the folder
//! `NAME.games/` beside it (`gdl record` writes them there): each is
//! replayed against the current rules and passes when the rules still give
//! what was recorded. `--update` records again the games whose moves are
//! still legal.

use super::read_record;
use super::record_cmd::games_folder;
use super::{load, read_file, readable_back, write_file, Existing, Failure, Format, LimitArgs};
use crate::compare::{compare, describe_step, more_steps, Comparison, StepDifferences};
use gdl::record::{record_file, RecordFormat};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gdl test`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Replay every recorded game of the rules files under the current folder:
  gdl test
  # The games of one rules file, every differing step named:
  gdl test rules/tictactoe.gdl --all")]
pub struct TestArgs {
    /// Rules files, their `NAME.games` folders, recorded games, or folders
    /// searched for rules files that have recorded games [default: .].
    pub paths: Vec<PathBuf>,
    /// Name every step where a game differs, following its moves as far as
    /// they stay legal, not only the earliest.
    #[arg(long)]
    pub all: bool,
    /// Record again, under the current rules, the failing games whose moves
    /// are still legal.
    #[arg(long)]
    pub update: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// A rules file and the recorded games to test against it.
#[derive(Debug, PartialEq, Eq)]
struct Suite {
    rules: PathBuf,
    games: Vec<PathBuf>,
}

/// How one game came out.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
enum Outcome {
    /// The rules give what was recorded.
    Passed,
    /// They differ.
    Failed,
    /// They differed, and the game was recorded again (`--update`).
    Updated,
}

/// One game's result, as `--format json` prints it.
#[derive(Serialize)]
struct GameResult {
    rules: String,
    game: String,
    outcome: Outcome,
    /// The steps that differ (the earliest only, without `--all`).
    differences: Vec<StepDifferences>,
    /// How many more steps differ than are listed.
    more: usize,
    /// What kept the game from being compared or updated, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip)]
    roles: Vec<String>,
}

/// The whole run, as `--format json` prints it.
#[derive(Serialize)]
struct Summary {
    games: Vec<GameResult>,
    passed: usize,
    failed: usize,
    updated: usize,
}

/// Runs `gdl test`.
pub fn test(args: TestArgs) -> Result<ExitCode, Failure> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut suites = Vec::new();
    for path in &paths {
        suites.extend(find(path)?);
    }
    if suites.iter().all(|s| s.games.is_empty()) {
        return Err(Failure::Usage(format!(
            "no recorded games under {}: the games of NAME.gdl are the JSON files of \
             NAME.games/ (`gdl record NAME.gdl` makes one)",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        )));
    }
    let mut results = Vec::new();
    for suite in &suites {
        run_suite(suite, &args, &mut results)?;
    }
    let count = |o: fn(&Outcome) -> bool| results.iter().filter(|r| o(&r.outcome)).count();
    let summary = Summary {
        passed: count(|o| matches!(o, Outcome::Passed)),
        failed: count(|o| matches!(o, Outcome::Failed)),
        updated: count(|o| matches!(o, Outcome::Updated)),
        games: results,
    };
    match args.format {
        Format::Json => println!("{}", serde_json::to_string(&summary).unwrap_or_default()),
        Format::Text => {
            let mut line = format!("\n{} passed, {} failed", summary.passed, summary.failed);
            if args.update {
                line.push_str(&format!(", {} updated", summary.updated));
            }
            println!("{line}");
        }
    }
    Ok(if summary.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The suites a path names: a rules file, its games folder, one recorded
/// game, or a folder searched (recursively, hidden folders, `target` and
/// symbolic links to folders left out) for rules files with a games
/// folder.
fn find(path: &Path) -> Result<Vec<Suite>, Failure> {
    if super::is_stdin(path) {
        return Err(Failure::Usage(
            "`gdl test` reads recorded games from their folder beside the rules, \
             not from standard input (`-`): `gdl replay FILE -` checks one"
                .into(),
        ));
    }
    let is_rules = |p: &Path| matches!(extension(p), Some("gdl" | "kif")) && p.is_file();
    if is_rules(path) {
        let folder = games_folder(path);
        if !folder.is_dir() {
            return Err(Failure::Usage(format!(
                "{} has no recorded games: they go in {} (`gdl record {}` makes one)",
                path.display(),
                folder.display(),
                path.display()
            )));
        }
        return Ok(vec![Suite {
            rules: path.to_path_buf(),
            games: games_in(&folder)?,
        }]);
    }
    if path.is_file() {
        let folder = path.parent().unwrap_or(Path::new("."));
        let rules = rules_of(folder).ok_or_else(|| {
            Failure::Usage(format!(
                "{}: a recorded game is tested from a folder NAME.games beside its rules \
                 file NAME.gdl or NAME.kif",
                path.display()
            ))
        })?;
        return Ok(vec![Suite {
            rules,
            games: vec![path.to_path_buf()],
        }]);
    }
    if !path.is_dir() {
        return Err(Failure::Io(format!(
            "cannot read {}: no such file or folder",
            path.display()
        )));
    }
    if extension(path) == Some("games") {
        if let Some(rules) = rules_of(path) {
            return Ok(vec![Suite {
                rules,
                games: games_in(path)?,
            }]);
        }
    }
    let mut suites = Vec::new();
    for entry in entries(path)? {
        let name = entry.file_name().unwrap_or_default().to_string_lossy();
        let skipped =
            name.starts_with('.') || name == "target" || extension(&entry) == Some("games");
        if is_real_dir(&entry) && !skipped {
            suites.extend(find(&entry)?);
        } else if is_rules(&entry) && games_folder(&entry).is_dir() {
            suites.push(Suite {
                games: games_in(&games_folder(&entry))?,
                rules: entry,
            });
        }
    }
    Ok(suites)
}

/// Whether a path met in the walk is a folder to search: a folder itself,
/// not a symbolic link to one. Links to folders are not followed, so that
/// the walk ends (a link to `.` or to a parent made it endless) and tests
/// each game once; a folder named on the command line is searched even
/// through a link.
fn is_real_dir(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir())
}

fn extension(p: &Path) -> Option<&str> {
    p.extension().and_then(|e| e.to_str())
}

/// The rules file of a games folder `NAME.games`: `NAME.gdl` or `NAME.kif`.
fn rules_of(folder: &Path) -> Option<PathBuf> {
    if extension(folder) != Some("games") {
        return None;
    }
    ["gdl", "kif"]
        .into_iter()
        .map(|e| folder.with_extension(e))
        .find(|p| p.is_file())
}

/// The entries of a folder, sorted by name.
fn entries(folder: &Path) -> Result<Vec<PathBuf>, Failure> {
    let read = std::fs::read_dir(folder)
        .map_err(|e| Failure::Io(format!("cannot read {}: {e}", folder.display())))?;
    let mut out: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .map(|p| p.strip_prefix(".").map(Path::to_path_buf).unwrap_or(p))
        .collect();
    out.sort();
    Ok(out)
}

/// The recorded games of a games folder: its JSON files.
fn games_in(folder: &Path) -> Result<Vec<PathBuf>, Failure> {
    Ok(entries(folder)?
        .into_iter()
        .filter(|p| extension(p) == Some("json") && p.is_file())
        .collect())
}

/// Tests the games of one rules file, printing each result as it comes
/// (text) and adding it to `results`. Rules that do not load fail every
/// game of theirs.
fn run_suite(suite: &Suite, args: &TestArgs, results: &mut Vec<GameResult>) -> Result<(), Failure> {
    let rules = suite.rules.display().to_string();
    let mut loaded = match load(&suite.rules, &args.limits) {
        Ok(l) => l,
        Err(e @ (Failure::Io(_) | Failure::Interrupted(_))) => return Err(e),
        Err(other) => {
            match other {
                Failure::Invalid(rendered) => eprint!("{rendered}"),
                Failure::Usage(m) | Failure::Game(m) | Failure::Io(m) | Failure::Interrupted(m) => {
                    eprintln!("error: {m}")
                }
            }
            for game in &suite.games {
                let r = GameResult {
                    rules: rules.clone(),
                    game: game.display().to_string(),
                    outcome: Outcome::Failed,
                    differences: Vec::new(),
                    more: 0,
                    error: Some(format!("the rules do not load; see `gdl check {rules}`")),
                    roles: Vec::new(),
                };
                show(&r, args.format);
                results.push(r);
            }
            return Ok(());
        }
    };
    for game in &suite.games {
        let name = game.display().to_string();
        let mut r = GameResult {
            rules: rules.clone(),
            game: name.clone(),
            outcome: Outcome::Failed,
            differences: Vec::new(),
            more: 0,
            error: None,
            roles: Vec::new(),
        };
        let record = match read_record(&read_file(game, &args.limits)?, &name, &args.limits) {
            Ok(record) => record,
            // The memory budget reached stops the run, as a file too large does.
            Err(e @ Failure::Game(_)) => return Err(e),
            Err(e) => {
                let prefix = format!("{name}: ");
                let message = e.message();
                r.error = Some(message.strip_prefix(&prefix).unwrap_or(message).to_string());
                show(&r, args.format);
                results.push(r);
                continue;
            }
        };
        let compared = compare(&mut loaded.game, &record);
        r.roles.clone_from(&compared.trace.roles);
        if compared.passed() {
            r.outcome = Outcome::Passed;
        } else {
            let shown = if args.all { compared.steps.len() } else { 1 };
            r.more = compared.steps.len() - shown;
            r.differences = compared.steps[..shown].to_vec();
            if args.update {
                let limit = args.limits.file_limit();
                update(game, &record.format, &compared, &mut r, limit)?;
            }
        }
        show(&r, args.format);
        results.push(r);
    }
    Ok(())
}

/// Records a failing game again when its moves are still legal, else says
/// why it could not be.
fn update(
    game: &Path,
    format: &RecordFormat,
    compared: &Comparison,
    r: &mut GameResult,
    limit: u64,
) -> Result<(), Failure> {
    if *format == RecordFormat::Match {
        r.error = Some(
            "not updated: a match record of ggp-base is kept as the server wrote it".to_string(),
        );
    } else if let Some(step) = compared.stopped_at() {
        r.error = Some(format!(
            "not updated: its moves cannot be followed past step {step} under these rules"
        ));
    } else {
        let text = record_file(&compared.trace);
        // A game recorded again must still be read back under the same
        // limit; one that would not be is left as it was, and fails.
        if let Err(e) = readable_back(game, &text, limit) {
            r.error = Some(format!("not updated: {}", e.message()));
            return Ok(());
        }
        write_file(game, text.as_bytes(), Existing::Replace)?;
        r.outcome = Outcome::Updated;
    }
    Ok(())
}

/// Prints one game's result (text only; JSON is printed whole at the end).
fn show(r: &GameResult, format: Format) {
    if format == Format::Json {
        return;
    }
    let word = match r.outcome {
        Outcome::Passed => "ok",
        Outcome::Failed => "FAILED",
        Outcome::Updated => "updated",
    };
    println!("test {} ... {word}", r.game);
    let mut details = String::new();
    for s in &r.differences {
        details.push_str(&describe_step(s, &r.roles));
    }
    if r.more > 0 {
        details.push_str(&more_steps(r.more));
    }
    if let Some(e) = &r.error {
        details.push_str(e);
        details.push('\n');
    }
    for line in details.lines() {
        println!("    {line}");
    }
}
