//! Relations of the state that no move changes, read as `init` gives
//! them. A relation `f` of the state whose every `next` rule is the frame
//!
//! ```text
//! next(f(X1 .. Xn)) :- true(f(X1 .. Xn)).        X1 .. Xn distinct variables
//! ```
//!
//! holds in every state that play reaches exactly as `init` gives it: the
//! walls of a maze, the cells of a board that are holes. Every `true` that
//! reads such a relation reads a static copy of it instead:
//!
//! ```text
//! f~fixed(X1 .. Xn) :- init(f(X1 .. Xn)).
//! ... true(f(t1 .. tn)) ...      becomes      ... f~fixed(t1 .. tn) ...
//! ```
//!
//! so that deriving the static facts and grounding see the maze as it is
//! rather than as "any wall may or may not be there" (the Soar
//! mummymaze1p-hquad: interpreted, past grounding's work, as written;
//! 703,849 ground rules so read). The frame itself becomes
//! `next(f(X..)) :- f~fixed(X..)`, so the states stay what they were. A
//! `true` whose fact is a variable, `(true ?x)`, is left as written.
//!
//! The rewrite means the same only for states whose facts of `f` are
//! `init`'s: every state play reaches, but not every state a caller may
//! build from facts (`Game::state_from_facts`). The game keeps the rules as
//! written beside, and answers such a state by them (`game::rules::Fixed`).

use crate::syntax::ast::{Sentence, Term};
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::{FxHashMap, FxHashSet};

/// A relation of the state that no move changes, and its static copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedRelation {
    /// The function symbol of its facts, such as `wall`.
    pub name: Symbol,
    /// How many arguments its facts have.
    pub arity: usize,
    /// The static relation the rewritten rules read instead.
    pub copy: Symbol,
}

/// The clauses with every relation of the state that no move changes read
/// from a static copy (see the module's doc), and those relations; `None`
/// where there is none that a rule reads.
pub fn read_fixed_as_static(
    clauses: &[Clause],
    symbols: &mut Symbols,
) -> Option<(Vec<Clause>, Vec<FixedRelation>)> {
    let (next, true_, init) = (
        symbols.get("next")?,
        symbols.get("true")?,
        symbols.get("init")?,
    );
    // The relations with a frame rule, and those with another `next` rule.
    let mut framed: Vec<(Symbol, usize)> = Vec::new();
    let mut changed: FxHashSet<(Symbol, usize)> = FxHashSet::default();
    for c in clauses.iter().filter(|c| c.head.name == next) {
        let [fact] = c.head.args.as_slice() else {
            continue;
        };
        // `(next ?x)` may make a fact of any relation.
        let key = key(fact)?;
        match is_frame(c, true_) {
            true if !framed.contains(&key) => framed.push(key),
            true => {}
            false => {
                changed.insert(key);
            }
        }
    }
    // Only relations some rule reads by name are worth a copy.
    let read: FxHashSet<(Symbol, usize)> = (clauses.iter())
        .filter(|c| !is_frame(c, true_))
        .flat_map(|c| &c.body)
        .filter_map(|l| match l {
            NLit::Pos(s) | NLit::Neg(s) if s.name == true_ => s.args.first().and_then(key),
            _ => None,
        })
        .collect();
    let fixed: Vec<FixedRelation> = (framed.into_iter())
        .filter(|k| !changed.contains(k) && read.contains(k))
        .map(|(name, arity)| FixedRelation {
            name,
            arity,
            copy: super::fresh_name(symbols, name, "~fixed"),
        })
        .collect();
    if fixed.is_empty() {
        return None;
    }
    let copy_of: FxHashMap<(Symbol, usize), Symbol> = (fixed.iter())
        .map(|f| ((f.name, f.arity), f.copy))
        .collect();
    // ... true(f(t1 .. tn)) ...  ->  ... f~fixed(t1 .. tn) ...
    let read_copy = |s: &Sentence| -> Option<Sentence> {
        let fact = s.args.first().filter(|_| s.name == true_)?;
        let copy = *copy_of.get(&key(fact)?)?;
        let args = match fact {
            Term::Func(_, args, _) => args.clone(),
            _ => Vec::new(),
        };
        Some(Sentence {
            name: copy,
            name_span: s.name_span,
            args,
            span: s.span,
        })
    };
    let mut out: Vec<Clause> = (clauses.iter())
        .map(|c| {
            let mut c = c.clone();
            for l in &mut c.body {
                match l {
                    NLit::Pos(s) | NLit::Neg(s) => {
                        if let Some(copy) = read_copy(s) {
                            *s = copy;
                        }
                    }
                    NLit::Distinct(..) | NLit::Same(..) => {}
                }
            }
            c
        })
        .collect();
    // f~fixed(X1 .. Xn) :- init(f(X1 .. Xn)), placed where f's frame is.
    for f in &fixed {
        let frame = (clauses.iter())
            .find(|c| {
                c.head.name == next && c.head.args.first().and_then(key) == Some((f.name, f.arity))
            })
            .expect("a fixed relation has its frame rule");
        let vars: Vec<Term> = (0..f.arity)
            .map(|i| Term::Var(symbols.intern(&format!("?x{i}")), frame.span))
            .collect();
        let fact = match f.arity {
            0 => Term::Atom(f.name, frame.span),
            _ => Term::Func(f.name, vars.clone(), frame.span),
        };
        let sentence = |name, args| Sentence {
            name,
            name_span: frame.head.name_span,
            args,
            span: frame.head.span,
        };
        out.push(Clause {
            head: sentence(f.copy, vars),
            body: vec![NLit::Pos(sentence(init, vec![fact]))],
            rule: frame.rule,
            span: frame.span,
        });
    }
    Some((out, fixed))
}

