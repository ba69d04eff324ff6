//! `gdl test [PATH...]`: recorded games as regression tests. The games of
//! a rules file `NAME.gdl` (or `NAME.kif`) are the JSON files in the folder
//! `NAME.games/` beside it (`gdl record` writes them there): each is
//! replayed against the current rules and passes when the rules still give
//! what was recorded. A failing game's new version, as the rules now play
//! it, is written beside it as `GAME.json.new`, pending, for `gdl test
//! --review` (see `review.rs`) to accept or reject, as cargo-insta does;
//! `--update`, for the rules named only, writes it in place at once.

use super::read_record;
use super::record_cmd::{games_folder, random_game};
use super::{Existing, Failure, Format, LimitArgs, load, read_file, readable_back, write_file};
use crate::compare::{Comparison, StepDifferences, compare, describe_step, more_steps};
use gdl::record::{Provenance, Record, RecordFormat, Trace, record_file};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gdl test`.
#[derive(clap::Args)]
#[command(after_long_help = "\
Examples:
  # Replay every recorded game of the rules files in the folder rules/:
  gdl test rules
  # The games of one rules file, every differing step named:
  gdl test rules/tictactoe.gdl --all
  # Review the new versions of the games that failed, one by one:
  gdl test rules/tictactoe.gdl --review
  # Every folder below this one, and accept every new version found:
  gdl test --recursive --accept")]
pub struct TestArgs {
    /// Rules files, their `NAME.games` folders, recorded games, or folders
    /// holding rules files beside their recorded games [default: .].
    pub paths: Vec<PathBuf>,
    /// Search the subfolders of the folders named too (hidden ones and
    /// `target` left out).
    #[arg(long, short)]
    pub recursive: bool,
    /// Name every step where a game differs, following its moves as far as
    /// they stay legal, not only the earliest, and every fact and move
    /// of each difference (not only the first 20 of each side).
    #[arg(long)]
    pub all: bool,
    /// Record again in place, under the current rules, the failing games of
    /// the rules files (or games) named; a finished game whose new version
    /// does not finish is left pending instead, for review.
    #[arg(long, conflicts_with_all = ["review", "accept", "reject"])]
    pub update: bool,
    /// Show each pending new version (`GAME.json.new`, written by a test
    /// that failed) beside its recorded game, and ask whether to accept it.
    #[arg(long, conflicts_with_all = ["accept", "reject"])]
    pub review: bool,
    /// Accept every pending new version of the games named: it replaces
    /// the recorded game.
    #[arg(long, conflicts_with = "reject")]
    pub accept: bool,
    /// Reject every pending new version of the games named: it is removed.
    #[arg(long)]
    pub reject: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// A rules file and the recorded games to test against it.
#[derive(Debug, PartialEq, Eq)]
pub struct Suite {
    /// The rules file.
    pub rules: PathBuf,
    /// Its recorded games.
    pub games: Vec<PathBuf>,
}

/// How one game came out.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Outcome {
    /// The rules give what was recorded.
    Passed,
    /// They differ.
    Failed,
    /// They differed, and the game was recorded again (`--update`).
    Updated,
}

/// One game's result, as `--format json` prints it.
#[derive(Serialize)]
pub(crate) struct GameResult {
    rules: String,
    pub game: String,
    pub outcome: Outcome,
    /// The steps that differ (the earliest only, without `--all`).
    pub differences: Vec<StepDifferences>,
    /// How many more steps differ than are listed.
    more: usize,
    /// Where the new version of a failing game was written, pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pending: Option<String>,
    /// What kept the game from being compared or updated, or what to know
    /// of its new version, if anything.
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
    /// Games folders without their rules file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    orphaned: Vec<String>,
}

/// The pending new version of a recorded game: `GAME.new` beside it.
pub fn pending_of(game: &Path) -> PathBuf {
    let mut name = game.file_name().unwrap_or_default().to_os_string();
    name.push(".new");
    game.with_file_name(name)
}

/// Runs `gdl test`.
pub fn test(args: TestArgs) -> Result<ExitCode, Failure> {
    if args.update && args.paths.is_empty() {
        return Err(Failure::Usage(
            "--update records games again for the rules files named only: `gdl test --update \
             RULES...`; without it, the new version of a failing game is written beside it \
             (GAME.json.new) for `gdl test --review`"
                .into(),
        ));
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let (suites, orphans) = find_all(&paths, args.recursive)?;
    if args.review || args.accept || args.reject {
        return super::review::review(&suites, &args);
    }
    if suites.iter().all(|s| s.games.is_empty()) {
        return Err(no_games(&paths, &orphans, args.recursive));
    }
    for orphan in &orphans {
        eprintln!("warning: {}", orphaned(orphan));
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
        orphaned: orphans.iter().map(|o| o.display().to_string()).collect(),
        games: results,
    };
    let pending = summary.games.iter().filter(|r| r.pending.is_some()).count();
    match args.format {
        Format::Json => println!("{}", serde_json::to_string(&summary).unwrap_or_default()),
        Format::Text => {
            let mut line = format!("\n{} passed, {} failed", summary.passed, summary.failed);
            if args.update {
                line.push_str(&format!(", {} updated", summary.updated));
            }
            println!("{line}");
            if pending > 0 {
                println!(
                    "{pending} new version{} pending: `gdl test --review` shows each and asks, \
                     --accept or --reject takes them all",
                    if pending == 1 { "" } else { "s" }
                );
            }
        }
    }
    Ok(if summary.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The suites the paths name, and the games folders met without their
/// rules file (orphans).
pub fn find_all(paths: &[PathBuf], recursive: bool) -> Result<(Vec<Suite>, Vec<PathBuf>), Failure> {
    let mut suites = Vec::new();
    let mut orphans = Vec::new();
    for path in paths {
        suites.extend(find(path, recursive, true, &mut orphans)?);
    }
    Ok((suites, orphans))
}

/// What an orphaned games folder is, in words.
fn orphaned(folder: &Path) -> String {
    let stem = folder.with_extension("");
    format!(
        "{} is orphaned: it holds recorded games, but no {}.gdl or {}.kif is beside it (was \
         the rules file renamed? the games of NAME.gdl go in NAME.games)",
        folder.display(),
        stem.display(),
        stem.display()
    )
}

/// The error of a run that found no recorded game: the orphans named if
/// there are some, and where else to look.
fn no_games(paths: &[PathBuf], orphans: &[PathBuf], recursive: bool) -> Failure {
    let named = paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let mut message = format!(
        "no recorded games under {named}: the games of NAME.gdl are the JSON files of \
         NAME.games/ beside it (`gdl record NAME.gdl` makes one)"
    );
    if !recursive {
        message.push_str("; --recursive searches the subfolders too");
    }
    for orphan in orphans {
        message.push_str(&format!("\n{}", orphaned(orphan)));
    }
    Failure::Usage(message)
}

/// The suites a path names: a rules file, its games folder, one recorded
/// game, or a folder holding rules files beside their games folders (with
/// `recursive`, its subfolders too: hidden ones, `target` and symbolic
/// links to folders left out). Games folders met without their rules
/// file go to `orphans`.
fn find(
    path: &Path,
    recursive: bool,
    named: bool,
    orphans: &mut Vec<PathBuf>,
) -> Result<Vec<Suite>, Failure> {
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
        if named {
            return Err(Failure::Usage(orphaned(path)));
        }
    }
    let mut suites = Vec::new();
    for entry in entries(path)? {
        let name = entry.file_name().unwrap_or_default().to_string_lossy();
        let hidden = name.starts_with('.') || name == "target";
        if extension(&entry) == Some("games") && is_real_dir(&entry) {
            if rules_of(&entry).is_none() && !games_in(&entry)?.is_empty() {
                orphans.push(entry);
            }
        } else if is_real_dir(&entry) && !hidden {
            if recursive {
                suites.extend(find(&entry, recursive, false, orphans)?);
            }
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

/// The recorded games of a games folder: its JSON files (not the pending
/// `.json.new`).
pub(crate) fn games_in(folder: &Path) -> Result<Vec<PathBuf>, Failure> {
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
                    pending: None,
                    error: Some(format!("the rules do not load; see `gdl check {rules}`")),
                    roles: Vec::new(),
                };
                show(&r, args.format, args.all);
                results.push(r);
            }
            return Ok(());
        }
    };
    for game in &suite.games {
        let tested = test_game(&mut loaded, game, &args.limits, args.all, args.update, None)?;
        show(&tested.result, args.format, args.all);
        results.push(tested.result);
    }
    Ok(())
}

/// One recorded game tested ([`test_game`]): its result, and the record
/// and comparison when it could be read.
pub(crate) struct Tested {
    /// The result, as `--format json` prints it.
    pub result: GameResult,
    /// The game as recorded, when it could be read.
    pub record: Option<Record>,
    /// The record compared with the rules, when it could be read.
    pub comparison: Option<Comparison>,
}

/// Tests one recorded game against the rules `loaded`: the earliest
/// difference (with `all`, every one); a failing game's new version
/// written beside it, pending (with `update`, in place). A record that
/// cannot be read fails with its reason; the memory budget reached, or a
/// file that cannot be read or written, is an error. Once `cancel` is set
/// (the studio's cancel of a run), the replay stops and nothing is
/// written: [`Failure::Interrupted`].
pub(crate) fn test_game(
    loaded: &mut super::Loaded,
    game: &Path,
    limits: &LimitArgs,
    all: bool,
    update: bool,
    cancel: Option<&gdl::Cancel>,
) -> Result<Tested, Failure> {
    let cancelled = || match cancel {
        Some(c) if c.is_cancelled() => Err(Failure::Interrupted(format!(
            "{}: cancelled before its replay ended",
            game.display()
        ))),
        _ => Ok(()),
    };
    let name = game.display().to_string();
    let mut r = GameResult {
        rules: loaded.name.clone(),
        game: name.clone(),
        outcome: Outcome::Failed,
        differences: Vec::new(),
        more: 0,
        pending: None,
        error: None,
        roles: Vec::new(),
    };
    let record = match read_record(&read_file(game, limits)?, &name, limits) {
        Ok(record) => record,
        // The memory budget reached stops the run, as a file too large does.
        Err(e @ Failure::Game(_)) => return Err(e),
        Err(e) => {
            let prefix = format!("{name}: ");
            let message = e.message();
            r.error = Some(message.strip_prefix(&prefix).unwrap_or(message).to_string());
            return Ok(Tested {
                result: r,
                record: None,
                comparison: None,
            });
        }
    };
    let compared = compare(&mut loaded.game, &record);
    cancelled()?;
    r.roles.clone_from(&compared.trace.roles);
    let pending = pending_of(game);
    if compared.passed() {
        r.outcome = Outcome::Passed;
        // A new version left from an earlier failure is stale now.
        if pending.is_file() {
            let _ = std::fs::remove_file(&pending);
        }
    } else {
        let shown = if all { compared.steps.len() } else { 1 };
        r.more = compared.steps.len() - shown;
        r.differences = compared.steps[..shown].to_vec();
        let made = new_version(loaded, &record, &compared);
        cancelled()?;
        match made {
            Ok((trace, weakened)) => {
                keep(game, &trace, weakened, update, limits.file_limit(), &mut r)?;
            }
            Err(why) => r.error = Some(format!("no new version: {why}")),
        }
    }
    Ok(Tested {
        result: r,
        record: Some(record),
        comparison: Some(compared),
    })
}

/// The new version of a failing recorded game, as the current rules play
/// it: the random game of its seed again (when its record says which
/// seed), else its recorded moves followed; with what made it. Also, when
/// the recorded game ended and the new version does not, a sentence that
/// says so. An error says why there is none.
fn new_version(
    loaded: &mut super::Loaded,
    record: &Record,
    compared: &Comparison,
) -> Result<(Trace, Option<String>), String> {
    if record.format == RecordFormat::Match {
        return Err("a match record of ggp-base is kept as the server wrote it".into());
    }
    let made = Provenance::new(&loaded.name, &loaded.game.source().text);
    let old = record.recorded.as_ref();
    let trace = match old.and_then(|o| o.seed.map(|seed| (seed, o.max_steps))) {
        Some((seed, max_steps)) => {
            let max_steps = max_steps.unwrap_or(1000);
            let replay = random_game(&mut loaded.game, seed, max_steps);
            if let Some((step, e)) = &replay.error {
                return Err(format!(
                    "the random game of seed {seed} now meets an error at step {step}: {}",
                    super::describe(e)
                ));
            }
            let mut trace = replay.trace;
            trace.recorded = Some(Provenance {
                seed: Some(seed),
                max_steps: Some(max_steps),
                ..made
            });
            trace
        }
        None => {
            if let Some(step) = compared.stopped_at() {
                return Err(format!(
                    "its moves cannot be followed past step {step} under these rules"
                ));
            }
            let mut trace = compared.trace.clone();
            trace.recorded = Some(Provenance {
                moves: old.and_then(|o| o.moves.clone()),
                ..made
            });
            trace
        }
    };
    let weakened = match (&record.goals, &trace.goals) {
        (Some(goals), None) => Some(format!(
            "the recorded game ends (goals {}), the new version does not: it stops after {} \
             joint moves",
            trace.goals_text(goals),
            trace.moves().len()
        )),
        _ => None,
    };
    Ok((trace, weakened))
}

/// Keeps the new version of a failing game: in place with `update`
/// (unless it weakens the game: a finished game is never replaced by an
/// unfinished one without review), else pending beside it.
fn keep(
    game: &Path,
    trace: &Trace,
    weakened: Option<String>,
    update: bool,
    limit: u64,
    r: &mut GameResult,
) -> Result<(), Failure> {
    let text = record_file(trace);
    // A game recorded again must still be read back under the same
    // limit; one that would not be is left as it was, and fails.
    if let Err(e) = readable_back(game, &text, limit) {
        r.error = Some(format!("no new version: {}", e.message()));
        return Ok(());
    }
    if update && weakened.is_none() {
        write_file(game, text.as_bytes(), Existing::Replace)?;
        let pending = pending_of(game);
        if pending.is_file() {
            let _ = std::fs::remove_file(&pending);
        }
        r.outcome = Outcome::Updated;
        return Ok(());
    }
    let pending = pending_of(game);
    write_file(&pending, text.as_bytes(), Existing::Replace)?;
    r.pending = Some(pending.display().to_string());
    r.error = match (weakened, update) {
        (Some(w), true) => Some(format!("not updated: {w}; left to review")),
        (Some(w), false) => Some(format!("warning: {w}")),
        (None, _) => None,
    };
    Ok(())
}

/// Prints one game's result (text only; JSON is printed whole at the end);
/// with `all`, every fact and move of each difference.
fn show(r: &GameResult, format: Format, all: bool) {
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
        details.push_str(&describe_step(s, &r.roles, all));
    }
    if r.more > 0 {
        details.push_str(&more_steps(r.more));
    }
    if let Some(e) = &r.error {
        details.push_str(e);
        details.push('\n');
    }
    if let Some(p) = &r.pending {
        details.push_str(&format!("new version: {p}\n"));
    }
    for line in details.lines() {
        println!("    {line}");
    }
}
