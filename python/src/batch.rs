//! `gdl._gdl.Batch`: many games stepped together in Rust for learning,
//! without the GIL and on threads, their observations, action masks,
//! rewards and ends written as whole-batch byte buffers that `gdl.batch`
//! views as NumPy arrays (no copy per state).
//!
//! A game on ground rules is played on a stepper of its own, and read from
//! it without building its moves or its state: the masks from the
//! stepper's bitsets of legal moves (through a table from its move table
//! to action numbers, made once), the observation from its bitset of
//! facts. The buffers are the batch's, reused from step to step.

use crate::errors::{game_error_at, obj, raise};
use crate::game::Game;
use crate::guard;
use gdl::{FactIndex, GameError, Move, State, Stepper};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

/// No action, or no entry.
const NONE: u32 = u32::MAX;

/// How far the heap's count (`gdl::heap_bytes`) may lag behind what a
/// thread allocated: each thread adds its allocations to it a quarter of a
/// megabyte at a time.
const COUNT_LAG: usize = 256 << 10;

/// What every game of a batch shares: the numbering of actions and facts.
struct Tables {
    /// Each role's actions: its `input` moves in natural order.
    actions: Vec<Vec<Move>>,
    /// The action number of each move, per role.
    action_of: Vec<HashMap<Move, usize>>,
    /// Per role, the action number of each entry of the steppers' move
    /// table (`Stepper::move_table`; `NONE` for a move that is no `input`
    /// move); empty when the game has no stepper.
    entry_action: Vec<Vec<u32>>,
    /// Per role, the entry in the steppers' move table of each action
    /// (`NONE` for a move the ground rules never make legal).
    action_entry: Vec<Vec<u32>>,
    /// The most actions of a role: the width of a mask.
    width: usize,
    /// The positions of the `base` facts (the observation vector).
    base: FactIndex,
    /// The position among them of each fact of the steppers' bits
    /// (`FactIndex::stepper_positions`); empty when the game has no
    /// stepper.
    fact_place: Vec<Option<u32>>,
    /// Joint moves after which a game is cut short.
    max_steps: usize,
    /// How many roles.
    roles: usize,
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

    /// The bytes of a game's observation and of its masks.
    fn sizes(&self) -> (usize, usize) {
        (self.base.len(), self.roles * self.width)
    }
}

/// One game of the batch.
struct Env {
    /// Its stepper, when the game has ground rules.
    stepper: Option<Stepper>,
    /// Its state, when it is off the stepper (on it, the stepper's
    /// position is the state, and no `State` is built).
    state: State,
    /// Off the stepper, each role's legal moves in the state (none when it
    /// is terminal); on it, nothing (the stepper's bitsets say).
    legal: Vec<Vec<Move>>,
    /// Whether the state is terminal.
    terminal: bool,
    /// Joint moves played since it began.
    steps: usize,
    /// The stepper's bits of the position its observation row shows
    /// (`Stepper::holding_bits`); empty when the row shows a state off
    /// the stepper, or nothing yet.
    seen: Vec<u64>,
}

/// The games one thread steps, with its own clone of the game.
struct Shard {
    game: gdl::Game,
    /// A stepper at the initial state, when the game has ground rules:
    /// what its games restart from (see `Env::reset`).
    start: Option<Stepper>,
    envs: Vec<Env>,
}

/// The slices of the batch's buffers that a shard writes.
struct Out<'a> {
    obs: &'a mut [u8],
    masks: &'a mut [u8],
    /// Little-endian float32 bytes.
    rewards: &'a mut [u8],
    ends: &'a mut [u8],
}

impl Env {
    /// A game at the initial state, on a copy of `start` (the shard's
    /// stepper there) when the game has ground rules.
    fn new(game: &mut gdl::Game, start: Option<&Stepper>) -> Result<Env, GameError> {
        let mut env = Env {
            stepper: start.cloned(),
            state: game.initial_state(),
            legal: Vec::new(),
            terminal: false,
            steps: 0,
            seen: Vec::new(),
        };
        env.settle(game)?;
        Ok(env)
    }

    /// The stepper, while it is on the ground rules.
    fn on(&self) -> Option<&Stepper> {
        self.stepper.as_ref().filter(|s| !s.is_off())
    }

