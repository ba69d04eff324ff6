//! Variable elimination: the conditions of a rule that read a variable
//! used nowhere else are joined in a relation of their own, over the
//! variables they share with the rest of the rule, one variable after
//! another (bucket elimination, the way a join tree is built), so that
//! grounding instantiates each such join once instead of the product of
//! the whole body. Condensation (`condense`) is the case where what the
//! group shares is in the head; this is the general case, tried by
//! loading where the condensed rules and those with their chains cut do
//! not ground.
//!
//! A war of attrition scores a round with
//!
//! ```text
//! next(whiteScore n) :- true(whiteScore x), does(white, bid b1),
//!     does(black, bid b2), min(b1 b2 m), w1(s), sum(x2 m x), sum(x2 s n).
//! ```
//!
//! Ground as written it has an instance per score and pair of bids, a
//! million over 101 values. `b1` is read by the white bid and `min`
//! alone, so those two become a relation of what they share with the
//! rest, `next.2(b2 m)`; `b2` is then read by the black bid and
//! `next.2`, which become `next.3(m)`; and so on, one variable after
//! another, each join over two values at most:
//!
//! ```text
//! next.2(b2 m) :- does(white, bid b1), min(b1 b2 m).
//! next.3(m) :- next.2(b2 m), does(black, bid b2).
//! ...
//! ```
//!
//! The model is the same on the relations of the rules as written: each
//! new relation holds exactly where its conditions do, for some values of
//! the variables it eliminates. A variable is eliminated only where its
//! conditions are not the whole body, read the state or the moves (a join
//! of static conditions costs nothing to ground: grounding decides it)
//! and bind each of their variables in a positive condition of their own
//! (the new rule must be safe). Of the variables that can go, the one
//! whose conditions share the fewest variables with the rest goes first.

use super::condense::{fresh_name, literal_variables, of_state_or_moves, variables};
use crate::syntax::ast::{Sentence, Term};
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::FxHashSet;

/// The clauses with the variables of every rule of the state or the
/// moves eliminated where they can be (see the module's documentation),
/// or `None` when no rule has one. New relation names are interned into
/// `symbols`.
pub fn eliminate(clauses: &[Clause], symbols: &mut Symbols) -> Option<Vec<Clause>> {
    let changing = of_state_or_moves(clauses, symbols);
    let dynamic = |name: Symbol| changing.contains(&name);
    let mut made: FxHashSet<Symbol> = FxHashSet::default();
    let mut out = Vec::with_capacity(clauses.len());
    let mut any = false;
    for c in clauses {
        if !dynamic(c.head.name) || c.body.len() < 3 {
            out.push(c.clone());
            continue;
        }
        let mut c = c.clone();
        let mut parts = Vec::new();
        while let Some(group) = next_group(&c, &|s| dynamic(s) || made.contains(&s)) {
            let part = split_off(&mut c, &group, symbols);
            made.insert(part.head.name);
            parts.push(part);
        }
        any |= !parts.is_empty();
        out.extend(parts);
        out.push(c);
    }
    any.then_some(out)
}

/// The conditions (their places in the body) of the variable of `c` to
/// eliminate next, with the variables they share with the rest of the
/// rule: of the variables that can go, the one whose conditions share the
/// fewest (then the fewest conditions, then the first in the body).
fn next_group(c: &Clause, dynamic: &impl Fn(Symbol) -> bool) -> Option<(Vec<usize>, Vec<Symbol>)> {
    let mut head_vars = Vec::new();
    for t in &c.head.args {
        variables(t, &mut head_vars);
    }
    let lit_vars: Vec<Vec<Symbol>> = c.body.iter().map(literal_variables).collect();
    let mut seen: Vec<Symbol> = Vec::new();
    let mut best: Option<(Vec<usize>, Vec<Symbol>)> = None;
    for v in lit_vars.iter().flatten() {
        if head_vars.contains(v) || seen.contains(v) {
            continue;
        }
        seen.push(*v);
        let group: Vec<usize> = (0..c.body.len())
            .filter(|&i| lit_vars[i].contains(v))
            .collect();
        if group.len() == c.body.len() {
            continue;
        }
        let reads_dynamic = group.iter().any(|&i| match &c.body[i] {
            NLit::Pos(s) | NLit::Neg(s) => dynamic(s.name),
            _ => false,
        });
        let mut bound: Vec<Symbol> = Vec::new();
        for &i in &group {
            if matches!(c.body[i], NLit::Pos(_)) {
                bound.extend(&lit_vars[i]);
            }
        }
        let safe = (group.iter()).all(|&i| lit_vars[i].iter().all(|v| bound.contains(v)));
        if !reads_dynamic || !safe {
            continue;
        }
        // The variables the rest of the rule reads, the head's among them.
        let rest: FxHashSet<Symbol> = (0..c.body.len())
            .filter(|i| !group.contains(i))
            .flat_map(|i| lit_vars[i].iter().copied())
            .chain(head_vars.iter().copied())
            .collect();
        let mut shared: Vec<Symbol> = Vec::new();
        for &i in &group {
            for v in &lit_vars[i] {
                if rest.contains(v) && !shared.contains(v) {
                    shared.push(*v);
                }
            }
        }
        let better = best
            .as_ref()
            .is_none_or(|(g, s)| (shared.len(), group.len()) < (s.len(), g.len()));
        if better {
            best = Some((group, shared));
        }
    }
    best
}

