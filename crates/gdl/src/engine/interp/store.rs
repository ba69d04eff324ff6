//! Fact stores: each relation's tuples with the indexes its join plans
//! need, one store per phase, and the layers of stores an evaluation reads.

use crate::plan::{IndexSpec, Program, RelId, Shape};
use crate::syntax::term::{TermId, TermTable};
use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::cell::Cell;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

fn hash_tuple(t: &[TermId]) -> u64 {
    let mut h = FxHasher::default();
    t.hash(&mut h);
    h.finish()
}

/// The facts of one relation: tuples stored flat, a hash set over them, and
/// the indexes its join plans need (made at the first fact, so an empty
/// relation allocates nothing).
#[derive(Clone, Debug, Default)]
pub struct Relation {
    arity: usize,
    pub(super) rows: u32,
    pub(super) data: Vec<TermId>,
    set: HashTable<u32>,
    indexes: Vec<Index>,
}

/// No row: the end of an index chain.
pub(super) const NO_ROW: u32 = u32::MAX;

/// One index of a relation: the rows whose arguments fit its shapes, in
/// groups of equal key, each group a chain of rows in the order derived.
/// Everything is stored flat, so adding a fact allocates nothing but the
/// amortised growth of a few vectors.
#[derive(Clone, Debug, Default)]
struct Index {
    /// How many terms a key has.
    key_len: usize,
    /// The groups, by the hash of their key.
    groups: HashTable<u32>,
    /// The key of group `g` at `g * key_len`.
    keys: Vec<TermId>,
    /// The first and the last row of each group.
    ends: Vec<(u32, u32)>,
    /// For each row of the relation, the next row of its group (`NO_ROW` at
    /// the end of a chain, and for rows that do not fit the index).
    next: Vec<u32>,
}

impl Index {
    fn key(&self, g: u32) -> &[TermId] {
        let n = self.key_len;
        &self.keys[g as usize * n..(g as usize + 1) * n]
    }

    /// The first row of the group with this key, if any.
    fn first(&self, key: &[TermId]) -> Option<u32> {
        if self.key_len == 0 {
            // One group at most, the rows that fit the shapes: no hashing.
            return self.ends.first().map(|&(first, _)| first);
        }
        self.groups
            .find(hash_tuple(key), |&g| self.key(g) == key)
            .map(|&g| self.ends[g as usize].0)
    }

    /// Adds row `row` (the newest of the relation) under `key`, or under
    /// no key when `key` is `None`.
    fn push(&mut self, row: u32, key: Option<&[TermId]>) {
        self.next.push(NO_ROW);
        let Some(key) = key else { return };
        if self.key_len == 0 {
            // The one group, kept without hashing (see `first`).
            match self.ends.first_mut() {
                Some((_, last)) => {
                    self.next[*last as usize] = row;
                    *last = row;
                }
                None => self.ends.push((row, row)),
            }
            return;
        }
        let hash = hash_tuple(key);
        let (keys, n) = (&self.keys, self.key_len);
        let same = |&g: &u32| &keys[g as usize * n..(g as usize + 1) * n] == key;
        if let Some(&g) = self.groups.find(hash, same) {
            let last = &mut self.ends[g as usize].1;
            self.next[*last as usize] = row;
            *last = row;
            return;
        }
        let g = self.ends.len() as u32;
        self.keys.extend_from_slice(key);
        self.ends.push((row, row));
        let keys = &self.keys;
        self.groups.insert_unique(hash, g, |&g| {
            hash_tuple(&keys[g as usize * n..(g as usize + 1) * n])
        });
    }
}

impl Relation {
    fn new(arity: usize) -> Relation {
        Relation {
            arity,
            ..Relation::default()
        }
    }

    /// How many facts it holds.
    pub fn len(&self) -> usize {
        self.rows as usize
    }

    /// True when it holds no fact.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The arguments of fact number `i`.
    pub fn row(&self, i: u32) -> &[TermId] {
        let a = self.arity;
        &self.data[i as usize * a..(i as usize + 1) * a]
    }

    /// Every fact, in the order derived.
    pub fn rows(&self) -> impl Iterator<Item = &[TermId]> {
        (0..self.rows).map(|i| self.row(i))
    }

    /// Every fact, flat: the arguments of fact `i` at `i * arity`.
    pub fn flat(&self) -> &[TermId] {
        &self.data
    }

