//! The values a game hands out: moves, states, and the diagnostics of a
//! rules file.

use crate::game::Game;
use crate::guard;
use crate::terms::{canonical, kif_to_py, read_one};
use gdl::{natural_cmp, SourceFile};
use pyo3::basic::CompareOp;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{
    PyBool, PyIterator, PyList, PyString, PyTuple, PyWeakrefMethods, PyWeakrefReference,
};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

/// `True` or `False`.
fn py_bool(py: Python<'_>, b: bool) -> Py<PyAny> {
    PyBool::new(py, b).to_owned().into_any().unbind()
}

/// A move of a game, such as ``(mark 1 1)`` or ``noop``.
///
/// ``str(move)`` (or ``move.text``) is its KIF text and ``move.tuple`` the
/// same term as nested tuples. A move equals the same move of the same
/// game, and also its text: ``"noop" in game.legal_moves(state, role)``
/// works, and a move hashes as its text. Moves sort in natural order
/// (``(cell a 9)`` before ``(cell a 10)``). A game hands out one object per
/// move, so getting moves costs no allocation after the first time.
#[pyclass(frozen, module = "gdl")]
pub struct Move {
    /// The game it belongs to (`Game::id`).
    pub(crate) game_id: u64,
    /// A weak reference to that game, to pickle the move with it.
    pub(crate) game: Option<Py<PyWeakrefReference>>,
    /// The move in its game.
    pub(crate) id: gdl::Move,
    /// Its text, as a Python string (hashed once).
    pub(crate) text: Py<PyString>,
}

#[pymethods]
impl Move {
    /// The move in KIF, such as ``"(mark 1 1)"``.
    #[getter]
    fn text(&self, py: Python<'_>) -> Py<PyString> {
        self.text.clone_ref(py)
    }

    /// The move as nested tuples of strings: ``('mark', '1', '1')``; a
    /// constant such as ``noop`` is the string ``'noop'``.
    #[getter]
    fn tuple<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            let kif = read_one(self.text.bind(py).to_str()?).map_err(PyValueError::new_err)?;
            kif_to_py(py, &kif)
        })
    }

    fn __str__(&self, py: Python<'_>) -> Py<PyString> {
        self.text.clone_ref(py)
    }

    /// Pickles the move as its game (by its rules text) and its text.
    /// Raises ``ValueError`` when its game is gone.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let game = (self.game.as_ref())
            .and_then(|w| w.bind(py).upgrade())
            .ok_or_else(|| {
                PyValueError::new_err("cannot pickle a move whose game has been freed")
            })?;
        let restore = py.import("gdl._restore")?.getattr("move")?;
        (restore, (game, self.text.clone_ref(py))).into_pyobject(py)
    }

    /// The move itself: moves are immutable values.
    fn __copy__(slf: &Bound<'_, Self>) -> Py<Move> {
        slf.clone().unbind()
    }

    /// The move itself: moves are immutable values.
    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> Py<Move> {
        slf.clone().unbind()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Move({})", self.text.bind(py).repr()?))
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.text.bind(py).hash()
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = other.py();
        let (equal, order) = if let Ok(m) = other.cast::<Move>() {
            let m = m.get();
            let (a, b) = (self.text.bind(py).to_str()?, m.text.bind(py).to_str()?);
            (
                self.game_id == m.game_id && self.id == m.id,
                natural_cmp(a, b),
            )
        } else if let Ok(s) = other.cast::<PyString>() {
            let (a, b) = (self.text.bind(py).to_str()?, s.to_str()?);
            if !matches!(op, CompareOp::Eq | CompareOp::Ne) {
                return Ok(py.NotImplemented());
            }
            (a == b, natural_cmp(a, b))
        } else {
            return Ok(py.NotImplemented());
        };
        let result = match op {
            CompareOp::Eq => equal,
            CompareOp::Ne => !equal,
            CompareOp::Lt => order.is_lt(),
            CompareOp::Le => order.is_le(),
            CompareOp::Gt => order.is_gt(),
            CompareOp::Ge => order.is_ge(),
        };
        Ok(py_bool(py, result))
    }
}

/// A state of a game: the set of facts that hold.
///
/// States are values: hashable, equal when they hold the same facts (and
/// come from the same game), usable as dict keys and set members. They
/// cannot be ordered. ``len(state)`` is its number of facts, iterating
/// gives the facts as KIF text, and ``fact in state`` takes a fact as text
/// or as a tuple.
#[pyclass(frozen, module = "gdl")]
pub struct State {
    /// The game it belongs to.
    pub(crate) game: Py<Game>,
    /// The library's state.
    pub(crate) inner: gdl::State,
    /// Its facts as text, in natural order, made when first asked.
    facts: OnceLock<Vec<String>>,
}

impl State {
    /// A state of `game`.
    pub(crate) fn new(game: Py<Game>, inner: gdl::State) -> State {
        State {
            game,
            inner,
            facts: OnceLock::new(),
        }
    }