/// What `gdl plan` says of the rewrite: the relations read as `init`
/// gives them.
pub fn describe(fixed: &[FixedRelation], symbols: &Symbols) -> String {
    let names: Vec<String> = (fixed.iter())
        .map(|f| format!("{}/{}", symbols.spelling(f.name), f.arity))
        .collect();
    let (what, it) = match fixed.len() {
        1 => ("1 relation".to_string(), "it"),
        n => (format!("{n} relations"), "them"),
    };
    let what = format!("{what} of the state that no move changes");
    format!(
        "{what} read as `init` gives {it} ({}); a state whose facts of {it} differ \
         is answered by the rules as written",
        names.join(", ")
    )
}

/// The relation of a state fact: its function symbol and arity; `None`
/// for a variable.
fn key(fact: &Term) -> Option<(Symbol, usize)> {
    match fact {
        Term::Var(..) => None,
        Term::Atom(s, _) => Some((*s, 0)),
        Term::Func(s, args, _) => Some((*s, args.len())),
    }
}

/// Whether `c` is a frame rule, `next(f(X1 .. Xn)) :- true(f(X1 .. Xn))`
/// with distinct variables.
fn is_frame(c: &Clause, true_: Symbol) -> bool {
    let ([fact], [NLit::Pos(read)]) = (c.head.args.as_slice(), c.body.as_slice()) else {
        return false;
    };
    let [kept] = read.args.as_slice() else {
        return false;
    };
    if read.name != true_ {
        return false;
    }
    match (fact, kept) {
        (Term::Atom(a, _), Term::Atom(b, _)) => a == b,
        (Term::Func(f, xs, _), Term::Func(g, ys, _)) if f == g && xs.len() == ys.len() => {
            let mut seen = FxHashSet::default();
            xs.iter().zip(ys).all(|(x, y)| match (x, y) {
                (Term::Var(x, _), Term::Var(y, _)) => x == y && seen.insert(*x),
                _ => false,
            })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::clause_lines;
    use crate::source::SourceFile;
    use crate::syntax::{kif, normal};

    /// The rules rewritten, one clause a line (`head :- body`).
    fn rewrite(text: &str) -> Option<Vec<String>> {
        let file = SourceFile::new("t.gdl", text);
        let d = kif::parse(&file, 100).expect("parses");
        let clauses = normal::normalize(&d).expect("normalises");
        let mut symbols = d.symbols.clone();
        let (out, _) = read_fixed_as_static(&clauses, &mut symbols)?;
        Some(clause_lines(&out, &symbols))
    }

    const MAZE: &str = "(role r) (init (wall 1 2)) (init (at 1))
        (<= (next (wall ?x ?y)) (true (wall ?x ?y)))
        (<= (legal r (go ?y)) (true (at ?x)) (succ ?x ?y) (not (true (wall ?x ?y))))
        (<= (next (at ?y)) (does r (go ?y)))
        (succ 1 2) (<= terminal (true (at 2))) (goal r 100)";

    #[test]
    fn a_relation_only_framed_is_read_from_its_copy() {
        let lines = rewrite(MAZE).expect("wall is fixed");
        assert!(lines.contains(&"(next (wall ?x ?y)) :- (wall~fixed ?x ?y)".to_string()));
        assert!(
            lines.contains(
                &"(legal r (go ?y)) :- (true (at ?x)) (succ ?x ?y) (not (wall~fixed ?x ?y))"
                    .to_string()
            )
        );
        assert!(lines.contains(&"(wall~fixed ?x0 ?x1) :- (init (wall ?x0 ?x1))".to_string()));
        // `at` changes: read as written.
        assert!(lines.contains(&"terminal :- (true (at 2))".to_string()));
    }

    #[test]
    fn another_next_rule_or_a_partial_frame_keeps_the_relation() {
        let moved = MAZE.replace(
            "(goal r 100)",
            "(goal r 100) (<= (next (wall 2 1)) (does r (go 2)))",
        );
        assert_eq!(rewrite(&moved), None);
        let partial = MAZE.replace(
            "(<= (next (wall ?x ?y)) (true (wall ?x ?y)))",
            "(<= (next (wall 1 ?y)) (true (wall 1 ?y)))",
        );
        assert_eq!(rewrite(&partial), None);
        let any = MAZE.replace(
            "(goal r 100)",
            "(goal r 100) (<= (next ?f) (true ?f) (true (at 1)))",
        );
        assert_eq!(rewrite(&any), None);
    }
}
