//! `gdl.Game`, `gdl.load` and `gdl.loads`: a loaded rules file and the
//! questions it answers.

use crate::errors::{game_error, load_error, obj, raise};
use crate::guard;
use crate::interrupt::interruptible;
use crate::terms::py_to_text;
use crate::values::{Diagnostic, Move, State};
use gdl::{natural_cmp, GameError, RandomPlayer, Role};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{
    PyDict, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple, PyWeakrefReference,
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// The number of the next game loaded: states and moves know their game by
/// it.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A loaded, checked rules file ready to play.
///
/// Load one with ``gdl.load(path)`` or ``gdl.loads(text)``. Roles are
/// given by name (``"xplayer"``, any case) or by index in ``game.roles``;
/// moves as ``Move`` objects, as KIF text (``"(mark 1 1)"``) or as tuples
/// (``('mark', 1, 1)``). States and moves belong to the game that made
/// them. A game may be used from several threads (calls take turns);
/// ``playouts`` runs without the GIL.
#[pyclass(frozen, weakref, module = "gdl")]
pub struct Game {
    /// Its number, unique in the process.
    pub(crate) id: u64,
    /// A weak reference to its own Python object, which its moves keep to
    /// pickle themselves with their game (a strong one would make a cycle
    /// through the cache of moves).
    me: OnceLock<Py<PyWeakrefReference>>,
    /// How it was loaded (`engine` and `limits` of `load`), to load it
    /// anew from a pickle.
    asked: Asked,
    /// The library's game, its caches included.
    inner: Mutex<gdl::Game>,
    /// The role names, in the order of the `role` facts.
    roles: Vec<String>,
    /// The file's name as given.
    name: String,
    /// The Python object of each move handed out so far.
    moves: Mutex<HashMap<gdl::Move, Py<Move>>>,
    /// The board `draw` draws on, made when first asked (it learns the
    /// cells from every state it draws).
    board: Mutex<Option<gdl::record::Board>>,
}

/// A move as given by the caller: known already, or text to read.
pub(crate) enum MoveArg {
    /// A `Move` of this game.
    Known(gdl::Move),
    /// KIF text (typed, or made from a tuple).
    Text(String),
}

/// The keywords a game was loaded with, as given.
#[derive(Clone, Default)]
pub(crate) struct Asked {
    /// The engine asked for (`auto`, `ground` or `interpreter`).
    engine: String,
    /// The limits set, by name.
    limits: Vec<(String, u64)>,
}

impl Game {
    /// Wraps a loaded library game as its Python object.
    pub(crate) fn wrap(py: Python<'_>, game: gdl::Game, asked: Asked) -> PyResult<Py<Game>> {
        let roles = game
            .roles()
            .into_iter()
            .map(|r| game.role_name(r).to_string())
            .collect();
        let made = Py::new(
            py,
            Game {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                me: OnceLock::new(),
                asked,
                name: game.source().name.clone(),
                inner: Mutex::new(game),
                roles,
                moves: Mutex::new(HashMap::new()),
                board: Mutex::new(None),
            },
        )?;
        let me = PyWeakrefReference::new(made.bind(py).as_any())?;
        let _ = made.get().me.set(me.unbind());
        Ok(made)
    }

    /// The library's game. A panic while it was held (a bug, reported as
    /// `InternalError`) may have left its caches half made: they are
    /// dropped (a clone keeps the rules and the terms).
    pub(crate) fn lock(&self) -> MutexGuard<'_, gdl::Game> {
        self.inner.lock().unwrap_or_else(|poisoned| {
            let mut game = poisoned.into_inner();
            *game = game.clone();
            self.inner.clear_poison();
            game
        })
    }

    /// The facts of a state as text, in natural order.
    pub(crate) fn facts_of(&self, state: &gdl::State) -> Vec<String> {
        let mut facts = self.lock().state_facts(state);
        facts.sort_by(|a, b| natural_cmp(a, b));
        facts
    }

    /// The library state of a `State` of this game.
    pub(crate) fn state_of(&self, state: &Bound<'_, PyAny>) -> PyResult<gdl::State> {
        let state = state.cast::<State>().map_err(|_| {
            PyTypeError::new_err(format!(
                "expected a gdl.State, got {}",
                type_name(state.as_any())
            ))
        })?;
        let state = state.get();
        if state.game.get().id != self.id {
            return Err(PyValueError::new_err("the state belongs to another game"));
        }
        Ok(state.inner.clone())
    }

    /// The role named or numbered by `role`.
    pub(crate) fn role_of(&self, role: &Bound<'_, PyAny>) -> PyResult<Role> {
        if let Ok(i) = role.cast::<PyInt>() {
            let i: i64 = i.extract()?;
            return usize::try_from(i)
                .ok()
                .filter(|&i| i < self.roles.len())
                .map(|i| Role(i as u32))
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "role index {i} out of range: the game has {} roles",
                        self.roles.len()
                    ))
                });
        }
        if let Ok(name) = role.cast::<PyString>() {
            let name = name.to_str()?;
            return self
                .roles
                .iter()
                .position(|r| r.eq_ignore_ascii_case(name))
                .map(|i| Role(i as u32))
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "no role {:?}: the roles are {}",
                        gdl::clip(name),
                        self.roles.join(", ")
                    ))
                });
        }
        Err(PyTypeError::new_err(format!(
            "a role is a name or an index, not {}",
            type_name(role)
        )))
    }

    /// A move as given: a `Move` of this game, text or a tuple.
    pub(crate) fn move_arg(&self, m: &Bound<'_, PyAny>) -> PyResult<MoveArg> {
        if let Ok(m) = m.cast::<Move>() {
            let m = m.get();
            if m.game_id != self.id {
                return Err(PyValueError::new_err("the move belongs to another game"));
            }
            return Ok(MoveArg::Known(m.id));
        }
        if m.is_instance_of::<PyString>()
            || m.is_instance_of::<PyTuple>()
            || m.is_instance_of::<PyList>()
        {
            return Ok(MoveArg::Text(py_to_text(m)?));
        }
        Err(PyTypeError::new_err(format!(
            "a move is a gdl.Move, KIF text or a tuple, not {}",
            type_name(m)
        )))
    }

    /// A joint move as given: a sequence of one move per role in role
    /// order, or a dict from role (name or index) to move, each role once.
    /// A set has no order to give the roles theirs: it is refused.
    fn joint_arg(&self, joint: &Bound<'_, PyAny>) -> PyResult<Vec<MoveArg>> {
        if let Ok(d) = joint.cast::<PyDict>() {
            let mut moves: Vec<Option<MoveArg>> = (0..self.roles.len()).map(|_| None).collect();
            for (role, m) in d.iter() {
                let r = self.role_of(&role)?;
                let slot = &mut moves[r.0 as usize];
                if slot.is_some() {
                    return Err(PyValueError::new_err(format!(
                        "role {} is given two moves: the dict names it twice (the second time \
                         as {})",
                        self.roles[r.0 as usize],
                        gdl::clip(&role.repr()?.to_string_lossy())
                    )));
                }
                *slot = Some(self.move_arg(&m)?);
            }
            return moves
                .into_iter()
                .enumerate()
                .map(|(i, m)| {
                    m.ok_or_else(|| {
                        PyValueError::new_err(format!("no move for role {}", self.roles[i]))
                    })
                })
                .collect();
        }
        if joint.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "a joint move is a sequence of one move per role (or a dict from role to move), \
                 not a string",
            ));
        }
        if joint.is_instance_of::<PySet>() || joint.is_instance_of::<PyFrozenSet>() {
            return Err(PyTypeError::new_err(format!(
                "a joint move is a sequence of one move per role (or a dict from role to move), \
                 not a {}: a set has no order to give each role its move",
                type_name(joint)
            )));
        }
        let items = joint.try_iter().map_err(|_| {
            PyTypeError::new_err(format!(
                "a joint move is a sequence of one move per role (or a dict from role to move), \
                 not {}",
                type_name(joint)
            ))
        })?;
        items.map(|m| self.move_arg(&m?)).collect()
    }

    /// The library moves of `args`, reading those given as text.
    fn resolve(game: &mut gdl::Game, args: Vec<MoveArg>) -> Result<Vec<gdl::Move>, GameError> {
        args.into_iter()
            .map(|a| match a {
                MoveArg::Known(m) => Ok(m),
                MoveArg::Text(t) => game.parse_move(&t),
            })
            .collect()
    }

    /// The Python objects of library moves, made once per move.
    pub(crate) fn py_moves(&self, py: Python<'_>, moves: &[gdl::Move]) -> PyResult<Vec<Py<Move>>> {
        let mut out: Vec<Option<Py<Move>>> = {
            let cache = self.moves.lock().unwrap_or_else(|p| p.into_inner());
            moves
                .iter()
                .map(|m| cache.get(m).map(|o| o.clone_ref(py)))
                .collect()
        };
        if out.iter().all(Option::is_some) {
            return Ok(out.into_iter().flatten().collect());
        }
        let texts: Vec<Option<String>> = {
            let game = self.lock();
            moves
                .iter()
                .zip(&out)
                .map(|(&m, o)| o.is_none().then(|| game.move_text(m)))
                .collect()
        };
        for (i, text) in texts.into_iter().enumerate() {
            let Some(text) = text else { continue };
            let made = Py::new(
                py,
                Move {
                    game_id: self.id,
                    game: self.me.get().map(|w| w.clone_ref(py)),
                    id: moves[i],
                    text: PyString::new(py, &text).unbind(),
                },
            )?;
            let mut cache = self.moves.lock().unwrap_or_else(|p| p.into_inner());
            let kept = cache.entry(moves[i]).or_insert(made);
            out[i] = Some(kept.clone_ref(py));
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// The name of role `i`.
    pub(crate) fn role_name(&self, i: usize) -> String {
        self.roles[i].clone()
    }

    /// The file's name as given.
    pub(crate) fn file_name(&self) -> &str {
        &self.name
    }

    /// A joint move as given (see `joint_arg`), read into library moves.
    pub(crate) fn joint_moves_of(
        &self,
        py: Python<'_>,
        joint: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<gdl::Move>> {
        let args = self.joint_arg(joint)?;
        if args.len() != self.roles.len() {
            let e = GameError::WrongMoveCount {
                expected: self.roles.len(),
                given: args.len(),
            };
            return Err(game_error(py, e));
        }
        let moves = Game::resolve(&mut self.lock(), args);
        moves.map_err(|e| game_error(py, e))
    }

    /// A `State` of this game.
    fn py_state(slf: &Bound<'_, Self>, state: gdl::State) -> State {
        State::new(slf.clone().unbind(), state)
    }
}

/// The name of an object's type, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_string())
}

#[pymethods]
impl Game {
    /// The role names, in the order of the ``role`` facts (the order of
    /// joint moves and goals).
    #[getter]
    fn roles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.roles)
    }

    /// The name of the rules file as given (``loads``: the name passed).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// How states are evaluated: ``"ground rules (N atoms, M rules)"`` or
    /// ``"interpreter"`` (games too large to ground).
    #[getter]
    fn engine(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || Ok(self.lock().engine().to_string()))
    }

    /// The warnings of the rules file, as ``Diagnostic`` objects.
    #[getter]
    fn warnings(&self, py: Python<'_>) -> PyResult<Vec<Diagnostic>> {
        guard(py, || {
            let game = self.lock();
            Ok(game
                .warnings()
                .iter()
                .map(|d| Diagnostic::new(game.source(), d))
                .collect())
        })
    }

    /// The state made of the ``init`` facts.
    fn initial_state(slf: &Bound<'_, Self>) -> PyResult<State> {
        guard(slf.py(), || {
            let state = slf.get().lock().initial_state();
            Ok(Game::py_state(slf, state))
        })
    }

    /// The legal moves of ``role`` (a name or an index) in ``state``, as a
    /// list of ``Move``, in the engine's order (``sorted()`` gives natural
    /// order).
    fn legal_moves(
        &self,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
        role: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Py<Move>>> {
        guard(py, || {
            let state = self.state_of(state)?;
            let role = self.role_of(role)?;
            let moves = self.lock().legal_moves(&state, role);
            let moves = moves.map_err(|e| game_error(py, e))?;
            self.py_moves(py, &moves)
        })
    }

    /// Every joint move of ``state``: each combination of one legal move
    /// per role, as tuples in role order.
    fn joint_moves<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        guard(py, || {
            let state = self.state_of(state)?;
            let joints = self.lock().joint_moves(&state);
            let joints = joints.map_err(|e| game_error(py, e))?;
            joints
                .iter()
                .map(|j| PyTuple::new(py, self.py_moves(py, j)?))
                .collect()
        })
    }

    /// Whether ``state`` is terminal.
    fn is_terminal(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<bool> {
        guard(py, || {
            let state = self.state_of(state)?;
            let terminal = self.lock().is_terminal(&state);
            terminal.map_err(|e| game_error(py, e))
        })
    }

    /// Each role's goal value in ``state`` (an int from 0 to 100), in role
    /// order. Raises ``GoalError`` when a role has no goal value or
    /// several (rules often give goals in terminal states only).
    fn goals(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        guard(py, || {
            let state = self.state_of(state)?;
            let goals = self.lock().goals(&state);
            let goals = goals.map_err(|e| game_error(py, e))?;
            // A list of ints (a Vec<u8> would become bytes).
            Ok(goals.into_iter().map(u32::from).collect())
        })
    }

    /// The state after each role plays its move of ``joint``: a sequence
    /// of one move per role in role order (not a set, which has no order),
    /// or a dict from role (name or index) to move that names each role
    /// once. Moves are ``Move`` objects, KIF text or tuples.
    /// Raises ``IllegalMoveError`` for a move that is not legal,
    /// ``MoveError`` for text that is not a move or the wrong number of
    /// moves, ``TerminalStateError`` when ``state`` is terminal.
    fn next_state(
        slf: &Bound<'_, Self>,
        state: &Bound<'_, PyAny>,
        joint: &Bound<'_, PyAny>,
    ) -> PyResult<State> {
        let py = slf.py();
        guard(py, || {
            let this = slf.get();
            let state = this.state_of(state)?;
            let args = this.joint_arg(joint)?;
            let next = {
                let mut game = this.lock();
                Game::resolve(&mut game, args).and_then(|joint| game.next_state(&state, &joint))
            };
            let next = next.map_err(|e| game_error(py, e))?;
            Ok(Game::py_state(slf, next))
        })
    }

    /// The ``Move`` written ``move`` (KIF text such as ``"(mark 1 1)"``, or
    /// a tuple such as ``('mark', 1, 1)``). Does not check legality.
    /// Raises ``MoveError`` when the text is not a ground term.
    #[pyo3(signature = (r#move))]
    fn parse_move(&self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<Py<Move>> {
        guard(py, || {
            let arg = self.move_arg(r#move)?;
            let m = {
                let mut game = self.lock();
                Game::resolve(&mut game, vec![arg])
            };
            let m = m.map_err(|e| game_error(py, e))?;
            Ok(self.py_moves(py, &m)?.remove(0))
        })
    }

    /// The ``base`` facts the rules declare (every fact a state may hold),
    /// as KIF text in natural order, or ``None`` when they declare none.
    fn base_facts(&self, py: Python<'_>) -> PyResult<Option<Vec<String>>> {
        guard(py, || {
            let base = self.lock().base_facts();
            base.map_err(|e| game_error(py, e))
        })
    }

    /// The ``input`` moves the rules declare for ``role`` (every move it may
    /// make), in natural order, or ``None`` when they declare none.
    fn input_moves(
        &self,
        py: Python<'_>,
        role: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Vec<Py<Move>>>> {
        guard(py, || {
            let role = self.role_of(role)?;
            let input = self.lock().input_moves(role);
            match input.map_err(|e| game_error(py, e))? {
                None => Ok(None),
                Some(moves) => Ok(Some(self.py_moves(py, &moves)?)),
            }
        })
    }

    /// The joint moves of the random game ``gdl trace FILE --seed SEED``
    /// plays: each role picks uniformly among its legal moves in natural
    /// order, with the seeded generator of the library's ``RandomPlayer``.
    /// Stops at a terminal state or after ``max_steps`` joint moves, and
    /// raises what ``gdl trace`` reports (a role without a legal move, a
    /// terminal state without goals). A list of tuples of ``Move`` in role
    /// order; replay them with ``next_state``. The moves it keeps are
    /// counted against a memory budget: ``max_memory`` bytes when given,
    /// else the game's; a game longer than fits raises ``LimitError``.
    /// Plays without the GIL; Ctrl-C interrupts it within a tenth of a
    /// second (``KeyboardInterrupt``), a step under way included.
    #[pyo3(signature = (seed=0, max_steps=1000, max_memory=None))]
    fn random_game<'py>(
        &self,
        py: Python<'py>,
        seed: u64,
        max_steps: usize,
        max_memory: Option<usize>,
    ) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        guard(py, || {
            let (played, most, budget) = interruptible(py, |cancel| {
                let mut game = self.lock();
                let budget = max_memory.unwrap_or(game.limits().max_memory);
                // The joint moves that fit: a game cut short one past them
                // is over the budget.
                let most = budget / trace_step_bytes(game.roles().len());
                let mut player = RandomPlayer::new(seed);
                let mut played: Vec<Vec<gdl::Move>> = Vec::new();
                let mut record = |game: &mut gdl::Game, state: &gdl::State| {
                    let joint = player.joint(game, state)?;
                    played.push(joint.clone());
                    Ok(joint)
                };
                let start = game.initial_state();
                let stop = gdl::Stop::steps(max_steps.min(most.saturating_add(1)))
                    .or_cancelled(cancel.flag());
                let ended = game.play(&start, &mut record, stop);
                (ended.map(|_| played).map_err(|(_, e)| e), most, budget)
            })?;
            let played = played.map_err(|e| game_error(py, e))?;
            if played.len() > most {
                let message = format!(
                    "random_game(seed={seed}) went on past {most} joint moves, more than its \
                     moves may keep under the memory budget of {} (max_memory): lower \
                     max_steps, or raise the budget of this call with \
                     random_game(..., max_memory=...) or of every call with \
                     gdl.load(..., limits={{\"max_memory\": ...}})",
                    gdl::human_bytes(budget)
                );
                let attributes = [
                    ("limit", obj(py, gdl::LimitKind::Memory.name())),
                    ("value", obj(py, budget)),
                    ("relation", obj(py, "the moves of a random game")),
                ];
                return Err(raise(py, "LimitError", message, &attributes));
            }
            played
                .iter()
                .map(|j| PyTuple::new(py, self.py_moves(py, j)?))
                .collect()
        })
    }

    /// Plays ``n`` random games from ``state`` (the initial state when
    /// ``None``) on ``threads`` threads (0: one per core), without the GIL,
    /// and returns one ``(steps, goals)`` tuple per game, in game order:
    /// the joint moves played, and each role's goal in the last state as a
    /// tuple, or ``None`` when ``max_steps`` cut the game short.
    ///
    /// Game ``i`` uses the seed ``seed + i``, whatever the number of
    /// threads. By default each role picks among its legal moves in
    /// natural order, like ``gdl random`` and ``gdl trace --seed`` (the
    /// library's ``RandomPlayer``): from the initial state, game ``i`` is
    /// the game ``random_game(seed + i)`` plays. ``fast=True`` picks by
    /// position in the engine's own order instead (the library's
    /// ``RandomPlayer::in_engine_order``, as ``gdl bench`` plays): a little
    /// faster, still one game per seed, but not the game ``gdl trace``
    /// plays. Ctrl-C interrupts within a tenth of a second, the games under
    /// way included. A count whose results would not fit in the memory
    /// budget raises ``LimitError`` before any game is played: the budget
    /// is ``max_memory`` (bytes) when given, else the game's
    /// (``limits={"max_memory": ...}`` of ``gdl.load``).
    #[pyo3(signature = (n, seed=0, threads=1, max_steps=1000, fast=false, state=None, max_memory=None))]
    #[allow(clippy::too_many_arguments)]
    fn playouts<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        seed: u64,
        threads: usize,
        max_steps: usize,
        fast: bool,
        state: Option<&Bound<'py, PyAny>>,
        max_memory: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        guard(py, || {
            let start = match state {
                Some(s) => self.state_of(s)?,
                None => self.lock().initial_state(),
            };
            let outcomes = crate::playouts::run(
                py,
                self,
                &crate::playouts::Batch {
                    start,
                    n,
                    seed,
                    threads,
                    max_steps,
                    fast,
                    max_memory,
                },
            )?;
            let list = PyList::empty(py);
            for (k, (steps, goals)) in outcomes.into_iter().enumerate() {
                if k % (1 << 16) == 0 {
                    py.check_signals()?;
                }
                let goals: Bound<'py, PyAny> = match goals {
                    Some(g) => PyTuple::new(py, g.iter().copied())?.into_any(),
                    None => py.None().into_bound(py),
                };
                list.append((steps, goals))?;
            }
            Ok(list)
        })
    }

    /// The state holding ``facts``: an iterable of facts, each KIF text
    /// such as ``"(cell 1 1 x)"`` or a tuple such as ``('cell', 1, 1, 'x')``
    /// (any order, duplicates allowed, names in any case): the inverse of
    /// ``State.facts()``. Facts outside the rules' ``base`` are allowed.
    /// Raises ``ValueError`` naming the fact that is not a ground term.
    fn state_from_facts(slf: &Bound<'_, Self>, facts: &Bound<'_, PyAny>) -> PyResult<State> {
        let py = slf.py();
        guard(py, || {
            let items = facts.try_iter().map_err(|_| {
                PyTypeError::new_err(format!(
                    "facts are an iterable of facts (text or tuples), not {}",
                    type_name(facts)
                ))
            })?;
            if facts.is_instance_of::<PyString>() {
                return Err(PyTypeError::new_err(
                    "facts are an iterable of facts (text or tuples), not one string",
                ));
            }
            let texts = items
                .map(|f| py_to_text(&f?))
                .collect::<PyResult<Vec<String>>>()?;
            let made = slf.get().lock().state_from_facts(&texts);
            let state = made.map_err(|(i, reason)| {
                PyValueError::new_err(format!(
                    "fact {i} ({:?}) is not a ground term: {reason}",
                    gdl::clip(&texts[i])
                ))
            })?;
            Ok(Game::py_state(slf, state))
        })
    }

    /// The state drawn as ``gdl play`` draws it: a grid when one relation
    /// looks like a board (or as the rules' ``;! board`` annotations say),
    /// then the other facts; the facts one a line otherwise. The game's
    /// board learns its cells from every state it draws.
    fn draw(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<String> {
        guard(py, || {
            let state = self.state_of(state)?;
            let facts = self.facts_of(&state);
            let mut board = self.board.lock().unwrap_or_else(|p| p.into_inner());
            let board = board.get_or_insert_with(|| {
                let text = self.lock().source().text.clone();
                gdl::record::Board::new(gdl::record::BoardSpec::from_source(&text).0)
            });
            board.observe(&facts);
            Ok(board.draw(&facts))
        })
    }

    /// Pickles the game by its rules text, name, engine and limits.
    /// Unpickled in the process that pickled it, it is this very game (so
    /// its states and moves stay equal to theirs); elsewhere the rules are
    /// loaded anew, once per process.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        guard(py, || {
            let this = slf.get();
            let text = this.lock().source().text.clone();
            let limits = PyDict::new(py);
            for (name, value) in &this.asked.limits {
                limits.set_item(name, value)?;
            }
            let args =
                (text, this.name.clone(), this.asked.engine.clone(), limits).into_pyobject(py)?;
            let restore = py.import("gdl._restore")?;
            restore.getattr("remember")?.call1((slf, &args))?;
            (restore.getattr("game")?, args).into_pyobject(py)
        })
    }

    /// The game itself: a game is shared, not copied.
    fn __copy__(slf: &Bound<'_, Self>) -> Py<Game> {
        slf.clone().unbind()
    }

    /// The game itself: a game is shared, not copied.
    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> Py<Game> {
        slf.clone().unbind()
    }

    fn __repr__(&self) -> String {
        format!(
            "<gdl.Game {:?}: roles {}>",
            self.name,
            self.roles.join(", ")
        )
    }
}