    /// Its facts as text, in natural order.
    fn fact_texts(&self) -> &[String] {
        self.facts
            .get_or_init(|| self.game.get().facts_of(&self.inner))
    }

    /// Whether `other` is a state of the same game holding the same facts.
    fn same(&self, other: &State) -> bool {
        self.game.get().id == other.game.get().id && self.inner == other.inner
    }
}

#[pymethods]
impl State {
    /// The facts that hold, as KIF text, in natural order (numbers as
    /// numbers: ``(cell 2 1 b)`` before ``(cell 10 1 b)``), as ``gdl
    /// trace --format json`` lists them.
    fn facts(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        guard(py, || Ok(self.fact_texts().to_vec()))
    }

    /// The facts that hold as nested tuples of strings, in the order of
    /// ``facts()``: ``(cell 1 1 x)`` is ``('cell', '1', '1', 'x')``.
    fn fact_tuples<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        guard(py, || {
            self.fact_texts()
                .iter()
                .map(|f| {
                    let kif = read_one(f).map_err(PyValueError::new_err)?;
                    kif_to_py(py, &kif)
                })
                .collect()
        })
    }

    /// The game the state belongs to.
    #[getter]
    fn game(&self, py: Python<'_>) -> Py<Game> {
        self.game.clone_ref(py)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Pickles the state as its game (by its rules text) and its facts;
    /// ``Game.state_from_facts`` makes it again.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let restore = py.import("gdl._restore")?.getattr("state")?;
            let facts = self.fact_texts().to_vec();
            (restore, (self.game.clone_ref(py), facts)).into_pyobject(py)
        })
    }

    /// The state itself: states are immutable values.
    fn __copy__(slf: &Bound<'_, Self>) -> Py<State> {
        slf.clone().unbind()
    }

    /// The state itself: states are immutable values.
    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> Py<State> {
        slf.clone().unbind()
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        guard(py, || PyList::new(py, self.fact_texts())?.try_iter())
    }

    fn __contains__(&self, py: Python<'_>, fact: &Bound<'_, PyAny>) -> PyResult<bool> {
        guard(py, || {
            let text = canonical(fact)?;
            let facts = self.fact_texts();
            Ok(facts.iter().any(|f| f.eq_ignore_ascii_case(&text)))
        })
    }

    fn __hash__(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.game.get().id.hash(&mut h);
        self.inner.hash(&mut h);
        h.finish()
    }

    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        let Ok(other) = other.cast::<State>() else {
            return py.NotImplemented();
        };
        let same = self.same(other.get());
        match op {
            CompareOp::Eq => py_bool(py, same),
            CompareOp::Ne => py_bool(py, !same),
            _ => py.NotImplemented(),
        }
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || {
            let facts = self.fact_texts();
            Ok(format!("State({:?})", facts))
        })
    }
}

/// One message about a rules file: an error or a warning, located.
///
/// ``str(d)`` is ``file:line:column: severity[code]: message``. Lines and
/// columns count from 1 (columns in characters); ``end_line`` and
/// ``end_column`` are where the text at fault ends (exclusive).
#[pyclass(frozen, get_all, module = "gdl")]
#[derive(Clone)]
pub struct Diagnostic {
    /// ``"error"`` or ``"warning"``.
    pub severity: &'static str,
    /// A short stable name of the problem, such as ``"unsafe-variable"``.
    pub code: &'static str,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The file's name as given (or the name passed to ``loads``).
    pub file: String,
    /// The line of the text at fault, from 1.
    pub line: usize,
    /// The column of the text at fault, from 1, in characters.
    pub column: usize,
    /// The line where the text at fault ends.
    pub end_line: usize,
    /// The column just after the text at fault.
    pub end_column: usize,
    /// What is said under the text at fault (may be empty).
    pub label: String,
    /// Lines of explanation or advice.
    pub notes: Vec<String>,
    /// Whether it is a published-game allowance (a warning for what GDL
    /// forbids but published games do and gdl plays).
    pub allowance: bool,
}

impl Diagnostic {
    /// The library's diagnostic `d` of `file`.
    pub(crate) fn new(file: &SourceFile, d: &gdl::Diagnostic) -> Diagnostic {
        let start = file.line_col(d.span.start as usize);
        let end = file.line_col(d.span.end as usize);
        Diagnostic {
            severity: if d.is_error() { "error" } else { "warning" },
            code: d.code,
            message: d.message.clone(),
            file: file.name.clone(),
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
            label: d.label.clone(),
            notes: d.notes.clone(),
            allowance: d.is_allowance(),
        }
    }
}

#[pymethods]
impl Diagnostic {
    fn __str__(&self) -> String {
        format!(
            "{}:{}:{}: {}[{}]: {}",
            self.file, self.line, self.column, self.severity, self.code, self.message
        )
    }

    fn __repr__(&self) -> String {
        format!("<gdl.Diagnostic {}>", self.__str__())
    }
}