    /// Makes its indexes those of `specs`, keeping each of `old` (the
    /// specs it was made with) that `specs` has too and building the rest
    /// from its facts.
    fn reindex(&mut self, old: &[IndexSpec], specs: &[IndexSpec], terms: &TermTable) {
        if self.rows == 0 {
            // Made at the first fact.
            self.indexes.clear();
            return;
        }
        let mut kept: Vec<Option<Index>> = std::mem::take(&mut self.indexes)
            .into_iter()
            .map(Some)
            .collect();
        let mut key = Vec::new();
        for spec in specs {
            if let Some(i) = old.iter().position(|o| o == spec)
                && let Some(index) = kept.get_mut(i).and_then(Option::take)
            {
                self.indexes.push(index);
                continue;
            }
            let key_len = spec.key_len();
            let rows = self.rows as usize;
            let mut index = Index {
                key_len,
                groups: HashTable::with_capacity(rows),
                keys: Vec::with_capacity(rows * key_len),
                ends: Vec::new(),
                next: Vec::with_capacity(rows),
            };
            for row in 0..self.rows {
                key.clear();
                let tuple = self.row(row);
                let fits = (spec.columns.iter().zip(tuple))
                    .all(|(shape, &t)| extract_arg(shape, t, terms, &mut key));
                index.push(row, fits.then_some(key.as_slice()));
            }
            self.indexes.push(index);
        }
    }

    /// Whether the fact is present.
    pub fn contains(&self, tuple: &[TermId]) -> bool {
        self.find(tuple).is_some()
    }

    /// The row number of the fact, if present.
    pub fn find(&self, tuple: &[TermId]) -> Option<u32> {
        self.set
            .find(hash_tuple(tuple), |&i| self.row(i) == tuple)
            .copied()
    }

    /// The first row whose key in index `ix` is `key` (the rest follow
    /// through `next_in`), if any.
    pub(super) fn first_in(&self, ix: usize, key: &[TermId]) -> Option<u32> {
        self.indexes.get(ix).and_then(|index| index.first(key))
    }

    /// The row after `row` in its group of index `ix`.
    pub(super) fn next_in(&self, ix: usize, row: u32) -> u32 {
        self.indexes[ix].next[row as usize]
    }

    /// Makes the indexes at the first fact (or keeps those of a cleared
    /// relation), with room for `hint` facts.
    fn reserve(&mut self, specs: &[IndexSpec], hint: usize) {
        self.data.reserve(hint * self.arity);
        let (data, arity) = (&self.data, self.arity);
        self.set.reserve(hint, |&i| {
            hash_tuple(&data[i as usize * arity..(i as usize + 1) * arity])
        });
        if self.indexes.len() == specs.len() {
            for index in &mut self.indexes {
                let (keys, n) = (&index.keys, index.key_len);
                index.groups.reserve(hint, |&g| {
                    hash_tuple(&keys[g as usize * n..(g as usize + 1) * n])
                });
                index.keys.reserve(hint * n);
                index.ends.reserve(hint);
                index.next.reserve(hint);
            }
            return;
        }
        self.indexes = specs
            .iter()
            .map(|spec| {
                let key_len = spec.key_len();
                Index {
                    key_len,
                    groups: HashTable::with_capacity(hint),
                    keys: Vec::with_capacity(hint * key_len),
                    ends: Vec::with_capacity(hint),
                    next: Vec::with_capacity(hint),
                }
            })
            .collect();
    }

    /// Drops every fact, keeping the memory for the next ones.
    fn clear(&mut self) {
        self.rows = 0;
        self.data.clear();
        self.set.clear();
        for index in &mut self.indexes {
            index.groups.clear();
            index.keys.clear();
            index.ends.clear();
            index.next.clear();
        }
    }

    /// Adds a fact unless present; returns whether it was new. `key` is
    /// scratch space.
    /// `hint` is how many facts it will likely hold.
    fn insert(
        &mut self,
        tuple: &[TermId],
        specs: &[IndexSpec],
        hint: usize,
        terms: &TermTable,
        key: &mut Vec<TermId>,
    ) -> bool {
        let hash = hash_tuple(tuple);
        if self.rows == 0 {
            self.reserve(specs, hint);
        } else if self.set.find(hash, |&i| self.row(i) == tuple).is_some() {
            return false;
        }
        let id = self.rows;
        self.data.extend_from_slice(tuple);
        self.rows += 1;
        let (data, arity) = (&self.data, self.arity);
        self.set.insert_unique(hash, id, |&i| {
            hash_tuple(&data[i as usize * arity..(i as usize + 1) * arity])
        });
        for (spec, index) in specs.iter().zip(&mut self.indexes) {
            key.clear();
            let fits = spec
                .columns
                .iter()
                .zip(tuple)
                .all(|(shape, &t)| extract_arg(shape, t, terms, key));
            index.push(id, fits.then_some(key.as_slice()));
        }
        true
    }
}

