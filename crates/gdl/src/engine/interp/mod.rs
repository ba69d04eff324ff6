//! Bottom-up evaluation: fact stores with indexes, and the semi-naive
//! fixpoint of each stratum following its join plans.

use crate::error::GameError;
use crate::limits::{LimitKind, Limits};
use crate::plan::{IndexSpec, Pat, Phase, Program, RelId, Shape, Step};
use crate::syntax::symbol::{Symbol, Symbols};
use crate::syntax::term::{TermId, TermTable};
use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::cell::Cell;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
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
    rows: u32,
    data: Vec<TermId>,
    set: HashTable<u32>,
    indexes: Vec<Index>,
}

/// No row: the end of an index chain.
const NO_ROW: u32 = u32::MAX;

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
    fn first_in(&self, ix: usize, key: &[TermId]) -> Option<u32> {
        self.indexes.get(ix).and_then(|index| index.first(key))
    }

    /// The row after `row` in its group of index `ix`.
    fn next_in(&self, ix: usize, row: u32) -> u32 {
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
pub struct SizeHints(Box<[AtomicU32]>);

/// The largest size hint: a rare model with many facts of a relation does
/// not make every later one reserve as much.
const SIZE_HINT_MAX: u32 = 4096;

impl SizeHints {
    /// No hint yet for any of `relations` relations.
    pub fn new(relations: usize) -> SizeHints {
        SizeHints((0..relations).map(|_| AtomicU32::new(0)).collect())
    }

    fn get(&self, r: RelId) -> usize {
        self.0[r.0 as usize].load(Ordering::Relaxed) as usize
    }

    /// Remembers that a model derived `rows` facts of `r`.
    fn learn(&self, r: RelId, rows: u32) {
        if rows > 0 {
            self.0[r.0 as usize].store(rows.min(SIZE_HINT_MAX), Ordering::Relaxed);
        }
    }
}

impl Clone for SizeHints {
    fn clone(&self) -> SizeHints {
        SizeHints(
            self.0
                .iter()
                .map(|h| AtomicU32::new(h.load(Ordering::Relaxed)))
                .collect(),
        )
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
}

impl Store {
    /// An empty store for the program's relations.
    pub fn new(p: &Program) -> Store {
        Store {
            relations: p.relations.iter().map(|r| Relation::new(r.arity)).collect(),
            facts: 0,
            key: Vec::new(),
        }
    }

    /// Makes it an empty store for the program's relations, keeping the
    /// memory of the relations that held facts (so that a store used for
    /// one state after another allocates nothing once it has grown) and
    /// freeing that of the others (so that a store kept for later does not
    /// hold room for every relation that ever had facts in it).
    pub fn reset(&mut self, p: &Program) {
        if self.relations.len() != p.relations.len() {
            *self = Store::new(p);
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

    /// The facts of a relation.
    pub fn relation(&self, r: RelId) -> &Relation {
        &self.relations[r.0 as usize]
    }

    /// Adds a fact (input facts such as `true` and `does`).
    pub fn insert(&mut self, p: &Program, r: RelId, tuple: &[TermId], terms: &TermTable) -> bool {
        let specs = &p.info(r).indexes;
        let hint = p.sizes.get(r);
        let new = self.relations[r.0 as usize].insert(tuple, specs, hint, terms, &mut self.key);
        self.facts += new as usize;
        new
    }

    /// How many facts it holds in all.
    pub fn facts(&self) -> usize {
        self.facts
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
    relaxed: bool,
    /// When set, how many more candidate facts the joins may look at.
    budget: Option<&'a Cell<u64>>,
}

impl<'a> Layers<'a> {
    /// Bounds the joins of an exact evaluation by `work` (a relaxed one
    /// keeps its grounding budget).
    fn with_work(self, work: &'a Cell<u64>) -> Layers<'a> {
        Layers {
            budget: self.budget.or(Some(work)),
            ..self
        }
    }

    #[inline]
    fn relation(&self, p: &Program, r: RelId) -> &'a Relation {
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

/// Runs the strata `comps` (in order), writing their facts into `target`.
pub fn run_strata(
    p: &Program,
    comps: &[usize],
    target: &mut Store,
    below: Target<'_>,
    terms: &mut TermTable,
    symbols: &Symbols,
    limits: &Limits,
) -> Result<(), GameError> {
    let mut scratch = RunScratch::default();
    run_strata_in(
        &mut scratch,
        p,
        comps,
        target,
        below,
        terms,
        symbols,
        limits,
    )
}

/// The working memory of [`run_strata_in`], kept from one run to the next
/// (one a state, one a joint move) so that a run allocates nothing once its
/// vectors have grown.
#[derive(Default)]
pub struct RunScratch {
    join: JoinScratch,
    /// The head tuples of one clause's join, flat.
    tuples: Vec<TermId>,
    /// Per relation: the rows new in the last round of its stratum.
    delta: Vec<(u32, u32)>,
    /// Per relation of the stratum running: its rows when the round began.
    start: Vec<u32>,
}

/// `run_strata`, in the working memory `scratch`.
#[allow(clippy::too_many_arguments)]
pub fn run_strata_in(
    scratch: &mut RunScratch,
    p: &Program,
    comps: &[usize],
    target: &mut Store,
    below: Target<'_>,
    terms: &mut TermTable,
    symbols: &Symbols,
    limits: &Limits,
) -> Result<(), GameError> {
    let empty = Store::default();
    let work = Cell::new(limits.max_work);
    let RunScratch {
        join: scratch,
        tuples,
        delta,
        start,
    } = scratch;
    delta.clear();
    delta.resize(p.relations.len(), (0, 0));
    for &c in comps {
        let comp = &p.components[c];
        // Round 0: every clause over whole relations.
        start.clear();
        start.extend(comp.relations.iter().map(|&r| target.relation(r).rows));
        for &ci in &comp.clauses {
            let cl = &p.clauses[ci];
            tuples.clear();
            let mut out = Derived {
                head: &cl.head_args,
                tuples,
            };
            let layers = below.layers(target, &empty).with_work(&work);
            join_in(
                scratch,
                p,
                &cl.full.steps,
                cl.full.head_bound,
                cl.vars,
                layers,
                terms,
                delta,
                limits,
                &mut out,
            )
            .map_err(|e| named(e, p, cl.head, symbols))?;
            flush(p, cl.head, tuples, target, terms, limits, symbols)?;
        }
        if !comp.recursive {
            continue;
        }
        // Later rounds: each recursive literal in turn reads only the facts
        // new in the previous round (semi-naive evaluation).
        loop {
            let mut any = false;
            for (k, &r) in comp.relations.iter().enumerate() {
                let end = target.relation(r).rows;
                delta[r.0 as usize] = (start[k], end);
                any |= end > start[k];
                start[k] = end;
            }
            if !any {
                break;
            }
            for &ci in &comp.clauses {
                let cl = &p.clauses[ci];
                for jp in &cl.deltas {
                    tuples.clear();
                    let mut out = Derived {
                        head: &cl.head_args,
                        tuples,
                    };
                    let layers = below.layers(target, &empty).with_work(&work);
                    join_in(
                        scratch,
                        p,
                        &jp.steps,
                        jp.head_bound,
                        cl.vars,
                        layers,
                        terms,
                        delta,
                        limits,
                        &mut out,
                    )
                    .map_err(|e| named(e, p, cl.head, symbols))?;
                    flush(p, cl.head, tuples, target, terms, limits, symbols)?;
                }
            }
        }
        for &r in &comp.relations {
            delta[r.0 as usize] = (0, 0);
        }
    }
    let phase = match below {
        Target::State { .. } => Phase::State,
        Target::Move { .. } => Phase::Move,
        Target::Static | Target::Relaxed { .. } => return Ok(()),
    };
    for (r, info) in p.relations.iter().enumerate() {
        if info.phase == phase {
            let r = RelId(r as u32);
            p.sizes.learn(r, target.relation(r).rows);
        }
    }
    Ok(())
}

/// Names the relation in a limit error raised while deriving it.
fn named(e: GameError, p: &Program, head: RelId, symbols: &Symbols) -> GameError {
    match e {
        GameError::Limit { kind, value, .. } => GameError::Limit {
            kind,
            value,
            relation: symbols.name(p.info(head).name).to_string(),
        },
        other => other,
    }
}

fn flush(
    p: &Program,
    head: RelId,
    out: &[TermId],
    target: &mut Store,
    terms: &TermTable,
    limits: &Limits,
    symbols: &Symbols,
) -> Result<(), GameError> {
    let arity = p.info(head).arity;
    let mut emit = |tuple: &[TermId]| -> Result<(), GameError> {
        target.insert(p, head, tuple, terms);
        if target.facts > limits.max_facts {
            return Err(GameError::Limit {
                kind: LimitKind::Facts,
                value: limits.max_facts,
                relation: symbols.name(p.info(head).name).to_string(),
            });
        }
        Ok(())
    };
    if arity == 0 {
        if !out.is_empty() {
            emit(&[])?;
        }
        return Ok(());
    }
    for tuple in out.chunks_exact(arity) {
        emit(tuple)?;
    }
    Ok(())
}

pub(crate) const UNBOUND: TermId = TermId(u32::MAX);

/// Where the candidate facts of a scan come from.
#[derive(Clone, Copy)]
enum Candidates {
    /// The rows of one index group from this one on (`NO_ROW`: none left).
    Chain(u32),
    /// Rows `lo..hi`.
    Range(u32, u32),
    /// A filter: whether it still lets the join go on once.
    Once(bool),
}

/// The state of one step of a running join. It holds no reference into the
/// facts, so the frames of one join are reused by the next.
pub(crate) struct Frame<'a> {
    candidates: Candidates,
    /// The fact a scan step is at (its row), `NO_ROW` before the first.
    row: u32,
    mark: usize,
    facts: PhantomData<&'a Relation>,
}

impl Frame<'_> {
    /// The fact a scan step is at (its row in the relation), if a scan.
    pub(crate) fn current_row(&self) -> Option<u32> {
        match self.candidates {
            Candidates::Chain(_) | Candidates::Range(..) => Some(self.row),
            Candidates::Once(_) => None,
        }
    }
}

/// Receives each match of a join: the bindings and the frames of its steps.
pub(crate) trait Sink {
    fn matched(
        &mut self,
        b: &[TermId],
        frames: &[Frame<'_>],
        terms: &mut TermTable,
        limits: &Limits,
    ) -> Result<(), GameError>;
}

/// The usual sink: the head tuples derived, flat (one `UNBOUND` marker per
/// derivation of a 0-ary head).
struct Derived<'h> {
    head: &'h [Pat],
    tuples: &'h mut Vec<TermId>,
}

impl Sink for Derived<'_> {
    fn matched(
        &mut self,
        b: &[TermId],
        _: &[Frame<'_>],
        terms: &mut TermTable,
        limits: &Limits,
    ) -> Result<(), GameError> {
        if self.head.is_empty() {
            self.tuples.push(UNBOUND);
        }
        for h in self.head {
            self.tuples.push(ground_intern(h, b, terms, limits)?);
        }
        Ok(())
    }
}

/// The working memory of joins, kept from one join to the next so that a
/// join allocates nothing once the vectors have grown.
#[derive(Default)]
pub(crate) struct JoinScratch {
    /// The bindings, by variable number.
    b: Vec<TermId>,
    /// The variables bound, in order, to undo on backtracking.
    trail: Vec<u16>,
    /// A lookup key.
    key: Vec<TermId>,
    /// One frame per step entered.
    frames: Vec<Frame<'static>>,
}

/// Runs one join plan, handing each match to `sink`. Iterative: one frame
/// per step on a vector, so long bodies cannot overflow the stack.
#[allow(clippy::too_many_arguments)]
pub(crate) fn join(
    p: &Program,
    steps: &[Step],
    nvars: usize,
    layers: Layers<'_>,
    terms: &mut TermTable,
    delta: &[(u32, u32)],
    limits: &Limits,
    sink: &mut dyn Sink,
) -> Result<(), GameError> {
    let mut scratch = JoinScratch::default();
    join_in(
        &mut scratch,
        p,
        steps,
        steps.len(),
        nvars,
        layers,
        terms,
        delta,
        limits,
        sink,
    )
}

/// `join`, in the working memory `scratch`, handing `sink` only the first
/// match of steps `cut..` under each match of the steps before (all of them
/// when `cut` is `steps.len()`): a plan's `head_bound` when the sink needs
/// only the head facts.
#[allow(clippy::too_many_arguments)]
fn join_in(
    scratch: &mut JoinScratch,
    p: &Program,
    steps: &[Step],
    cut: usize,
    nvars: usize,
    layers: Layers<'_>,
    terms: &mut TermTable,
    delta: &[(u32, u32)],
    limits: &Limits,
    sink: &mut dyn Sink,
) -> Result<(), GameError> {
    if steps.iter().any(|s| scans_nothing(p, s, layers, delta)) {
        return Ok(());
    }
    let JoinScratch {
        b,
        trail,
        key,
        frames,
    } = scratch;
    b.clear();
    b.resize(nvars, UNBOUND);
    trail.clear();
    frames.clear();
    if steps.is_empty() {
        return sink.matched(b, frames, terms, limits);
    }
    // The work budget, counted down in a register and written back when
    // the join ends (unbounded when it has none).
    let mut left = layers.budget.map_or(u64::MAX, Cell::get);
    let result = (|| {
        // The step to enter next, after a match of the steps before it.
        let mut next = Some(0);
        loop {
            if let Some(mut d) = next.take() {
                // Enter steps from `d` on. A filter (negation, distinct, same)
                // is decided as it is entered: when it passes, its frame is
                // pushed spent (it has no second match) and the next step is
                // entered at once; when it fails, as when a scan has no
                // candidate, the scan below tries its next candidate.
                loop {
                    if d == steps.len() {
                        sink.matched(b, frames, terms, limits)?;
                        // Other matches of the steps from `cut` on give the
                        // same head.
                        frames.truncate(cut);
                        break;
                    }
                    let frame = enter(p, &steps[d], layers, terms, b, delta, key, trail.len());
                    match frame.candidates {
                        // A scan without candidates fails at once, as a failing
                        // filter does (charged the round it took when looped).
                        Candidates::Chain(NO_ROW) => {
                            left = left.saturating_sub(1);
                            break;
                        }
                        Candidates::Range(lo, hi) if lo >= hi => {
                            left = left.saturating_sub(1);
                            break;
                        }
                        Candidates::Chain(_) | Candidates::Range(..) => {
                            frames.push(frame);
                            break;
                        }
                        Candidates::Once(pass) => {
                            // The rounds a filter's frame took when it was
                            // looped over: one to pass, one to be left.
                            left = left.saturating_sub(1 + pass as u64);
                            if !pass {
                                break;
                            }
                            frames.push(Frame {
                                candidates: Candidates::Once(false),
                                ..frame
                            });
                            d += 1;
                        }
                    }
                }
            }
            // Spent filters and scans have no other match: back to the scan
            // below them (a spent scan charged the round it took when looped).
            while let Some(frame) = frames.last() {
                match frame.candidates {
                    Candidates::Once(_) => {}
                    Candidates::Chain(NO_ROW) => left = left.saturating_sub(1),
                    Candidates::Range(lo, hi) if lo >= hi => left = left.saturating_sub(1),
                    Candidates::Chain(_) | Candidates::Range(..) => break,
                }
                frames.pop();
            }
            let Some(depth) = frames.len().checked_sub(1) else {
                return Ok(());
            };
            let frame = &mut frames[depth];
            undo(b, trail, frame.mark);
            let step = &steps[depth];
            if left == 0 {
                return Err(if layers.relaxed {
                    GameError::Limit {
                        kind: LimitKind::GroundingWork,
                        value: 0,
                        relation: String::new(),
                    }
                } else {
                    GameError::Limit {
                        kind: LimitKind::JoinWork,
                        value: limits.max_work as usize,
                        relation: String::new(),
                    }
                });
            }
            // Candidate facts looked at in this round of the loop.
            let mut looked = 1u64;
            let mut advanced = false;
            match &mut frame.candidates {
                Candidates::Once(_) => unreachable!("spent frames are left above"),
                Candidates::Chain(next) => {
                    let Step::Scan {
                        rel,
                        args,
                        index: Some(ix),
                        ..
                    } = step
                    else {
                        unreachable!()
                    };
                    let relation = layers.relation(p, *rel);
                    while *next != NO_ROW {
                        frame.row = *next;
                        *next = relation.next_in(*ix, frame.row);
                        looked += 1;
                        if unify_all(args, relation.row(frame.row), terms, b, trail) {
                            advanced = true;
                            break;
                        }
                        undo(b, trail, frame.mark);
                    }
                }
                Candidates::Range(lo, hi) => {
                    let Step::Scan { rel, args, .. } = step else {
                        unreachable!()
                    };
                    let relation = layers.relation(p, *rel);
                    while *lo < *hi {
                        frame.row = *lo;
                        *lo += 1;
                        looked += 1;
                        if unify_all(args, relation.row(frame.row), terms, b, trail) {
                            advanced = true;
                            break;
                        }
                        undo(b, trail, frame.mark);
                    }
                }
            }
            // Grounding's budget counts rounds of the loop (its historical
            // unit); an exact evaluation counts every fact looked at.
            left = left.saturating_sub(if layers.relaxed { 1 } else { looked });
            if advanced {
                next = Some(depth + 1);
            } else {
                frames.pop();
            }
        }
    })();
    if let Some(budget) = layers.budget {
        budget.set(left);
    }
    result
}

/// Whether a step is a scan with no candidate at all (an empty relation,
/// or no new facts for a delta), so that the join it is in has no match
/// and need not run: most strata of a state find nothing (no capture, no
/// king), and setting up their joins cost more than the joins did.
fn scans_nothing(p: &Program, step: &Step, layers: Layers<'_>, delta: &[(u32, u32)]) -> bool {
    match step {
        Step::Scan {
            rel, delta: true, ..
        } => {
            let (lo, hi) = delta[rel.0 as usize];
            lo == hi
        }
        Step::Scan { rel, .. } => layers.relation(p, *rel).rows == 0,
        Step::Absent { .. } | Step::Distinct(..) | Step::Same(..) => false,
    }
}

/// Prepares the candidates of a step under the current bindings.
#[allow(clippy::too_many_arguments)]
fn enter(
    p: &Program,
    step: &Step,
    layers: Layers<'_>,
    terms: &TermTable,
    b: &[TermId],
    delta: &[(u32, u32)],
    key: &mut Vec<TermId>,
    mark: usize,
) -> Frame<'static> {
    let candidates = match step {
        Step::Scan {
            rel,
            index,
            key: key_pats,
            delta: is_delta,
            ..
        } => {
            let relation = layers.relation(p, *rel);
            if *is_delta {
                let (lo, hi) = delta[rel.0 as usize];
                Candidates::Range(lo, hi)
            } else if let Some(ix) = index {
                let first = if lookup_tuple(key_pats, b, terms, key) {
                    relation.first_in(*ix, key)
                } else {
                    None
                };
                Candidates::Chain(first.unwrap_or(NO_ROW))
            } else {
                Candidates::Range(0, relation.rows)
            }
        }
        Step::Absent { rel, .. } if layers.relaxed && p.info(*rel).phase != Phase::Static => {
            Candidates::Once(true)
        }
        Step::Absent { rel, args } => {
            let relation = layers.relation(p, *rel);
            // A term never interned cannot be in any relation.
            Candidates::Once(!lookup_tuple(args, b, terms, key) || !relation.contains(key))
        }
        Step::Distinct(x, y) => Candidates::Once(!ground_eq(x, y, b, terms)),
        Step::Same(x, y) => Candidates::Once(ground_eq(x, y, b, terms)),
    };
    Frame {
        candidates,
        row: NO_ROW,
        mark,
        facts: PhantomData,
    }
}

/// Fills `out` with the ids of bound patterns; false if some term was never
/// interned (so the tuple is in no relation).
pub(crate) fn lookup_tuple(
    args: &[Pat],
    b: &[TermId],
    terms: &TermTable,
    out: &mut Vec<TermId>,
) -> bool {
    out.clear();
    args.iter().all(|a| match ground_lookup(a, b, terms) {
        Some(t) => {
            out.push(t);
            true
        }
        None => false,
    })
}

/// Unbinds the variables bound since the trail was `mark` long.
#[inline(always)]
fn undo(b: &mut [TermId], trail: &mut Vec<u16>, mark: usize) {
    for &v in &trail[mark..] {
        b[v as usize] = UNBOUND;
    }
    trail.truncate(mark);
}

/// Matches a literal's patterns against a fact. Inlined into the scan
/// loops (one call per candidate fact looked at).
#[inline(always)]
fn unify_all(
    args: &[Pat],
    row: &[TermId],
    terms: &TermTable,
    b: &mut [TermId],
    trail: &mut Vec<u16>,
) -> bool {
    args.iter()
        .zip(row)
        .all(|(p, &t)| unify(p, t, terms, b, trail))
}

/// Matches a pattern against a ground term, binding unbound variables.
/// Inlined into the joins (constants and variables are most arguments);
/// function terms take the call to `unify_func`.
#[inline(always)]
fn unify(p: &Pat, t: TermId, terms: &TermTable, b: &mut [TermId], trail: &mut Vec<u16>) -> bool {
    match p {
        Pat::Const(c) => *c == t,
        Pat::Var(v) => {
            let slot = &mut b[*v as usize];
            if *slot == UNBOUND {
                *slot = t;
                trail.push(*v);
                true
            } else {
                *slot == t
            }
        }
        Pat::Func(f, args) => unify_func(*f, args, t, terms, b, trail),
    }
}

/// Matches the function term pattern `f(args)` against a ground term.
#[inline(never)]
fn unify_func(
    f: Symbol,
    args: &[Pat],
    t: TermId,
    terms: &TermTable,
    b: &mut [TermId],
    trail: &mut Vec<u16>,
) -> bool {
    terms.functor(t) == f
        && terms.args(t).len() == args.len()
        && args
            .iter()
            .zip(terms.args(t))
            .all(|(p, &a)| unify(p, a, terms, b, trail))
}

/// The argument ids of a function term being built: on the stack when
/// there are few, as most terms have.
enum Args {
    Inline(usize, [TermId; 8]),
    Heap(Vec<TermId>),
}

impl Args {
    fn new(n: usize) -> Args {
        if n <= 8 {
            Args::Inline(0, [UNBOUND; 8])
        } else {
            Args::Heap(Vec::with_capacity(n))
        }
    }

    fn push(&mut self, t: TermId) {
        match self {
            Args::Inline(len, ids) => {
                ids[*len] = t;
                *len += 1;
            }
            Args::Heap(ids) => ids.push(t),
        }
    }

    fn as_slice(&self) -> &[TermId] {
        match self {
            Args::Inline(len, ids) => &ids[..*len],
            Args::Heap(ids) => ids,
        }
    }
}

/// The id of a bound pattern's term, if that term was ever interned.
/// Inlined into the joins (constants and variables are most key
/// arguments); function terms take the call to `lookup_func`.
#[inline(always)]
fn ground_lookup(p: &Pat, b: &[TermId], terms: &TermTable) -> Option<TermId> {
    match p {
        Pat::Const(c) => Some(*c),
        Pat::Var(v) => Some(b[*v as usize]),
        Pat::Func(f, args) => lookup_func(*f, args, b, terms),
    }
}

/// The id of the bound function term `f(args)`, if ever interned.
#[inline(never)]
fn lookup_func(f: Symbol, args: &[Pat], b: &[TermId], terms: &TermTable) -> Option<TermId> {
    let mut ids = Args::new(args.len());
    for a in args.iter() {
        ids.push(ground_lookup(a, b, terms)?);
    }
    terms.lookup(f, ids.as_slice())
}

/// The id of a bound pattern's term, interning it; refuses terms deeper than
/// the limit. Inlined into head building (constants and variables are most
/// head arguments); function terms take the call to `intern_func`.
#[inline(always)]
pub(crate) fn ground_intern(
    p: &Pat,
    b: &[TermId],
    terms: &mut TermTable,
    limits: &Limits,
) -> Result<TermId, GameError> {
    match p {
        Pat::Const(c) => Ok(*c),
        Pat::Var(v) => Ok(b[*v as usize]),
        Pat::Func(f, args) => intern_func(*f, args, b, terms, limits),
    }
}

/// The id of the bound function term `f(args)`, interning it.
#[inline(never)]
fn intern_func(
    f: Symbol,
    args: &[Pat],
    b: &[TermId],
    terms: &mut TermTable,
    limits: &Limits,
) -> Result<TermId, GameError> {
    let mut ids = Args::new(args.len());
    for a in args.iter() {
        ids.push(ground_intern(a, b, terms, limits)?);
    }
    let ids = ids.as_slice();
    let depth = 1 + ids.iter().map(|&t| terms.depth(t)).max().unwrap_or(0);
    if depth > limits.max_term_depth {
        return Err(GameError::Limit {
            kind: LimitKind::TermDepth,
            value: limits.max_term_depth,
            relation: String::new(),
        });
    }
    Ok(terms.intern(f, ids))
}

/// Whether two bound patterns denote the same term (without interning).
fn ground_eq(x: &Pat, y: &Pat, b: &[TermId], terms: &TermTable) -> bool {
    fn resolve(p: &Pat, b: &[TermId]) -> Option<TermId> {
        match p {
            Pat::Const(c) => Some(*c),
            Pat::Var(v) => Some(b[*v as usize]),
            Pat::Func(..) => None,
        }
    }
    match (resolve(x, b), resolve(y, b)) {
        (Some(s), Some(t)) => s == t,
        (Some(t), None) => pat_eq_term(y, t, b, terms),
        (None, Some(t)) => pat_eq_term(x, t, b, terms),
        (None, None) => {
            let (Pat::Func(f, xs), Pat::Func(g, ys)) = (x, y) else {
                unreachable!()
            };
            f == g
                && xs.len() == ys.len()
                && xs
                    .iter()
                    .zip(ys.iter())
                    .all(|(a, c)| ground_eq(a, c, b, terms))
        }
    }
}

fn pat_eq_term(p: &Pat, t: TermId, b: &[TermId], terms: &TermTable) -> bool {
    match p {
        Pat::Const(c) => *c == t,
        Pat::Var(v) => b[*v as usize] == t,
        Pat::Func(f, args) => {
            terms.functor(t) == *f
                && terms.args(t).len() == args.len()
                && args
                    .iter()
                    .zip(terms.args(t))
                    .all(|(a, &u)| pat_eq_term(a, u, b, terms))
        }
    }
}
