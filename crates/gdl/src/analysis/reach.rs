//! Warnings for literals that can never hold, found by over-approximating
//! what every rule can derive:
//!
//! - `impossible-constant`: a constant where no fact of the relation can
//!   have it, such as `(true (cell x ?y ?r))` when every `cell` fact has a
//!   number there (a variable `?x` was meant, most often);
//! - `never-true`: a literal that no state can make true: `(true (contol
//!   ?r))` in any rule when no `init` or `next` rule makes a `contol` fact,
//!   and in a `legal` or `goal` rule a relation none of whose rules can
//!   ever apply.
//!
//! The values each argument place can take are computed to a fixed point:
//! a constant in a head adds itself, a variable adds the values of the
//! places that bind it in the body (the intersection: each of them holds
//! it), or "anything" when no tracked place binds it. The state's facts
//! (`init`, `next`, `base`, read by `true`) and the moves (`legal`,
//! `input`, read by `does`) are tracked one level inside, by function name
//! and arity. Every approximation errs towards "it may hold", so a warning
//! is only given when the literal cannot hold in any game.

use crate::error::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{Description, Sentence, Term};
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::Symbol;
use rustc_hash::{FxHashMap, FxHashSet};

/// At most this many values are listed in a note.
const MAX_LISTED: usize = 12;

/// What a relation or a fact term holds: the state's facts, the moves, or
/// an ordinary relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Holder {
    /// A fact of the state: its function name and arity.
    State(Symbol, usize),
    /// A move: its function name and arity.
    Move(Symbol, usize),
    /// The role of `legal`, `does` and `input`.
    Role,
    /// An ordinary relation.
    Relation(Symbol),
    /// A fact or move written as a variable (`(true ?f)`): not tracked.
    Unknown,
}

/// One argument place of a holder.
type Place = (Holder, usize);

/// The values a place may take.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Values {
    Any,
    Some(FxHashSet<Symbol>),
}

impl Values {
    fn contains(&self, s: Symbol) -> bool {
        match self {
            Values::Any => true,
            Values::Some(set) => set.contains(&s),
        }
    }

    /// Adds `more`; true when something was added.
    fn add(&mut self, more: &Values) -> bool {
        match (&mut *self, more) {
            (Values::Any, _) => false,
            (_, Values::Any) => {
                *self = Values::Any;
                true
            }
            (Values::Some(set), Values::Some(more)) => {
                let before = set.len();
                set.extend(more.iter().copied());
                set.len() > before
            }
        }
    }

    fn intersect(&self, other: &Values) -> Values {
        match (self, other) {
            (Values::Any, v) | (v, Values::Any) => v.clone(),
            (Values::Some(a), Values::Some(b)) => {
                Values::Some(a.intersection(b).copied().collect())
            }
        }
    }
}

/// The analysis: what each holder and place may hold.
struct Reach<'a> {
    d: &'a Description,
    /// Holders some clause can make true.
    holds: FxHashSet<Holder>,
    /// The values of every place seen in a head.
    values: FxHashMap<Place, Values>,
}

/// The holder of a sentence, and each of its argument places with the term
/// written there.
fn places<'t>(d: &Description, s: &'t Sentence) -> (Holder, Vec<(Place, &'t Term)>) {
    let inner = |kind: fn(Symbol, usize) -> Holder, t: &'t Term| match t {
        Term::Func(f, args, _) => {
            let h = kind(*f, args.len());
            (
                h,
                args.iter().enumerate().map(|(i, a)| ((h, i), a)).collect(),
            )
        }
        Term::Atom(a, _) => (kind(*a, 0), Vec::new()),
        Term::Var(..) => (Holder::Unknown, Vec::new()),
    };
    match (d.symbols.name(s.name), s.args.as_slice()) {
        ("true" | "init" | "next" | "base", [fact]) => inner(Holder::State, fact),
        ("does" | "legal" | "input", [role, mv]) => {
            let (h, mut ps) = inner(Holder::Move, mv);
            ps.push(((Holder::Role, 0), role));
            (h, ps)
        }
        _ => {
            let h = Holder::Relation(s.name);
            (
                h,
                s.args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| ((h, i), a))
                    .collect(),
            )
        }
    }
}

