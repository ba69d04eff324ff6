//! The library's tests, one binary: the checker's diagnostics, agreement
//! with the reference engine's traces, the engines against a naive
//! evaluator and against each other, the stepper, join plans, the formatter
//! on every rules file, and the fuzz
//! corpus. (Memory over long runs is `tests/memory.rs`, a process of its
//! own.)

/// The allocator of the `gdl` command, so that `Limits::max_memory` (and
/// grounding's share of it) holds here as it does there: without it a
/// game too large to ground grounds on until its work runs out (brazilian
/// draughts: 3.5 GB and 100 s of loading instead of 0.4 GB and 7 s).
#[global_allocator]
static ALLOCATOR: gdl::CountingAllocator = gdl::CountingAllocator;

mod base;
mod check;
mod choice;
mod corpus;
mod demand;
mod figures;
mod fixed;
mod format;
mod fuzz_corpus;
mod grounding;
mod infix;
mod more_games;
mod naive_model;
mod plan_order;
mod playout;
mod search;
mod stepper;
mod trace_digest;

use std::path::{Path, PathBuf};

/// A file of the tests: `tests/games/nim.gdl` in this crate, or, when the
/// crate has no such file, `rules/tictactoe.gdl` from the repository's root.
pub fn path(file: &str) -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let local = here.join(file);
    if local.exists() {
        local
    } else {
        here.join("../..").join(file)
    }
}
