//! Places that only carry a domain, dropped before grounding: a place of
//! a relation whose value never decides whether the relation holds (it
//! holds for one value of its domain iff for every one, and for no value
//! outside it) is projected away, the relation becoming one of fewer
//! places, so that neither grounding nor the interpreter enumerates its
//! values.
//!
//! ruleDepthExponential asks `(prereq1 0)`, and each `prereqN` of `N` bits
//! holds at step `N`, or before when `prereqN+1` holds for both values of
//! one more bit:
//!
//! ```text
//! prereqN(b1 .. bN) :- bit(b1), .., bit(bN), true(step N).
//! prereqN(b1 .. bN) :- bit(b1), .., bit(bN), not true(step N),
//!                      prereqN+1(b1 .. bN 0), prereqN+1(b1 .. bN 1).
//! ```
//!
//! Its facts are every vector of `N` bits, 2^20 of them at the bottom,
//! though no bit decides anything. With every place dropped the rules
//! are
//!
//! ```text
//! prereqN~dom :- true(step N).
//! prereqN~dom :- not true(step N), prereqN+1~dom.
//! legal(robot, continue) :- prereq1~dom.      was: prereq1(0)
//! ```
//!
//! 39 rules, and as many ground ones. (A copy without some of its places
//! only is named after them: `r~dom1,3`.) Loading makes this rewrite
//! first, before planning, whatever the engine (`game::load`), and the
//! reasons of the engine's choice say what it dropped ([`describe`]).
//!
//! The condition. A place `i` of a relation `r` (not a keyword, and
//! depending on the state or the moves) *carries only the domain* `D` (a
//! static unary relation, not a keyword) when, in each rule of `r`,
//!
//! ```text
//! r(t1 .. X .. tn) :- D(X), body.            X at place i, nowhere else
//!                                            in the head; or D(X) left out
//!                                            where a positive q(.. X ..)
//!                                            of the body has X at a place
//!                                            carrying D
//! ```
//!
//! and each other occurrence of `X` in the body is a whole argument of a
//! sentence, positive or negative, at a place that carries `D` too (never
//! inside a term, never in `distinct`, never at another place); and when
//! each negative use `not q(.. u ..)` of a rule, `u` at a place carrying
//! `D`, has `D(u)` hold wherever the rest of the body does: `u` is a
//! variable of a positive `D(u)` or of a positive sentence at a place
//! carrying `D`, or a constant of which `D(u)` is a fact. The places
//! that carry only a domain are the largest set that meets these
//! conditions (they are checked over and over, a place that fails
//! dropped, until none fails); the domain of a place is the first static
//! unary relation that the first rule of its relation applies to the
//! place's variable.
//!
//! Why it is sound: by induction over the strata, and in each over the
//! rounds of the fixpoint, every fact `r(t)` derived by round `k` has `t_i`
//! in `D` (the rule's `D(X)`, or the place of `q` that carries `D`, gives
//! it), and `r(t')`, `t'` being `t` with another value of `D` at place
//! `i`, is derived by round `k` too: the same rule with `X` given that
//! value holds, since `D(X)` does, each positive sentence with `X` at
//! places carrying `D` held a round before and so does its own
//! substitution, and each negative one fails for the other value as it
//! failed for the first (or, swapping back, it would not have failed).
//! So `r(t)` holds iff `r` holds for some values at its places that
//! carry a domain, the rest of `t` as given, and each `t_i` at those
//! places is in its `D`, which is what the rewritten rules say (a body
//! rewritten holds where the body as written does, and conversely, the
//! variables dropped given any value of their domain):
//!
//! ```text
//! r~dom(t without the places)  :- body'.     each rule of r
//! ... q~dom(u without them), D(u_j) ...       each positive use q(u)
//! ... not q~dom(u without them) ...           each negative use not q(u)
//! ```
//!
//! where `body'` is the body so rewritten. A `D(u_j)` added is left out
//! when `u_j` is a constant of which it is a fact; after the rewriting, a
//! literal written twice is kept once, and a `D(Y)` whose `Y` the rule
//! reads nowhere else is left out when `D` has a fact (it holds for some
//! value), as are the `D(X)` of the places dropped from the head.

use super::fresh_name;
use crate::analysis::graph::DepGraph;
use crate::syntax::ast::{Sentence, Term};
use crate::syntax::keywords::keyword_named;
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::{FxHashMap, FxHashSet};

