//! The recorded games of the rules file (`NAME.games/` beside it, the
//! folder of `gdl test`): listed, replayed against the rules as `gdl test`
//! replays them, as a job with progress and cancel (a failing game's new
//! version written beside it, pending), and each pending version accepted or rejected, game by game,
//! as `gdl test --review` does.

use super::jobs::{self, Job};
use super::session::{Answer, ApiError};
use crate::command::record_cmd::games_folder;
use crate::command::test_cmd::{Outcome, Tested, games_in, pending_of, test_game};
use crate::command::{Existing, Failure, LimitArgs, Loaded, read_file, write_file};
use crate::compare::Difference;
use gdl::Game;
use gdl::record::{Board, BoardSpec};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The recorded games of the rules file `rules`, by file name.
fn games(rules: &Path) -> Result<Vec<PathBuf>, ApiError> {
    let folder = games_folder(rules);
    if !folder.is_dir() {
        return Ok(Vec::new());
    }
    games_in(&folder).map_err(|e| ApiError::failure(&e))
}

/// The file name of a path, as the page names a game.
fn short(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The recorded game the page names (a file name of the folder: nothing
/// outside it is ever reached).
pub fn find(rules: &Path, name: &str) -> Result<PathBuf, ApiError> {
    games(rules)?
        .into_iter()
        .find(|g| short(g) == name)
        .ok_or_else(|| {
            ApiError::bad(format!(
                "no recorded game {name:?} in {}",
                games_folder(rules).display()
            ))
        })
}

/// `GET /api/tests`: the folder and its games, each with whether a new
/// version of it is pending.
pub fn list(rules: &Path) -> Answer {
    let listed: Vec<Value> = games(rules)?
        .iter()
        .map(|g| json!({ "game": short(g), "pending": pending_of(g).is_file() }))
        .collect();
    Ok(json!({
        "folder": games_folder(rules).display().to_string(),
        "games": listed,
    }))
}

/// `POST /api/tests/run`: every recorded game replayed against `game`
/// (the rules as last saved that loaded), as `gdl test` does, as a job
/// whose total is the number of games. Each failing game comes with its
/// earliest difference: the state as recorded and as the rules now give
/// it, each as facts and a board, and the moves and facts added and
/// removed. Cancelled, the run stops within the game under way (which
/// writes no new version) and its result has the games replayed before.
pub fn start(
    rules: &Path,
    game: Game,
    name: String,
    text: &str,
    limits: &LimitArgs,
) -> Result<Arc<Job>, ApiError> {
    let paths = games(rules)?;
    let folder = games_folder(rules).display().to_string();
    let (spec, _) = BoardSpec::from_source(text);
    let loaded = Loaded { game, spec, name };
    let limits = limits.clone();
    jobs::start("tests", paths.len(), move |job| {
        run(loaded, &paths, &folder, &limits, job)
    })
}

/// Replays the games of `paths` one after the other (see [`start`]).
fn run(
    mut loaded: Loaded,
    paths: &[PathBuf],
    folder: &str,
    limits: &LimitArgs,
    job: &Job,
) -> Result<Value, String> {
    let mut results = Vec::new();
    let (mut passed, mut failed) = (0, 0);
    for path in paths {
        if job.is_cancelled() {
            break;
        }
        let tested = match test_game(
            &mut loaded,
            path,
            limits,
            false,
            false,
            Some(job.canceller()),
        ) {
            Ok(tested) => tested,
            Err(Failure::Interrupted(_)) => break,
            Err(e) => return Err(e.message().trim_end().to_string()),
        };
        let r = &tested.result;
        if matches!(r.outcome, Outcome::Passed) {
            passed += 1;
        } else {
            failed += 1;
        }
        let mut value = serde_json::to_value(r).unwrap_or(Value::Null);
        value["game"] = json!(short(path));
        if let Some(earliest) = earliest(&tested, &loaded.spec) {
            value["earliest"] = earliest;
        }
        value["pending"] = json!(pending_of(path).is_file());
        results.push(value);
        job.advance();
    }
    Ok(json!({
        "folder": folder,
        "passed": passed,
        "failed": failed,
        "games": results,
        "partial": job.is_cancelled(),
    }))
}

/// A failing game's earliest difference, for the page: its step, the
/// state as recorded and as the rules now give it (facts and board), the
/// step before it (where both still agree) with the moves played there,
/// and whether the replay stops there.
fn earliest(tested: &Tested, spec: &BoardSpec) -> Option<Value> {
    let (first, record, comparison) = (
        tested.result.differences.first()?,
        tested.record.as_ref()?,
        tested.comparison.as_ref()?,
    );
    let recorded = (record.steps.get(first.step)).and_then(|s| s.state.clone());
    let now = (comparison.trace.steps.get(first.step)).map(|s| s.state.clone());
    let before = (first.step.checked_sub(1))
        .and_then(|step| comparison.trace.steps.get(step))
        .map(|s| (s.state.clone(), s.moves.clone()));
    let mut board = Board::new(spec.clone());
    let shown = (before.iter().map(|(facts, _)| facts)).chain(recorded.iter().chain(now.iter()));
    for facts in shown {
        board.observe(facts);
    }
    let drawn = |facts: &Option<Vec<String>>| match facts {
        Some(f) => json!({ "facts": f, "board": board.grid(f) }),
        None => Value::Null,
    };
    Some(json!({
        "step": first.step,
        "recorded": drawn(&recorded),
        "rules": drawn(&now),
        "before": before.map(|(facts, moves)| {
            let mut shown = drawn(&Some(facts));
            shown["moves"] = json!(moves);
            shown
        }),
        "stops": first.differences.iter().any(Difference::stops),
    }))
}

/// `POST /api/tests/accept` (`accept`) or `reject`: the pending new
/// version of one game replaces it, or is removed.
pub fn decide(rules: &Path, name: &str, accept: bool, limits: &LimitArgs) -> Answer {
    let game = find(rules, name)?;
    let new = pending_of(&game);
    if !new.is_file() {
        return Err(ApiError::conflict(format!(
            "{name} has no new version pending: run the tests first"
        )));
    }
    if accept {
        let text = read_file(&new, limits).map_err(|e| ApiError::failure(&e))?;
        write_file(&game, text.as_bytes(), Existing::Replace).map_err(|e| ApiError::failure(&e))?;
    }
    std::fs::remove_file(&new)
        .map_err(|e| ApiError::bad(format!("cannot remove {}: {e}", new.display())))?;
    let mut answer = list(rules)?;
    answer["decided"] = json!(if accept { "accepted" } else { "rejected" });
    Ok(answer)
}

/// A recorded game's text, for the page to replay.
pub fn text(rules: &Path, name: &str, limits: &LimitArgs) -> Result<String, ApiError> {
    let game = find(rules, name)?;
    read_file(&game, limits).map_err(|e| ApiError::failure(&e))
}