impl Reach<'_> {
    fn values(&self, p: &Place) -> Values {
        self.values
            .get(p)
            .cloned()
            .unwrap_or_else(|| Values::Some(FxHashSet::default()))
    }

    /// The values a variable of a clause may take: those of every place of
    /// a positive body literal that binds it, intersected.
    fn variable(&self, c: &Clause, v: Symbol) -> Values {
        let mut out = Values::Any;
        for lit in &c.body {
            let NLit::Pos(s) = lit else { continue };
            for (p, t) in places(self.d, s).1 {
                if matches!(t, Term::Var(w, _) if *w == v) {
                    out = out.intersect(&self.values(&p));
                }
            }
        }
        out
    }

    /// True when a positive body literal may hold: its holder can be made
    /// true, and each constant it names can be in its place.
    fn may_hold(&self, s: &Sentence) -> bool {
        let (h, ps) = places(self.d, s);
        (h == Holder::Unknown || self.holds.contains(&h))
            && ps.iter().all(|(p, t)| match t {
                Term::Atom(a, _) => self.values(p).contains(*a),
                _ => true,
            })
    }

    /// Runs every clause that may fire until nothing more is derived.
    fn run(&mut self, clauses: &[Clause]) {
        loop {
            let mut changed = false;
            for c in clauses {
                let fires = c.body.iter().all(|l| match l {
                    NLit::Pos(s) => self.may_hold(s),
                    _ => true,
                });
                if !fires {
                    continue;
                }
                let (h, ps) = places(self.d, &c.head);
                changed |= self.holds.insert(h);
                for (p, t) in ps {
                    let v = match t {
                        Term::Atom(a, _) => Values::Some([*a].into_iter().collect()),
                        Term::Var(v, _) => self.variable(c, *v),
                        Term::Func(..) => Values::Any,
                    };
                    changed |= self
                        .values
                        .entry(p)
                        .or_insert_with(|| Values::Some(FxHashSet::default()))
                        .add(&v);
                }
            }
            if !changed {
                return;
            }
        }
    }
}

/// The analysis run to its fixed point over `clauses`; `None` when a head
/// such as `(next ?f)` could make any fact, and nothing is known.
fn reach<'a>(d: &'a Description, clauses: &[Clause]) -> Option<Reach<'a>> {
    if clauses
        .iter()
        .any(|c| places(d, &c.head).0 == Holder::Unknown)
    {
        return None;
    }
    let mut r = Reach {
        d,
        holds: FxHashSet::default(),
        values: FxHashMap::default(),
    };
    r.run(clauses);
    Some(r)
}

/// For each clause, the position in its body of the first positive
/// literal that holds in no state of any play (so the clause never
/// applies), by the over-approximation of this module; `None` for a clause
/// that may apply, and for every clause when nothing is known.
pub(crate) fn never_holding_literals(d: &Description, clauses: &[Clause]) -> Vec<Option<usize>> {
    let Some(r) = reach(d, clauses) else {
        return vec![None; clauses.len()];
    };
    (clauses.iter())
        .map(|c| {
            c.body
                .iter()
                .position(|l| matches!(l, NLit::Pos(s) if !r.may_hold(s)))
        })
        .collect()
}

