//! The Python module `gdl._gdl`: the `gdl` library's game API for Python,
//! wrapped by the package `gdl` (python/gdl/).
//!
//! Every function and method runs under [`guard`], so that a panic of the
//! library reaches Python as `gdl.InternalError` and never as an abort; a
//! `Game` is a mutex around a `gdl::Game`, held only while Rust code runs
//! (no Python code runs under it, so no thread can wait for it while
//! holding what its holder needs).
#![warn(missing_docs)]

mod batch;
mod errors;
mod game;
mod interrupt;
mod playouts;
mod search;
mod terms;
mod values;

use pyo3::prelude::*;

pub(crate) use errors::guard;

/// The allocator of the `gdl` command, counting the bytes the module's Rust
/// code holds, so that `max_memory` (and grounding's share of it) holds in
/// Python as on the command line: without it, the budget is not enforced
/// and a game too large to ground grounds on until its work runs out.
#[global_allocator]
static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;

/// The extension module: the classes and functions the package `gdl`
/// re-exports.
#[pymodule]
fn _gdl(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<game::Game>()?;
    m.add_class::<values::State>()?;
    m.add_class::<values::Move>()?;
    m.add_class::<values::Diagnostic>()?;
    m.add_class::<search::SearchPlayer>()?;
    m.add_class::<batch::Batch>()?;
    m.add_function(wrap_pyfunction!(game::load, m)?)?;
    m.add_function(wrap_pyfunction!(game::loads, m)?)?;
    m.add_function(wrap_pyfunction!(terms::parse_term, m)?)?;
    m.add_function(wrap_pyfunction!(terms::term_text, m)?)?;
    Ok(())
}
