//! Loading's second stage: the checked rules planned and their static
//! facts derived (relations too large to derive whole derived on demand),
//! and what a game needs of them to start (roles, the initial state, the
//! facts of `base`).

use crate::engine::interp::{SizeHints, Store, Target, run_strata};
use crate::error::GameError;
use crate::game::types::State;
use crate::limits::Limits;
use crate::plan::{self, Phase, Program, RelId};
use crate::syntax::ast::Description;
use crate::syntax::normal::Clause;
use crate::syntax::symbol::{Symbol, Symbols};
use crate::syntax::term::{TermId, TermTable};
use std::sync::Arc;

/// A planned program and its static facts.
#[derive(Clone)]
pub(super) struct Prepared {
    pub(super) program: Program,
    pub(super) sizes: Arc<SizeHints>,
    pub(super) static_facts: Store,
    pub(super) terms: TermTable,
}

/// A limit reached deriving the static facts, with the program it was
/// reached in (to locate it).
pub(super) struct Runaway {
    pub(super) error: GameError,
    pub(super) program: Box<Program>,
}

/// Plans the clauses and derives their static facts, first under a small
/// facts limit: a relation that outgrows it is derived on demand instead
/// when the rules only ask it bound questions (plan::demand, which rewrites
/// `clauses`), and only when it cannot be is the whole model derived under
/// the real limits.
pub(super) fn derive_static(
    clauses: &mut Vec<Clause>,
    symbols: &mut Symbols,
    limits: &Limits,
) -> Result<Prepared, Runaway> {
    derive_static_in(TermTable::new(), clauses, symbols, limits)
}

/// [`derive_static`] with the terms of `terms` and those it interns: the
/// rules as written beside a game of rewritten ones share its terms.
pub(super) fn derive_static_in(
    start: TermTable,
    clauses: &mut Vec<Clause>,
    symbols: &mut Symbols,
    limits: &Limits,
) -> Result<Prepared, Runaway> {
    let mut probing = limits.max_facts > DEMAND_PROBE_FACTS;
    let mut demanded = 0;
    // The rules before the last transformation, when it asked left to
    // right, and the relation it demanded.
    let mut left_to_right: Option<(Vec<Clause>, Symbol)> = None;
    loop {
        let mut terms = start.clone();
        let program = plan::plan(clauses, &mut terms, symbols);
        let sizes = Arc::new(SizeHints::new(program.relations.len()));
        let mut static_facts = Store::new(&program, &sizes);
        let now = match probing {
            true => Limits {
                max_facts: DEMAND_PROBE_FACTS,
                ..*limits
            },
            false => *limits,
        };
        let derived = static_strata(&program);
        let Err(error) = run_strata(
            &program,
            &derived,
            &mut static_facts,
            Target::Static,
            &mut terms,
            symbols,
            &now,
        ) else {
            let program = replan(
                clauses,
                program,
                &derived,
                &mut static_facts,
                &mut terms,
                symbols,
            );
            return Ok(Prepared {
                program,
                sizes,
                static_facts,
                terms,
            });
        };
        if let GameError::Limit { relation, .. } = &error {
            let named = symbols.get(relation);
            // A transformation asking left to right that did not bound its
            // relation (nor the demand relations it added): the rules
            // before it, asked with every binder instead.
            if let Some((before, r)) = left_to_right.take()
                && (named == Some(r) || named.is_some_and(|n| !defines(&before, n)))
            {
                *clauses = before;
                if let Some(transformed) = crate::rewrite::demand::demand(clauses, r, symbols) {
                    *clauses = transformed;
                    continue;
                }
            }
            if let Some(r) = named.filter(|_| demanded < MAX_DEMAND_ROUNDS) {
                demanded += 1;
                if let Some(t) = crate::rewrite::demand::demand_left_to_right(clauses, r, symbols) {
                    left_to_right = Some((std::mem::replace(clauses, t), r));
                    continue;
                }
                if let Some(transformed) = crate::rewrite::demand::demand(clauses, r, symbols) {
                    *clauses = transformed;
                    continue;
                }
            }
        }
        if !probing {
            return Err(Runaway {
                error,
                program: Box::new(program),
            });
        }
        probing = false;
    }
}