/// A relation with places dropped: its copy without them, and the domain
/// each carried.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// The relation as written.
    pub relation: Symbol,
    /// Its copy without the places.
    pub copy: Symbol,
    /// The places dropped (from 0), each with its domain.
    pub places: Vec<(usize, Symbol)>,
}

/// For each relation with places considered, the domain of each of its
/// places that still carries one (`None`: the place stays).
type Domains = FxHashMap<Symbol, Vec<Option<Symbol>>>;

/// The clauses with the places that carry only a domain dropped (see the
/// module's documentation), and the relations that lost places, in the
/// order of their first rule; `None` when no place carries only a domain.
/// The copies' names are interned into `symbols`.
pub fn drop_domain_places(
    clauses: &[Clause],
    symbols: &mut Symbols,
) -> Option<(Vec<Clause>, Vec<Dropped>)> {
    let facts = Facts::of(clauses);
    let mut domains = candidates(clauses, symbols);
    narrow(clauses, &mut domains, &facts);
    let mut order: Vec<Symbol> = Vec::new();
    for c in clauses {
        let r = c.head.name;
        let some = domains
            .get(&r)
            .is_some_and(|d| d.iter().any(Option::is_some));
        if some && !order.contains(&r) {
            order.push(r);
        }
    }
    if order.is_empty() {
        return None;
    }
    let dropped: Vec<Dropped> = (order.iter())
        .map(|&r| {
            let places: Vec<(usize, Symbol)> = (domains[&r].iter().enumerate())
                .filter_map(|(i, d)| d.map(|d| (i, d)))
                .collect();
            // `r~dom` without every place, `r~dom1,3` without the first
            // and the third.
            let numbers: Vec<String> = match places.len() == domains[&r].len() {
                true => Vec::new(),
                false => places.iter().map(|(i, _)| (i + 1).to_string()).collect(),
            };
            let copy = fresh_name(symbols, r, &format!("~dom{}", numbers.join(",")));
            Dropped {
                relation: r,
                copy,
                places,
            }
        })
        .collect();
    let copy_of: FxHashMap<Symbol, &Dropped> = dropped.iter().map(|d| (d.relation, d)).collect();
    let out = (clauses.iter())
        .map(|c| rewrite(c, &copy_of, &facts))
        .collect();
    Some((out, dropped))
}

/// The facts of the rules (clauses without a body), by relation: what
/// tells a domain's constants and whether it holds for some value.
struct Facts(FxHashMap<Symbol, Vec<Sentence>>);

impl Facts {
    fn of(clauses: &[Clause]) -> Facts {
        let mut facts: FxHashMap<Symbol, Vec<Sentence>> = FxHashMap::default();
        for c in clauses.iter().filter(|c| c.body.is_empty()) {
            facts.entry(c.head.name).or_default().push(c.head.clone());
        }
        Facts(facts)
    }

    /// Whether `d` has a fact: it holds for some value.
    fn any(&self, d: Symbol) -> bool {
        self.0.contains_key(&d)
    }

    /// Whether `d(t)` is a fact of the rules.
    fn holds(&self, d: Symbol, t: &Term) -> bool {
        (self.0.get(&d).into_iter().flatten())
            .any(|f| matches!(f.args.as_slice(), [a] if same(a, t)))
    }
}

/// The candidate domain of each place of each relation that may lose
/// places: the first static unary relation (not a keyword) that the first
/// rule of the relation applies positively to the place's variable.
fn candidates(clauses: &[Clause], symbols: &Symbols) -> Domains {
    let mut graph = DepGraph::new(clauses);
    let (changing, reach) = graph.depends_on_named(&["true", "does"], symbols);
    let index = |r: Symbol| graph.relations.get_index_of(&r);
    let dynamic =
        |r: Symbol| index(r).is_some_and(|i| changing.contains(&i) || reach[i].iter().any(|&d| d));
    let keyword = |r: Symbol| keyword_named(symbols.name(r)).is_some();
    let mut arity: FxHashMap<Symbol, usize> = FxHashMap::default();
    let mut defined: FxHashSet<Symbol> = FxHashSet::default();
    for c in clauses {
        defined.insert(c.head.name);
        arity.entry(c.head.name).or_insert(c.head.args.len());
    }
    // domain(D) :- D is static, unary, not a keyword, and has a rule.
    let domain =
        |d: Symbol| defined.contains(&d) && !dynamic(d) && !keyword(d) && arity.get(&d) == Some(&1);
    let mut domains = Domains::default();
    for c in clauses {
        let r = c.head.name;
        if domains.contains_key(&r) || keyword(r) || !dynamic(r) {
            continue;
        }
        let places = (c.head.args.iter())
            .map(|t| {
                let Term::Var(x, _) = t else { return None };
                c.body.iter().find_map(|l| match l {
                    NLit::Pos(s)
                        if domain(s.name) && matches!(s.args.as_slice(), [a] if is_var(a, *x)) =>
                    {
                        Some(s.name)
                    }
                    _ => None,
                })
            })
            .collect();
        domains.insert(r, places);
    }
    domains
}