impl Game {
    /// A clone of the library's game, for a thread of its own.
    pub(crate) fn clone_inner(&self) -> gdl::Game {
        self.lock().clone()
    }
}

/// Reads, checks and prepares the rules file at ``path`` (a string or a
/// path-like object). Raises ``LoadError`` (with ``file``, ``line``,
/// ``column``, ``code`` and every ``diagnostics``) when the rules are not
/// valid GDL, and ``OSError`` (``FileNotFoundError``, ...) when the file
/// cannot be read. Releases the GIL while it loads.
///
/// ``engine`` is ``"auto"`` (ground rules where they fit and play cheaper,
/// chosen by counting work: the same on every machine), ``"ground"`` (a
/// ``LoadError`` with code ``not-ground`` where the rules do not ground)
/// or ``"interpreter"``. ``limits`` maps names of the library's limits
/// (``max_facts``, ``max_term_depth``, ``max_nesting``, ``max_work``,
/// ``max_ground_work``, ``max_ground_atoms``, ``max_memory``) to whole
/// numbers; a ``LimitError`` names the one reached.
#[pyfunction]
#[pyo3(signature = (path, *, engine="auto", limits=None))]
pub fn load(
    py: Python<'_>,
    path: PathBuf,
    engine: &str,
    limits: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<Game>> {
    let (options, asked) = load_options(engine, limits)?;
    guard(py, || {
        let loaded = py.detach(|| gdl::Game::load_with(&path, options));
        let loaded = loaded.map_err(|e| load_error(py, e))?;
        Game::wrap(py, loaded, asked)
    })
}

/// Reads, checks and prepares rules given as ``text``; ``name`` stands for
/// the file in messages. Raises ``LoadError`` like ``load``, and takes its
/// ``engine`` and ``limits``.
#[pyfunction]
#[pyo3(signature = (text, name="<string>", *, engine="auto", limits=None))]
pub fn loads(
    py: Python<'_>,
    text: &str,
    name: &str,
    engine: &str,
    limits: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<Game>> {
    let (options, asked) = load_options(engine, limits)?;
    guard(py, || {
        let loaded = py.detach(|| gdl::Game::from_source_with(name, text, options));
        let loaded = loaded.map_err(|e| load_error(py, e))?;
        Game::wrap(py, loaded, asked)
    })
}

/// The library's load options from `load`'s keywords, and the keywords as
/// given: `ValueError` for an unknown engine or limit, `TypeError` for a
/// limit that is not a whole number.
fn load_options(
    engine: &str,
    limits: Option<&Bound<'_, PyDict>>,
) -> PyResult<(gdl::LoadOptions, Asked)> {
    let mut asked = Asked {
        engine: engine.to_string(),
        limits: Vec::new(),
    };
    let engine: gdl::EngineChoice = engine
        .parse()
        .map_err(|e: String| PyValueError::new_err(format!("engine: {e}")))?;
    let mut l = gdl::Limits::default();
    for (key, value) in limits.into_iter().flat_map(|d| d.iter()) {
        let name: String = key
            .extract()
            .map_err(|_| PyTypeError::new_err("limits: the names of limits are strings"))?;
        let number = |what: &str| -> PyResult<u64> {
            value.extract::<u64>().map_err(|_| {
                PyTypeError::new_err(format!("limits: {name} is {what}, a whole number from 0"))
            })
        };
        if let Ok(n) = value.extract::<u64>() {
            asked.limits.push((name.clone(), n));
        }
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        match name.as_str() {
            "max_facts" => l.max_facts = size(number("a count of facts")?),
            "max_term_depth" => l.max_term_depth = size(number("a depth")?),
            "max_nesting" => {
                let n = size(number("a depth")?);
                if n == 0 || n > gdl::MAX_NESTING_CEILING {
                    return Err(PyValueError::new_err(format!(
                        "limits: max_nesting is from 1 to {}",
                        gdl::MAX_NESTING_CEILING
                    )));
                }
                l.max_nesting = n;
            }
            "max_work" => l.max_work = number("a count of candidate facts")?,
            "max_ground_work" => l.max_ground_work = number("a count of candidate facts")?,
            "max_ground_atoms" => l.max_ground_atoms = size(number("a count of atoms")?),
            "max_memory" => l.max_memory = size(number("a count of bytes")?),
            other => {
                return Err(PyValueError::new_err(format!(
                    "limits: unknown limit {other:?}: expected max_facts, max_term_depth, \
                     max_nesting, max_work, max_ground_work, max_ground_atoms or max_memory"
                )))
            }
        }
    }
    Ok((gdl::LoadOptions { limits: l, engine }, asked))
}

/// The bytes a joint move of a game of `roles` roles takes in
/// `random_game`, over-estimated: its list in Rust and its slot in the
/// list of lists (which doubles as it grows), then its Python tuple and
/// list slot (the `Move` objects are the game's, shared).
fn trace_step_bytes(roles: usize) -> usize {
    let rust = 3 * std::mem::size_of::<Vec<gdl::Move>>() + (4 * roles + 24).max(32);
    let python = 56 + 8 * roles + 16;
    rust + python
}