/// The warnings of this module for a description and its clauses.
pub(crate) fn never_holding(d: &Description, clauses: &[Clause]) -> Vec<Diagnostic> {
    // A head such as `(next ?f)` could make any fact: nothing is known.
    let Some(r) = reach(d, clauses) else {
        return Vec::new();
    };
    let defined: FxHashSet<Holder> = clauses.iter().map(|c| places(d, &c.head).0).collect();
    let name = |s: Symbol| d.symbols.name(s);
    let mut out = Vec::new();
    let mut seen: FxHashSet<(u32, u32)> = FxHashSet::default();
    for c in clauses {
        let keyword = name(d.rules[c.rule].head.name);
        for lit in &c.body {
            let NLit::Pos(s) = lit else { continue };
            // A question of the demand transformation (`r?`, see
            // `rewrite::demand`) is not written in the file: what it never
            // asks, the written rule is never asked.
            if name(s.name).ends_with('?') {
                continue;
            }
            if !seen.insert((s.span.start, s.span.end)) {
                continue;
            }
            let (h, ps) = places(d, s);
            if h == Holder::Unknown {
                continue;
            }
            if !r.holds.contains(&h) {
                // Never made true at all: `undefined-relation` says so for a
                // relation without rules; in `legal` and `goal` a state fact
                // or relation that no rule can make is worth a warning.
                let read_by_keyword = matches!(keyword, "legal" | "goal") && defined.contains(&h);
                if read_by_keyword || matches!(h, Holder::State(..)) {
                    let head = d.symbols.spelling(d.rules[c.rule].head.name);
                    let w = never_true(d, s, h, head, defined.contains(&h));
                    out.push(match similar(d, h, &r.holds) {
                        Some((name, other)) => w.with_suggestion(s.span, name, other, ""),
                        None => w,
                    });
                }
                continue;
            }
            let mut impossible = ps.into_iter().filter_map(|(p, t)| match (t, r.values(&p)) {
                (Term::Atom(a, span), Values::Some(set)) if !set.is_empty() && !set.contains(a) => {
                    Some((p, *a, *span, set))
                }
                _ => None,
            });
            if let Some((p, a, span, set)) = impossible.next() {
                let mut w = impossible_constant(d, s, p, a, span, &set);
                for (_, other, span, _) in impossible {
                    w = w.with_secondary(
                        span,
                        format!("`{}` is never here either", d.symbols.spelling(other)),
                    );
                }
                out.push(w);
            }
        }
    }
    out
}

/// The name of a fact, move or relation that does hold and is spelt
/// nearly as `h`'s (`cel` for `cell`), of the same kind, and of the same
/// arity where there is one: the likely meaning of a misspelt name (after
/// `h`'s name).
fn similar<'a>(
    d: &'a Description,
    h: Holder,
    holds: &FxHashSet<Holder>,
) -> Option<(&'a str, &'a str)> {
    let mut same_kind: Vec<(bool, Symbol)> = (holds.iter())
        .filter_map(|&other| match (h, other) {
            (Holder::State(_, n), Holder::State(g, m))
            | (Holder::Move(_, n), Holder::Move(g, m)) => Some((n == m, g)),
            (Holder::Relation(_), Holder::Relation(g)) => Some((true, g)),
            _ => None,
        })
        .collect();
    // Those of the same arity first, then by name: one answer on every run.
    same_kind.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| d.symbols.name(a.1).cmp(d.symbols.name(b.1)))
    });
    let name = match h {
        Holder::State(f, _) | Holder::Move(f, _) | Holder::Relation(f) => d.symbols.spelling(f),
        Holder::Role | Holder::Unknown => return None,
    };
    let candidates: Vec<&str> = same_kind
        .iter()
        .map(|&(_, g)| d.symbols.spelling(g))
        .collect();
    super::suggest::closest(name, candidates).map(|other| (name, other))
}

