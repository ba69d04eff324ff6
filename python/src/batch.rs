//! `gdl._gdl.Batch`: many games stepped together in Rust for learning,
//! without the GIL and on threads, their observations, action masks,
//! rewards and ends written as whole-batch byte buffers that `gdl.batch`
//! views as NumPy arrays (no copy per state).

use crate::errors::{game_error_at, obj, raise};
use crate::game::Game;
use crate::guard;
use gdl::{FactIndex, GameError, Move, State, Stepper};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// What every game of a batch shares: the numbering of actions and facts.
struct Tables {
    /// Each role's actions: its `input` moves in natural order.
    actions: Vec<Vec<Move>>,
    /// The action number of each move, per role.
    action_of: Vec<HashMap<Move, usize>>,
    /// The most actions of a role: the width of a mask.
    width: usize,
    /// The positions of the `base` facts (the observation vector).
    base: FactIndex,
    /// Joint moves after which a game is cut short.
    max_steps: usize,
}

impl Tables {
    /// The action number of move `m` of role `r`: found by a scan among a
    /// few actions (cheaper than hashing), in the map among many.
    fn action(&self, r: usize, m: &Move) -> Option<usize> {
        match self.actions[r].len() {
            0..=32 => self.actions[r].iter().position(|x| x == m),
            _ => self.action_of[r].get(m).copied(),
        }
    }
}

/// One game of the batch.
struct Env {
    /// Its stepper while the game is on its ground rules.
    stepper: Option<Stepper>,
    /// Its state, when it is off the stepper (on it, the stepper's
    /// position is the state, and no `State` is built).
    state: State,
    /// Each role's legal moves in the state (none when it is terminal).
    legal: Vec<Vec<Move>>,
    /// Joint moves played since it began.
    steps: usize,
}

/// The games one thread steps, with its own clone of the game.
struct Shard {
    game: gdl::Game,
    envs: Vec<Env>,
}

/// What a step of one game writes: its slices of the batch's buffers.
struct Out<'a> {
    obs: &'a mut [u8],
    masks: &'a mut [u8],
    rewards: &'a mut [f32],
    ends: &'a mut [u8],
}

impl Env {
    /// A game at the initial state.
    fn new(game: &mut gdl::Game) -> Result<Env, GameError> {
        let state = game.initial_state();
        let mut env = Env {
            stepper: game.stepper(),
            state,
            legal: Vec::new(),
            steps: 0,
        };
        env.settle(game)?;
        Ok(env)
    }

    /// The stepper, while it is on the ground rules.
    fn on(&mut self) -> Option<&mut Stepper> {
        self.stepper.as_mut().filter(|s| !s.is_off())
    }

    /// Works out the legal moves of the state (none when terminal).
    fn settle(&mut self, game: &mut gdl::Game) -> Result<(), GameError> {
        let roles = game.roles().len();
        let terminal = match self.on() {
            Some(s) => s.is_terminal(),
            None => game.is_terminal(&self.state)?,
        };
        self.legal.clear();
        for r in 0..roles {
            let legal = match (terminal, self.on()) {
                (true, _) => Vec::new(),
                (false, Some(s)) => s.legal_moves(r),
                (false, None) => game.legal_moves(&self.state, gdl::Role(r as u32))?,
            };
            self.legal.push(legal);
        }
        Ok(())
    }

    /// Whether the state is terminal.
    fn terminal(&self) -> bool {
        self.legal.iter().all(Vec::is_empty)
    }

    /// Each role's goal in a terminal state.
    fn goals(&mut self, game: &mut gdl::Game) -> Result<Vec<u8>, GameError> {
        if let Some(s) = self.on() {
            if let Some(goals) = s.goals() {
                return Ok(goals);
            }
            // The general API says what is wrong.
            self.state = s.state();
        }
        game.goals(&self.state)
    }

