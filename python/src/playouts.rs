//! Random games in bulk, on threads of their own, without the GIL.

use crate::errors::game_error_at;
use crate::game::Game;
use gdl::{random_playout, GameError, RandomPlayer, State};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// How one game ended: the joint moves played, and the goals when its last
/// state is terminal.
pub type Outcome = (usize, Option<Vec<u8>>);

/// Games played between two looks at Python's signals (Ctrl-C), per thread.
const BATCH_PER_THREAD: usize = 1024;

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
    /// Choose by position in the engine's order (`random_playout`) rather
    /// than in natural order (`RandomPlayer`).
    pub fast: bool,
}

/// Plays one game: as `gdl random` and `gdl trace --seed` do (natural
/// order), or as `gdl bench` does (`fast`).
fn play_one(game: &mut gdl::Game, b: &Batch, seed: u64) -> Result<Outcome, GameError> {
    if b.fast {
        let mut rng = Pcg64::seed_from_u64(seed);
        let p = random_playout(game, &b.start, &mut rng, b.max_steps)?;
        return Ok((p.steps, p.goals));
    }
    let p = RandomPlayer::new(seed).playout(game, &b.start, b.max_steps)?;
    Ok((p.steps, p.goals))
}

/// Plays games `from..to` on the clones `games` (one thread each), the
/// next game going to the first thread free. The first error by game
/// number wins.
fn play_range(
    games: &mut [gdl::Game],
    b: &Batch,
    from: usize,
    to: usize,
) -> Result<Vec<Outcome>, (usize, GameError)> {
    let seed_of = |i: usize| b.seed.wrapping_add(i as u64);
    if games.len() == 1 {
        return (from..to)
            .map(|i| play_one(&mut games[0], b, seed_of(i)).map_err(|e| (i, e)))
            .collect();
    }
    let next = AtomicUsize::new(from);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; to - from]);
    let errors: Mutex<Vec<(usize, GameError)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for game in games.iter_mut() {
            let (next, failed, results, errors) = (&next, &failed, &results, &errors);
            scope.spawn(move || {
                let mut mine = Vec::new();
                while !failed.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= to {
                        break;
                    }
                    match play_one(game, b, seed_of(i)) {
                        Ok(o) => mine.push((i, o)),
                        Err(e) => {
                            failed.store(true, Ordering::Relaxed);
                            errors
                                .lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push((i, e));
                        }
                    }
                }
                let mut results = results.lock().unwrap_or_else(|p| p.into_inner());
                for (i, o) in mine {
                    results[i - from] = Some(o);
                }
            });
        }
    });
    let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    errors.sort_by_key(|(i, _)| *i);
    if let Some(first) = errors.into_iter().next() {
        return Err(first);
    }
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(results.into_iter().flatten().collect())
}

/// The most threads `playouts` accepts (as `gdl bench --threads`).
pub const MAX_THREADS: usize = 1024;

/// Plays the batch on clones of `game`, without the GIL, looking at
/// Python's signals between rounds of games.
pub fn run(py: Python<'_>, game: &Game, b: &Batch) -> PyResult<Vec<Outcome>> {
    if b.threads > MAX_THREADS {
        return Err(PyValueError::new_err(format!(
            "threads={}: must be 0 (one per core) to {MAX_THREADS}",
            b.threads
        )));
    }
    let threads = match b.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        t => t,
    }
    .clamp(1, b.n.max(1));
    let mut games: Vec<gdl::Game> = (0..threads).map(|_| game.clone_inner()).collect();
    let batch = BATCH_PER_THREAD * threads;
    // Grown as games end: `n` may ask for more than memory holds, and
    // Ctrl-C should stop it first.
    let mut outcomes = Vec::with_capacity(b.n.min(batch));
    let mut from = 0;
    while from < b.n {
        let to = b.n.min(from + batch);
        let played = py.detach(|| play_range(&mut games, b, from, to));
        match played {
            Ok(o) => outcomes.extend(o),
            Err((i, e)) => {
                let at = format!("game {i} (seed {}): ", b.seed.wrapping_add(i as u64));
                return Err(game_error_at(py, e, &at));
            }
        }
        py.check_signals()?;
        from = to;
    }
    Ok(outcomes)
}
