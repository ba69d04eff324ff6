//! Random games in bulk, on threads of their own, without the GIL.

use crate::errors::{game_error_at, obj, raise};
use crate::game::Game;
use crate::interrupt::SIGNALS;
use gdl::{Cancel, GameError, RandomPlayer, State, Stop};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// How one game ended: the joint moves played, and the goals when its last
/// state is terminal.
pub type Outcome = (usize, Option<gdl::Goals>);

/// What `Game.playouts` asks for.
pub struct Batch {
    /// The state every game starts from.
    pub start: State,
    /// How many games.
    pub n: usize,
    /// Game `i` uses the seed `seed + i`.
    pub seed: u64,
    /// Threads to play on (0: one per core).
    pub threads: usize,
    /// Joint moves after which a game is cut short.
    pub max_steps: usize,
    /// Choose by position in the engine's order
    /// (`RandomPlayer::in_engine_order`) rather than in natural order
    /// (`RandomPlayer::new`).
    pub fast: bool,
    /// The most bytes the results may take (`None`: the game's
    /// `max_memory`).
    pub max_memory: Option<usize>,
}

/// Plays one game: as `gdl random` and `gdl trace --seed` do (natural
/// order), or as `gdl bench` does (`fast`), until `cancel` is set.
fn play_one(
    game: &mut gdl::Game,
    b: &Batch,
    seed: u64,
    cancel: &AtomicBool,
) -> Result<Outcome, GameError> {
    let mut player = match b.fast {
        true => RandomPlayer::in_engine_order(seed),
        false => RandomPlayer::new(seed),
    };
    let stop = Stop::steps(b.max_steps).or_cancelled(cancel);
    let o = game
        .random_outcome(&b.start, &mut player, stop)
        .map_err(|(_, e)| e)?;
    Ok((o.steps, o.goals))
}

/// The most threads `playouts` accepts (as `gdl bench --threads`).
pub const MAX_THREADS: usize = 1024;

/// The bytes one result of a game of `roles` roles takes, over-estimated:
/// the `Outcome` and its goals here, then the Python tuples, integers and
/// list slot it becomes.
fn result_bytes(roles: usize) -> usize {
    let rust = std::mem::size_of::<Outcome>() + 16 + roles;
    let python = 64 + 32 + 56 + 8 * roles + 8;
    rust + python
}

/// Plays the batch on clones of `game` (`gdl::play_games`), without the
/// GIL, looking at Python's signals every tenth of a second: Ctrl-C sets a
/// `gdl::Cancel` that every game runs under, so that even an evaluation
/// under way (a join of a large game) stops at its next look. A series
/// whose results would not fit in the memory budget is refused before it
/// starts: what the results take is all a call keeps, whatever its count.
pub fn run(py: Python<'_>, game: &Game, b: &Batch) -> PyResult<Vec<Outcome>> {
    if b.threads > MAX_THREADS {
        return Err(PyValueError::new_err(format!(
            "threads={}: must be 0 (one per core) to {MAX_THREADS}",
            b.threads
        )));
    }
    let inner = game.clone_inner();
    let budget = b.max_memory.unwrap_or(inner.limits().max_memory);
    let bytes = b.n.saturating_mul(result_bytes(inner.roles().len()));
    if bytes > budget {
        return Err(over_budget(py, b.n, bytes, budget));
    }
    let stop_all = Cancel::new();
    let seed_of = |i: usize| b.seed.wrapping_add(i as u64);
    let mut outcomes = Vec::with_capacity(b.n.min(1 << 16));
    let mut failed: Option<(usize, GameError)> = None;
    let mut interrupted: Option<PyErr> = None;
    let mut looked = Instant::now();
    let play = |game: &mut gdl::Game, i: usize, cancel: &AtomicBool| {
        stop_all.scope(|| play_one(game, b, seed_of(i), cancel))
    };
    py.detach(|| {
        gdl::play_games(&inner, b.n, b.threads, play, |result| {
            match result {
                Some((_, Ok(o))) => outcomes.push(o),
                Some((i, Err(e))) => {
                    failed = Some((i, e));
                    return ControlFlow::Break(());
                }
                None => {}
            }
            if looked.elapsed() >= SIGNALS {
                looked = Instant::now();
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    stop_all.cancel();
                    interrupted = Some(e);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        })
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    if let Some((i, e)) = failed {
        let at = format!("game {i} (seed {}): ", seed_of(i));
        return Err(game_error_at(py, e, &at));
    }
    py.check_signals()?;
    Ok(outcomes)
}

/// The `LimitError` of a call to `playouts(n)` whose results would take
/// `bytes`, over `budget`: it names the budget and the keywords that raise
/// it.
fn over_budget(py: Python<'_>, n: usize, bytes: usize, budget: usize) -> PyErr {
    let message = format!(
        "playouts({n}) would keep about {} of results, over the memory budget of {} \
         (max_memory): ask for fewer games at a time, or raise the budget of this call with \
         playouts(..., max_memory=...) or of every call with \
         gdl.load(..., limits={{\"max_memory\": ...}})",
        gdl::human_bytes(bytes),
        gdl::human_bytes(budget)
    );
    let attributes = [
        ("limit", obj(py, gdl::LimitKind::Memory.name())),
        ("value", obj(py, budget)),
        ("relation", obj(py, "the results of playouts")),
    ];
    raise(py, "LimitError", message, &attributes)
}
