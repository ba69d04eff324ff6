//! The models derived for states, memoised by state.

use super::ground::GroundTables;
use super::types::State;
use crate::engine::ground::Values;
use crate::engine::interp::Store;
use rustc_hash::FxHashMap;
use std::sync::Arc;

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
/// interpreter, or one truth value per atom of the ground rules (with the
/// ground rules, which the state's queries read them by).
pub(super) enum Facts {
    Store(Store),
    Values(Arc<GroundTables>, Values),
}

/// What has been derived for one state.
pub(super) struct Model {
    pub(super) facts: Facts,
    pub(super) done: Vec<bool>,
    /// Whether it is a model of the rules as written kept beside the
    /// game's (`Rules::answering`): a state whose facts of a relation no
    /// move changes are not `init`'s.
    pub(super) written: bool,
}

impl Model {
    /// About how many bytes it holds on the heap.
    fn bytes(&self) -> usize {
        let facts = match &self.facts {
            Facts::Store(store) => store.heap_bytes(),
            Facts::Values(_, values) => values.heap_bytes(),
        };
        facts + self.done.capacity() + std::mem::size_of::<Model>()
    }
}

/// The share of [`crate::Limits::max_memory`] one generation of the memo
/// may hold (and the spare models as much): a thirty-second, so that the
/// memo never holds more than three thirty-seconds of the budget (384 MiB
/// of the default 4 GiB).
pub(crate) const MEMO_SHARE: usize = 32;

/// One model in this many is weighed (see `Memo::weigh`).
const WEIGH_EVERY: usize = 16;

/// Memoised models by state: the model in use, then two generations of
/// others. When the newer generation is full (in models or in bytes) it
/// becomes the older one and
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
    /// The most models a generation holds.
    pub(super) capacity: usize,
    /// The most bytes a generation holds, and the spares.
    pub(super) max_bytes: usize,
    /// The bytes held by the newer generation and by the spares.
    new_bytes: usize,
    spare_bytes: usize,
    /// The size of the model last weighed, and how many models were
    /// weighed since (see [`Memo::weigh`]).
    last_bytes: usize,
    weighed: usize,
}

impl Memo {
    /// An empty memo of `capacity` models and `max_bytes` bytes a generation.
    pub(super) fn new(capacity: usize, max_bytes: usize) -> Memo {
        Memo {
            capacity,
            max_bytes,
            ..Memo::default()
        }
    }
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
                    // Playouts: the model is recycled for the next state at
                    // once, so there is at most one spare and nothing to
                    // weigh.
                    self.spare.push(m);
                } else {
                    let bytes = self.weigh(&m);
                    if self.new.len() >= self.capacity || self.new_bytes + bytes > self.max_bytes {
                        let dropped =
                            std::mem::replace(&mut self.old, std::mem::take(&mut self.new));
                        self.new_bytes = 0;
                        for m in dropped.into_values() {
                            self.keep_spare(m);
                        }
                    }
                    self.new_bytes += bytes;
                    self.new.insert(s, m);
                }
            }
            // A model taken from the newer generation stays counted in its
            // bytes until the generation is dropped: the count errs high.
            let model = match self.new.remove(state).or_else(|| self.old.remove(state)) {
                Some(model) => model,
                None => {
                    let spare = self.spare.pop();
                    if let (Some(m), true) = (&spare, self.capacity > 0) {
                        let bytes = self.weigh(m);
                        self.spare_bytes = self.spare_bytes.saturating_sub(bytes);
                    }
                    make(spare)
                }
            };
            self.current = Some((state.clone(), model));
        }
        &mut self.current.as_mut().expect("just selected").1
    }

    /// About how many bytes `model` holds: measured on one model in
    /// [`WEIGH_EVERY`] (walking every relation of a model costs a tenth of a
    /// playout's time), the last measure otherwise, as the models of one
    /// game are of a size.
    fn weigh(&mut self, model: &Model) -> usize {
        if self.weighed.is_multiple_of(WEIGH_EVERY) {
            self.last_bytes = model.bytes();
        }
        self.weighed += 1;
        self.last_bytes
    }

    /// Keeps a dropped model to make a new one from, unless the spares
    /// already number a generation or hold its bytes.
    fn keep_spare(&mut self, m: Box<Model>) {
        if self.spare.len() >= self.capacity {
            return;
        }
        let bytes = self.weigh(&m);
        if self.spare_bytes + bytes <= self.max_bytes {
            self.spare_bytes += bytes;
            self.spare.push(m);
        }
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
        self.new_bytes = 0;
        self.spare_bytes = 0;
    }
}
