//! The library's errors as the Python exceptions of `gdl._errors` (defined
//! in Python, so that they can derive from `ValueError` too), and panics
//! caught before they reach Python.

use crate::values::Diagnostic;
use gdl::{GameError, LoadError};
use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::BoundObject;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`, turning a panic (a bug of gdl) into `gdl.InternalError`.
pub fn guard<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            Err(raise(
                py,
                "InternalError",
                format!("internal error of gdl (please report it): {what}"),
                &[],
            ))
        }
    }
}

/// An instance of the exception class `name` of `gdl._errors` with
/// `message` and the keyword arguments `attributes`, as a `PyErr`; a
/// `RuntimeError` if that module cannot be imported.
pub fn raise(
    py: Python<'_>,
    name: &str,
    message: String,
    attributes: &[(&str, Py<PyAny>)],
) -> PyErr {
    let made = (|| -> PyResult<Bound<'_, PyAny>> {
        let class = py.import("gdl._errors")?.getattr(name)?;
        let kwargs = PyDict::new(py);
        for (key, value) in attributes {
            kwargs.set_item(key, value)?;
        }
        class.call((message.as_str(),), Some(&kwargs))
    })();
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(_) => PyRuntimeError::new_err(message),
    }
}

/// A value as a Python object, for the attributes of an exception.
pub fn obj<'py>(py: Python<'py>, value: impl IntoPyObject<'py>) -> Py<PyAny> {
    match value.into_pyobject(py) {
        Ok(v) => v.into_any().unbind(),
        Err(_) => py.None(),
    }
}

/// A library error of play as its Python exception: `IllegalMoveError`,
/// `MoveError`, `TerminalStateError`, `NoLegalMoveError`, `GoalError` or
/// `LimitError`, carrying what the error names.
pub fn game_error(py: Python<'_>, e: GameError) -> PyErr {
    game_error_at(py, e, "")
}

/// `game_error` with `at` (where it happened) before its message.
pub fn game_error_at(py: Python<'_>, e: GameError, at: &str) -> PyErr {
    let message = format!("{at}{e}");
    match e {
        GameError::IllegalMove {
            role,
            played,
            legal,
        } => raise(
            py,
            "IllegalMoveError",
            message,
            &[
                ("role", obj(py, role)),
                ("move", obj(py, played)),
                ("legal", obj(py, legal)),
            ],
        ),
        GameError::WrongMoveCount { expected, given } => raise(
            py,
            "MoveError",
            message,
            &[("expected", obj(py, expected)), ("given", obj(py, given))],
        ),
        GameError::BadMoveText { text, reason } => raise(
            py,
            "MoveError",
            message,
            &[("text", obj(py, text)), ("reason", obj(py, reason))],
        ),
        GameError::Terminal => raise(py, "TerminalStateError", message, &[]),
        // Only a stepper off its ground rules says this, and the module
        // hands out no stepper: a bug of gdl if it ever comes here.
        GameError::OffGround => raise(py, "InternalError", message, &[]),
        // The module runs nothing under a cancel flag.
        GameError::Cancelled => raise(py, "InternalError", message, &[]),
        GameError::NoLegalMove { role } => {
            raise(py, "NoLegalMoveError", message, &[("role", obj(py, role))])
        }
        GameError::NoGoal { role } => raise(
            py,
            "GoalError",
            message,
            &[
                ("role", obj(py, role)),
                ("values", obj(py, Vec::<String>::new())),
            ],
        ),
        GameError::SeveralGoals { role, values } => raise(
            py,
            "GoalError",
            message,
            &[("role", obj(py, role)), ("values", obj(py, values))],
        ),
        GameError::BadGoal { role, value } => raise(
            py,
            "GoalError",
            message,
            &[("role", obj(py, role)), ("values", obj(py, vec![value]))],
        ),
        GameError::Limit {
            kind,
            value,
            relation,
        } => raise(
            py,
            "LimitError",
            format!("{message}; {}", raise_limit(kind)),
            &[
                ("limit", obj(py, kind.name())),
                ("value", obj(py, value)),
                ("relation", obj(py, relation)),
            ],
        ),
    }
}

/// How a Python user raises a limit of the library: the `limits` keyword
/// of `gdl.load`.
pub fn raise_limit(kind: gdl::LimitKind) -> String {
    format!(
        "raise it with gdl.load(..., limits={{\"{}\": ...}})",
        kind.field()
    )
}

/// The library's diagnostics of a file that did not load, each that
/// reached a limit with a note on how Python raises it.
fn with_raise(diagnostics: &[gdl::Diagnostic]) -> Vec<gdl::Diagnostic> {
    (diagnostics.iter().cloned())
        .map(|mut d| {
            if let Some(kind) = d.limit {
                d.notes.push(raise_limit(kind));
            }
            d
        })
        .collect()
}

/// A load error as its Python exception: an `OSError` (of the subclass its
/// errno names, such as `FileNotFoundError`) when the file could not be
/// read, else `LoadError` carrying the file, line and column of the first
/// error and every diagnostic.
pub fn load_error(py: Python<'_>, e: LoadError) -> PyErr {
    match e {
        LoadError::Io { path, error } => {
            let errno = error.raw_os_error().unwrap_or(0);
            // Python writes the errno itself: "[Errno 2] No such file...".
            let text = error.to_string();
            let text = text.split(" (os error").next().unwrap_or(&text).to_string();
            PyOSError::new_err((errno, text, path))
        }
        // The module runs no load under a cancel flag.
        LoadError::Cancelled => PyRuntimeError::new_err(e.render(false).trim_end().to_string()),
        LoadError::Invalid {
            ref file,
            ref diagnostics,
        } => {
            let diagnostics = with_raise(diagnostics);
            let all: Vec<Diagnostic> = diagnostics
                .iter()
                .map(|d| Diagnostic::new(file, d))
                .collect();
            let first = all
                .iter()
                .find(|d| d.severity == "error")
                .or(all.first())
                .cloned();
            let message = gdl::render(file, &diagnostics, false)
                .trim_end()
                .to_string();
            let mut attributes = vec![("file", obj(py, file.name.clone()))];
            if let Some(d) = first {
                attributes.push(("line", obj(py, d.line)));
                attributes.push(("column", obj(py, d.column)));
                attributes.push(("code", obj(py, d.code)));
            }
            let list: Vec<Py<PyAny>> = all
                .into_iter()
                .map(|d| match Py::new(py, d) {
                    Ok(d) => d.into_any(),
                    Err(_) => py.None(),
                })
                .collect();
            attributes.push(("diagnostics", obj(py, list)));
            raise(py, "LoadError", message, &attributes)
        }
    }
}
