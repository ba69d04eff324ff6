//! The rules that read the moves given their own copies of the relations
//! of the state they use, so that a relation asked both before and after
//! the moves are known can be derived on demand for each kind of question
//! apart.
//!
//! chess's `(bishop_threatens ?attacker ?u ?v ?x ?y ?ignorex ?ignorey)`
//! is asked by the legal moves (is the king attacked once the piece has
//! left `?u ?v`?) and by `next` (does the move just played give check?),
//! where the question's places come from `does`. Derived on demand
//! (`rewrite::demand`), one demand relation would gather both kinds of
//! question; the legal moves would then wait for the moves, so the
//! transformation is refused and the relation is derived whole in every
//! state: every attacker, target and ignored square, where a state asks a
//! few dozen questions. With copies, for each relation `r` of the *cone*
//! (the relations of the state used on both sides, and the relations of
//! the state they use, through any number of rules):
//!
//! ```text
//! r'(args) :- body'.            each rule of r, its cone relations renamed
//! h(...)   :- ..., r'(a), ...   each rule whose head depends on does
//! ```
//!
//! where `body'` names the copies of the cone's relations. `r` and `r'`
//! hold the same facts, so the model read at the keywords is the same.

use super::{fresh_name, reading_moves};
use crate::syntax::ast::Sentence;
use crate::syntax::keywords::keyword_named;
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::{FxHashMap, FxHashSet};

/// The clauses with copies for the rules that read the moves (see the
/// module's documentation), and the copies made, in the order of
/// `state_relations`; `None` when no relation of `state_relations` is used
/// both by a rule that depends on `does` and by one that does not.
pub fn copy_for_moves(
    clauses: &[Clause],
    state_relations: &[Symbol],
    symbols: &mut Symbols,
) -> Option<(Vec<Clause>, Vec<Symbol>)> {
    // The relations of the state that rules derive (not `true`, the
    // state itself) and that are not keywords.
    let derived: FxHashSet<Symbol> = clauses.iter().map(|c| c.head.name).collect();
    let state: FxHashSet<Symbol> = (state_relations.iter().copied())
        .filter(|&r| derived.contains(&r) && keyword_named(symbols.name(r)).is_none())
        .collect();
    let reads_moves = reading_moves(clauses, symbols);
    // The relations of the state each side uses.
    let mut after_moves = FxHashSet::default();
    let mut before_moves = FxHashSet::default();
    for c in clauses {
        let side = match reads_moves.contains(&c.head.name) {
            true => &mut after_moves,
            false => &mut before_moves,
        };
        side.extend(used(c).filter(|r| state.contains(r)));
    }
    // cone(r) :- used on both sides.
    // cone(s) :- cone(r), a rule of r uses s, s a relation of the state.
    let mut cone: FxHashSet<Symbol> = FxHashSet::default();
    let mut stack: Vec<Symbol> = after_moves.intersection(&before_moves).copied().collect();
    while let Some(r) = stack.pop() {
        if cone.insert(r) {
            (clauses.iter().filter(|c| c.head.name == r))
                .flat_map(used)
                .filter(|s| state.contains(s) && !cone.contains(s))
                .for_each(|s| stack.push(s));
        }
    }
    if cone.is_empty() {
        return None;
    }
    let copies: Vec<(Symbol, Symbol)> = (state_relations.iter())
        .filter(|r| cone.contains(r))
        .map(|&r| (r, fresh_name(symbols, r, "'")))
        .collect();
    let copy_of: FxHashMap<Symbol, Symbol> = copies.iter().copied().collect();
    let renamed = |c: &Clause| Clause {
        body: c.body.iter().map(|l| rename(l, &copy_of)).collect(),
        ..c.clone()
    };
    let mut out = Vec::with_capacity(clauses.len() * 2);
    for c in clauses {
        match reads_moves.contains(&c.head.name) {
            true => out.push(renamed(c)),
            false => out.push(c.clone()),
        }
        if let Some(&copy) = copy_of.get(&c.head.name) {
            let mut copied = renamed(c);
            copied.head.name = copy;
            out.push(copied);
        }
    }
    Some((out, copies.into_iter().map(|(_, copy)| copy).collect()))
}

/// The relations a clause's body names, under `not` too.
fn used(c: &Clause) -> impl Iterator<Item = Symbol> + '_ {
    c.body.iter().filter_map(|l| match l {
        NLit::Pos(s) | NLit::Neg(s) => Some(s.name),
        NLit::Distinct(..) | NLit::Same(..) => None,
    })
}

/// A literal naming the copy of its relation where it has one.
fn rename(lit: &NLit, copy_of: &FxHashMap<Symbol, Symbol>) -> NLit {
    let renamed = |s: &Sentence| Sentence {
        name: copy_of.get(&s.name).copied().unwrap_or(s.name),
        ..s.clone()
    };
    match lit {
        NLit::Pos(s) => NLit::Pos(renamed(s)),
        NLit::Neg(s) => NLit::Neg(renamed(s)),
        other => other.clone(),
    }
}