    /// Works out whether the state is terminal and, off the stepper, its
    /// legal moves.
    fn settle(&mut self, game: &mut gdl::Game) -> Result<(), GameError> {
        self.legal.clear();
        if let Some(s) = self.on() {
            self.terminal = s.is_terminal();
            return Ok(());
        }
        self.terminal = game.is_terminal(&self.state)?;
        if !self.terminal {
            for r in 0..game.roles().len() {
                let legal = game.legal_moves(&self.state, gdl::Role(r as u32))?;
                self.legal.push(legal);
            }
        }
        Ok(())
    }

    /// How role `r` plays action `a`, legal where `mask` (the role's mask
    /// of the state, as `write_masks` wrote it) says so: on the stepper
    /// the entry of its move in the move table, off it the move's place
    /// among the legal ones; `None` where it is not legal.
    fn choice(&self, t: &Tables, r: usize, a: i64, mask: &[u8]) -> Option<usize> {
        let a = usize::try_from(a).ok()?;
        if *mask.get(a)? == 0 {
            return None;
        }
        match self.on() {
            Some(_) => Some(t.action_entry[r][a] as usize),
            None => self.legal[r].iter().position(|x| *x == t.actions[r][a]),
        }
    }

    /// Each role's goal in a terminal state.
    fn goals(&mut self, game: &mut gdl::Game) -> Result<Vec<u8>, GameError> {
        if let Some(s) = self.stepper.as_mut().filter(|s| !s.is_off()) {
            if let Some(goals) = s.goals() {
                return Ok(goals);
            }
            // The general API says what is wrong.
            self.state = s.state();
        }
        game.goals(&self.state)
    }

    /// Plays the joint move of `choices` (one per role, from `choice`,
    /// which checked them against the masks of this very state): on the
    /// stepper by the moves' entries, without checking them again.
    fn play(&mut self, game: &mut gdl::Game, choices: &[usize]) -> Result<(), GameError> {
        match self.stepper.as_mut().filter(|s| !s.is_off()) {
            Some(s) => {
                s.play_checked_entries(choices);
                if s.is_off() {
                    self.state = s.state();
                }
            }
            None => {
                let joint: Vec<Move> = (choices.iter().zip(&self.legal))
                    .map(|(&k, l)| l[k])
                    .collect();
                self.state = game.next_state(&self.state, &joint)?;
            }
        }
        self.steps += 1;
        self.settle(game)
    }

    /// Back to the initial state: on the stepper, the position of `start`
    /// (the shard's stepper there) copied whole, from one stepper that
    /// every game of the shard restarts from (it stays in the cache, and
    /// no game keeps a snapshot of its own).
    fn reset(&mut self, game: &mut gdl::Game, start: Option<&Stepper>) -> Result<(), GameError> {
        self.state = game.initial_state();
        if let (Some(s), Some(start)) = (&mut self.stepper, start) {
            s.set_position(start);
        }
        self.steps = 0;
        self.settle(game)
    }

    /// Writes each role's mask of legal actions (all 0 when terminal).
    fn write_masks(&self, t: &Tables, masks: &mut [u8]) {
        masks.fill(0);
        if self.terminal {
            return;
        }
        match self.on() {
            Some(s) => {
                for (r, (row, table)) in masks.chunks_mut(t.width).zip(&t.entry_action).enumerate()
                {
                    for e in s.legal_entries(r) {
                        if let Some(&a) = table.get(e).filter(|&&a| a != NONE) {
                            row[a as usize] = 1;
                        }
                    }
                }
            }
            None => {
                for (r, legal) in self.legal.iter().enumerate() {
                    for m in legal {
                        if let Some(a) = t.action(r, m) {
                            masks[r * t.width + a] = 1;
                        }
                    }
                }
            }
        }
    }

    /// Writes the observation and the masks of the state into the game's
    /// rows, `obs` showing the position of `seen` before: on the stepper
    /// only the facts whose bits changed since are written (a move
    /// changes a few of them), by the table from bits to places.
    fn observe(&mut self, t: &Tables, obs: &mut [u8], masks: &mut [u8]) {
        match self.stepper.as_ref().filter(|s| !s.is_off()) {
            Some(s) => {
                let bits = s.holding_bits();
                if self.seen.len() != bits.len() {
                    // Nothing seen on the stepper: every bit changed.
                    obs.fill(0);
                    self.seen.clear();
                    self.seen.resize(bits.len(), 0);
                }
                for (w, (seen, &now)) in self.seen.iter_mut().zip(bits).enumerate() {
                    let mut changed = *seen ^ now;
                    *seen = now;
                    while changed != 0 {
                        let bit = changed.trailing_zeros();
                        changed &= changed - 1;
                        if let Some(p) = t.fact_place[w * 64 + bit as usize] {
                            obs[p as usize] = (now >> bit & 1) as u8;
                        }
                    }
                }
            }
            None => {
                obs.fill(0);
                self.seen.clear();
                t.base.positions(&self.state).for_each(|i| obs[i] = 1);
            }
        }
        self.write_masks(t, masks);
    }
}

