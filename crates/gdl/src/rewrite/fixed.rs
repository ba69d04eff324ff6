//! Facts of the state that no move changes, read as `init` gives them. A
//! frame rule
//!
//! ```text
//! next(f(t1 .. tn)) :- true(f(t1 .. tn)).     each ti a constant or a
//!                                             variable found once
//! ```
//!
//! keeps the facts of its pattern (`wall/3` where every ti is a variable,
//! `(cell _ _ hole)` where some are constants). Where no other `next` rule
//! can make a fact of the pattern (no `(next ?x)`, no head that unifies
//! with it), those facts hold in every state play reaches exactly as
//! `init` gives them: the walls of a maze, the holes of a board. Every
//! `true` that reads a fact the pattern covers reads a static copy
//! instead:
//!
//! ```text
//! f~fixed(X ..) :- init(f(.. X ..)).           the pattern's variables
//! ... true(f(t1 .. tn)) ...   becomes   ... f~fixed(ti ..) ...
//! ```
//!
//! so that deriving the static facts and grounding see the maze as it is
//! rather than as "any wall may or may not be there" (the Soar
//! mummymaze1p-hquad: interpreted, past grounding's work, as written;
//! 703,849 ground rules so read). The frame itself becomes
//! `next(f(..)) :- f~fixed(..)`, so the states stay what they were. A
//! `true` that may read other facts too, `(true ?x)` or `(true (cell ?x ?y
//! ?c))` beside `(cell _ _ hole)`, is left as written.
//!
//! The rewrite means the same only for states whose facts of the pattern
//! are `init`'s: every state play reaches, but not every state a caller
//! may build from facts (`Game::state_from_facts`). The game keeps the
//! rules as written beside, and answers such a state by them
//! (`game::rules::Fixed`).

use crate::syntax::ast::{Sentence, Term};
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::{FxHashMap, FxHashSet};

/// Facts of the state that no move changes, and the static copy the
/// rewritten rules read instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixedRelation {
    /// The facts: those of a pattern.
    pub pattern: Pattern,
    /// The static relation the rewritten rules read instead.
    pub copy: Symbol,
}

/// The facts of a function symbol with some places given as constants,
/// `(cell _ _ hole)`, or none, `wall/3`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The function symbol of its facts, such as `wall`.
    pub name: Symbol,
    /// How many arguments its facts have.
    pub arity: usize,
    /// The places given as constants, with their constant, in order; the
    /// other places are the copy's arguments, in order.
    pub constants: Vec<(usize, Symbol)>,
}

impl Pattern {
    /// Whether a fact written `fact` is always one of the pattern's
    /// (a constant at each of its constant places).
    fn covers(&self, fact: &Term) -> bool {
        match fact {
            Term::Atom(s, _) => *s == self.name && self.arity == 0,
            Term::Func(s, args, _) => {
                *s == self.name
                    && args.len() == self.arity
                    && (self.constants.iter())
                        .all(|&(i, c)| matches!(args[i], Term::Atom(a, _) if a == c))
            }
            Term::Var(..) => false,
        }
    }

    /// Whether some fact written `fact` may be one of the pattern's.
    fn meets(&self, fact: &Term) -> bool {
        match fact {
            Term::Var(..) => true,
            Term::Atom(s, _) => *s == self.name && self.arity == 0,
            Term::Func(s, args, _) => {
                *s == self.name
                    && args.len() == self.arity
                    && (self.constants.iter()).all(|&(i, c)| match &args[i] {
                        Term::Var(..) => true,
                        Term::Atom(a, _) => *a == c,
                        Term::Func(..) => false,
                    })
            }
        }
    }