/// Narrows `domains` to the largest set of places that meets the module's
/// conditions: each place that fails one in some rule stays, until none
/// fails.
fn narrow(clauses: &[Clause], domains: &mut Domains, facts: &Facts) {
    // A relation used with another number of places than its rules have
    // keeps them all.
    for c in clauses {
        for s in sentences(c) {
            if let Some(d) = domains.get_mut(&s.name)
                && d.len() != s.args.len()
            {
                d.iter_mut().for_each(|p| *p = None);
            }
        }
    }
    loop {
        let mut failing: Vec<(Symbol, usize)> = Vec::new();
        for c in clauses {
            // stays(r, i) :- a rule of r whose head's place i fails.
            if let Some(places) = domains.get(&c.head.name) {
                for (i, d) in places.iter().enumerate() {
                    if let Some(d) = *d
                        && !carries(c, i, d, domains)
                    {
                        failing.push((c.head.name, i));
                    }
                }
            }
            // stays(q, j) :- a use not q(u) whose u_j may be out of D.
            for l in &c.body {
                let NLit::Neg(s) = l else { continue };
                let Some(places) = domains.get(&s.name) else {
                    continue;
                };
                for (j, d) in places.iter().enumerate() {
                    if let Some(d) = *d
                        && !within(c, &s.args[j], d, domains, facts)
                    {
                        failing.push((s.name, j));
                    }
                }
            }
        }
        if failing.is_empty() {
            return;
        }
        for (r, i) in failing {
            domains.get_mut(&r).expect("a relation considered")[i] = None;
        }
    }
}

/// Whether place `i` of the head of `c` carries only the domain `d` in
/// this rule: a variable nowhere else in the head, given its domain by a
/// positive `d(X)` or a positive sentence at a place carrying `d`, and
/// read elsewhere only as a whole argument at places carrying `d`.
fn carries(c: &Clause, i: usize, d: Symbol, domains: &Domains) -> bool {
    let Term::Var(x, _) = c.head.args[i] else {
        return false;
    };
    let mut in_head = 0;
    c.head
        .for_each_var(&mut |v, _| in_head += usize::from(v == x));
    if in_head != 1 {
        return false;
    }
    let carrying = |s: &Sentence, j: usize| domain_of(domains, s.name, j) == Some(d);
    let mut given = false;
    for l in &c.body {
        match l {
            NLit::Pos(s) if s.name == d && matches!(s.args.as_slice(), [a] if is_var(a, x)) => {
                given = true;
            }
            NLit::Pos(s) | NLit::Neg(s) => {
                for (j, a) in s.args.iter().enumerate() {
                    if is_var(a, x) {
                        if !carrying(s, j) {
                            return false;
                        }
                        given |= matches!(l, NLit::Pos(_));
                    } else if mentions(a, x) {
                        return false;
                    }
                }
            }
            NLit::Distinct(a, b, _) | NLit::Same(a, b, _) => {
                if mentions(a, x) || mentions(b, x) {
                    return false;
                }
            }
        }
    }
    given
}

