//! The game's small value types: roles, moves and states.

use crate::syntax::term::TermId;
use std::fmt;
use std::sync::Arc;

/// A player of the game, by its position in the `role` facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Role(pub u32);

/// A move term, such as `(move a 2 b 3)`, interned in its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(pub(crate) TermId);

/// A game state: the set of ground facts that hold, as interned terms
/// (sorted, no duplicates). Hashable and cheap to clone. Only meaningful with
/// the `Game` (or a clone of it) that produced it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State(pub(crate) Arc<[TermId]>);

impl State {
    /// The state of these facts, in any order, duplicates allowed.
    pub(crate) fn from_terms(mut facts: Vec<TermId>) -> State {
        if !facts.windows(2).all(|w| w[0] < w[1]) {
            facts.sort_unstable();
            facts.dedup();
        }
        State(facts.into())
    }

    /// How many facts the state holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for the empty state.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// How a game's states are evaluated, chosen when it loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Engine {
    /// By its ground rules, when grounding fit its limits (its share of
    /// [`crate::Limits::max_memory`], [`crate::Limits::max_ground_work`],
    /// and [`crate::Limits::max_ground_atoms`] where set) and, for a game
    /// of over 100,000 ground rules or atoms, they played faster than the
    /// interpreter in a moment of random playouts at load:
    /// incrementally, on a [`crate::Stepper`], when they have no cycle of
    /// atoms. Where the rules declare `base`, they are ground over those
    /// facts only, and a state holding a fact `base` leaves out is
    /// evaluated by the interpreter.
    Ground {
        /// The ground atoms (facts that could hold).
        atoms: usize,
        /// The ground rules.
        rules: usize,
    },
    /// By the interpreter, bottom-up over fact stores, when the game does
    /// not ground within the limits.
    Interpreter,
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Engine::Ground { atoms, rules } => {
                write!(f, "ground rules ({atoms} atoms, {rules} rules)")
            }
            Engine::Interpreter => f.write_str("interpreter"),
        }
    }
}
