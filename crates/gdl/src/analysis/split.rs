//! Stratification on instantiated relations: a relation that depends on
//! itself through `not` only across different constants, such as
//! `(<= (goal ?r 0) (not (goal ?r 100)))`, is split by the constant its
//! heads have at one argument position into one relation per constant
//! (`goal|0`, `goal|100`), which stratify. The relation itself is then
//! defined from its parts, `(<= (goal ?a ?b) (goal|0 ?a ?b))`, so that the
//! game reads it as before. Published games do this and ggp-base plays
//! them; a real cycle through negation stays one and stays an error.
//!
//! A body literal of a split relation becomes the literal of the part its
//! constant names; a variable at the position makes one clause per constant
//! (the variable replaced by it), and, under `not`, one more clause where
//! the variable differs from every constant (the literal then holds).

use crate::analysis::graph::DepGraph;
use crate::error::Diagnostic;
use crate::syntax::ast::{Description, Sentence, Term};
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::Symbol;

/// The clauses with every relation in a cycle through negation split by
/// constants where that removes the cycle, and a warning (the allowance
/// `split-by-constants`) for each relation split. Clauses without such a
/// cycle come back unchanged.
pub(crate) fn split_by_constants(
    d: &mut Description,
    mut clauses: Vec<Clause>,
) -> (Vec<Clause>, Vec<Diagnostic>) {
    let mut warnings = Vec::new();
    let mut tried = Vec::new();
    while let Some(relation) = in_negative_cycle(&clauses)
        .into_iter()
        .find(|r| !tried.contains(r))
    {
        tried.push(relation);
        let before = in_negative_cycle(&clauses).len();
        for position in constant_positions(&clauses, relation) {
            let split = split(d, &clauses, relation, position);
            if in_negative_cycle(&split).len() < before {
                warnings.push(warning(d, &clauses, relation, position));
                clauses = split;
                break;
            }
        }
    }
    (clauses, warnings)
}

/// The relations on a cycle of the dependency graph that goes through a
/// negated literal.
fn in_negative_cycle(clauses: &[Clause]) -> Vec<Symbol> {
    let graph = DepGraph::new(clauses);
    let (comp_of, comps) = graph.components();
    let mut found: Vec<Symbol> = Vec::new();
    for e in graph.edges.iter().filter(|e| e.negative) {
        if comp_of[e.head] == comp_of[e.body] {
            for &r in &comps[comp_of[e.head]] {
                if !found.contains(&graph.name(r)) {
                    found.push(graph.name(r));
                }
            }
        }
    }
    found
}

/// The argument positions at which every head of `relation` is a constant
/// (none when the relation is written with several arities).
fn constant_positions(clauses: &[Clause], relation: Symbol) -> Vec<usize> {
    let heads: Vec<&Sentence> = clauses
        .iter()
        .filter(|c| c.head.name == relation)
        .map(|c| &c.head)
        .collect();
    let arity = heads.first().map_or(0, |h| h.args.len());
    // Written with several arities, the relation is not split: the check
    // reports the arities (and a literal may be too short to split).
    let sentences = clauses.iter().flat_map(|c| {
        std::iter::once(&c.head).chain(c.body.iter().filter_map(|l| match l {
            NLit::Pos(s) | NLit::Neg(s) => Some(s),
            _ => None,
        }))
    });
    if sentences
        .filter(|s| s.name == relation)
        .any(|s| s.args.len() != arity)
    {
        return Vec::new();
    }
    (0..arity)
        .filter(|&p| {
            heads
                .iter()
                .all(|h| matches!(h.args.get(p), Some(Term::Atom(..))))
        })
        .collect()
}

/// The constants the heads of `relation` have at `position`, in order of
/// first appearance.
fn constants(clauses: &[Clause], relation: Symbol, position: usize) -> Vec<Symbol> {
    let mut found = Vec::new();
    for c in clauses.iter().filter(|c| c.head.name == relation) {
        if let Some(Term::Atom(a, _)) = c.head.args.get(position)
            && !found.contains(a)
        {
            found.push(*a);
        }
    }
    found
}

/// The warning that says a relation was split, at its first head.
fn warning(d: &Description, clauses: &[Clause], relation: Symbol, position: usize) -> Diagnostic {
    let first = clauses
        .iter()
        .find(|c| c.head.name == relation)
        .expect("a split relation has heads");
    let values: Vec<&str> = constants(clauses, relation, position)
        .iter()
        .map(|&c| d.symbols.spelling(c))
        .collect();
    let name = d.symbols.spelling(relation);
    Diagnostic::warning(
        "split-by-constants",
        first.head.name_span,
        format!(
            "`{name}` depends on itself through `not`; it is stratified once split by \
             its argument {} ({})",
            position + 1,
            values.join(", ")
        ),
    )
    .with_label("split by the constant of this argument")
    .with_note(
        "each value is then a relation of its own, and no value depends on itself \
         through `not`",
    )
    .with_note(super::check::ALLOWED_IN_PUBLISHED_GAMES)
}

