//! The models derived for states, memoised by state.

use super::types::State;
use crate::engine::ground::Values;
use crate::engine::interp::Store;
use rustc_hash::FxHashMap;

/// The default number of state models kept per generation of the memo.
pub(crate) const DEFAULT_MEMO_CAPACITY: usize = 1024;

/// The default number per generation when the interpreter evaluates the
/// game: its models are fact stores with indexes (some 17 KiB a state in
/// Brazilian draughts, against some 1.5 KiB of truth values for ground
/// rules), and memory that large goes cold between visits. Measured on
/// Brazilian draughts (`gdl bench`, medians of alternating runs): 1,024 a
/// generation, 640 to 741 playouts/s and 72 MiB resident; 64, 813 to 915
/// playouts/s and 39 MiB.
pub(crate) const DEFAULT_INTERPRETED_MEMO_CAPACITY: usize = 64;

/// The facts derived so far for one state: relations of facts for the
/// interpreter, or one truth value per atom for the ground rules.
pub(super) enum Facts {
    Store(Store),
    Values(Values),
}

/// What has been derived for one state.
pub(super) struct Model {
    pub(super) facts: Facts,
    pub(super) done: Vec<bool>,
}

/// Memoised models by state: the model in use, then two generations of
/// others. When the newer generation is full it becomes the older one and
/// the older one is dropped, so memory is bounded by twice the capacity and
/// recently used models survive. Queries on the model in use (the common
/// case: terminal, legal, next of one state) need no hashing. Dropped
/// models are kept as spares and made into the models of new states, so
/// that a long run of new states (a playout) reuses their memory instead of
/// allocating and freeing it state after state.
#[derive(Default)]
pub(super) struct Memo {
    pub(super) current: Option<(State, Box<Model>)>,
    pub(super) new: FxHashMap<State, Box<Model>>,
    pub(super) old: FxHashMap<State, Box<Model>>,
    /// Boxed as in the maps, so a model moves between them as a pointer.
    #[allow(clippy::vec_box)]
    pub(super) spare: Vec<Box<Model>>,
    pub(super) capacity: usize,
}

impl Memo {
    /// Makes the model of `state` the one in use, taking it from the memo
    /// or making it with `make` (from a spare model when there is one).
    pub(super) fn select(
        &mut self,
        state: &State,
        make: impl FnOnce(Option<Box<Model>>) -> Box<Model>,
    ) -> &mut Model {
        if !matches!(&self.current, Some((s, _)) if s == state) {
            if let Some((s, m)) = self.current.take() {
                if self.capacity == 0 {
                    self.spare.push(m);
                } else {
                    if self.new.len() >= self.capacity {
                        let dropped =
                            std::mem::replace(&mut self.old, std::mem::take(&mut self.new));
                        // The spares never outnumber a generation.
                        let room = self.capacity.saturating_sub(self.spare.len());
                        self.spare.extend(dropped.into_values().take(room));
                    }
                    self.new.insert(s, m);
                }
            }
            let model = match self.new.remove(state).or_else(|| self.old.remove(state)) {
                Some(model) => model,
                None => make(self.spare.pop()),
            };
            self.current = Some((state.clone(), model));
        }
        &mut self.current.as_mut().expect("just selected").1
    }

    /// The model in use, which must be that of `state`.
    pub(super) fn in_use(&self, state: &State) -> &Model {
        match &self.current {
            Some((s, m)) if s == state => m,
            _ => unreachable!("the state's model is selected before it is read"),
        }
    }

    pub(super) fn clear(&mut self) {
        self.current = None;
        self.new.clear();
        self.old.clear();
        self.spare.clear();
    }
}