    /// Plays the joint move of each role's `nth[r]`-th legal move (checked
    /// before): on the stepper by position, as `gdl bench` plays.
    fn play(&mut self, game: &mut gdl::Game, nth: &[usize]) -> Result<(), GameError> {
        match self.on() {
            Some(s) => {
                s.play_nth(nth);
                if s.is_off() {
                    self.state = s.state();
                }
            }
            None => {
                let joint: Vec<Move> = nth.iter().zip(&self.legal).map(|(&k, l)| l[k]).collect();
                self.state = game.next_state(&self.state, &joint)?;
            }
        }
        self.steps += 1;
        self.settle(game)
    }

    /// Back to the initial state.
    fn reset(&mut self, game: &mut gdl::Game) -> Result<(), GameError> {
        self.state = game.initial_state();
        if let Some(s) = &mut self.stepper {
            s.set_state(&self.state);
        }
        self.steps = 0;
        self.settle(game)
    }

    /// Writes the observation and the masks of the state.
    fn observe(&self, t: &Tables, obs: &mut [u8], masks: &mut [u8]) {
        obs.fill(0);
        match self.stepper.as_ref().filter(|s| !s.is_off()) {
            Some(s) => t.base.positions_on(s).for_each(|i| obs[i] = 1),
            None => t.base.positions(&self.state).for_each(|i| obs[i] = 1),
        }
        masks.fill(0);
        for (r, legal) in self.legal.iter().enumerate() {
            for m in legal {
                if let Some(a) = t.action(r, m) {
                    masks[r * t.width + a] = 1;
                }
            }
        }
    }
}

impl Shard {
    /// Plays one joint move in each of its games (`joints[i]` for game
    /// `i`, each role's move by its position among its legal moves),
    /// restarting those that end, and writes what each step gives.
    /// The number of the first game that failed, and its error.
    fn step(
        &mut self,
        t: &Tables,
        joints: &[Vec<usize>],
        mut out: Vec<Out<'_>>,
    ) -> Result<(), (usize, GameError)> {
        let game = &mut self.game;
        for (i, (env, joint)) in self.envs.iter_mut().zip(joints).enumerate() {
            let o = &mut out[i];
            env.play(game, joint).map_err(|e| (i, e))?;
            o.rewards.fill(0.0);
            o.ends[0] = 0;
            if env.terminal() {
                let goals = env.goals(game).map_err(|e| (i, e))?;
                for (r, g) in goals.into_iter().enumerate() {
                    o.rewards[r] = f32::from(g) / 50.0 - 1.0;
                }
                o.ends[0] = 1;
            } else if env.steps >= t.max_steps {
                o.ends[0] = 2;
            }
            if o.ends[0] != 0 {
                env.reset(game).map_err(|e| (i, e))?;
            }
            env.observe(t, o.obs, o.masks);
        }
        Ok(())
    }
}

/// The state of a batch: its tables and its shards.
struct Inner {
    tables: Tables,
    shards: Vec<Shard>,
    roles: usize,
    n: usize,
}

/// ``gdl.batch.Batch`` wraps it: see there.
#[pyclass(frozen, module = "gdl")]
pub struct Batch {
    inner: Mutex<Inner>,
}

impl Batch {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Inner {
    /// The games' observations and masks, as buffers.
    fn observe(&self) -> (Vec<u8>, Vec<u8>) {
        let t = &self.tables;
        let (b, w) = (t.base.len(), self.roles * t.width);
        let mut obs = vec![0u8; self.n * b];
        let mut masks = vec![0u8; self.n * w];
        let envs = self.shards.iter().flat_map(|s| &s.envs);
        for ((env, o), m) in envs
            .zip(obs.chunks_mut(b.max(1)))
            .zip(masks.chunks_mut(w.max(1)))
        {
            env.observe(t, o, m);
        }
        (obs, masks)
    }
}

/// Bytes as a Python `bytes` object.
fn bytes<'py>(py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, data)
}

