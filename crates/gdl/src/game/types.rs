//! The game's small value types: roles, moves, states and goal values.

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

/// Each role's goal value, in role order: how a random playout ended
/// ([`crate::Outcome`]). Up to [`Goals::INLINE`] roles are held in the
/// value itself, more on the heap: a playout of the smallest games takes
/// some 300 ns, of which allocating its goals took a tenth. Reads as a
/// slice (`&goals[..]`, `goals.to_vec()`, `Vec::from(goals)`).
#[derive(Clone, Default)]
pub struct Goals {
    len: usize,
    inline: [u8; Goals::INLINE],
    heap: Vec<u8>,
}

impl Goals {
    /// The most roles whose goals are held without allocating.
    pub const INLINE: usize = 16;

    /// Adds the next role's goal value.
    pub(crate) fn push(&mut self, value: u8) {
        if self.len < Goals::INLINE {
            self.inline[self.len] = value;
        } else {
            if self.len == Goals::INLINE {
                self.heap.extend_from_slice(&self.inline);
            }
            self.heap.push(value);
        }
        self.len += 1;
    }
}

impl std::ops::Deref for Goals {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self.len {
            n if n <= Goals::INLINE => &self.inline[..n],
            _ => &self.heap,
        }
    }
}

impl fmt::Debug for Goals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq for Goals {
    fn eq(&self, other: &Goals) -> bool {
        **self == **other
    }
}

impl Eq for Goals {}

impl std::hash::Hash for Goals {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl PartialEq<Vec<u8>> for Goals {
    fn eq(&self, other: &Vec<u8>) -> bool {
        **self == other[..]
    }
}

impl<const N: usize> PartialEq<[u8; N]> for Goals {
    fn eq(&self, other: &[u8; N]) -> bool {
        **self == other[..]
    }
}

impl FromIterator<u8> for Goals {
    fn from_iter<I: IntoIterator<Item = u8>>(values: I) -> Goals {
        let mut goals = Goals::default();
        values.into_iter().for_each(|v| goals.push(v));
        goals
    }
}

impl From<Vec<u8>> for Goals {
    fn from(values: Vec<u8>) -> Goals {
        match values.len() {
            n if n <= Goals::INLINE => values.into_iter().collect(),
            len => Goals {
                len,
                inline: [0; Goals::INLINE],
                heap: values,
            },
        }
    }
}

impl From<Goals> for Vec<u8> {
    fn from(goals: Goals) -> Vec<u8> {
        match goals.len {
            n if n <= Goals::INLINE => goals.inline[..n].to_vec(),
            _ => goals.heap,
        }
    }
}

impl<'a> IntoIterator for &'a Goals {
    type Item = &'a u8;
    type IntoIter = std::slice::Iter<'a, u8>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
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
    /// [`EngineChoice::Auto`]): incrementally, on a [`crate::Stepper`],
    /// unless a rule reads negated an atom of its own cycle. Where the rules declare `base`, they are ground over those
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

/// When a playout stops before a terminal state: after `max_steps` joint
/// moves, or once `deadline` has passed or `cancel` is set (whichever
/// comes first). The clock and the flag are looked at before every step
/// of the general API, and every 16 steps of a stepper (the first look
/// after 15: a look costs some 20 ns, a step of the smallest games 50),
/// so a playout stops within a few steps of its deadline however long it
/// would have gone on.
///
/// ```
/// use std::time::{Duration, Instant};
/// let stop = gdl::Stop::steps(1000).until(Instant::now() + Duration::from_secs(1));
/// assert_eq!(stop.max_steps, 1000);
/// assert!(stop.deadline.is_some() && stop.cancel.is_none());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Stop<'a> {
    /// The most joint moves to play.
    pub max_steps: usize,
    /// The time past which the playout stops.
    pub deadline: Option<std::time::Instant>,
    /// A flag that stops the playout once set (by another thread: a run
    /// of games given up, Ctrl-C).
    pub cancel: Option<&'a std::sync::atomic::AtomicBool>,
}

impl Stop<'static> {
    /// After `max_steps` joint moves, with no deadline and no flag.
    pub fn steps(max_steps: usize) -> Stop<'static> {
        Stop {
            max_steps,
            deadline: None,
            cancel: None,
        }
    }
}

impl<'a> Stop<'a> {
    /// The same, stopping also at `deadline`.
    pub fn until(self, deadline: std::time::Instant) -> Stop<'a> {
        Stop {
            deadline: Some(deadline),
            ..self
        }
    }

    /// The same, stopping also once `cancel` is set.
    pub fn or_cancelled<'b>(self, cancel: &'b std::sync::atomic::AtomicBool) -> Stop<'b>
    where
        'a: 'b,
    {
        Stop {
            max_steps: self.max_steps,
            deadline: self.deadline,
            cancel: Some(cancel),
        }
    }

    /// Whether the playout has a deadline or a flag to look at.
    pub(crate) fn looks(&self) -> bool {
        self.deadline.is_some() || self.cancel.is_some()
    }

    /// Whether the deadline has passed or the flag is set.
    pub(crate) fn late(&self) -> bool {
        self.cancel
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
            || self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
    }
}

#[cfg(test)]
mod tests {
    use super::Goals;

    /// Goals past the inline ones move to the heap, keeping their order,
    /// and compare, hash and convert by their values whichever way they
    /// are held.
    #[test]
    fn goals_read_the_same_inline_and_on_the_heap() {
        for n in [
            0,
            1,
            Goals::INLINE - 1,
            Goals::INLINE,
            Goals::INLINE + 1,
            40,
        ] {
            let values: Vec<u8> = (0..n).map(|i| (i * 7 % 101) as u8).collect();
            let pushed: Goals = values.iter().copied().collect();
            let converted = Goals::from(values.clone());
            assert_eq!(&pushed[..], &values[..], "{n} roles");
            assert_eq!(pushed, converted, "{n} roles");
            assert!(pushed == values, "{n} roles");
            assert_eq!(Vec::from(converted), values, "{n} roles");
            assert_eq!(format!("{pushed:?}"), format!("{values:?}"));
            let hash = |g: &Goals| {
                use std::hash::{BuildHasher, BuildHasherDefault};
                BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
                    .hash_one(g)
            };
            assert_eq!(hash(&pushed), hash(&Goals::from(values.clone())));
            assert_eq!((&pushed).into_iter().count(), n);
        }
        let (two, one): (Goals, Goals) =
            ([100, 0].into_iter().collect(), [100].into_iter().collect());
        assert!(two == [100, 0] && two != one && one == vec![100]);
    }
}