/// The clauses planned again, now that the static facts of the strata
/// `derived` are known: each literal of those relations weighed by the
/// rows a lookup of it returns, and `true` by the initial state's facts
/// (`plan::FanOut`). The static facts get the indexes the new plan reads.
fn replan(
    clauses: &[Clause],
    program: Program,
    derived: &[usize],
    static_facts: &mut Store,
    terms: &mut TermTable,
    symbols: &mut Symbols,
) -> Program {
    let mut fan = plan::FanOut::new();
    for &c in derived {
        for &r in &program.components[c].relations {
            let info = program.info(r);
            fan.facts(info.name, info.arity, static_facts.relation(r).flat());
        }
    }
    let kw = program.keywords;
    if program.info(kw.init).phase == Phase::Static {
        let true_ = program.info(kw.true_).name;
        fan.sample(true_, 1, static_facts.relation(kw.init).flat());
    }
    let replanned = plan::plan_with(clauses, terms, symbols, Some(&fan));
    drop(fan);
    static_facts.reindex(&program, &replanned, terms);
    replanned
}

/// Whether a rule of `clauses` derives `relation`.
fn defines(clauses: &[Clause], relation: Symbol) -> bool {
    clauses.iter().any(|c| c.head.name == relation)
}

/// The strata of static facts that play needs: `base`, `input` and other
/// relations nothing in play uses are never derived (an exact `base` of a
/// game with a position history could not be held).
fn static_strata(program: &Program) -> Vec<usize> {
    let kw = program.keywords;
    let mut strata: Vec<usize> = [kw.role, kw.init, kw.legal, kw.next, kw.terminal, kw.goal]
        .into_iter()
        .flat_map(|r| program.needed(r))
        .filter(|&c| program.components[c].phase == Phase::Static)
        .collect();
    strata.sort_unstable();
    strata.dedup();
    strata
}

/// Where to point a limit error raised at load: the first rule deriving the
/// relation named in it.
pub(super) fn limit_span(
    e: &GameError,
    p: &Program,
    d: &Description,
    symbols: &Symbols,
) -> crate::source::Span {
    if let GameError::Limit { relation, .. } = e
        && let Some(rel) = symbols.get(relation).and_then(|s| p.relation(s))
    {
        // The rule most likely at fault: a recursive one (it is what
        // derives without end), else one with a body, else a fact.
        let of_rel = || p.clauses.iter().filter(|c| c.head == rel);
        let blamed = of_rel()
            .find(|c| !c.deltas.is_empty())
            .or_else(|| of_rel().find(|c| !d.rules[c.rule].body.is_empty()))
            .or_else(|| of_rel().next());
        if let Some(c) = blamed {
            return d.rules[c.rule].head.span;
        }
    }
    d.rules.first().map(|r| r.span).unwrap_or_default()
}

/// The roles (in order) and the initial state, from the static facts.
pub(super) fn start(program: &Program, static_facts: &Store) -> (Vec<TermId>, State) {
    let kw = program.keywords;
    let roles = static_facts
        .relation(kw.role)
        .rows()
        .map(|r| r[0])
        .collect();
    let initial = State::from_terms(
        static_facts
            .relation(kw.init)
            .rows()
            .map(|r| r[0])
            .collect(),
    );
    (roles, initial)
}

/// The relation `base/1`, where the rules define it without the state.
pub(super) fn base_relation(p: &Program, symbols: &Symbols) -> Option<RelId> {
    let base = p.relation(symbols.get("base")?)?;
    (p.info(base).phase == Phase::Static && p.info(base).arity == 1).then_some(base)
}

/// Derives the facts of `base` among `prepared`'s static facts (play
/// never needs them, so `derive_static` leaves them out), under the limit
/// of ground atoms where one is set and the facts limit: a `base` larger
/// than that would bound no grounding. Whether it did.
pub(super) fn derive_base(prepared: &mut Prepared, symbols: &Symbols, limits: &Limits) -> bool {
    let p = &prepared.program;
    let Some(base) = base_relation(p, symbols) else {
        return false;
    };
    let done = static_strata(p);
    let mut strata: Vec<usize> = (p.needed(base).into_iter())
        .filter(|c| !done.contains(c))
        .collect();
    strata.sort_unstable();
    let mut facts = prepared.static_facts.clone();
    let bound = Limits {
        max_facts: limits.max_ground_atoms.min(limits.max_facts),
        ..*limits
    };
    let (terms, target) = (&mut prepared.terms, Target::Static);
    if run_strata(p, &strata, &mut facts, target, terms, symbols, &bound).is_err() {
        return false;
    }
    prepared.static_facts = facts;
    true
}

/// The facts limit under which the static facts are first derived: a
/// relation that outgrows it is derived on demand where it can be.
const DEMAND_PROBE_FACTS: usize = 1 << 20;

/// The most facts the static facts of rules whose fixed questions are
/// derived on demand may hold (their demands with the game's static facts).
pub(super) const MAX_DEMAND_FACTS: usize = 1 << 16;

/// How many relations may be turned to derivation on demand.
const MAX_DEMAND_ROUNDS: usize = 4;
