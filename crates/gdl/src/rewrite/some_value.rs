//! Uses that leave a place to "some value": a positive use of a relation
//! whose argument at a place is a variable that occurs nowhere else in the
//! using rule (not in the head, not in any other literal) asks the
//! relation with that place open, and holds when some value fits. That is
//! how ggp-base's prover, reading top-down, answers it, and what the rule
//! means: `(<= (pick ?x) (from ?x ?e))` holds when `exists e: from(x, e)`.
//! Such a use is read as a use of a copy of the relation without that
//! place (its *projection*):
//!
//! ```text
//! r~some2(a1 a3) :- body.       each rule of r, its head's place 2 dropped
//! ```
//!
//! A head variable that only the dropped place held disappears with it:
//! sudoku's `(exactlyFirst ?z ?x9 ... ?8)`, asked with `?8` read nowhere
//! else, asks a copy without the place of the rule's unbound `?9`. In a
//! copy's rules, a variable that only the dropped place read again is
//! read once, and its use is projected in turn (mummymaze1p-horiz's
//! `direction-from`, asked for some explorer square, asks
//! `horiz-direction-from` for some square too; that file still stays
//! refused, as another copy of its rules passes those values to two uses,
//! where they are read again).

use super::fresh_name;
use crate::syntax::ast::{Sentence, Term};
use crate::syntax::keywords::keyword_named;
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::{FxHashMap, FxHashSet};

/// A projected copy: the relation copied and its places dropped.
type Projection = (Symbol, Vec<bool>);

/// The clauses with the uses projected, and each copy made with the
/// relation it copies.
pub type Projected = (Vec<Clause>, Vec<(Symbol, Symbol)>);

/// The clauses with each positive use of `target`, or of a relation that
/// depends on it (not a keyword), that leaves a place to a variable read
/// nowhere else in its rule, read as a use of a copy without those places
/// (see the module's documentation); relations that no rule reads any
/// more once so read are dropped. The clauses and the copies made, each
/// with the relation it copies, or `None` when no such use is found or
/// when a copy's rule would read under `not` or in `distinct` a variable
/// that only the place dropped gave a value.
pub fn project_singletons(
    clauses: &[Clause],
    target: Symbol,
    symbols: &mut Symbols,
) -> Option<Projected> {
    // users(target).
    // users(h) :- a rule of h uses q positively, users(q).
    let mut users: FxHashSet<Symbol> = FxHashSet::from_iter([target]);
    loop {
        let before = users.len();
        for c in clauses {
            if c.body
                .iter()
                .any(|l| matches!(l, NLit::Pos(s) if users.contains(&s.name)))
            {
                users.insert(c.head.name);
            }
        }
        if users.len() == before {
            break;
        }
    }
    users.retain(|&q| keyword_named(symbols.name(q)).is_none());
    let mut copies: Vec<(Projection, Symbol)> = Vec::new();
    let mut out: Vec<Clause> = (clauses.iter())
        .map(|c| project_uses(c, &users, &mut copies, symbols))
        .collect();
    if copies.is_empty() {
        return None;
    }
    // copy(q~some, rule) :- q asked without the places dropped, rule a
    // rule of q (the copies grow as their own rules ask new ones).
    let mut next = 0;
    while next < copies.len() {
        let ((q, dropped), copy) = copies[next].clone();
        for c in clauses.iter().filter(|c| c.head.name == q) {
            let mut copied = c.clone();
            copied.head = without(&c.head, &dropped, copy);
            if !reads_only_bound(&copied) {
                return None;
            }
            out.push(project_uses(&copied, &users, &mut copies, symbols));
        }
        next += 1;
    }
    let copies: Vec<(Symbol, Symbol)> = (copies.into_iter())
        .map(|((q, _), copy)| (copy, q))
        .collect();
    // dropped(rule) :- the rule's relation is a user of target or a copy,
    //                  read by some rule before, by none now.
    let read_by = |clauses: &[Clause]| -> FxHashSet<Symbol> {
        (clauses.iter().flat_map(|c| &c.body))
            .filter_map(|l| match l {
                NLit::Pos(s) | NLit::Neg(s) => Some(s.name),
                NLit::Distinct(..) | NLit::Same(..) => None,
            })
            .collect()
    };
    let mut read_once = read_by(clauses);
    read_once.extend(copies.iter().map(|&(copy, _)| copy));
    loop {
        let read = read_by(&out);
        let before = out.len();
        out.retain(|c| {
            let q = c.head.name;
            read.contains(&q)
                || !read_once.contains(&q)
                || !(users.contains(&q) || copies.iter().any(|&(copy, _)| copy == q))
        });
        if out.len() == before {
            break;
        }
    }
    Some((out, copies))
}

