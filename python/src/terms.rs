//! Terms between their KIF text and nested Python tuples: `(mark 1 (b c))`
//! is `('mark', '1', ('b', 'c'))` and a constant such as `noop` is the
//! string `'noop'`.

use crate::guard;
use gdl::{Kif, DEFAULT_MAX_NESTING};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString, PyTuple};

/// A term read from KIF as a Python object: a string for a constant, a
/// tuple for a list.
pub fn kif_to_py<'py>(py: Python<'py>, kif: &Kif) -> PyResult<Bound<'py, PyAny>> {
    match kif {
        Kif::Atom(a) => Ok(PyString::new(py, a).into_any()),
        Kif::List(items) => {
            let items = items
                .iter()
                .map(|k| kif_to_py(py, k))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyTuple::new(py, items)?.into_any())
        }
    }
}

/// Reads exactly one KIF term from `text`.
pub fn read_one(text: &str) -> Result<Kif, String> {
    match Kif::read_all(text) {
        Ok(mut terms) if terms.len() == 1 => Ok(terms.remove(0)),
        Ok(terms) => Err(format!(
            "expected one term, found {} in {:?}",
            terms.len(),
            gdl::clip(text)
        )),
        Err(diagnostics) => Err(diagnostics
            .first()
            .map(|d| format!("{} in {:?}", d.message, gdl::clip(text)))
            .unwrap_or_else(|| "not a term".to_string())),
    }
}

/// The KIF text of a term given as a Python object: a string (one
/// constant, or a whole term in KIF), an integer (a constant written in
/// digits), or a tuple or list of those (a compound term). Refuses terms
/// nested deeper than the library reads.
pub fn py_to_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut out = String::new();
    write_term(obj, 0, &mut out)?;
    Ok(out)
}

fn write_term(obj: &Bound<'_, PyAny>, depth: usize, out: &mut String) -> PyResult<()> {
    if depth > DEFAULT_MAX_NESTING {
        return Err(PyValueError::new_err(format!(
            "a term nested more than {DEFAULT_MAX_NESTING} deep"
        )));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let s = s.to_str()?;
        if depth == 0 {
            // A whole term in KIF, such as "(mark 1 1)".
            out.push_str(s);
            return Ok(());
        }
        let plain = !s.is_empty()
            && !s
                .chars()
                .any(|c| c.is_whitespace() || matches!(c, '(' | ')' | ';'));
        if !plain {
            return Err(PyValueError::new_err(format!(
                "{:?} is not a constant (an element of a term tuple is one word)",
                gdl::clip(s)
            )));
        }
        out.push_str(s);
        return Ok(());
    }
    if obj.is_instance_of::<PyInt>() {
        out.push_str(&obj.str()?.to_string());
        return Ok(());
    }
    let items: Vec<Bound<'_, PyAny>> = if let Ok(t) = obj.cast::<PyTuple>() {
        t.iter().collect()
    } else if let Ok(l) = obj.cast::<PyList>() {
        l.iter().collect()
    } else {
        return Err(PyTypeError::new_err(format!(
            "a term is a string, an int, or a tuple of terms, not {}",
            obj.get_type().name()?
        )));
    };
    if items.is_empty() {
        return Err(PyValueError::new_err("an empty tuple is not a term"));
    }
    out.push('(');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_term(item, depth + 1, out)?;
    }
    out.push(')');
    Ok(())
}

/// The KIF text of a term given as text or as a tuple, with single spaces
/// and its names as written (`"(MARK  1 1)"` is `"(MARK 1 1)"`, and
/// `('mark', 1, 1)` is `"(mark 1 1)"`; GDL compares them without case).
/// Raises ValueError when it is not one term.
pub fn canonical(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = py_to_text(obj)?;
    read_one(&text)
        .map(|k| k.to_string())
        .map_err(PyValueError::new_err)
}

/// Reads one KIF term as nested tuples of strings: ``"(mark 1 (b c))"``
/// gives ``('mark', '1', ('b', 'c'))`` and ``"noop"`` gives ``'noop'``.
/// Names stay as written (GDL compares them without case); numbers stay
/// strings (GDL has none). Raises ValueError unless the text is exactly one term.
#[pyfunction]
pub fn parse_term<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    guard(py, || {
        let kif = read_one(text).map_err(PyValueError::new_err)?;
        kif_to_py(py, &kif)
    })
}

/// The KIF text of a term given as nested tuples (or as text):
/// ``('mark', 1, ('b', 'c'))`` gives ``"(mark 1 (b c))"``. Elements are
/// strings (one word each), ints or tuples. Raises ValueError or TypeError
/// for anything else.
#[pyfunction]
pub fn term_text(py: Python<'_>, term: &Bound<'_, PyAny>) -> PyResult<String> {
    guard(py, || canonical(term))
}