/// Whether `d(u)` holds wherever the body of `c` does: `u` a variable of
/// a positive `d(u)` or of a positive sentence at a place carrying `d`,
/// or a constant of which `d(u)` is a fact.
fn within(c: &Clause, u: &Term, d: Symbol, domains: &Domains, facts: &Facts) -> bool {
    let Term::Var(y, _) = u else {
        return u.is_ground() && facts.holds(d, u);
    };
    c.body.iter().any(|l| match l {
        NLit::Pos(s) if s.name == d => matches!(s.args.as_slice(), [a] if is_var(a, *y)),
        NLit::Pos(s) => (s.args.iter().enumerate())
            .any(|(j, a)| is_var(a, *y) && domain_of(domains, s.name, j) == Some(d)),
        _ => false,
    })
}

/// The domain that place `j` of `r` carries, if it carries one.
fn domain_of(domains: &Domains, r: Symbol, j: usize) -> Option<Symbol> {
    domains.get(&r).and_then(|d| d.get(j).copied().flatten())
}

/// The clause with the places dropped from its head and its uses (see
/// the module's documentation); unchanged when it has none of them.
fn rewrite(c: &Clause, copy_of: &FxHashMap<Symbol, &Dropped>, facts: &Facts) -> Clause {
    let touched =
        copy_of.contains_key(&c.head.name) || sentences(c).any(|s| copy_of.contains_key(&s.name));
    if !touched {
        return c.clone();
    }
    let mut out = c.clone();
    if let Some(dropped) = copy_of.get(&c.head.name) {
        out.head = without(&c.head, dropped);
    }
    let mut body: Vec<NLit> = Vec::with_capacity(c.body.len());
    for l in &c.body {
        match l {
            NLit::Pos(s) if copy_of.contains_key(&s.name) => {
                let dropped = copy_of[&s.name];
                body.push(NLit::Pos(without(s, dropped)));
                for &(j, d) in &dropped.places {
                    let u = &s.args[j];
                    if !(u.is_ground() && facts.holds(d, u)) {
                        body.push(NLit::Pos(Sentence {
                            name: d,
                            name_span: s.name_span,
                            args: vec![u.clone()],
                            span: u.span(),
                        }));
                    }
                }
            }
            NLit::Neg(s) if copy_of.contains_key(&s.name) => {
                body.push(NLit::Neg(without(s, copy_of[&s.name])));
            }
            _ => body.push(l.clone()),
        }
    }
    // A literal written twice is kept once.
    let mut kept: Vec<NLit> = Vec::with_capacity(body.len());
    for l in body {
        if !kept.iter().any(|k| same_literal(k, &l)) {
            kept.push(l);
        }
    }
    // A domain's literal whose variable the rule reads nowhere else holds
    // for some value, where the domain has a fact.
    let domains: FxHashSet<Symbol> = (copy_of.values())
        .flat_map(|d| d.places.iter().map(|&(_, d)| d))
        .collect();
    out.body = kept;
    let count = occurrences(&out);
    out.body.retain(|l| match l {
        NLit::Pos(s) if domains.contains(&s.name) && facts.any(s.name) => {
            !matches!(s.args.as_slice(), [Term::Var(y, _)] if count[y] == 1)
        }
        _ => true,
    });
    out
}

/// The sentence `s` renamed to its copy, without the places dropped.
fn without(s: &Sentence, dropped: &Dropped) -> Sentence {
    let gone = |j: usize| dropped.places.iter().any(|&(i, _)| i == j);
    Sentence {
        name: dropped.copy,
        name_span: s.name_span,
        args: (s.args.iter().enumerate())
            .filter(|&(j, _)| !gone(j))
            .map(|(_, a)| a.clone())
            .collect(),
        span: s.span,
    }
}

/// The sentences of a clause: its head and its body's.
fn sentences(c: &Clause) -> impl Iterator<Item = &Sentence> {
    let body = c.body.iter().filter_map(|l| match l {
        NLit::Pos(s) | NLit::Neg(s) => Some(s),
        NLit::Distinct(..) | NLit::Same(..) => None,
    });
    std::iter::once(&c.head).chain(body)
}

/// How many times each variable occurs in a clause.
fn occurrences(c: &Clause) -> FxHashMap<Symbol, usize> {
    let mut count: FxHashMap<Symbol, usize> = FxHashMap::default();
    let mut add = |t: &Term| t.for_each_var(&mut |v, _| *count.entry(v).or_default() += 1);
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
    count
}

/// Whether `t` is the variable `x`.
fn is_var(t: &Term, x: Symbol) -> bool {
    matches!(t, Term::Var(v, _) if *v == x)
}