/// A clause with each positive use of a relation of `users` that leaves
/// places to variables read nowhere else in the clause renamed to the copy
/// without those places (made when new).
fn project_uses(
    c: &Clause,
    users: &FxHashSet<Symbol>,
    copies: &mut Vec<(Projection, Symbol)>,
    symbols: &mut Symbols,
) -> Clause {
    // How many times each variable occurs in the clause.
    let mut count: FxHashMap<Symbol, usize> = FxHashMap::default();
    let mut add = |t: &Term| {
        t.for_each_var(&mut |v, _| *count.entry(v).or_default() += 1);
    };
    c.head.args.iter().for_each(&mut add);
    for l in &c.body {
        match l {
            NLit::Pos(s) | NLit::Neg(s) => s.args.iter().for_each(&mut add),
            NLit::Distinct(a, b, _) | NLit::Same(a, b, _) => {
                add(a);
                add(b);
            }
        }
    }
    let mut projected = c.clone();
    for l in &mut projected.body {
        let NLit::Pos(used) = l else { continue };
        if !users.contains(&used.name) {
            continue;
        }
        let dropped: Vec<bool> = (used.args.iter())
            .map(|a| matches!(a, Term::Var(v, _) if count[v] == 1))
            .collect();
        if !dropped.contains(&true) {
            continue;
        }
        let key = (used.name, dropped);
        let copy = match copies.iter().find(|(p, _)| *p == key) {
            Some(&(_, copy)) => copy,
            None => {
                let places: Vec<String> = (key.1.iter().enumerate())
                    .filter(|&(_, &d)| d)
                    .map(|(i, _)| (i + 1).to_string())
                    .collect();
                let suffix = format!("~some{}", places.join(","));
                let copy = fresh_name(symbols, used.name, &suffix);
                copies.push((key.clone(), copy));
                copy
            }
        };
        *used = without(used, &key.1, copy);
    }
    projected
}

/// The sentence `s` named `name`, without the places `dropped`.
fn without(s: &Sentence, dropped: &[bool], name: Symbol) -> Sentence {
    Sentence {
        name,
        name_span: s.name_span,
        args: (s.args.iter().zip(dropped))
            .filter(|&(_, &d)| !d)
            .map(|(a, _)| a.clone())
            .collect(),
        span: s.span,
    }
}

/// Whether every variable of a clause's `not` and `distinct` literals is
/// in its head or in a positive literal of its body.
fn reads_only_bound(c: &Clause) -> bool {
    let mut bound: FxHashSet<Symbol> = FxHashSet::default();
    let mut add = |t: &Term| {
        t.for_each_var(&mut |v, _| {
            bound.insert(v);
        })
    };
    c.head.args.iter().for_each(&mut add);
    for l in &c.body {
        if let NLit::Pos(s) = l {
            s.args.iter().for_each(&mut add);
        }
    }
    let mut all = true;
    let mut within = |t: &Term| t.for_each_var(&mut |v, _| all &= bound.contains(&v));
    for l in &c.body {
        match l {
            NLit::Pos(_) => {}
            NLit::Neg(s) => s.args.iter().for_each(&mut within),
            NLit::Distinct(a, b, _) | NLit::Same(a, b, _) => {
                within(a);
                within(b);
            }
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;
    use crate::syntax::{kif, normal};

    /// The rules with the uses of `target` and of what depends on it
    /// projected, one clause a line (`head :- body`), and the copies.
    fn projected(rules: &str, target: &str) -> Option<(Vec<String>, Vec<String>)> {
        let file = SourceFile::new("t.gdl", rules);
        let d = kif::parse(&file, 100).expect("parses");
        let clauses = normal::normalize(&d).expect("normalises");
        let mut symbols = d.symbols.clone();
        let target = symbols.get(target).expect("a relation of the rules");
        let (out, copies) = project_singletons(&clauses, target, &mut symbols)?;
        let lines = crate::rewrite::clause_lines(&out, &symbols);
        let copies = (copies.iter())
            .map(|&(copy, q)| format!("{} of {}", symbols.name(copy), symbols.name(q)))
            .collect();
        Some((lines, copies))
    }

    #[test]
    fn a_use_read_for_some_value_asks_a_copy_without_the_place() {
        // `near`'s use leaves ?any to some value; its copy leaves `marked`'s
        // ?b to some value in turn, which drops the rule's unbound ?b.
        // `near` is read by no rule any more and is dropped.
        let rules = "(role r) (init (mark 1)) (legal r go)
            (<= (marked ?a ?b) (true (mark ?a)))
            (<= (near ?a ?b) (marked ?a ?b))
            (<= terminal (true (mark ?n)) (marked 1 ?n))
            (<= (goal r 100) (near 1 ?any))";
        let (lines, copies) = projected(rules, "marked").expect("projected");
        assert_eq!(copies, ["near~some2 of near", "marked~some2 of marked"]);
        for line in [
            "(goal r 100) :- (near~some2 1)",
            "(near~some2 ?a) :- (marked~some2 ?a)",
            "(marked~some2 ?a) :- (true (mark ?a))",
            "terminal :- (true (mark ?n)) (marked 1 ?n)",
            "(marked ?a ?b) :- (true (mark ?a))",
        ] {
            assert!(lines.iter().any(|l| l == line), "{line} in {lines:#?}");
        }
        assert!(!lines.iter().any(|l| l.starts_with("(near ")), "{lines:#?}");
    }

    #[test]
    fn a_variable_read_again_is_not_some_value() {
        // ?b is read by `distinct` too: the use asks for it unbound.
        let rules = "(role r) (init (mark 1)) (legal r go) (goal r 100)
            (<= (pair ?a ?b) (true (mark ?a)))
            (<= terminal (pair 1 ?b) (distinct ?b 2))";
        assert_eq!(projected(rules, "pair"), None);
    }

    #[test]
    fn a_copy_that_would_leave_a_negation_unbound_is_not_made() {
        // Without its second place, `free`'s ?z is read only under `not`.
        let rules = "(role r) (init (mark 1)) (legal r go) (goal r 100)
            (<= (free ?a ?z) (true (mark ?a)) (not (true (mark ?z))))
            (<= terminal (free 1 ?c))";
        assert_eq!(projected(rules, "free"), None);
    }
}