/// `extract` of a fact's argument, inlined into inserts for the common
/// shapes (a key or a free argument) and for a function term of another
/// functor (an index of `(true (cell ..))` seeing `(true (control ..))`),
/// the call left for function terms that may fit.
#[inline(always)]
fn extract_arg(shape: &Shape, t: TermId, terms: &TermTable, key: &mut Vec<TermId>) -> bool {
    match shape {
        Shape::Key => {
            key.push(t);
            true
        }
        Shape::Free => true,
        Shape::Func(f, ..) => terms.functor(t) == *f && extract(shape, t, terms, key),
    }
}

/// Appends the key parts of `t` under `shape`; false if `t` does not fit.
#[inline(never)]
fn extract(shape: &Shape, t: TermId, terms: &TermTable, key: &mut Vec<TermId>) -> bool {
    match shape {
        Shape::Key => {
            key.push(t);
            true
        }
        Shape::Free => true,
        Shape::Func(f, n, subs) => {
            terms.functor(t) == *f
                && terms.args(t).len() == *n as usize
                && subs
                    .iter()
                    .zip(terms.args(t))
                    .all(|(s, &a)| extract_arg(s, a, terms, key))
        }
    }
}

/// How many facts each relation held in the last state's or joint move's
/// model that had some (at most `SIZE_HINT_MAX`). A relation's vectors and
/// tables are sized by it at its first fact instead of growing from nothing
/// in every model, which cost more than the joins.
#[derive(Debug, Default)]
pub(crate) struct SizeHints(Box<[AtomicU32]>);

/// The largest size hint: a rare model with many facts of a relation does
/// not make every later one reserve as much.
const SIZE_HINT_MAX: u32 = 4096;

impl SizeHints {
    /// No hint yet for any of `relations` relations.
    pub(crate) fn new(relations: usize) -> SizeHints {
        SizeHints((0..relations).map(|_| AtomicU32::new(0)).collect())
    }

    fn get(&self, r: RelId) -> usize {
        self.0
            .get(r.0 as usize)
            .map_or(0, |h| h.load(Ordering::Relaxed) as usize)
    }

    /// Remembers that a model derived `rows` facts of `r`.
    fn learn(&self, r: RelId, rows: u32) {
        if let (true, Some(h)) = (rows > 0, self.0.get(r.0 as usize)) {
            h.store(rows.min(SIZE_HINT_MAX), Ordering::Relaxed);
        }
    }
}

/// The facts of one phase (static, one state, one joint move), one
/// `Relation` per relation of the program (those of other phases stay empty).
#[derive(Clone, Debug, Default)]
pub struct Store {
    relations: Vec<Relation>,
    facts: usize,
    /// Scratch space for index keys.
    key: Vec<TermId>,
    /// The sizes its relations had in earlier models, shared by the stores
    /// of one game's models (none for a store never written).
    hints: Arc<SizeHints>,
}

impl Store {
    /// An empty store for the program's relations, sizing them by `hints`
    /// (made for this program) and teaching them the sizes it reaches.
    pub fn new(p: &Program, hints: &Arc<SizeHints>) -> Store {
        Store {
            relations: p.relations.iter().map(|r| Relation::new(r.arity)).collect(),
            facts: 0,
            key: Vec::new(),
            hints: hints.clone(),
        }
    }

    /// Makes it an empty store for the program's relations, keeping the
    /// memory of the relations that held facts (so that a store used for
    /// one state after another allocates nothing once it has grown) and
    /// freeing that of the others (so that a store kept for later does not
    /// hold room for every relation that ever had facts in it).
    pub fn reset(&mut self, p: &Program) {
        if self.relations.len() != p.relations.len() {
            *self = Store::new(p, &self.hints);
            return;
        }
        for r in &mut self.relations {
            if r.rows > 0 {
                r.clear();
            } else if r.data.capacity() > 0 {
                *r = Relation::new(r.arity);
            }
        }
        self.facts = 0;
    }

    /// Makes its indexes those the plan `p` needs, where they are those
    /// of `old`: a plan of the same relations, such as the one that
    /// derived its facts (see `plan::plan_with`).
    pub fn reindex(&mut self, old: &Program, p: &Program, terms: &TermTable) {
        debug_assert_eq!(old.relations.len(), p.relations.len());
        for (i, r) in self.relations.iter_mut().enumerate() {
            let specs = &p.relations[i].indexes;
            let was = &old.relations[i].indexes;
            if was != specs {
                r.reindex(was, specs, terms);
            }
        }
    }

