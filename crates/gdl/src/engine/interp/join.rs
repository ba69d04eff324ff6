//! Joins: one rule body matched against the stores, step by step, with
//! variable bindings undone on backtracking; each match handed to a sink.

use super::store::{Layers, NO_ROW, Relation};
use crate::error::{GameError, memory_room};
use crate::limits::{LimitKind, Limits};
use crate::plan::{Pat, Phase, Program, Step};
use crate::syntax::symbol::Symbol;
use crate::syntax::term::{TermId, TermTable};
use std::cell::Cell;
use std::marker::PhantomData;

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
        &[],
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
/// only the head facts. A step marked in `once` (a plan's `once`, when
/// the sink needs only the head facts; empty for all matches) is left after
/// its first match.
#[allow(clippy::too_many_arguments)]
pub(super) fn join_in(
    scratch: &mut JoinScratch,
    p: &Program,
    steps: &[Step],
    cut: usize,
    once: &[bool],
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
    // A join under a cancelled flag (see `crate::cancel`) does not start,
    // and a long one stops within `CANCEL_LOOK_EVERY` rounds of its loop.
    crate::cancel::check()?;
    let mut rounds = 0u32;
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
                        let interned = terms.len();
                        sink.matched(b, frames, terms, limits)?;
                        // Grounding's budget counts the terms a match
                        // builds too: a relaxed rule may build a deep new
                        // term at each match (brazilian draughts' 32-cell
                        // positions), costing far more than its round.
                        if layers.relaxed {
                            left = left.saturating_sub((terms.len() - interned) as u64);
                        }
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
                        value: limits.max_ground_work as usize,
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
            rounds = rounds.wrapping_add(1);
            if rounds.is_multiple_of(CANCEL_LOOK_EVERY) {
                crate::cancel::check()?;
            }
            if advanced {
                if once.get(depth) == Some(&true) {
                    // What follows does not depend on which fact matched.
                    match &mut frame.candidates {
                        Candidates::Chain(next) => *next = NO_ROW,
                        Candidates::Range(lo, hi) => *lo = *hi,
                        Candidates::Once(_) => {}
                    }
                }
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

/// How many rounds of a join's loop go between two looks at the cancel
/// flag (a look costs a few nanoseconds; a round some tens).
const CANCEL_LOOK_EVERY: u32 = 4096;

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
    let growth = terms.bytes_to_intern(ids.len());
    if growth > 0 {
        memory_room(limits, growth)?;
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