#[pymethods]
impl Batch {
    #[new]
    #[pyo3(signature = (game, n, threads=1, max_steps=1000))]
    fn new(game: &Bound<'_, Game>, n: usize, threads: usize, max_steps: usize) -> PyResult<Batch> {
        let py = game.py();
        guard(py, || {
            if threads == 0 || threads > crate::playouts::MAX_THREADS {
                return Err(PyValueError::new_err(format!(
                    "threads={threads}: must be 1 to {}",
                    crate::playouts::MAX_THREADS
                )));
            }
            if max_steps == 0 {
                return Err(PyValueError::new_err("max_steps: at least 1"));
            }
            let g = game.get();
            let mut shared = g.lock();
            let roles = shared.roles().len();
            let name = g.file_name().to_string();
            let mut actions = Vec::new();
            for r in shared.roles() {
                let moves = shared
                    .input_moves(r)
                    .map_err(|e| game_error_at(py, e, ""))?;
                let Some(mut moves) = moves else {
                    return Err(PyValueError::new_err(format!(
                        "{name} declares no input moves for {}: a batch needs each role's \
                         actions up front (declare (input ROLE MOVE))",
                        shared.role_name(r)
                    )));
                };
                moves
                    .sort_by(|a, b| gdl::natural_cmp(&shared.move_text(*a), &shared.move_text(*b)));
                actions.push(moves);
            }
            let base = shared.base_facts().map_err(|e| game_error_at(py, e, ""))?;
            let Some(base) = base else {
                return Err(PyValueError::new_err(format!(
                    "{name} declares no base facts: a batch needs the facts a state may hold \
                     up front for its observation vector (declare (base FACT))"
                )));
            };
            let base = shared
                .fact_index(&base)
                .map_err(|(i, e)| PyValueError::new_err(format!("base fact {i} of {name}: {e}")))?;
            let width = actions.iter().map(Vec::len).max().unwrap_or(0);
            // The buffers of a step, counted against the memory budget.
            let per_game = base.len() + roles * width + 4 * roles + 1;
            let budget = shared.limits().max_memory;
            if n.saturating_mul(per_game).saturating_mul(2) > budget {
                let message = format!(
                    "Batch({n}) would keep about {} of buffers, over the memory budget of {} \
                     (max_memory): ask for fewer games, or raise the budget with \
                     gdl.load(..., limits={{\"max_memory\": ...}})",
                    gdl::human_bytes(n.saturating_mul(per_game).saturating_mul(2)),
                    gdl::human_bytes(budget)
                );
                let attributes = [
                    ("limit", obj(py, gdl::LimitKind::Memory.name())),
                    ("value", obj(py, budget)),
                    ("relation", obj(py, "the buffers of a batch")),
                ];
                return Err(raise(py, "LimitError", message, &attributes));
            }
            let action_of = (actions.iter())
                .map(|ms| ms.iter().enumerate().map(|(a, &m)| (m, a)).collect())
                .collect();
            let tables = Tables {
                actions,
                action_of,
                width,
                base,
                max_steps,
            };
            // Clones made after the moves and facts above were interned
            // share their numbers.
            let threads = threads.min(n.max(1));
            let mut shards = Vec::with_capacity(threads);
            for k in 0..threads {
                let mut clone = shared.clone();
                let count = n / threads + usize::from(k < n % threads);
                let envs = (0..count)
                    .map(|_| Env::new(&mut clone))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| game_error_at(py, e, "the initial state: "))?;
                shards.push(Shard { game: clone, envs });
            }
            drop(shared);
            Ok(Batch {
                inner: Mutex::new(Inner {
                    tables,
                    shards,
                    roles,
                    n,
                }),
            })
        })
    }

    /// ``(games, roles, observation size, mask width)``.
    #[getter]
    fn shape(&self) -> (usize, usize, usize, usize) {
        let inner = self.lock();
        (
            inner.n,
            inner.roles,
            inner.tables.base.len(),
            inner.tables.width,
        )
    }

    /// Each role's actions as text, in action order.
    fn action_texts(&self, game: &Bound<'_, Game>) -> PyResult<Vec<Vec<String>>> {
        let inner = self.lock();
        let g = game.get().lock();
        Ok((inner.tables.actions.iter())
            .map(|ms| ms.iter().map(|&m| g.move_text(m)).collect())
            .collect())
    }

    /// Every game back to the initial state: the observations and masks.
    fn reset<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let mut inner = self.lock();
            for shard in &mut inner.shards {
                let game = &mut shard.game;
                for env in &mut shard.envs {
                    env.reset(game).map_err(|e| game_error_at(py, e, ""))?;
                }
            }
            let (obs, masks) = py.detach(|| inner.observe());
            PyTuple::new(py, [bytes(py, &obs), bytes(py, &masks)])
        })
    }

    /// The observations and masks of the games as they stand.
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let inner = self.lock();
            let (obs, masks) = py.detach(|| inner.observe());
            PyTuple::new(py, [bytes(py, &obs), bytes(py, &masks)])
        })
    }

    /// Plays one joint move in every game: ``actions`` holds games × roles
    /// action numbers as little-endian int64 bytes. Returns the
    /// observations, masks, rewards (float32) and ends (0 on, 1 terminal, 2
    /// cut short) as bytes; a game that ended is back at its initial state.
    fn step<'py>(&self, py: Python<'py>, actions: &[u8]) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let mut inner = self.lock();
            let (n, roles) = (inner.n, inner.roles);
            if actions.len() != n * roles * 8 {
                return Err(PyTypeError::new_err(format!(
                    "step takes {n} x {roles} int64 actions, not {} bytes",
                    actions.len()
                )));
            }
            // Every action checked before any game moves.
            let t = &inner.tables;
            let mut joints = Vec::with_capacity(n);
            let envs = inner.shards.iter().flat_map(|s| &s.envs);
            for (i, (env, row)) in envs.zip(actions.chunks(roles * 8)).enumerate() {
                let mut joint = Vec::with_capacity(roles);
                for (r, a) in row.chunks(8).enumerate() {
                    let a = i64::from_le_bytes(a.try_into().expect("8 bytes"));
                    let m = usize::try_from(a).ok().and_then(|a| t.actions[r].get(a));
                    let k = m.and_then(|m| env.legal[r].iter().position(|x| x == m));
                    let Some(k) = k else {
                        let legal: Vec<usize> = env.legal[r]
                            .iter()
                            .filter_map(|m| t.action_of[r].get(m).copied())
                            .collect();
                        return Err(PyValueError::new_err(format!(
                            "game {i}: action {a} is not legal for role {r}: the legal ones are \
                             {legal:?}"
                        )));
                    };
                    joint.push(k);
                }
                joints.push(joint);
            }
            let (b, w) = (t.base.len(), roles * t.width);
            let mut obs = vec![0u8; n * b];
            let mut masks = vec![0u8; n * w];
            let mut rewards = vec![0f32; n * roles];
            let mut ends = vec![0u8; n];
            let inner = &mut *inner;
            let failed = py.detach(|| {
                let t = &inner.tables;
                let mut outs: Vec<Out<'_>> = obs
                    .chunks_mut(b.max(1))
                    .zip(masks.chunks_mut(w.max(1)))
                    .zip(rewards.chunks_mut(roles.max(1)))
                    .zip(ends.chunks_mut(1))
                    .map(|(((obs, masks), rewards), ends)| Out {
                        obs,
                        masks,
                        rewards,
                        ends,
                    })
                    .collect();
                let mut joints = &joints[..];
                let mut first = 0;
                std::thread::scope(|scope| {
                    let mut running = Vec::new();
                    for shard in &mut inner.shards {
                        let count = shard.envs.len();
                        let rest = outs.split_off(count.min(outs.len()));
                        let mine = std::mem::replace(&mut outs, rest);
                        let (these, others) = joints.split_at(count);
                        joints = others;
                        let at = first;
                        first += count;
                        running.push(scope.spawn(move || {
                            shard.step(t, these, mine).map_err(|(i, e)| (at + i, e))
                        }));
                    }
                    running
                        .into_iter()
                        .filter_map(|h| {
                            let done = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                            done.err()
                        })
                        .min_by_key(|(i, _)| *i)
                })
            });
            if let Some((i, e)) = failed {
                return Err(game_error_at(py, e, &format!("game {i}: ")));
            }
            let rewards: Vec<u8> = rewards.iter().flat_map(|r| r.to_le_bytes()).collect();
            PyTuple::new(
                py,
                [
                    bytes(py, &obs),
                    bytes(py, &masks),
                    bytes(py, &rewards),
                    bytes(py, &ends),
                ],
            )
        })
    }
}