/// "the 2nd", for an argument place counted from 0.
fn ordinal(i: usize) -> String {
    let n = i + 1;
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// What holds a place, for people: "`cell` fact", "move `mark`",
/// "relation `succ`".
fn holder_text(d: &Description, h: Holder) -> String {
    match h {
        Holder::State(f, _) => format!("`{}` fact of the state", d.symbols.spelling(f)),
        Holder::Move(f, _) => format!("`{}` move", d.symbols.spelling(f)),
        Holder::Role => "role".to_string(),
        Holder::Relation(r) => format!("`{}` fact", d.symbols.spelling(r)),
        Holder::Unknown => "fact".to_string(),
    }
}

fn impossible_constant(
    d: &Description,
    s: &Sentence,
    (h, i): Place,
    a: Symbol,
    span: Span,
    set: &FxHashSet<Symbol>,
) -> Diagnostic {
    let constant = d.symbols.spelling(a);
    let mut values: Vec<&str> = set.iter().map(|&v| d.symbols.spelling(v)).collect();
    values.sort_by(|x, y| crate::syntax::natural::natural_cmp(x, y));
    let more = values.len().saturating_sub(MAX_LISTED);
    values.truncate(MAX_LISTED);
    let mut list = values.join(", ");
    if more > 0 {
        list.push_str(&format!(" and {more} more"));
    }
    let holder = holder_text(d, h);
    Diagnostic::warning(
        "impossible-constant",
        span,
        format!(
            "`{}` never holds: no {holder} has `{constant}` as its {} argument",
            d.show_sentence(s),
            ordinal(i)
        ),
    )
    .with_label(format!("`{constant}` is never here"))
    .with_note(format!("the rules only put here: {list}"))
    .with_note("was a variable meant? A variable, such as `?x`, matches any value")
}

fn never_true(d: &Description, s: &Sentence, h: Holder, head: &str, made: bool) -> Diagnostic {
    let name = |f: Symbol| d.symbols.spelling(f);
    let why = match h {
        Holder::State(f, n) => {
            let fact = if n == 0 {
                format!("`{}`", name(f))
            } else {
                format!("`({}{})`", name(f), " _".repeat(n))
            };
            if made {
                format!(
                    "the rules that make the fact {fact} never apply: each needs \
                     something that never holds (such as the fact itself)"
                )
            } else {
                format!("no `init` or `next` rule makes the fact {fact}")
            }
        }
        Holder::Move(f, _) => format!("no `legal` rule gives a `{}` move", name(f)),
        _ => format!(
            "none of the rules of `{}` can apply in any state",
            name(s.name)
        ),
    };
    Diagnostic::warning(
        "never-true",
        s.span,
        format!("`{}` never holds: {why}", d.show_sentence(s)),
    )
    .with_label("never true")
    .with_note(format!(
        "so this rule for `{head}` never applies; is a name misspelt, or a rule missing?"
    ))
}

#[cfg(test)]
mod tests {
    use crate::analysis::check::check_source;

    /// A small game of one role with `rules` added: the codes of this
    /// module's warnings, in the order of the file.
    fn warnings(rules: &str) -> Vec<&'static str> {
        let text = format!(
            "(role you) (index 1) (index 2) (init (at (pos 1 1))) (init (c 1))
             (<= (legal you (go ?x)) (index ?x)) (<= (next (c ?x)) (does you (go ?x)))
             (<= (next (at ?p)) (true (at ?p)))
             (<= (goal you 100) (true (c 2))) (<= (goal you 0) (true (c 1)))
             (<= terminal (true (c 2)))
             {rules}"
        );
        let (_, diagnostics) = check_source("t.gdl", &text);
        diagnostics
            .iter()
            .map(|d| d.code)
            .filter(|c| matches!(*c, "impossible-constant" | "never-true"))
            .collect()
    }

    #[test]
    fn what_may_hold_gives_no_warning() {
        // A frame axiom of a fact `init` makes; a function term one level
        // down (not tracked: anything may be there); a fact read through a
        // variable; a move of a value the legal rule allows.
        assert!(warnings("").is_empty());
        assert!(warnings("(<= terminal (true (at (pos 9 9))))").is_empty());
        assert!(warnings("(<= terminal (true ?f) (index ?f))").is_empty());
        assert!(warnings("(<= (next (c 1)) (does you (go 2)))").is_empty());
        // A rule that may make any fact leaves nothing known.
        assert!(warnings("(<= (next ?f) (true ?f)) (<= terminal (true (nothing)))").is_empty());
    }

    #[test]
    fn what_never_holds_is_named() {
        assert_eq!(
            warnings("(<= terminal (true (c x)))"),
            ["impossible-constant"]
        );
        assert_eq!(
            warnings("(<= (next (c 1)) (does you (go 3)))"),
            ["impossible-constant"]
        );
        assert_eq!(
            warnings("(<= terminal (true (winner you)))"),
            ["never-true"]
        );
        // Only a frame axiom makes `lit`: it never starts.
        assert_eq!(
            warnings("(<= (next lit) (true lit)) (<= terminal (true lit))"),
            ["never-true", "never-true"]
        );
        // A relation read by `goal` whose rules never apply.
        assert_eq!(
            warnings("(<= (won ?r) (role ?r) (true (c 3))) (<= (goal you 50) (won you))"),
            ["impossible-constant", "never-true"]
        );
    }

    #[test]
    fn a_misspelt_fact_is_given_the_name_it_likely_meant() {
        let text = "(role you) (init (cell 1 b)) (<= (legal you go) (true (cel 1 b)))
                    (<= (next (cell 1 x)) (does you go)) (<= terminal (true (cell 1 x)))
                    (goal you 100)";
        let (_, diagnostics) = check_source("t.gdl", text);
        let w = diagnostics
            .iter()
            .find(|d| d.code == "never-true")
            .expect("never-true");
        assert!(
            w.notes.iter().any(|n| n == "did you mean `cell`?"),
            "{:?}",
            w.notes
        );
    }
}
