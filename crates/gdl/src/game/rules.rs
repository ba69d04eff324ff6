//! What loading leaves fixed for the lifetime of a rules file.

use super::ground::GroundTables;
use super::stepper;
use super::types::State;
use crate::engine::interp::{SizeHints, Store};
use crate::error::Diagnostic;
use crate::limits::LimitKind;
use crate::plan::Program;
use crate::source::SourceFile;
use crate::syntax::term::TermId;
use std::sync::Arc;

/// What loading leaves fixed for the lifetime of a rules file, shared by all
/// clones of a `Game`.
#[derive(Debug)]
pub(super) struct Rules {
    pub(super) source: SourceFile,
    pub(super) program: Program,
    /// The plan of the rules as written, when `program` plans them
    /// condensed for grounding (plan::condense): what `gdl plan` shows.
    pub(super) written: Option<Program>,
    /// How many facts each relation held in the last model that had some,
    /// shared by the stores of every model.
    pub(super) sizes: Arc<SizeHints>,
    pub(super) static_facts: Store,
    pub(super) roles: Vec<TermId>,
    pub(super) role_names: Vec<String>,
    pub(super) initial: State,
    pub(super) warnings: Vec<Diagnostic>,
    /// State-phase strata needed for each query.
    pub(super) legal: Vec<usize>,
    pub(super) terminal: Vec<usize>,
    pub(super) goal: Vec<usize>,
    pub(super) next_state: Vec<usize>,
    /// Move-phase strata needed for `next`.
    pub(super) next_moves: Vec<usize>,
    /// The ground rules, when grounding fit its budget (shared with the
    /// models of states they evaluate).
    pub(super) ground: Option<Arc<GroundTables>>,
    /// Whether the ground rules are of the rules with their chains of
    /// conditions cut (`rewrite::condense::condense_chains`).
    pub(super) chains_cut: bool,
    /// The limit that stopped grounding, when it was tried and failed.
    pub(super) grounding_stop: Option<LimitKind>,
    /// The tables of the incremental fast path, when the ground rules have
    /// no cycle of atoms (see `incremental`).
    pub(super) stepper: Option<Arc<stepper::Tables>>,
}
