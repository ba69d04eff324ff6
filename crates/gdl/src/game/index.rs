//! The positions of a fixed list of facts in a state: what a learner's
//! observation vector needs (one entry per `base` fact, say), found from
//! the state's interned facts without writing them as text.

use super::{Game, State, Stepper};
use crate::syntax::term::TermId;

/// The positions of a fixed list of facts, made by [`Game::fact_index`]:
/// [`FactIndex::positions`] gives those of a state's facts that are in the
/// list. It answers for the states of the game that made it and of the
/// clones of that game made after it (they share its terms).
///
/// ```
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/tictactoe.gdl");
/// let mut game = gdl::Game::load(path)?;
/// let index = game.fact_index(&["(cell 1 1 b)", "(cell 1 1 x)"]).unwrap();
/// let start = game.initial_state();
/// assert_eq!(index.positions(&start).collect::<Vec<_>>(), vec![0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct FactIndex {
    /// The position of each fact of the list, by term number (`NONE` for
    /// the other terms): a table, not a map, since it is read for every
    /// fact of every state observed.
    of: Vec<u32>,
    /// How many facts the list has.
    len: usize,
}

/// The entry of a term that is not in the list.
const NONE: u32 = u32::MAX;

impl FactIndex {
    /// How many facts the list has.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The positions in the list of the facts of `state` that are in it,
    /// in no particular order.
    pub fn positions<'a>(&'a self, state: &'a State) -> impl Iterator<Item = usize> + 'a {
        state.0.iter().filter_map(|&t| self.position(t))
    }

    /// The positions in the list of the facts of the stepper's position
    /// that are in it, in no particular order, without building its
    /// `State` (the stepper must be on its ground rules: see
    /// [`Stepper::is_off`]; off them, use `positions` of
    /// [`Stepper::state`]).
    pub fn positions_on<'a>(&'a self, stepper: &'a Stepper) -> impl Iterator<Item = usize> + 'a {
        stepper.holding().filter_map(|t| self.position(t))
    }

    /// The position in the list of each fact that the steppers of the game
    /// of `stepper` number (see [`Stepper::holding_bits`]), by its number:
    /// `None` for those not in the list. Made once, it turns a position's
    /// bits into an observation without looking up a fact.
    pub fn stepper_positions(&self, stepper: &Stepper) -> Vec<Option<u32>> {
        (stepper.bit_facts().iter())
            .map(|&t| self.position(t).map(|i| i as u32))
            .collect()
    }

    /// The position of a term in the list.
    fn position(&self, t: TermId) -> Option<usize> {
        let i = *self.of.get(t.0 as usize)?;
        (i != NONE).then_some(i as usize)
    }
}

impl Game {
    /// The index of `facts` (each a ground KIF term such as `(cell 1 1 x)`,
    /// names matched without case): fact `i` is at position `i`. A fact
    /// that is not a ground term is refused with its position in `facts`
    /// and the reason.
    pub fn fact_index<S: AsRef<str>>(&mut self, facts: &[S]) -> Result<FactIndex, (usize, String)> {
        let ids = self.intern_facts(facts)?;
        let top = ids.iter().map(|t| t.0 as usize + 1).max().unwrap_or(0);
        let mut of = vec![NONE; top];
        for (i, t) in ids.iter().enumerate() {
            // A list longer than u32::MAX facts cannot be interned anyway.
            of[t.0 as usize] = u32::try_from(i).unwrap_or(NONE);
        }
        Ok(FactIndex { of, len: ids.len() })
    }
}
