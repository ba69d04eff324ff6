//! Rules that can never apply, dropped where they alone make a file break
//! stratified negation: the allowance `never-fires-dropped`.
//!
//! The Soar group's translations of its transfer-learning games (`build`)
//! write arithmetic as relations no rule or fact defines (`(+ ?x ?w ?x2)`,
//! `(> ?a ?b)`), so every rule that computes a coordinate never applies;
//! those rules are also what closes a cycle through `not` (`clear -> not
//! adjacent-to-any-object -> ... -> coordinates-after-stack -> clear`), and
//! what makes `goal` depend on `does` (the one rule that reads `does` is on
//! the cycle). ggp-base's prover plays the files: proving top-down, it
//! never proves the literal that never holds, and the rule never applies.
//!
//! A clause is dropped when both hold:
//!
//! - one of its positive body literals holds in no state of any play (the
//!   states that `init` and `next` reach, with the legal moves), by the
//!   over-approximation of `reach`: a relation no rule or fact defines, a
//!   relation none of whose rules can apply, a fact of the state no `init`
//!   or `next` rule can make, a constant no fact has there;
//! - it carries an edge of the dependency graph that lies on a cycle
//!   through `not`: an edge inside a strongly connected component with a
//!   negated edge (every such edge lies on such a cycle).
//!
//! (A keyword that depends on `does` needs no such drop: `before_moves`
//! reads it as the reference does, whether the rules between them apply
//! or not.)
//!
//! Why dropping it changes no answer: `reach` takes every `not` to hold,
//! so what it finds never holds, never holds in any reading of the rules
//! where a fact holds only through a clause whose positive literals hold
//! (the stratified model, the well-founded one, and what a top-down prover
//! proves, negation as failure included): by induction on the derivation
//! of the fact. The clause dropped thus derives nothing in the original
//! rules, nor in the rules without it, and every relation, and so every
//! `not` of one, has the same facts with or without it: `(not p)` of a `p`
//! that never holds is true either way. Without the clause the rules
//! stratify (when it was all that closed the cycle), and their model also
//! satisfies the clause dropped, whose body never holds in it. The
//! reference traces of the files agree on both engines.
//!
//! Only files with such a broken restriction are touched: a file that
//! loads without the reading keeps its rules (and warnings) as they were.

use crate::analysis::graph::DepGraph;
use crate::analysis::reach::never_holding_literals;
use crate::error::Diagnostic;
use crate::syntax::ast::Description;
use crate::syntax::normal::{Clause, NLit};
use rustc_hash::FxHashSet;

/// At most this many relations of a cycle are named in a note.
const MAX_NAMED: usize = 8;

/// The clauses without those that never apply and lie on a cycle through
/// `not` (see the module's comment), and the warning of each clause
/// dropped.
pub(crate) fn drop_never_firing(
    d: &Description,
    clauses: Vec<Clause>,
) -> (Vec<Clause>, Vec<Diagnostic>) {
    let graph = DepGraph::new(&clauses);
    let (comp_of, comps) = graph.components();
    // negative(k) :- an edge of component k, inside it, is negated.
    let mut negative = vec![false; comps.len()];
    for e in graph.edges.iter().filter(|e| e.negative) {
        if comp_of[e.head] == comp_of[e.body] {
            negative[comp_of[e.head]] = true;
        }
    }
    // The component of the cycle through `not` an edge lies on, if any.
    let on_cycle = |head: usize, body: usize| {
        let k = comp_of[head];
        (k == comp_of[body] && negative[k]).then_some(k)
    };
    let relation = |s| graph.relations.get_index_of(&s).expect("relation in graph");
    let cycle_of = |c: &Clause| {
        c.body.iter().find_map(|l| match l {
            NLit::Pos(s) | NLit::Neg(s) => on_cycle(relation(c.head.name), relation(s.name)),
            NLit::Distinct(..) | NLit::Same(..) => None,
        })
    };
    if !clauses.iter().any(|c| cycle_of(c).is_some()) {
        return (clauses, Vec::new());
    }
    let never = never_holding_literals(d, &clauses);
    let mut kept = Vec::with_capacity(clauses.len());
    let mut warnings = Vec::new();
    let mut warned: FxHashSet<(u32, u32)> = FxHashSet::default();
    for (c, never) in clauses.iter().zip(never) {
        match (never, cycle_of(c)) {
            (Some(at), Some(k)) => {
                let NLit::Pos(s) = &c.body[at] else {
                    unreachable!("only a positive literal never holds")
                };
                if warned.insert((s.span.start, s.span.end)) {
                    let cycle: Vec<&str> = (comps[k].iter())
                        .map(|&r| d.symbols.spelling(graph.name(r)))
                        .collect();
                    warnings.push(warning(d, c, at, &cycle));
                }
            }
            _ => kept.push(c.clone()),
        }
    }
    (kept, warnings)
}