impl Shard {
    /// Plays one joint move in each of its games (`choices`, one per game
    /// and role, from `Env::choice`), restarting those that end, and
    /// writes what each step gives. The number of the first game that
    /// failed, and its error.
    fn step(
        &mut self,
        t: &Tables,
        choices: &[usize],
        out: Out<'_>,
    ) -> Result<(), (usize, GameError)> {
        let (game, start) = (&mut self.game, self.start.as_ref());
        let (b, w) = t.sizes();
        let roles = t.roles;
        for (i, env) in self.envs.iter_mut().enumerate() {
            env.play(game, &choices[i * roles..(i + 1) * roles])
                .map_err(|e| (i, e))?;
            let rewards = &mut out.rewards[i * roles * 4..(i + 1) * roles * 4];
            rewards.fill(0);
            let mut end = 0;
            if env.terminal {
                let goals = env.goals(game).map_err(|e| (i, e))?;
                for (r, g) in rewards.chunks_mut(4).zip(goals) {
                    r.copy_from_slice(&(f32::from(g) / 50.0 - 1.0).to_le_bytes());
                }
                end = 1;
            } else if env.steps >= t.max_steps {
                end = 2;
            }
            out.ends[i] = end;
            if end != 0 {
                env.reset(game, start).map_err(|e| (i, e))?;
            }
            env.observe(
                t,
                &mut out.obs[i * b..(i + 1) * b],
                &mut out.masks[i * w..(i + 1) * w],
            );
        }
        Ok(())
    }
}

/// The state of a batch: its tables, its shards and its buffers.
struct Inner {
    tables: Tables,
    shards: Vec<Shard>,
    n: usize,
    /// The buffers of a step, reused: observations, masks, rewards
    /// (float32 bytes), ends, and each game's choices.
    obs: Vec<u8>,
    masks: Vec<u8>,
    rewards: Vec<u8>,
    ends: Vec<u8>,
    choices: Vec<usize>,
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

/// A game whose action is not legal: its number, the role, the action and
/// the legal ones.
type Refused = (usize, usize, i64, Vec<usize>);

impl Inner {
    /// Writes the games' observations and masks into the buffers.
    fn observe(&mut self) {
        let t = &self.tables;
        let (b, w) = t.sizes();
        let envs = self.shards.iter_mut().flat_map(|s| &mut s.envs);
        for (i, env) in envs.enumerate() {
            env.observe(
                t,
                &mut self.obs[i * b..(i + 1) * b],
                &mut self.masks[i * w..(i + 1) * w],
            );
        }
    }

    /// Reads `actions` (little-endian int64, games × roles) into the
    /// choices of the games, each checked against the game's masks in the
    /// buffer (which `observe` and `play` keep up to date): the first game
    /// whose action is not legal is refused, before any game moves.
    fn choose(&mut self, actions: &[u8]) -> Result<(), Refused> {
        let t = &self.tables;
        let (roles, width) = (t.roles, t.width);
        let envs = self.shards.iter().flat_map(|s| &s.envs);
        let rows = actions
            .chunks(roles * 8)
            .zip(self.choices.chunks_mut(roles));
        for (i, (env, (row, choices))) in envs.zip(rows).enumerate() {
            let masks = &self.masks[i * roles * width..(i + 1) * roles * width];
            for (r, (a, c)) in row.chunks(8).zip(choices).enumerate() {
                let a = i64::from_le_bytes(a.try_into().expect("8 bytes"));
                let mask = &masks[r * width..(r + 1) * width];
                match env.choice(t, r, a, mask) {
                    Some(k) => *c = k,
                    None => {
                        let legal = (0..width).filter(|&a| mask[a] != 0).collect();
                        return Err((i, r, a, legal));
                    }
                }
            }
        }
        Ok(())
    }

