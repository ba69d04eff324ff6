//! The semi-naive fixpoint of each stratum, following its join plans: the
//! facts a run of strata derives into a store.

use super::join::{ground_intern, join_in, Frame, JoinScratch, Sink, UNBOUND};
use super::store::{Store, Target};
use crate::error::GameError;
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
        if target.facts() > limits.max_facts {
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