/// Whether the variable `x` occurs in `t`.
fn mentions(t: &Term, x: Symbol) -> bool {
    let mut found = false;
    t.for_each_var(&mut |v, _| found |= v == x);
    found
}

/// Whether two terms are the same, wherever they are written.
fn same(a: &Term, b: &Term) -> bool {
    match (a, b) {
        (Term::Atom(x, _), Term::Atom(y, _)) | (Term::Var(x, _), Term::Var(y, _)) => x == y,
        (Term::Func(f, xs, _), Term::Func(g, ys, _)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        _ => false,
    }
}

/// Whether two literals are the same, wherever they are written.
fn same_literal(a: &NLit, b: &NLit) -> bool {
    let sentence = |s: &Sentence, t: &Sentence| {
        s.name == t.name
            && s.args.len() == t.args.len()
            && s.args.iter().zip(&t.args).all(|(x, y)| same(x, y))
    };
    match (a, b) {
        (NLit::Pos(s), NLit::Pos(t)) | (NLit::Neg(s), NLit::Neg(t)) => sentence(s, t),
        (NLit::Distinct(a1, b1, _), NLit::Distinct(a2, b2, _))
        | (NLit::Same(a1, b1, _), NLit::Same(a2, b2, _)) => same(a1, a2) && same(b1, b2),
        _ => false,
    }
}

/// What was dropped, in words, for the reasons of the engine's choice:
/// `210 places that only carry a domain dropped, of 20 relations
/// (prereq1 at 1, prereq2 at 1,2, prereq3 at 1,2,3, ...)`.
pub fn describe(dropped: &[Dropped], symbols: &Symbols) -> String {
    let places: usize = dropped.iter().map(|d| d.places.len()).sum();
    let mut names: Vec<String> = (dropped.iter().take(SHOWN))
        .map(|d| {
            let at: Vec<String> = d.places.iter().map(|(i, _)| (i + 1).to_string()).collect();
            format!("{} at {}", symbols.spelling(d.relation), at.join(","))
        })
        .collect();
    if dropped.len() > SHOWN {
        names.push("...".into());
    }
    let what = match places {
        1 => "1 place that only carries a domain dropped".to_string(),
        n => format!("{n} places that only carry a domain dropped"),
    };
    let of = match dropped.len() {
        1 => "1 relation".to_string(),
        n => format!("{n} relations"),
    };
    format!("{what}, of {of} ({})", names.join(", "))
}

/// How many relations [`describe`] names.
const SHOWN: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;
    use crate::syntax::{kif, normal};

    /// The rules with the places that only carry a domain dropped, one
    /// clause a line (`head :- body`), and what was dropped in words.
    fn dropped(rules: &str) -> Option<(Vec<String>, String)> {
        let file = SourceFile::new("t.gdl", rules);
        let d = kif::parse(&file, 100).expect("parses");
        let clauses = normal::normalize(&d).expect("normalises");
        let mut symbols = d.symbols.clone();
        let (out, dropped) = drop_domain_places(&clauses, &mut symbols)?;
        let lines = crate::rewrite::clause_lines(&out, &symbols);
        Some((lines, describe(&dropped, &symbols)))
    }

    /// ruleDepthExponential's shape, three bits deep.
    const BITS: &str = "(role r) (init (step 1)) (bit 0) (bit 1)
        (legal r giveUp)
        (<= (legal r continue) (prereq1 0))
        (<= (next (step 2)) (true (step 1)))
        (<= (next (step 3)) (true (step 2)))
        (<= terminal (true (step 3)))
        (goal r 100)
        (<= (prereq1 ?b0) (bit ?b0) (true (step 1)))
        (<= (prereq2 ?b1 ?b0) (bit ?b1) (bit ?b0) (true (step 2)))
        (<= (prereq3 ?b2 ?b1 ?b0) (bit ?b2) (bit ?b1) (bit ?b0) (true (step 3)))
        (<= (prereq1 ?b0) (bit ?b0) (not (true (step 1)))
            (prereq2 ?b0 0) (prereq2 ?b0 1))
        (<= (prereq2 ?b1 ?b0) (bit ?b1) (bit ?b0) (not (true (step 2)))
            (prereq3 ?b1 ?b0 0) (prereq3 ?b1 ?b0 1))";

    #[test]
    fn bits_that_never_decide_are_dropped() {
        let (lines, said) = dropped(BITS).expect("dropped");
        assert_eq!(
            said,
            "6 places that only carry a domain dropped, of 3 relations \
             (prereq1 at 1, prereq2 at 1,2, prereq3 at 1,2,3)"
        );
        for line in [
            "(legal r continue) :- prereq1~dom",
            "prereq1~dom :- (true (step 1))",
            "prereq3~dom :- (true (step 3))",
            "prereq1~dom :- (not (true (step 1))) prereq2~dom",
            "prereq2~dom :- (not (true (step 2))) prereq3~dom",
        ] {
            assert!(lines.iter().any(|l| l == line), "{line} in {lines:#?}");
        }
        assert!(!lines.iter().any(|l| l.contains("(prereq")), "{lines:#?}");
    }

    #[test]
    fn a_value_read_from_a_dropped_place_comes_from_the_domain() {
        // `goal` reads the bit: it now gets it from `bit`.
        let rules = "(role r) (init s) (bit 0) (bit 1) (legal r go) terminal
            (<= (on ?b) (bit ?b) (true s))
            (<= (goal r ?g) (on ?b) (score ?b ?g))
            (score 0 0) (score 1 100)";
        let (lines, _) = dropped(rules).expect("dropped");
        assert!(
            lines.contains(&"(goal r ?g) :- on~dom (bit ?b) (score ?b ?g)".to_string()),
            "{lines:#?}"
        );
    }

    #[test]
    fn a_place_whose_value_decides_stays() {
        // The state reads ?b: `on` holds for the marked bit only.
        let marked = "(role r) (init (mark 0)) (bit 0) (bit 1) (legal r go) terminal
            (<= (on ?b) (bit ?b) (true (mark ?b)))
            (<= (goal r 100) (on 1))";
        assert_eq!(dropped(marked), None);
        // Another rule gives `on` a constant at the place.
        let constant = "(role r) (init s) (bit 0) (bit 1) (legal r go) terminal
            (<= (on ?b) (bit ?b) (true s))
            (on 2)
            (<= (goal r 100) (on 1))";
        assert_eq!(dropped(constant), None);
        // `distinct` reads ?b.
        let distinct = "(role r) (init s) (bit 0) (bit 1) (legal r go) terminal
            (<= (on ?b) (bit ?b) (true s) (distinct ?b 0))
            (<= (goal r 100) (on 1))";
        assert_eq!(dropped(distinct), None);
        // ?b is twice in the head.
        let twice = "(role r) (init s) (bit 0) (bit 1) (legal r go) terminal
            (<= (on ?b ?b) (bit ?b) (true s))
            (<= (goal r 100) (on 1 0))";
        assert_eq!(dropped(twice), None);
        // A rule passes ?b to a place of `off` whose value decides.
        let passed = "(role r) (init s) (bit 0) (bit 1) (legal r go) terminal
            (<= (on ?a ?b) (bit ?a) (bit ?b) (true s))
            (<= (on ?a ?b) (bit ?a) (bit ?b) (off ?b))
            (<= (off ?b) (bit ?b) (true (mark ?b)))
            (<= (goal r 100) (on 1 0))";
        let (lines, said) = dropped(passed).expect("the first place goes");
        assert!(said.ends_with("(on at 1)"), "{said}");
        assert!(
            lines.contains(&"(on~dom1 ?b) :- (bit ?b) (off ?b)".to_string()),
            "{lines:#?}"
        );
    }

    #[test]
    fn a_negated_use_needs_its_value_in_the_domain() {
        // `not (on 2)`: 2 is no bit, so `on` does not hold there, while
        // its copy without the place would.
        let rules = "(role r) (init s) (bit 0) (bit 1) (legal r go) terminal
            (<= (on ?b) (bit ?b) (true s))
            (<= (goal r 100) (not (on 2)))";
        assert_eq!(dropped(rules), None);
        let within = "(role r) (init s) (bit 0) (bit 1) (legal r go) terminal
            (<= (on ?b) (bit ?b) (true s))
            (<= (goal r 100) (not (on 1)))";
        let (lines, _) = dropped(within).expect("dropped");
        assert!(
            lines.contains(&"(goal r 100) :- (not on~dom)".to_string()),
            "{lines:#?}"
        );
    }
}
