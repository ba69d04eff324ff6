//! `gdl analyse` in the page: self-play of the search player at several
//! strengths (iterations a move), as a job that runs beside the server,
//! reports its progress game by game, and stops when cancelled (the games
//! under way stop at their next step, a search inside its iterations).
//!
//! What it gives, for the page's plots: `gdl analyse`'s figures at each
//! strength (each role's wins, draws and losses with their 95% intervals),
//! every game's length, the mean branching (joint moves) at each step, and
//! how often each first move wins.

use super::jobs::{self, Job};
use super::session::ApiError;
use crate::command::analyse::{Played, Tally, analysis, self_play};
use crate::command::game_seed;
use gdl::{Budget, Game, Stop};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Arc;

/// What the page asks of an analysis.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Asked {
    /// Games at each strength.
    pub games: usize,
    /// The strengths: search iterations a move.
    pub strengths: Vec<u64>,
    /// The step limit of a game.
    #[serde(default = "default_max_steps")]
    pub max_steps: usize,
    /// The seed of the first game of each strength.
    #[serde(default)]
    pub seed: u64,
}

fn default_max_steps() -> usize {
    1000
}

/// The most games at one strength, and the most strengths.
const MOST_GAMES: usize = 10_000;
const MOST_STRENGTHS: usize = 8;

impl Asked {
    /// Refuses what is out of bounds, saying so.
    pub fn check(&self) -> Result<(), ApiError> {
        if !(1..=MOST_GAMES).contains(&self.games) {
            return Err(ApiError::bad(format!("games: from 1 to {MOST_GAMES}")));
        }
        if self.strengths.is_empty() || self.strengths.len() > MOST_STRENGTHS {
            return Err(ApiError::bad(format!(
                "strengths: from 1 to {MOST_STRENGTHS} numbers of iterations"
            )));
        }
        if self
            .strengths
            .iter()
            .any(|&n| !(1..=1_000_000).contains(&n))
        {
            return Err(ApiError::bad(
                "strengths: each a number of iterations from 1 to 1000000",
            ));
        }
        if !(1..=100_000).contains(&self.max_steps) {
            return Err(ApiError::bad("max_steps: from 1 to 100000"));
        }
        Ok(())
    }
}

/// Starts an analysis of `game` as a job: its total the games to play.
pub fn start(game: Game, name: String, asked: Asked) -> Result<Arc<Job>, ApiError> {
    asked.check()?;
    let total = asked.games * asked.strengths.len();
    jobs::start("analysis", total, move |job| run(&game, &name, &asked, job))
}

/// Plays the games, strength after strength, and adds them up.
fn run(game: &Game, name: &str, asked: &Asked, job: &Job) -> Result<Value, String> {
    let roles: Vec<String> = (game.roles().iter())
        .map(|&r| game.role_name(r).to_string())
        .collect();
    let mut strengths = Vec::new();
    let mut lengths = Vec::new();
    // Per strength: per step, the sum of joint moves and the states.
    let mut branching: Vec<Value> = Vec::new();
    // Per first joint move: games, and each role's wins.
    let mut firsts: BTreeMap<String, (usize, Vec<usize>)> = BTreeMap::new();
    let threads = crate::command::threads(0);
    let mut sorted = asked.strengths.clone();
    sorted.sort_unstable();
    sorted.dedup();
    for &iterations in &sorted {
        if job.is_cancelled() {
            break;
        }
        let budget = Budget::Iterations(iterations);
        let mut tally = Tally::new(roles.len());
        let mut by_step: Vec<(f64, usize)> = Vec::new();
        let mut error = None;
        let play = |game: &mut Game, i, cancel: &std::sync::atomic::AtomicBool| {
            let stop = Stop::steps(asked.max_steps).or_cancelled(cancel);
            self_play(game, budget, game_seed(asked.seed, i), stop)
        };
        gdl::play_games(game, asked.games, threads, play, |result| {
            if job.is_cancelled() {
                return ControlFlow::Break(());
            }
            match result {
                Some((_, Ok(p))) => {
                    add(&p, &mut tally, &mut by_step, &mut firsts, roles.len());
                    lengths.push(json!({ "iterations": iterations, "length": p.steps }));
                    job.advance();
                }
                Some((i, Err((step, e)))) => {
                    // A game stopped by the cancel is no error of the rules.
                    if !job.is_cancelled() {
                        error = Some(format!(
                            "game {i} (seed {}): step {step}: {}",
                            game_seed(asked.seed, i),
                            crate::command::describe(&e)
                        ));
                    }
                    return ControlFlow::Break(());
                }
                None => {}
            }
            ControlFlow::Continue(())
        });
        if let Some(e) = error {
            return Err(e);
        }
        if tally.games_played() == 0 {
            break;
        }
        let a = analysis(
            name,
            &roles,
            &tally,
            asked.seed,
            format!("{iterations} iterations"),
            asked.max_steps,
        );
        let mut value = serde_json::to_value(&a).unwrap_or(Value::Null);
        value["iterations"] = json!(iterations);
        strengths.push(value);
        for (step, (sum, states)) in by_step.iter().enumerate() {
            branching.push(json!({
                "iterations": iterations,
                "step": step,
                "branching": sum / *states as f64,
                "states": states,
            }));
        }
    }
    let first_moves: Vec<Value> = (firsts.into_iter())
        .map(|(first, (games, wins))| {
            let rates: Vec<Value> = (roles.iter().zip(&wins))
                .map(|(role, &w)| {
                    json!({
                        "role": role,
                        "wins": crate::command::analyse::Rate::new(w, games),
                    })
                })
                .collect();
            json!({ "first": first, "games": games, "roles": rates })
        })
        .collect();
    Ok(json!({
        "rules": name,
        "roles": roles,
        "games": asked.games,
        "seed": asked.seed,
        "max_steps": asked.max_steps,
        "strengths": strengths,
        "lengths": lengths,
        "branching": branching,
        "first_moves": first_moves,
        "partial": job.is_cancelled(),
    }))
}

/// Adds one game to the figures.
fn add(
    p: &Played,
    tally: &mut Tally,
    by_step: &mut Vec<(f64, usize)>,
    firsts: &mut BTreeMap<String, (usize, Vec<usize>)>,
    roles: usize,
) {
    tally.add(p);
    for (step, counts) in p.legal.iter().enumerate() {
        if by_step.len() <= step {
            by_step.push((0.0, 0));
        }
        by_step[step].0 += counts.iter().product::<usize>() as f64;
        by_step[step].1 += 1;
    }
    // The first move named by the moves of the roles that had a choice.
    let chosen: Vec<&String> = (p.first.iter().zip(p.legal.first().into_iter().flatten()))
        .filter(|&(_, &n)| n > 1)
        .map(|(m, _)| m)
        .collect();
    if chosen.is_empty() {
        return;
    }
    let key = chosen
        .iter()
        .map(|m| m.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let entry = firsts.entry(key).or_insert_with(|| (0, vec![0; roles]));
    entry.0 += 1;
    if let Some(goals) = &p.goals {
        let best = goals.iter().copied().max().unwrap_or(0);
        if goals.iter().filter(|&&g| g == best).count() == 1
            && let Some(winner) = goals.iter().position(|&g| g == best)
        {
            entry.1[winner] += 1;
        }
    }
}
