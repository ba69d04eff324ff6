//! Rules in normal form: `or` expanded into separate clauses and `not`
//! pushed down onto sentences, so that every body literal is a positive
//! sentence, a negated sentence, a `distinct` or its negation (equality).

use crate::error::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{Description, Literal, Sentence, Term};

/// The most clauses one rule may expand into through `or`.
pub const MAX_CLAUSES_PER_RULE: usize = 4096;

/// The most clauses the `or`s of a whole description may add to the one
/// clause of each rule: a hundred times what the largest published game
/// has (544 clauses in all), so that many rules that each stay under
/// [`MAX_CLAUSES_PER_RULE`] cannot multiply time and memory without bound.
/// Rules without `or` add none, however many (the size of the file bounds
/// them).
pub const MAX_ADDED_CLAUSES: usize = 1 << 16;

/// A body literal in normal form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NLit {
    /// The sentence holds.
    Pos(Sentence),
    /// The sentence does not hold.
    Neg(Sentence),
    /// The two terms differ.
    Distinct(Term, Term, Span),
    /// The two terms are equal (`(not (distinct a b))`).
    Same(Term, Term, Span),
}

/// A rule in normal form: the head holds when every body literal does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clause {
    /// The conclusion.
    pub head: Sentence,
    /// The conditions, in the order written.
    pub body: Vec<NLit>,
    /// Index of the rule in `Description::rules` it came from.
    pub rule: usize,
    /// The source rule's span.
    pub span: Span,
}

/// Expands every rule of a description into clauses. Fails only for a rule
/// whose `or`s multiply out into more than [`MAX_CLAUSES_PER_RULE`]
/// clauses, or when the `or`s add more than [`MAX_ADDED_CLAUSES`] clauses
/// in all.
pub fn normalize(d: &Description) -> Result<Vec<Clause>, Vec<Diagnostic>> {
    let mut clauses = Vec::new();
    // The clauses the `or`s added so far, beyond one a rule.
    let mut added = 0;
    let mut errors = Vec::new();
    for (i, rule) in d.rules.iter().enumerate() {
        // The body is a conjunction of disjunctions of conjunctions: multiply out.
        let mut bodies: Vec<Vec<NLit>> = vec![Vec::new()];
        for lit in &rule.body {
            let alternatives = expand(lit, true);
            if bodies.len() * alternatives.len() > MAX_CLAUSES_PER_RULE {
                errors.push(
                    Diagnostic::error(
                        "too-many-alternatives",
                        rule.span,
                        format!(
                            "this rule's `or`s expand into more than {MAX_CLAUSES_PER_RULE} clauses"
                        ),
                    )
                    .with_label("split this rule into several rules or helper relations"),
                );
                bodies.clear();
                break;
            }
            // One alternative (no `or`): extend in place, so that a long
            // body costs linear time, not a copy per literal.
            if let [only] = alternatives.as_slice() {
                bodies
                    .iter_mut()
                    .for_each(|b| b.extend(only.iter().cloned()));
                continue;
            }
            bodies = bodies
                .iter()
                .flat_map(|b| {
                    alternatives.iter().map(move |alt| {
                        let mut body = b.clone();
                        body.extend(alt.iter().cloned());
                        body
                    })
                })
                .collect();
        }
        let adds = bodies.len().saturating_sub(1);
        if added + adds > MAX_ADDED_CLAUSES {
            errors.push(
                Diagnostic::error(
                    "too-many-alternatives",
                    rule.span,
                    format!(
                        "the rules' `or`s add more than {MAX_ADDED_CLAUSES} clauses in all to \
                         the one of each rule; this rule's {} bring them to {}",
                        bodies.len(),
                        added + adds
                    ),
                )
                .with_label("write the alternatives as helper relations instead of `or`"),
            );
            break;
        }
        added += adds;
        clauses.extend(bodies.into_iter().map(|body| Clause {
            head: rule.head.clone(),
            body,
            rule: i,
            span: rule.span,
        }));
    }
    if errors.is_empty() {
        Ok(clauses)
    } else {
        Err(errors)
    }
}

/// The literal as a disjunction of conjunctions of normal literals, under
/// `positive` (false when an odd number of `not`s stand above it).
fn expand(lit: &Literal, positive: bool) -> Vec<Vec<NLit>> {
    match (lit, positive) {
        (Literal::Pos(s), true) => vec![vec![NLit::Pos(s.clone())]],
        (Literal::Pos(s), false) => vec![vec![NLit::Neg(s.clone())]],
        (Literal::Not(inner, _), _) => expand(inner, !positive),
        (Literal::Distinct(a, b, s), true) => vec![vec![NLit::Distinct(a.clone(), b.clone(), *s)]],
        (Literal::Distinct(a, b, s), false) => vec![vec![NLit::Same(a.clone(), b.clone(), *s)]],
        // (or a b) holds when either does.
        (Literal::Or(ls, _), true) => ls.iter().flat_map(|l| expand(l, true)).collect(),
        // (not (or a b)) is (and (not a) (not b)): multiply out.
        (Literal::Or(ls, _), false) => {
            let mut out: Vec<Vec<NLit>> = vec![Vec::new()];
            for l in ls {
                let alts = expand(l, false);
                if let [only] = alts.as_slice() {
                    out.iter_mut().for_each(|c| c.extend(only.iter().cloned()));
                    continue;
                }
                out = out
                    .iter()
                    .flat_map(|conj| {
                        alts.iter().map(move |alt| {
                            let mut c = conj.clone();
                            c.extend(alt.iter().cloned());
                            c
                        })
                    })
                    .collect();
                if out.len() > MAX_CLAUSES_PER_RULE {
                    out.truncate(MAX_CLAUSES_PER_RULE + 1);
                    break;
                }
            }
            out
        }
    }
}
