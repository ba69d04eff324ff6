//! `gdl.SearchPlayer`: the library's Monte Carlo tree search player
//! (`gdl::SearchPlayer`) for one role of a game, searching without the
//! GIL and stopped by Ctrl-C.

use crate::errors::game_error;
use crate::game::Game;
use crate::guard;
use crate::interrupt::interruptible;
use crate::values::Move;
use gdl::Budget;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// A Monte Carlo tree search player for one role of a game (the library's
/// ``SearchPlayer``: decoupled UCT, so simultaneous moves too).
///
/// ``SearchPlayer(game, role=0, iterations=None, seconds=None, seed=0,
/// threads=1, exploration=None, playout_steps=None)``: give the budget of
/// each move as ``iterations`` (a seed then gives one move) or as
/// ``seconds``, one of the two. ``choose(state)`` searches and returns the
/// role's ``Move``; ``observe(joint)`` tells the player the joint move
/// played, so that the next search keeps the subtree below it; ``stats``
/// tells what the last search did. The search runs without the GIL, and
/// Ctrl-C stops it within a tenth of a second.
#[pyclass(frozen, module = "gdl")]
pub struct SearchPlayer {
    /// The game it plays.
    game: Py<Game>,
    /// The role, by index.
    role: usize,
    /// The library's player, its tree included.
    inner: Mutex<gdl::SearchPlayer>,
}

impl SearchPlayer {
    /// The library's player (a panic while it was held leaves it usable:
    /// its tree is dropped).
    fn lock(&self) -> MutexGuard<'_, gdl::SearchPlayer> {
        self.inner.lock().unwrap_or_else(|poisoned| {
            let mut player = poisoned.into_inner();
            player.reset();
            self.inner.clear_poison();
            player
        })
    }
}

/// The budget of each move from the keywords: exactly one of the two.
fn budget(iterations: Option<u64>, seconds: Option<f64>) -> PyResult<Budget> {
    match (iterations, seconds) {
        (Some(0), None) => Err(PyValueError::new_err("iterations: at least 1")),
        (Some(n), None) => Ok(Budget::Iterations(n)),
        (None, Some(s)) if s.is_finite() && s > 0.0 && s <= 1e9 => {
            Ok(Budget::Time(Duration::from_secs_f64(s)))
        }
        (None, Some(s)) => Err(PyValueError::new_err(format!(
            "seconds: a positive number of seconds, not {s}"
        ))),
        (None, None) => Err(PyValueError::new_err(
            "give the budget of each move: iterations=N or seconds=S",
        )),
        (Some(_), Some(_)) => Err(PyValueError::new_err(
            "give iterations= or seconds=, not both",
        )),
    }
}

#[pymethods]
impl SearchPlayer {
    #[new]
    #[pyo3(signature = (game, role=None, *, iterations=None, seconds=None, seed=0, threads=1,
                        exploration=None, playout_steps=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        game: &Bound<'_, Game>,
        role: Option<&Bound<'_, PyAny>>,
        iterations: Option<u64>,
        seconds: Option<f64>,
        seed: u64,
        threads: usize,
        exploration: Option<f64>,
        playout_steps: Option<usize>,
    ) -> PyResult<SearchPlayer> {
        let py = game.py();
        guard(py, || {
            let budget = budget(iterations, seconds)?;
            let g = game.get();
            let role = match role {
                Some(r) => g.role_of(r)?,
                None => gdl::Role(0),
            };
            if threads == 0 || threads > crate::playouts::MAX_THREADS {
                return Err(PyValueError::new_err(format!(
                    "threads={threads}: must be 1 to {}",
                    crate::playouts::MAX_THREADS
                )));
            }
            if let Some(c) = exploration {
                if !c.is_finite() || c < 0.0 {
                    return Err(PyValueError::new_err(format!(
                        "exploration: a number from 0, not {c}"
                    )));
                }
            }
            if playout_steps == Some(0) {
                return Err(PyValueError::new_err("playout_steps: at least 1"));
            }
            let mut player = {
                let inner = g.lock();
                gdl::SearchPlayer::new(&inner, role, budget, seed).threads(threads)
            };
            if let Some(c) = exploration {
                player = player.exploration(c);
            }
            if let Some(s) = playout_steps {
                player = player.playout_steps(s);
            }
            Ok(SearchPlayer {
                game: game.clone().unbind(),
                role: role.0 as usize,
                inner: Mutex::new(player),
            })
        })
    }

    /// The game it plays.
    #[getter]
    fn game(&self, py: Python<'_>) -> Py<Game> {
        self.game.clone_ref(py)
    }

    /// The name of the role it plays.
    #[getter]
    fn role(&self, py: Python<'_>) -> String {
        self.game.bind(py).get().role_name(self.role)
    }

    /// Searches ``state`` within the budget and returns the move of the
    /// player's role (a role with one legal move plays it at once).
    /// Raises ``TerminalStateError`` for a terminal state, ``ValueError``
    /// for a state of another game, ``KeyboardInterrupt`` on Ctrl-C.
    fn choose(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<Py<Move>> {
        guard(py, || {
            let game = self.game.bind(py).get();
            let state = game.state_of(state)?;
            let chosen = interruptible(py, |_| {
                let mut g = game.lock();
                self.lock().choose(&mut g, &state)
            });
            let chosen = match chosen {
                Ok(chosen) => chosen,
                Err(interrupted) => {
                    self.lock().reset();
                    return Err(interrupted);
                }
            };
            let m = chosen.map_err(|e| game_error(py, e))?;
            Ok(game.py_moves(py, &[m])?.remove(0))
        })
    }

    /// Tells the player the joint move played from the state it last
    /// chose in (one move per role in role order, or a dict from role to
    /// move, as ``Game.next_state`` takes it), so that its next search
    /// starts from the subtree below it.
    fn observe(&self, py: Python<'_>, joint: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(py, || {
            let game = self.game.bind(py).get();
            let joint = game.joint_moves_of(py, joint)?;
            self.lock().observe(&joint);
            Ok(())
        })
    }

    /// Forgets the tree (a new game starts).
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            self.lock().reset();
            Ok(())
        })
    }

    /// What the last search did: ``iterations``, ``nodes``, ``reused``
    /// (nodes kept from the search before), ``seconds``, and ``root``, the
    /// role's moves at the root as ``(move, visits, mean reward 0..1)``,
    /// most visited first.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guard(py, || {
            let stats = self.lock().stats().clone();
            let game = self.game.bind(py).get();
            let d = PyDict::new(py);
            d.set_item("iterations", stats.iterations)?;
            d.set_item("nodes", stats.nodes)?;
            d.set_item("reused", stats.reused)?;
            d.set_item("seconds", stats.elapsed.as_secs_f64())?;
            let moves: Vec<gdl::Move> = stats.root.iter().map(|r| r.0).collect();
            let py_moves = game.py_moves(py, &moves)?;
            let root: Vec<(Py<Move>, u64, f64)> = py_moves
                .into_iter()
                .zip(&stats.root)
                .map(|(m, &(_, visits, mean))| (m, visits, mean))
                .collect();
            d.set_item("root", root)?;
            Ok(d)
        })
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<gdl.SearchPlayer of {} in {:?}>",
            self.role(py),
            self.game.bind(py).get().file_name()
        )
    }
}
