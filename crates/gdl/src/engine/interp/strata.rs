//! The semi-naive fixpoint of each stratum, following its join plans: the
//! facts a run of strata derives into a store.

use super::join::{Frame, JoinScratch, Sink, UNBOUND, ground_intern, join_in};
use super::store::{Store, Target};
use crate::error::{GameError, memory_room};
use crate::limits::{LimitKind, Limits};
use crate::plan::{Pat, Phase, Program, RelId};
use crate::syntax::symbol::Symbols;
use crate::syntax::term::{TermId, TermTable};
use std::cell::Cell;

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
    /// The join work (candidate facts looked at) of every run so far: how
    /// loading compares two plans of one game.
    pub work_done: u64,
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
        work_done,
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
            let mut out = Derived::new(&cl.head_args, tuples, target, cl.head);
            let layers = below.layers(target, &empty).with_work(&work);
            join_in(
                scratch,
                p,
                &cl.full.steps,
                cl.full.head_bound,
                &cl.full.once,
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
                    let mut out = Derived::new(&cl.head_args, tuples, target, cl.head);
                    let layers = below.layers(target, &empty).with_work(&work);
                    join_in(
                        scratch,
                        p,
                        &jp.steps,
                        jp.head_bound,
                        &jp.once,
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
    *work_done += limits.max_work - work.get();
    let phase = match below {
        Target::State { .. } => Phase::State,
        Target::Move { .. } => Phase::Move,
        Target::Static | Target::Relaxed { .. } => return Ok(()),
    };
    target.learn_sizes(
        (0..p.relations.len() as u32)
            .map(RelId)
            .filter(|&r| p.info(r).phase == phase),
    );
    Ok(())
}

/// Names the relation in a limit error raised while deriving it.
fn named(e: GameError, p: &Program, head: RelId, symbols: &Symbols) -> GameError {
    match e {
        GameError::Limit { kind, value, .. } => GameError::Limit {
            kind,
            value,
            relation: symbols.spelling(p.info(head).name).to_string(),
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
        if target.insert(p, head, tuple, terms) {
            if target.facts() > limits.max_facts {
                return Err(GameError::Limit {
                    kind: LimitKind::Facts,
                    value: limits.max_facts,
                    relation: symbols.spelling(p.info(head).name).to_string(),
                });
            }
            if target.facts().is_multiple_of(MEMORY_CHECK_EVERY) {
                memory_room(limits, 0).map_err(|e| named(e, p, head, symbols))?;
            }
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

/// The usual sink: the head tuples derived, flat (one `UNBOUND` marker per
/// derivation of a 0-ary head), kept in the order first derived. A join may
/// derive far more tuples than facts (the same fact many times): when the
/// buffer grows large it is compacted, keeping one copy of each new fact,
/// so that it holds about as much as the facts will, and the facts and
/// memory limits are checked as it grows.
struct Derived<'h> {
    head: &'h [Pat],
    tuples: &'h mut Vec<TermId>,
    /// The store the facts go to, to count them and drop those it holds.
    target: &'h Store,
    rel: RelId,
    /// The buffer's length that triggers the next compaction.
    compact_at: usize,
}

/// The buffer length of the first compaction, in terms.
const FIRST_COMPACTION: usize = 1 << 16;

/// How many terms are buffered between two checks of the memory limit.
const MEMORY_CHECK_EVERY: usize = 1 << 12;

impl<'h> Derived<'h> {
    fn new(head: &'h [Pat], tuples: &'h mut Vec<TermId>, target: &'h Store, rel: RelId) -> Self {
        Derived {
            head,
            tuples,
            target,
            rel,
            compact_at: FIRST_COMPACTION,
        }
    }

    /// Keeps the first copy of each buffered fact that the target does not
    /// hold yet, in order.
    fn compact(&mut self) {
        let arity = self.head.len().max(1);
        let existing = self.target.relation(self.rel);
        let tuples = &mut *self.tuples;
        let hash = |t: &[TermId]| {
            let mut h = rustc_hash::FxHasher::default();
            std::hash::Hash::hash(t, &mut h);
            std::hash::Hasher::finish(&h)
        };
        // Sized for every row at once: growing by doubling would hold the
        // old table and the new one together.
        let rows = tuples.len() / arity;
        let mut seen: hashbrown::HashTable<usize> = hashbrown::HashTable::with_capacity(rows);
        let mut kept = 0;
        for r in 0..rows {
            let tuple = &tuples[r * arity..(r + 1) * arity];
            let h = hash(tuple);
            let held = if self.head.is_empty() {
                !existing.is_empty()
            } else {
                existing.contains(tuple)
            };
            if held
                || seen
                    .find(h, |&k| &tuples[k * arity..(k + 1) * arity] == tuple)
                    .is_some()
            {
                continue;
            }
            tuples.copy_within(r * arity..(r + 1) * arity, kept * arity);
            seen.insert_unique(h, kept, |&k| hash(&tuples[k * arity..(k + 1) * arity]));
            kept += 1;
        }
        tuples.truncate(kept * arity);
        self.compact_at = (2 * tuples.len()).max(FIRST_COMPACTION);
    }

    /// About the bytes [`Derived::compact`]'s table takes for `rows`
    /// buffered facts: a slot (an index and a control byte) a row, at
    /// most 7/8 full, in a power of two of slots.
    fn compaction_bytes(rows: usize) -> usize {
        let slots = (rows.saturating_mul(8) / 7).next_power_of_two();
        slots.saturating_mul(std::mem::size_of::<usize>() + 1)
    }
}

impl Sink for Derived<'_> {
    fn matched(
        &mut self,
        b: &[TermId],
        _: &[Frame<'_>],
        terms: &mut TermTable,
        limits: &Limits,
    ) -> Result<(), GameError> {
        let before = self.tuples.len();
        let row = self.head.len().max(1);
        if before + row > self.tuples.capacity() {
            // The buffer is full: it doubles, and must fit doubled.
            memory_room(
                limits,
                self.tuples.capacity().max(row) * size_of::<TermId>(),
            )?;
        }
        if self.head.is_empty() {
            self.tuples.push(UNBOUND);
        }
        for h in self.head {
            self.tuples.push(ground_intern(h, b, terms, limits)?);
        }
        let len = self.tuples.len();
        if len / MEMORY_CHECK_EVERY != before / MEMORY_CHECK_EVERY {
            if len >= self.compact_at {
                // The compaction's table of the facts kept takes room of
                // its own while the buffer is whole: it must fit too.
                let rows = len / self.head.len().max(1);
                memory_room(limits, Derived::compaction_bytes(rows))?;
                self.compact();
                let new = self.tuples.len() / self.head.len().max(1);
                if self.target.facts() + new > limits.max_facts {
                    return Err(GameError::Limit {
                        kind: LimitKind::Facts,
                        value: limits.max_facts,
                        relation: String::new(),
                    });
                }
            }
            memory_room(limits, 0)?;
        }
        Ok(())
    }
}
