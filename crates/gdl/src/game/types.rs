//! The game's small value types: roles, moves and states.

use crate::syntax::term::TermId;
use std::fmt;
use std::str::FromStr;
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
    /// and [`crate::Limits::max_ground_atoms`] where set) and, under
    /// [`EngineChoice::Auto`] for a game of over 100,000 ground rules,
    /// they cost less to play than the interpreter (see
    /// [`EngineChoice::Auto`]): incrementally, on a [`crate::Stepper`], when they have no cycle of
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

/// Which engine a game is loaded on: an input of every load (the
/// `engine` of [`crate::LoadOptions`]), so that one file gets one engine
/// on any machine and under any load.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EngineChoice {
    /// Ground rules where they fit the limits and play cheaper than the
    /// interpreter, else the interpreter. Cheaper is decided by counting
    /// the work each engine spends on the same seeded random playouts at
    /// load (join candidates, rules checked, network updates), weighed by
    /// fixed constants: a count, not a time, so the choice does not depend
    /// on the machine or its load.
    #[default]
    Auto,
    /// Ground rules, or an error (`not-ground`) when the rules do not
    /// ground within the limits.
    Ground,
    /// The interpreter, on the rules as written (never ground).
    Interpreter,
}

impl EngineChoice {
    /// The names of the choices, as [`EngineChoice::from_str`] reads them.
    pub const NAMES: [&'static str; 3] = ["auto", "ground", "interpreter"];

    /// Its name: `auto`, `ground` or `interpreter`.
    pub fn name(self) -> &'static str {
        match self {
            EngineChoice::Auto => "auto",
            EngineChoice::Ground => "ground",
            EngineChoice::Interpreter => "interpreter",
        }
    }
}

impl fmt::Display for EngineChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EngineChoice {
    type Err = String;

    /// Reads `auto`, `ground` or `interpreter` (in any case).
    fn from_str(text: &str) -> Result<EngineChoice, String> {
        match text.to_ascii_lowercase().as_str() {
            "auto" => Ok(EngineChoice::Auto),
            "ground" => Ok(EngineChoice::Ground),
            "interpreter" => Ok(EngineChoice::Interpreter),
            _ => Err(format!(
                "unknown engine `{text}`: expected one of auto, ground, interpreter"
            )),
        }
    }
}