    /// The facts of a relation.
    pub fn relation(&self, r: RelId) -> &Relation {
        &self.relations[r.0 as usize]
    }

    /// Adds a fact (input facts such as `true` and `does`).
    pub fn insert(&mut self, p: &Program, r: RelId, tuple: &[TermId], terms: &TermTable) -> bool {
        let specs = &p.info(r).indexes;
        let hint = self.hints.get(r);
        let new = self.relations[r.0 as usize].insert(tuple, specs, hint, terms, &mut self.key);
        self.facts += new as usize;
        new
    }

    /// How many facts it holds in all.
    pub fn facts(&self) -> usize {
        self.facts
    }

    /// About how many bytes it holds on the heap (what its vectors and
    /// tables have room for).
    pub fn heap_bytes(&self) -> usize {
        let id = std::mem::size_of::<TermId>();
        // A hash table's slot: its `u32` and a control byte.
        let slot = std::mem::size_of::<u32>() + 1;
        self.relations.capacity() * std::mem::size_of::<Relation>()
            + self
                .relations
                .iter()
                .map(|r| {
                    r.data.capacity() * id
                        + r.set.capacity() * slot
                        + r.indexes
                            .iter()
                            .map(|ix| {
                                ix.groups.capacity() * slot
                                    + ix.keys.capacity() * id
                                    + ix.ends.capacity() * 8
                                    + ix.next.capacity() * 4
                            })
                            .sum::<usize>()
                })
                .sum::<usize>()
    }

    /// Remembers the size each of `relations` has now, for the stores made
    /// after it.
    pub(super) fn learn_sizes(&self, relations: impl Iterator<Item = RelId>) {
        for r in relations {
            self.hints.learn(r, self.relation(r).rows);
        }
    }
}

/// The stores an evaluation reads, by phase.
#[derive(Clone, Copy)]
pub(crate) struct Layers<'a> {
    /// The static, state and move stores, by `Phase as usize` (the order
    /// `Phase` declares them in): one load where a match on the phase
    /// cost a branch at every step entered and every round of a scan.
    stores: [&'a Store; 3],
    /// Negation of state or move facts is taken as true: the evaluation
    /// over-approximates every model (used to ground the rules).
    pub(super) relaxed: bool,
    /// When set, how many more candidate facts the joins may look at.
    pub(super) budget: Option<&'a Cell<u64>>,
}

impl<'a> Layers<'a> {
    /// Bounds the joins of an exact evaluation by `work` (a relaxed one
    /// keeps its grounding budget).
    pub(super) fn with_work(self, work: &'a Cell<u64>) -> Layers<'a> {
        Layers {
            budget: self.budget.or(Some(work)),
            ..self
        }
    }

    #[inline]
    pub(super) fn relation(&self, p: &Program, r: RelId) -> &'a Relation {
        self.stores[p.info(r).phase as usize].relation(r)
    }
}

/// Which phase a run of strata writes, and the stores of the phases below.
#[derive(Clone, Copy)]
pub enum Target<'a> {
    /// Deriving the static facts.
    Static,
    /// Deriving a state's facts over the static ones.
    State {
        /// The static facts.
        static_: &'a Store,
    },
    /// Deriving a joint move's facts over the static and the state's.
    Move {
        /// The static facts.
        static_: &'a Store,
        /// The state's facts.
        state: &'a Store,
    },
    /// Deriving every state and move fact that could ever hold, into one
    /// store, ignoring negation of such facts (an over-approximation).
    Relaxed {
        /// The static facts.
        static_: &'a Store,
        /// How many candidate facts the joins may still look at.
        budget: &'a Cell<u64>,
    },
}

impl<'a> Target<'a> {
    /// The stores to read, with `target` in the phase being written.
    pub(crate) fn layers(self, target: &'a Store, empty: &'a Store) -> Layers<'a> {
        let (static_, state, moves, budget) = match self {
            Target::Static => (target, empty, empty, None),
            Target::State { static_ } => (static_, target, empty, None),
            Target::Move { static_, state } => (static_, state, target, None),
            Target::Relaxed { static_, budget } => (static_, target, target, Some(budget)),
        };
        Layers {
            stores: [static_, state, moves],
            relaxed: budget.is_some(),
            budget,
        }
    }
}