    /// Plays the choices in every game, each shard on a thread of its own
    /// (on this one when there is one): the first game that failed, and
    /// its error.
    fn play(&mut self) -> Option<(usize, GameError)> {
        let t = &self.tables;
        let (b, w) = t.sizes();
        let roles = t.roles;
        let (mut obs, mut masks) = (&mut self.obs[..], &mut self.masks[..]);
        let (mut rewards, mut ends) = (&mut self.rewards[..], &mut self.ends[..]);
        let mut choices = &self.choices[..];
        let mut work = Vec::with_capacity(self.shards.len());
        let mut first = 0;
        for shard in &mut self.shards {
            let k = shard.envs.len();
            let o;
            (o, obs) = std::mem::take(&mut obs).split_at_mut(k * b);
            let m;
            (m, masks) = std::mem::take(&mut masks).split_at_mut(k * w);
            let r;
            (r, rewards) = std::mem::take(&mut rewards).split_at_mut(k * roles * 4);
            let e;
            (e, ends) = std::mem::take(&mut ends).split_at_mut(k);
            let c;
            (c, choices) = choices.split_at(k * roles);
            let out = Out {
                obs: o,
                masks: m,
                rewards: r,
                ends: e,
            };
            work.push((shard, first, c, out));
            first += k;
        }
        let run = |(shard, at, c, out): (&mut Shard, usize, &[usize], Out<'_>)| {
            shard.step(t, c, out).map_err(|(i, e)| (at + i, e))
        };
        if work.len() == 1 {
            return work.pop().map(run).and_then(Result::err);
        }
        std::thread::scope(|scope| {
            let running: Vec<_> = (work.into_iter())
                .map(|job| scope.spawn(move || run(job)))
                .collect();
            running
                .into_iter()
                .filter_map(|h| {
                    let done = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
                    done.err()
                })
                .min_by_key(|(i, _)| *i)
        })
    }
}

/// The place of a non-zero byte of `row` drawn uniformly by `rng` (0 when
/// there is none; no draw when there is one, as for a role waiting its
/// turn): a mask of up to 64 actions is read as one word.
fn pick(row: &[u8], rng: &mut Pcg64) -> usize {
    if row.len() <= 64 {
        let mut bits = row_bits(row);
        let count = bits.count_ones();
        if count > 1 {
            for _ in 0..rng.gen_range(0..count) {
                bits &= bits - 1;
            }
        }
        // 64 (no bit) is taken as 0.
        return bits.trailing_zeros() as usize % 64;
    }
    let count = row.iter().filter(|&&c| c != 0).count();
    if count == 0 {
        return 0;
    }
    let k = if count > 1 {
        rng.gen_range(0..count)
    } else {
        0
    };
    (row.iter().enumerate())
        .filter(|(_, &c)| c != 0)
        .nth(k)
        .map_or(0, |(a, _)| a)
}

/// A bit per byte of `row` (at most 64 bytes), set where the byte is not
/// zero: eight bytes at a time, each byte's bit gathered by one multiply.
fn row_bits(row: &[u8]) -> u64 {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut bits = 0;
    for (k, chunk) in row.chunks(8).enumerate() {
        let mut word = [0; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        // The high bit of each byte: set where the byte is not zero.
        let high = ((w & LOW).wrapping_add(LOW) | w) & !LOW;
        // Those eight bits moved to the top byte, byte i's to bit 56 + i.
        let gathered = (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        bits |= gathered << (8 * k);
    }
    bits
}

/// Bytes as a Python `bytes` object.
fn bytes<'py>(py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, data)
}

/// The `LimitError` of a batch of `n` games that would keep about
/// `bytes`, over `budget`.
fn over_budget(py: Python<'_>, n: usize, bytes: usize, budget: usize) -> PyErr {
    let message = format!(
        "Batch({n}) would keep about {} (its games' positions and its buffers), over the \
         memory budget of {} (max_memory): ask for fewer games, or raise the budget of this \
         batch with Batch(..., max_memory=...) or of every call with \
         gdl.load(..., limits={{\"max_memory\": ...}})",
        gdl::human_bytes(bytes),
        gdl::human_bytes(budget)
    );
    let attributes = [
        ("limit", obj(py, gdl::LimitKind::Memory.name())),
        ("value", obj(py, budget)),
        ("relation", obj(py, "the games and buffers of a batch")),
    ];
    raise(py, "LimitError", message, &attributes)
}

#[pymethods]
impl Batch {
    #[new]
    #[pyo3(signature = (game, n, threads=1, max_steps=1000, max_memory=None))]
    fn new(
        game: &Bound<'_, Game>,
        n: usize,
        threads: usize,
        max_steps: usize,
        max_memory: Option<usize>,
    ) -> PyResult<Batch> {
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
            // The buffers: those of a step here, and as many in the bytes
            // of the step before that Python may still hold; the actions
            // and choices.
            let per_game = 2 * (base.len() + roles * width + 4 * roles + 1) + 16 * roles;
            let budget = max_memory.unwrap_or(shared.limits().max_memory);
            let buffers = n.saturating_mul(per_game);
            if buffers > budget {
                return Err(over_budget(py, n, buffers, budget));
            }
            let action_of: Vec<HashMap<Move, usize>> = (actions.iter())
                .map(|ms| ms.iter().enumerate().map(|(a, &m)| (m, a)).collect())
                .collect();
            // The steppers' move tables, numbered as actions, and their
            // facts' places in the observation.
            let (mut entry_action, mut action_entry) = (Vec::new(), Vec::new());
            let mut fact_place = Vec::new();
            if let Some(s) = shared.stepper() {
                fact_place = base.stepper_positions(&s);
                for (r, of) in action_of.iter().enumerate() {
                    let table = s.move_table(r);
                    let to_action: Vec<u32> = (table.iter())
                        .map(|m| of.get(m).map_or(NONE, |&a| a as u32))
                        .collect();
                    let mut to_entry = vec![NONE; actions[r].len()];
                    for (e, &a) in to_action.iter().enumerate() {
                        if a != NONE {
                            to_entry[a as usize] = e as u32;
                        }
                    }
                    entry_action.push(to_action);
                    action_entry.push(to_entry);
                }
            }
            let tables = Tables {
                actions,
                action_of,
                entry_action,
                action_entry,
                width,
                base,
                fact_place,
                max_steps,
                roles,
            };
            // Clones made after the moves and facts above were interned
            // share their numbers.
            let threads = threads.min(n.max(1));
            let before = gdl::heap_bytes().unwrap_or(0);
            let clones: Vec<gdl::Game> = (0..threads).map(|_| shared.clone()).collect();
            drop(shared);
            // The stepper a clone's games restart from, and its first game,
            // are counted with the clone (a clone's first answers make what
            // its later ones reuse).
            let mut shards = Vec::with_capacity(threads);
            for (k, mut clone) in clones.into_iter().enumerate() {
                let count = n / threads + usize::from(k < n % threads);
                let start = clone.stepper();
                let mut envs = Vec::with_capacity(count);
                if count > 0 {
                    envs.push(
                        Env::new(&mut clone, start.as_ref())
                            .map_err(|e| game_error_at(py, e, "the initial state: "))?,
                    );
                }
                shards.push(Shard {
                    game: clone,
                    start,
                    envs,
                });
            }
            let start = gdl::heap_bytes().unwrap_or(0);
            let fixed = start.saturating_sub(before).saturating_add(buffers);
            if fixed > budget {
                return Err(over_budget(py, n, fixed, budget));
            }
            // What the other games hold is counted as they are made (the
            // process's heap, as the module's allocator counts it), and
            // the batch refused as soon as all of them, at the rate of
            // those made, would not fit. Every game counts a quarter more,
            // for what the system's allocator keeps beside the blocks it
            // counts (the resident set of a batch of tic-tac-toe grew a
            // tenth more than the count).
            let scale = |bytes: usize| bytes.saturating_mul(5) / 4;
            let rest = n.saturating_sub(shards.len());
            let held = |made: usize| -> Option<usize> {
                let grown = gdl::heap_bytes()?.saturating_sub(start);
                // The count lags by what the thread has not yet added to
                // it (a quarter of a megabyte at most): while games are
                // made, the rate is taken low by that much (no batch that
                // fits is refused on a guess); once all are, the count is
                // taken high by as much.
                let games = match made < rest {
                    true => (grown.saturating_sub(COUNT_LAG) / made.max(1)).saturating_mul(rest),
                    false => grown.saturating_add(COUNT_LAG),
                };
                let all = scale(games).saturating_add(fixed);
                (all > budget).then_some(all)
            };
            let mut made = 0;
            for (k, shard) in shards.iter_mut().enumerate() {
                let count = n / threads + usize::from(k < n % threads);
                for _ in 1..count {
                    let env = Env::new(&mut shard.game, shard.start.as_ref())
                        .map_err(|e| game_error_at(py, e, "the initial state: "))?;
                    shard.envs.push(env);
                    made += 1;
                    if let Some(all) = held(made) {
                        return Err(over_budget(py, n, all, budget));
                    }
                }
            }
            let (b, w) = tables.sizes();
            let mut inner = Inner {
                shards,
                n,
                obs: vec![0; n * b],
                masks: vec![0; n * w],
                rewards: vec![0; n * roles * 4],
                ends: vec![0; n],
                choices: vec![0; n * roles],
                tables,
            };
            // The masks that `step` checks actions against.
            inner.observe();
            Ok(Batch {
                inner: Mutex::new(inner),
            })
        })
    }