    /// The arguments of the copy for a fact it covers: the terms at the
    /// places that are not constants.
    fn copy_args(&self, fact: &Term) -> Vec<Term> {
        match fact {
            Term::Func(_, args, _) => (args.iter().enumerate())
                .filter(|&(i, _)| self.constant_at(i).is_none())
                .map(|(_, t)| t.clone())
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The constant at place `i`, if it is one.
    pub fn constant_at(&self, i: usize) -> Option<Symbol> {
        (self.constants.iter()).find_map(|&(c, s)| (c == i).then_some(s))
    }
}

/// The clauses with the facts of the state that no move changes read from
/// static copies (see the module's doc), and their patterns; `None` where
/// no rule reads such facts.
pub fn read_fixed_as_static(
    clauses: &[Clause],
    symbols: &mut Symbols,
) -> Option<(Vec<Clause>, Vec<FixedRelation>)> {
    let (next, true_, init) = (
        symbols.get("next")?,
        symbols.get("true")?,
        symbols.get("init")?,
    );
    // Each `next` rule, with its pattern where it is a frame.
    let nexts: Vec<(&Clause, Option<Pattern>)> = (clauses.iter())
        .filter(|c| c.head.name == next && c.head.args.len() == 1)
        .map(|c| (c, frame_pattern(c, true_)))
        .collect();
    // The facts that the rules besides the frames read through `true`, by
    // function symbol and arity.
    let mut read: FxHashMap<(Symbol, usize), Vec<&Term>> = FxHashMap::default();
    for c in clauses.iter().filter(|c| frame_pattern(c, true_).is_none()) {
        for l in &c.body {
            let (NLit::Pos(s) | NLit::Neg(s)) = l else {
                continue;
            };
            let key = match s.args.first().filter(|_| s.name == true_) {
                Some(fact @ Term::Func(f, args, _)) => ((*f, args.len()), fact),
                Some(fact @ Term::Atom(a, _)) => ((*a, 0), fact),
                _ => continue,
            };
            read.entry(key.0).or_default().push(key.1);
        }
    }
    // The patterns of the frame rules, each kept where no other `next`
    // rule may make a fact of it (`(next ?x)` may make any) and some rule
    // besides the frames reads a fact it covers.
    let mut tried: Vec<&Pattern> = Vec::new();
    let mut patterns: Vec<Pattern> = Vec::new();
    for pattern in nexts.iter().filter_map(|(_, frame)| frame.as_ref()) {
        if tried.contains(&pattern) {
            continue;
        }
        tried.push(pattern);
        let others_make_it = (nexts.iter())
            .filter(|(_, frame)| frame.as_ref() != Some(pattern))
            .any(|(o, _)| pattern.meets(&o.head.args[0]));
        let is_read = (read.get(&(pattern.name, pattern.arity)))
            .is_some_and(|facts| facts.iter().any(|t| pattern.covers(t)));
        if !others_make_it && is_read {
            patterns.push(pattern.clone());
        }
    }
    if patterns.is_empty() {
        return None;
    }
    let fixed: Vec<FixedRelation> = (patterns.into_iter())
        .map(|pattern| FixedRelation {
            copy: super::fresh_name(symbols, pattern.name, "~fixed"),
            pattern,
        })
        .collect();
    // ... true(f(t1 .. tn)) ...  ->  ... f~fixed(ti ..) ...  (the ti at
    // the places that are not constants)
    let read_copy = |s: &Sentence| -> Option<Sentence> {
        let fact = s.args.first().filter(|_| s.name == true_)?;
        let f = fixed.iter().find(|f| f.pattern.covers(fact))?;
        Some(Sentence {
            name: f.copy,
            name_span: s.name_span,
            args: f.pattern.copy_args(fact),
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
    // f~fixed(X ..) :- init(f(.. X ..)), placed where its frame is.
    for f in &fixed {
        let p = &f.pattern;
        let (frame, _) = (nexts.iter())
            .find(|(_, frame)| frame.as_ref() == Some(p))
            .expect("a fixed pattern has its frame rule");
        let at = frame.span;
        let args: Vec<Term> = (0..p.arity)
            .map(|i| match p.constant_at(i) {
                Some(c) => Term::Atom(c, at),
                None => Term::Var(symbols.intern(&format!("?x{i}")), at),
            })
            .collect();
        let vars: Vec<Term> = (args.iter())
            .filter(|t| matches!(t, Term::Var(..)))
            .cloned()
            .collect();
        let fact = match p.arity {
            0 => Term::Atom(p.name, at),
            _ => Term::Func(p.name, args, at),
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

/// What `gdl plan` says of the rewrite: the facts read as `init` gives
/// them, `wall/3` for a relation, `(cell _ _ hole)` for a pattern.
pub fn describe(fixed: &[FixedRelation], symbols: &Symbols) -> String {
    let names: Vec<String> = (fixed.iter())
        .map(|f| &f.pattern)
        .map(|p| match p.constants.is_empty() {
            true => format!("{}/{}", symbols.spelling(p.name), p.arity),
            false => {
                let places: Vec<&str> = (0..p.arity)
                    .map(|i| p.constant_at(i).map_or("_", |c| symbols.spelling(c)))
                    .collect();
                format!("({} {})", symbols.spelling(p.name), places.join(" "))
            }
        })
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

/// The pattern of a frame rule, `next(f(t1 .. tn)) :- true(f(t1 .. tn))`
/// with each `ti` a constant or a variable found once.
fn frame_pattern(c: &Clause, true_: Symbol) -> Option<Pattern> {
    let ([fact], [NLit::Pos(read)]) = (c.head.args.as_slice(), c.body.as_slice()) else {
        return None;
    };
    let [kept] = read.args.as_slice() else {
        return None;
    };
    if read.name != true_ {
        return None;
    }
    match (fact, kept) {
        (Term::Atom(a, _), Term::Atom(b, _)) if a == b => Some(Pattern {
            name: *a,
            arity: 0,
            constants: Vec::new(),
        }),
        (Term::Func(f, xs, _), Term::Func(g, ys, _)) if f == g && xs.len() == ys.len() => {
            let mut seen = FxHashSet::default();
            let mut constants = Vec::new();
            for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
                match (x, y) {
                    (Term::Var(x, _), Term::Var(y, _)) if x == y && seen.insert(*x) => {}
                    (Term::Atom(x, _), Term::Atom(y, _)) if x == y => constants.push((i, *x)),
                    _ => return None,
                }
            }
            Some(Pattern {
                name: *f,
                arity: xs.len(),
                constants,
            })
        }
        _ => None,
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
    fn another_next_rule_that_may_make_a_fact_keeps_it_as_written() {
        let moved = MAZE.replace(
            "(goal r 100)",
            "(goal r 100) (<= (next (wall 2 ?y)) (does r (go ?y)))",
        );
        assert_eq!(rewrite(&moved), None);
        let any = MAZE.replace(
            "(goal r 100)",
            "(goal r 100) (<= (next ?f) (true ?f) (true (at 1)))",
        );
        assert_eq!(rewrite(&any), None);
    }

    /// Holes kept by a frame of their own, beside cells that change.
    const HOLES: &str = "(role r) (init (cell 1 hole)) (init (cell 2 empty))
        (<= (next (cell ?x hole)) (true (cell ?x hole)))
        (<= (next (cell ?x stone)) (does r (put ?x)))
        (<= (next (cell ?x empty)) (true (cell ?x empty)) (not (does r (put ?x))))
        (<= (legal r (put ?x)) (true (cell ?x empty)))
        (<= (legal r (put ?x)) (true (cell ?y hole)) (true (cell ?x ?c)) (distinct ?c hole))
        (<= terminal (true (cell ?x stone))) (goal r 100)";

    #[test]
    fn a_frame_with_constants_fixes_the_facts_of_its_pattern() {
        let lines = rewrite(HOLES).expect("the holes are fixed");
        assert!(lines.contains(&"(next (cell ?x hole)) :- (cell~fixed ?x)".to_string()));
        assert!(lines.contains(&"(cell~fixed ?x0) :- (init (cell ?x0 hole))".to_string()));
        // A read that may be of other cells stays as written.
        assert!(lines.contains(
            &"(legal r (put ?x)) :- (cell~fixed ?y) (true (cell ?x ?c)) distinct".to_string()
        ));
        // A move that may put a stone in a hole makes the holes change.
        let filled = HOLES.replace("(next (cell ?x stone))", "(next (cell ?x ?c))");
        assert_eq!(rewrite(&filled), None);
    }
}
