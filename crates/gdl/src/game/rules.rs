//! What loading leaves fixed for the lifetime of a rules file.

use super::ground::GroundTables;
use super::stepper;
use super::types::State;
use crate::engine::interp::{SizeHints, Store};
use crate::error::Diagnostic;
use crate::limits::LimitKind;
use crate::plan::Program;
use crate::rewrite::fixed::FixedRelation;
use crate::source::SourceFile;
use crate::syntax::symbol::Symbol;
use crate::syntax::term::TermId;
use crate::syntax::term::TermTable;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::{Arc, OnceLock};

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
    /// How the bodies of the rules ground were split, beyond
    /// condensation.
    pub(super) split: Split,
    /// The limit that stopped grounding, when it was tried and failed.
    pub(super) grounding_stop: Option<LimitKind>,
    /// The tables of the incremental fast path, when no ground rule reads
    /// negated an atom of its own cycle (see `incremental`).
    pub(super) stepper: Option<Arc<stepper::Tables>>,
    /// The tables of the stepper of random outcomes, over the cone of
    /// legal moves, goals and `terminal` alone, where it leaves out enough
    /// (see `cone`); made once, by `Game::outcome_tables`.
    pub(super) outcomes: OnceLock<Option<Arc<stepper::Tables>>>,
    /// Where the rules read relations of the state that no move changes
    /// from static copies (`rewrite::fixed`): those relations, and the
    /// rules as written (set once, when loading has chosen the engine).
    pub(super) fixed: OnceLock<Fixed>,
}

impl Rules {
    /// The rules that answer a state whose model is `written` (see
    /// [`Fixed::holds_in`]): the rules as written where so, else these.
    pub(super) fn answering(&self, written: bool) -> &Rules {
        match self.fixed.get() {
            Some(fixed) if written => &fixed.written,
            _ => self,
        }
    }

    /// Whether `state` must be answered by the rules as written: its
    /// facts of the relations that no move changes are not `init`'s.
    pub(super) fn needs_written(&self, state: &State, terms: &TermTable) -> bool {
        self.fixed.get().is_some_and(|f| !f.holds_in(state, terms))
    }
}

/// Relations of the state that no move changes, which a game's rules read
/// from static copies of `init` (`rewrite::fixed`), and the rules as
/// written, which answer a state built with other facts of them.
#[derive(Debug)]
pub(super) struct Fixed {
    /// The patterns of the facts by function symbol and arity.
    patterns: FxHashMap<(Symbol, usize), Vec<Constants>>,
    /// Their facts in the initial state.
    facts: FxHashSet<TermId>,
    /// The rules as written, interpreted, over the same terms.
    pub(super) written: Arc<Rules>,
}

/// The places of a pattern given as constants, with their terms (`None`
/// for a constant no term is: no fact has it).
type Constants = Vec<(usize, Option<TermId>)>;

impl Fixed {
    /// The facts `fixed` of a game whose initial state is `initial`, with
    /// the rules as written.
    pub(super) fn new(
        fixed: &[FixedRelation],
        initial: &State,
        terms: &TermTable,
        written: Arc<Rules>,
    ) -> Fixed {
        let mut patterns: FxHashMap<_, Vec<_>> = FxHashMap::default();
        for f in fixed {
            let p = &f.pattern;
            // A constant no term is yet is in no fact.
            let constants = (p.constants.iter())
                .map(|&(i, c)| (i, terms.lookup(c, &[])))
                .collect();
            patterns
                .entry((p.name, p.arity))
                .or_default()
                .push(constants);
        }
        let mut fixed = Fixed {
            patterns,
            facts: FxHashSet::default(),
            written,
        };
        fixed.facts = (initial.0.iter().copied())
            .filter(|&f| fixed.is_fixed(f, terms))
            .collect();
        fixed
    }

    /// Whether `fact` is one that no move changes.
    pub(super) fn is_fixed(&self, fact: TermId, terms: &TermTable) -> bool {
        let args = terms.args(fact);
        (self.patterns.get(&(terms.functor(fact), args.len()))).is_some_and(|patterns| {
            (patterns.iter()).any(|constants| (constants.iter()).all(|&(i, c)| c == Some(args[i])))
        })
    }

    /// Whether `state`'s facts of the relations are those of the initial
    /// state, as in every state play reaches: the rewritten rules mean
    /// what the rules as written mean there.
    pub(super) fn holds_in(&self, state: &State, terms: &TermTable) -> bool {
        let mut held = 0;
        for &f in state.0.iter() {
            if self.is_fixed(f, terms) {
                if !self.facts.contains(&f) {
                    return false;
                }
                held += 1;
            }
        }
        held == self.facts.len()
    }
}

/// How the bodies of ground rules were split into joins of their own,
/// beyond condensation (`rewrite::condense`), where the rules did not
/// ground without it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Split {
    /// Condensed at most.
    Condensed,
    /// With their chains of conditions cut
    /// (`rewrite::condense::condense_chains`).
    Chains,
    /// With their variables eliminated one join at a time
    /// (`rewrite::eliminate`).
    Variables,
}

impl Split {
    /// What `gdl plan` says of it after "ground": nothing when condensed.
    pub(super) fn says(self) -> &'static str {
        match self {
            Split::Condensed => "",
            Split::Chains => " with their chains of conditions cut",
            Split::Variables => " with their variables eliminated one join at a time",
        }
    }
}