    /// ``(games, roles, observation size, mask width)``.
    #[getter]
    fn shape(&self) -> (usize, usize, usize, usize) {
        let inner = self.lock();
        let t = &inner.tables;
        (inner.n, t.roles, t.base.len(), t.width)
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
                let (game, start) = (&mut shard.game, shard.start.as_ref());
                for env in &mut shard.envs {
                    env.reset(game, start)
                        .map_err(|e| game_error_at(py, e, ""))?;
                }
            }
            let inner = &mut *inner;
            py.detach(|| inner.observe());
            PyTuple::new(py, [bytes(py, &inner.obs), bytes(py, &inner.masks)])
        })
    }

    /// The observations and masks of the games as they stand.
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let mut inner = self.lock();
            let inner = &mut *inner;
            py.detach(|| inner.observe());
            PyTuple::new(py, [bytes(py, &inner.obs), bytes(py, &inner.masks)])
        })
    }

    /// Plays one joint move in every game: ``actions`` holds games × roles
    /// action numbers as little-endian int64 bytes. Returns the
    /// observations, masks, rewards (float32) and ends (0 on, 1 terminal, 2
    /// cut short) as bytes; a game that ended is back at its initial state.
    fn step<'py>(&self, py: Python<'py>, actions: &[u8]) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let mut inner = self.lock();
            let (n, roles) = (inner.n, inner.tables.roles);
            if actions.len() != n * roles * 8 {
                return Err(PyTypeError::new_err(format!(
                    "step takes {n} x {roles} int64 actions, not {} bytes",
                    actions.len()
                )));
            }
            let inner = &mut *inner;
            // Every action checked before any game moves.
            py.detach(|| inner.choose(actions))
                .map_err(|(i, r, a, legal)| {
                    PyValueError::new_err(format!(
                    "game {i}: action {a} is not legal for role {r}: the legal ones are {legal:?}"
                ))
                })?;
            if let Some((i, e)) = py.detach(|| inner.play()) {
                return Err(game_error_at(py, e, &format!("game {i}: ")));
            }
            PyTuple::new(
                py,
                [
                    bytes(py, &inner.obs),
                    bytes(py, &inner.masks),
                    bytes(py, &inner.rewards),
                    bytes(py, &inner.ends),
                ],
            )
        })
    }

    /// One action per game and role, drawn uniformly among those that
    /// ``masks`` (uint8, games × roles × width, C order) marks with a
    /// non-zero byte (0 where none is), by a generator seeded with
    /// ``seed``: little-endian int64 bytes.
    fn random_actions<'py>(
        &self,
        py: Python<'py>,
        masks: &Bound<'py, PyAny>,
        seed: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        guard(py, || {
            let (n, roles, width) = {
                let inner = self.lock();
                (inner.n, inner.tables.roles, inner.tables.width)
            };
            let buffer = PyBuffer::<u8>::get(masks)?;
            if buffer.item_count() != n * roles * width {
                return Err(PyValueError::new_err(format!(
                    "masks: {n} x {roles} x {width} uint8, not {} bytes",
                    buffer.item_count()
                )));
            }
            // A copy (a few bytes a game): read in C order whatever the
            // array's strides.
            let cells = buffer.to_vec(py)?;
            let mut rng = Pcg64::seed_from_u64(seed);
            let mut out = Vec::with_capacity(n * roles * 8);
            for i in 0..n * roles {
                let row = &cells[i * width..(i + 1) * width];
                out.extend_from_slice(&(pick(row, &mut rng) as i64).to_le_bytes());
            }
            Ok(PyBytes::new(py, &out))
        })
    }
}