/// The warning for a clause dropped, at its literal that never holds
/// (`at`); `cycle` names the relations of the cycle through `not` it was
/// on.
fn warning(d: &Description, c: &Clause, at: usize, cycle: &[&str]) -> Diagnostic {
    let NLit::Pos(s) = &c.body[at] else {
        unreachable!("only a positive literal never holds")
    };
    let head = d.symbols.spelling(c.head.name);
    let mut names: Vec<String> = cycle.iter().map(|n| format!("`{n}`")).collect();
    names.sort_unstable_by_key(|n| n.to_ascii_lowercase());
    let more = names.len().saturating_sub(MAX_NAMED);
    names.truncate(MAX_NAMED);
    let mut list = names.join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    Diagnostic::warning(
        "never-fires-dropped",
        s.span,
        format!(
            "this rule for `{head}` never applies, as `{}` holds in no state: it is dropped \
             from a cycle through `not` (of {list})",
            d.show_sentence(s)
        ),
    )
    .with_label("never holds")
    .with_secondary(c.head.span, "the rule dropped")
    .with_note(
        "a rule that never applies derives nothing in any state, so the game is the same \
         without it; ggp-base's prover never proves this literal either",
    )
    .with_note(super::check::ALLOWED_IN_PUBLISHED_GAMES)
}

#[cfg(test)]
mod tests {
    use crate::analysis::check::check_source;

    /// A small game of one role with `rules` added: the codes of its
    /// diagnostics, sorted.
    fn codes(rules: &str) -> Vec<&'static str> {
        let text = format!(
            "(role you) (base (c 1)) (base (c 2)) (input you go)
             (init (c 1)) (legal you go) (<= (next (c 2)) (does you go))
             (<= (goal you 100) (true (c 2))) (<= (goal you 0) (true (c 1)))
             (<= terminal (true (c 2)))
             {rules}"
        );
        let (_, diagnostics) = check_source("t.gdl", &text);
        let mut codes: Vec<&str> = diagnostics.iter().map(|d| d.code).collect();
        codes.sort_unstable();
        codes
    }

    #[test]
    fn a_cycle_closed_only_by_a_rule_that_never_applies_is_dropped() {
        // `plus` is defined nowhere: the rule of `far` never applies.
        let rules = "(<= (clear ?x) (true (c ?x)) (not (far ?x)))
                     (<= (far ?x) (clear ?x) (plus ?x 1 ?y))
                     (<= terminal (clear 2))";
        assert_eq!(codes(rules), ["never-fires-dropped", "undefined-relation"]);
    }

    #[test]
    fn a_cycle_that_may_apply_stays_an_error() {
        let rules = "(<= (clear ?x) (true (c ?x)) (not (far ?x)))
                     (<= (far ?x) (clear ?x) (true (c ?x)))
                     (<= terminal (clear 2))";
        assert_eq!(codes(rules), ["negation-cycle"]);
    }

    #[test]
    fn a_rule_that_never_applies_off_the_cycle_is_kept() {
        // The file is stratified: nothing is dropped, and the literal that
        // never holds is only a warning.
        let rules = "(<= (far ?x) (true (c ?x)) (plus ?x 1 ?y)) (<= terminal (far 2))";
        assert_eq!(codes(rules), ["undefined-relation"]);
    }
}