/// Replaces the conditions `group` of `c` by one of a new relation over
/// the variables `shared`, in the place of the first; returns the new
/// relation's rule.
fn split_off(
    c: &mut Clause,
    (group, shared): &(Vec<usize>, Vec<Symbol>),
    symbols: &mut Symbols,
) -> Clause {
    let span = match &c.body[group[0]] {
        NLit::Pos(s) | NLit::Neg(s) => s.span,
        NLit::Distinct(_, _, span) | NLit::Same(_, _, span) => *span,
    };
    let name = fresh_name(symbols, c.head.name);
    let sentence = Sentence {
        name,
        name_span: span,
        args: shared.iter().map(|&v| Term::Var(v, span)).collect(),
        span,
    };
    let part = Clause {
        head: sentence.clone(),
        body: group.iter().map(|&i| c.body[i].clone()).collect(),
        rule: c.rule,
        span: c.span,
    };
    let mut body = Vec::with_capacity(c.body.len() - group.len() + 1);
    for (i, l) in std::mem::take(&mut c.body).into_iter().enumerate() {
        if i == group[0] {
            body.push(NLit::Pos(sentence.clone()));
        } else if !group.contains(&i) {
            body.push(l);
        }
    }
    c.body = body;
    part
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::clause_lines;
    use crate::source::SourceFile;
    use crate::syntax::{kif, normal};

    /// The clauses of `rules` with their variables eliminated, one a line.
    fn eliminated(rules: &str) -> Option<Vec<String>> {
        let file = SourceFile::new("t.gdl", rules);
        let d = kif::parse(&file, 100).expect("parses");
        let clauses = normal::normalize(&d).expect("normalises");
        let mut symbols = d.symbols.clone();
        let out = eliminate(&clauses, &mut symbols)?;
        Some(clause_lines(&out, &symbols))
    }

    const GAME: &str = "(role a) (role b) (init (stock 5)) (n 1) (n 2)
        (<= (legal ?r (bid ?x)) (role ?r) (n ?x))
        (<= terminal (true (stock 0)))
        (goal a 100) (goal b 0)
        (min 1 1 1) (min 1 2 1) (min 2 1 1) (min 2 2 2)
        (minus 5 1 4) (minus 5 2 3)\n";

    #[test]
    fn each_bid_is_joined_apart_from_the_stock() {
        let rules = format!(
            "{GAME}(<= (next (stock ?new)) (true (stock ?s)) (does a (bid ?x))
                (does b (bid ?y)) (min ?x ?y ?m) (minus ?s ?m ?new))"
        );
        let lines = eliminated(&rules).expect("eliminated");
        // `?s` first (the first of the variables whose join shares two),
        // then `?x`, then `?y`; `?m` is left, its conditions the whole body.
        assert_eq!(
            lines[lines.len() - 4..],
            [
                "(next.1 ?m ?new) :- (true (stock ?s)) (minus ?s ?m ?new)",
                "(next.2 ?y ?m) :- (does a (bid ?x)) (min ?x ?y ?m)",
                "(next.3 ?m) :- (next.2 ?y ?m) (does b (bid ?y))",
                "(next (stock ?new)) :- (next.1 ?m ?new) (next.3 ?m)",
            ],
            "{lines:#?}"
        );
    }

    #[test]
    fn a_variable_whose_join_would_be_unsafe_stays() {
        // `?y`'s conditions are `(n ?y)` and the negation, which reads `?x`
        // too, bound only by the move; `?x`'s are the negation and the
        // move, the negation reading `?y`: neither join binds all it reads.
        let rules = format!(
            "{GAME}(<= (next (stock ?s)) (true (stock ?s)) (n ?y)
                (not (min ?x ?y 2)) (does a (bid ?x)))"
        );
        assert_eq!(eliminated(&rules), None);
    }

    #[test]
    fn rules_of_static_relations_and_short_rules_are_left() {
        let rules = format!(
            "{GAME}(<= (big ?x) (n ?x) (min ?x ?y ?z) (n ?y))
            (<= (next (stock ?s)) (true (stock ?s)) (does a (bid ?x)))"
        );
        assert_eq!(eliminated(&rules), None);
    }
}