/// `clauses` with `relation` split at `position` into one relation per
/// constant of its heads there, and defined from its parts.
fn split(
    d: &mut Description,
    clauses: &[Clause],
    relation: Symbol,
    position: usize,
) -> Vec<Clause> {
    let values = constants(clauses, relation, position);
    let base = d.symbols.spelling(relation).to_string();
    let parts: Vec<Symbol> = (values.iter())
        .map(|&v| {
            let name = format!("{base}|{}", d.symbols.spelling(v));
            d.symbols.intern(&name)
        })
        .collect();
    let part_of = |v: Symbol| values.iter().position(|&x| x == v).map(|i| parts[i]);
    let mut out = Vec::new();
    let mut work: Vec<Clause> = clauses.to_vec();
    while let Some(mut clause) = work.pop() {
        if clause.head.name == relation
            && let Some(Term::Atom(v, _)) = clause.head.args.get(position)
        {
            clause.head.name = part_of(*v).expect("a head's constant is a value");
        }
        let Some(i) = clause.body.iter().position(|l| reads(l, relation)) else {
            out.push(clause);
            continue;
        };
        let (NLit::Pos(s) | NLit::Neg(s)) = clause.body[i].clone() else {
            unreachable!("`reads` is true of sentences only")
        };
        let negated = matches!(clause.body[i], NLit::Neg(_));
        match &s.args[position] {
            Term::Atom(v, _) => match (part_of(*v), negated) {
                (Some(part), _) => {
                    rename(&mut clause.body[i], part);
                    work.push(clause);
                }
                // A constant no head has: the literal never holds.
                (None, false) => {}
                (None, true) => {
                    clause.body.remove(i);
                    work.push(clause);
                }
            },
            Term::Var(var, span) => {
                for (&value, &part) in values.iter().zip(&parts) {
                    let mut each = substitute(&clause, *var, &Term::Atom(value, *span));
                    rename(&mut each.body[i], part);
                    work.push(each);
                }
                if negated {
                    // The variable is none of the values: the literal holds.
                    let mut other = clause.clone();
                    other.body.remove(i);
                    for &value in &values {
                        other.body.push(NLit::Distinct(
                            Term::Var(*var, *span),
                            Term::Atom(value, *span),
                            *span,
                        ));
                    }
                    work.push(other);
                }
            }
            // A function term is no constant: the literal never holds.
            Term::Func(..) if !negated => {}
            Term::Func(..) => {
                clause.body.remove(i);
                work.push(clause);
            }
        }
    }
    out.reverse();
    // The relation itself, from its parts: (r ?a ...) :- (r|v ?a ...).
    let template = clauses
        .iter()
        .find(|c| c.head.name == relation)
        .expect("a split relation has heads");
    let span = template.head.span;
    let args: Vec<Term> = (0..template.head.args.len())
        .map(|k| Term::Var(d.symbols.intern(&format!("?split{k}")), span))
        .collect();
    for &part in &parts {
        let sentence = |name| Sentence {
            name,
            name_span: template.head.name_span,
            args: args.clone(),
            span,
        };
        out.push(Clause {
            head: sentence(relation),
            body: vec![NLit::Pos(sentence(part))],
            rule: template.rule,
            span: template.span,
        });
    }
    out
}

/// Whether a body literal is a sentence of `relation`.
fn reads(l: &NLit, relation: Symbol) -> bool {
    matches!(l, NLit::Pos(s) | NLit::Neg(s) if s.name == relation)
}

/// Renames the sentence of a literal.
fn rename(l: &mut NLit, name: Symbol) {
    if let NLit::Pos(s) | NLit::Neg(s) = l {
        s.name = name;
    }
}

/// The clause with `var` replaced by `value` everywhere.
fn substitute(c: &Clause, var: Symbol, value: &Term) -> Clause {
    fn term(t: &Term, var: Symbol, value: &Term) -> Term {
        match t {
            Term::Var(v, _) if *v == var => value.clone(),
            Term::Func(f, args, span) => Term::Func(
                *f,
                args.iter().map(|a| term(a, var, value)).collect(),
                *span,
            ),
            other => other.clone(),
        }
    }
    let sentence = |s: &Sentence| Sentence {
        args: s.args.iter().map(|a| term(a, var, value)).collect(),
        ..s.clone()
    };
    Clause {
        head: sentence(&c.head),
        body: c
            .body
            .iter()
            .map(|l| match l {
                NLit::Pos(s) => NLit::Pos(sentence(s)),
                NLit::Neg(s) => NLit::Neg(sentence(s)),
                NLit::Distinct(a, b, s) => {
                    NLit::Distinct(term(a, var, value), term(b, var, value), *s)
                }
                NLit::Same(a, b, s) => NLit::Same(term(a, var, value), term(b, var, value), *s),
            })
            .collect(),
        rule: c.rule,
        span: c.span,
    }
}
