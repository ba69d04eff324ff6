//! Loose rules read as the reference reads them: what published games
//! write that GDL forbids, given the meaning ggp-base's prover gives it,
//! before the rules are put in normal form and checked. Each reading is an
//! allowance (a warning that `--strict` refuses, see
//! [`crate::Diagnostic::is_allowance`]):
//!
//! - `several-arities`: a relation written with several numbers of
//!   arguments, such as the metadata facts `(arg terminal/0)` and `(arg
//!   does/2 0 black/0)`, is one relation for each number (ggp-base matches
//!   a literal only with the facts and rules of its arity). The uses of
//!   each arity but the first are renamed `name/arity`.
//! - `keyword-as-relation`: a keyword written with another number of
//!   arguments than its own, such as `(next 1 2)` for a successor
//!   relation, is a relation of its own (renamed `next/2`), which the game
//!   never reads as the keyword, as in ggp-base.
//! - `unbound-role`: a variable at the role of a `legal` or `goal` head
//!   that no positive literal of the body binds, as in `(<= (legal ?r
//!   noop) (not (true (control ?r))))` or the fact `(legal ?r noop)`,
//!   ranges over the roles: ggp-base asks for each role's moves and goals,
//!   and the question binds it.
//! - `negated-unbound`: a variable of a negated literal that nothing else
//!   in the rule binds, as `?x` in `(not (true (cell ?x 1 b)))`, reads "no
//!   value of it makes the literal hold", its meaning with the variable
//!   free: the literal becomes the negation of a helper relation without
//!   that variable. (ggp-base's prover leaves such a `not` out of the rule
//!   instead, as it does each `distinct` and `not` whose variables no
//!   positive literal binds: see `caller-bound`; `tests/more_games.rs`
//!   lists the games where that shows.)
//! - `unsafe-fact-dropped`: a fact with a variable, of a relation that no
//!   rule reads (metadata such as `(arg ?x 0)`), is dropped: nothing could
//!   use it. A `base` or `input` with such a fact (`(base (cell ?x ?y
//!   ?v))`) is dropped whole: tools list them, play never reads them. A
//!   fact with a variable that a rule reads is read as
//!   `unsafe-fact-caller-bound` says, or stays an error, and so does one
//!   whose name is a misspelt rule arrow, `(<- head body)`.
//! - `unsafe-rule-dropped`: likewise a rule with a variable that no
//!   positive literal of its body binds, of a relation that no rule reads
//!   and the game does not read, as `(<= (cell ?x ?y ?r) fail)` left in a
//!   file being written: nothing could ask it, so ggp-base never does, and
//!   it is dropped. A relation that is read keeps such a rule an error
//!   (`unsafe-variable`).
//! - `unsafe-rule-never-applies`: a rule with a variable that no positive
//!   literal of its body binds, one of whose positive literals matches no
//!   fact of a relation that facts alone define (racetrackcorridor's `(<=
//!   (next (walls ?player ?walls)) ... (successor ?pwalls walls))`,
//!   `walls` written for `?walls`), never applies, whatever its variables:
//!   it is dropped, as ggp-base never applies it either.
//! - `caller-bound`: a variable of a rule's head that nothing in its body
//!   binds, as `?m4` in `(<= (lineMarked ?m1 ... ?m9) (mark ?m1) (mark
//!   ?m2) (mark ?m3) ...)`, where every use of the relation asks it with
//!   that place bound: ggp-base's prover, reading top-down, answers the
//!   questions asked, and so does gdl, deriving the relation only for
//!   them (`rewrite::demand`). Uses that ask it in different ways, each
//!   binding the variable (colonelBlotto's `(sum ?x 0 ?x)`, asked with
//!   `?x` given to add and with the last place given to subtract), ask
//!   one copy of the relation each, derived for their own questions
//!   (`rewrite::demand::demand_adorned`). A use that leaves the place to
//!   a variable its rule reads nowhere else (sudoku's `(exactlyFirst ?z
//!   ?x9 ... ?8)`, whose `?8` is the place of the rule's unbound `?9`)
//!   holds when some value fits there, as the prover answers it with the
//!   variable free: it asks a copy of the relation without that place
//!   (`rewrite::some_value`), tried only where the readings before leave a
//!   head variable unbound. A `distinct` or `not` of such a rule is read
//!   with the values the question gives, also where the body has nothing
//!   else (minichess's `(<= (distpair ?w ?x ?y ?z) (distinct ?w ?x))`,
//!   asked with every place bound). There ggp-base's prover is wrong: its
//!   `DistinctAndNotMover` moves each `distinct` and `not` of a rule after
//!   the positive literals that bind its variables, and leaves out those
//!   that none does, so that it answers as if they were not written (for
//!   it `distpair` always holds, and a cell moved to keeps its `b` beside
//!   the piece); the warning says so. A use that asks with the place
//!   unbound and reads the variable again keeps it an error
//!   (`unsafe-variable`): ggp-base's prover fails there (a null pointer,
//!   from an answer with a variable left free).
//! - `unsafe-fact-caller-bound`: a fact with a variable that rules read,
//!   as `(leq ?a ?a)`, where the questions asked of its relation bind its
//!   variables (as `caller-bound` reads a rule whose body binds nothing):
//!   ggp-base's prover matches the question with the fact, which gives its
//!   variables the question's values, and gdl derives the relation for
//!   the questions asked. One asked with such a place unbound stays an
//!   error (`unsafe-fact`).

use crate::analysis::check::{ALLOWED_IN_PUBLISHED_GAMES, arguments, list};
use crate::analysis::suggest::closest;
use crate::error::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{Description, Literal, Rule, Sentence, Term};
use crate::syntax::keywords::{OPERATORS, keyword_named};
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::{FxHashMap, FxHashSet};

/// Gives the loose parts of a parsed file the reference's reading (see the
/// module's comment), in place; the warning of each.
pub(crate) fn read_loosely(d: &mut Description) -> Vec<Diagnostic> {
    let mut out = by_arity(d);
    out.extend(bind_roles_of_facts(d));
    out.extend(drop_unread_unsafe_facts(d));
    out.extend(drop_unsafe_rules_that_never_apply(d));
    out
}

/// Drops each rule with a variable that no positive literal of its body
/// binds, when a positive literal of its body matches no fact of a
/// relation that only facts define (`unsafe-rule-never-applies`): the
/// rule never applies, in any reading, and ggp-base never applies it.
fn drop_unsafe_rules_that_never_apply(d: &mut Description) -> Vec<Diagnostic> {
    // The relations that ground facts alone define, with their facts.
    let mut facts: FxHashMap<Symbol, Vec<&Sentence>> = FxHashMap::default();
    let mut not_facts: FxHashSet<Symbol> = FxHashSet::default();
    for r in &d.rules {
        match r.body.is_empty() && r.head.is_ground() {
            true => facts.entry(r.head.name).or_default().push(&r.head),
            false => {
                not_facts.insert(r.head.name);
            }
        }
    }
    facts.retain(|name, _| {
        !not_facts.contains(name) && keyword_named(d.symbols.name(*name)).is_none()
    });
    // Each unsafe rule and the first literal of its body that no fact
    // matches.
    let mut never: Vec<(usize, Span)> = Vec::new();
    for (i, rule) in d.rules.iter().enumerate() {
        if rule.body.is_empty() || is_safe(rule) {
            continue;
        }
        let unmatched = rule.body.iter().find_map(|l| match l {
            Literal::Pos(s) => (facts.get(&s.name))
                .filter(|fs| !fs.iter().any(|f| matches_fact(s, f)))
                .map(|_| s.span),
            _ => None,
        });
        if let Some(at) = unmatched {
            never.push((i, at));
        }
    }
    let mut out = Vec::new();
    for &(i, at) in &never {
        let rule = &d.rules[i];
        let (v, v_at) = unbound_variables(rule)[0];
        let relation = d.symbols.spelling(rule.head.name);
        let literal = (rule.body.iter())
            .find_map(|l| match l {
                Literal::Pos(s) if s.span == at => Some(s),
                _ => None,
            })
            .expect("the literal found above");
        out.push(
            Diagnostic::warning(
                "unsafe-rule-never-applies",
                v_at,
                format!(
                    "a rule of `{relation}` contains the variable `{}`, which no positive \
                     literal of its body binds, but `{}` matches no `{}` fact: the rule \
                     never applies, so it is dropped",
                    d.symbols.spelling(v),
                    d.show_sentence(literal),
                    d.symbols.spelling(literal.name),
                ),
            )
            .with_label(format!("`{}` has no value here", d.symbols.spelling(v)))
            .with_secondary(at, "never holds: was a variable meant?")
            .with_note(format!(
                "`{}` is defined by facts alone, and none has these values: ggp-base never \
                 applies the rule either, so it changes no game",
                d.symbols.spelling(literal.name)
            ))
            .with_note(ALLOWED_IN_PUBLISHED_GAMES),
        );
    }
    let dropped: FxHashSet<usize> = never.iter().map(|&(i, _)| i).collect();
    let mut i = 0;
    d.rules.retain(|_| {
        i += 1;
        !dropped.contains(&(i - 1))
    });
    out
}

/// Whether the ground `fact` is an instance of the sentence `s` (of the
/// same relation): their constants agree, and each variable of `s` stands
/// for one term wherever it is.
fn matches_fact(s: &Sentence, fact: &Sentence) -> bool {
    fn term<'f>(t: &Term, g: &'f Term, bound: &mut FxHashMap<Symbol, &'f Term>) -> bool {
        match (t, g) {
            (Term::Var(v, _), _) => match bound.get(v) {
                Some(b) => same(b, g),
                None => {
                    bound.insert(*v, g);
                    true
                }
            },
            (Term::Atom(a, _), Term::Atom(b, _)) => a == b,
            (Term::Func(f, xs, _), Term::Func(g_, ys, _)) => {
                f == g_ && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| term(x, y, bound))
            }
            _ => false,
        }
    }
    fn same(a: &Term, b: &Term) -> bool {
        match (a, b) {
            (Term::Atom(x, _), Term::Atom(y, _)) => x == y,
            (Term::Func(f, xs, _), Term::Func(g, ys, _)) => {
                f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
            }
            _ => false,
        }
    }
    let mut bound = FxHashMap::default();
    s.args.len() == fact.args.len()
        && (s.args.iter().zip(&fact.args)).all(|(t, g)| term(t, g, &mut bound))
}

/// A `legal` or `goal` fact whose only variable is its role, such as
/// `(legal ?player noop)`, holds for every role (`unbound-role`): it
/// becomes the rule `(<= (legal ?player noop) (role ?player))`.
fn bind_roles_of_facts(d: &mut Description) -> Vec<Diagnostic> {
    let Some(role) = d.symbols.get("role") else {
        return Vec::new();
    };
    let mut found: Vec<(usize, Symbol, Span)> = Vec::new();
    for (i, rule) in d.rules.iter().enumerate() {
        let keyword = d.symbols.name(rule.head.name);
        if !rule.body.is_empty() || !matches!(keyword, "legal" | "goal") {
            continue;
        }
        if let [Term::Var(v, at), rest @ ..] = rule.head.args.as_slice()
            && rest.iter().all(Term::is_ground)
        {
            found.push((i, *v, *at));
        }
    }
    let mut out = Vec::new();
    for (i, v, at) in found {
        out.push(unbound_role(d, v, at, d.rules[i].head.name));
        d.rules[i].body.push(Literal::Pos(Sentence {
            name: role,
            name_span: at,
            args: vec![Term::Var(v, at)],
            span: at,
        }));
    }
    out
}

/// The warning `unbound-role` for the role variable `v` at `at` of a
/// `legal` or `goal` head (`keyword`).
fn unbound_role(d: &Description, v: Symbol, at: Span, keyword: Symbol) -> Diagnostic {
    let name = d.symbols.spelling(v);
    let keyword = d.symbols.spelling(keyword);
    Diagnostic::warning(
        "unbound-role",
        at,
        format!(
            "variable `{name}` is the role of `{keyword}` but no positive literal of the \
             body binds it: it ranges over the roles"
        ),
    )
    .with_label("bound by no positive literal")
    .with_note(format!(
        "ggp-base asks for each role's `{keyword}` with the role given, which binds \
         `{name}`; GDL wants a literal that binds it, such as `(role {name})`"
    ))
    .with_note(ALLOWED_IN_PUBLISHED_GAMES)
}

/// Calls `f` on every sentence of a rule, the head first, then the body's
/// in the order written (inside `not` and `or` too).
fn for_each_sentence_mut(rule: &mut Rule, f: &mut impl FnMut(&mut Sentence)) {
    fn literal(l: &mut Literal, f: &mut impl FnMut(&mut Sentence)) {
        match l {
            Literal::Pos(s) => f(s),
            Literal::Not(inner, _) => literal(inner, f),
            Literal::Distinct(..) => {}
            Literal::Or(ls, _) => ls.iter_mut().for_each(|l| literal(l, f)),
        }
    }
    f(&mut rule.head);
    rule.body.iter_mut().for_each(|l| literal(l, f));
}

/// Calls `f` on every sentence of a rule with whether it is the head.
fn for_each_sentence(rule: &Rule, f: &mut impl FnMut(&Sentence, bool)) {
    f(&rule.head, true);
    for l in &rule.body {
        l.for_each_sentence(true, &mut |s, _| f(s, false));
    }
}

/// Names whose arity no reading changes: the body operators (a sentence
/// named so is an error of its own), `role` (ggp-base counts any `role`
/// fact's first argument a role) and GDL-II's `sees` (refused by name).
fn keeps_its_arity(name: &str) -> bool {
    OPERATORS.iter().any(|(o, _)| *o == name) || name == "role" || name == "sees"
}

/// One relation per name and arity: the uses of every arity but the main
/// one (a keyword's own, else the first written) are renamed.
fn by_arity(d: &mut Description) -> Vec<Diagnostic> {
    // Per name, its arities in order of first use, with that use.
    let mut arities: FxHashMap<Symbol, Vec<(usize, Span)>> = FxHashMap::default();
    let mut order: Vec<Symbol> = Vec::new();
    for rule in &d.rules {
        for_each_sentence(rule, &mut |s, _| {
            if keeps_its_arity(d.symbols.name(s.name)) {
                return;
            }
            let list = arities.entry(s.name).or_insert_with(|| {
                order.push(s.name);
                Vec::new()
            });
            if !list.iter().any(|&(a, _)| a == s.args.len()) {
                list.push((s.args.len(), s.span));
            }
        });
    }
    let mut renamed: FxHashMap<(Symbol, usize), Symbol> = FxHashMap::default();
    let mut out = Vec::new();
    for name in order {
        let uses = &arities[&name];
        let keyword = keyword_named(d.symbols.name(name));
        let main = keyword.map_or(uses[0].0, |k| k.arity);
        let others: Vec<(usize, Span)> = uses.iter().filter(|u| u.0 != main).copied().collect();
        if others.is_empty() {
            continue;
        }
        let shown = d.symbols.spelling(name).to_string();
        let mut aliases = Vec::new();
        for &(arity, _) in &others {
            let (alias, symbol) = fresh(d, format!("{shown}/{arity}"));
            renamed.insert((name, arity), symbol);
            aliases.push(alias);
        }
        match keyword {
            Some(k) => {
                for (&(arity, span), alias) in others.iter().zip(&aliases) {
                    out.push(
                        Diagnostic::warning(
                            "keyword-as-relation",
                            span,
                            format!(
                                "`{shown}` takes {}, but has {} here: read as a relation \
                                 `{alias}` of its own, not as the keyword",
                                arguments(k.arity),
                                arguments(arity)
                            ),
                        )
                        .with_label(format!("not `{}`", k.form))
                        .with_note(format!(
                            "the game reads `{shown}` with {} only, as ggp-base does; \
                             written with {} it is an ordinary relation",
                            arguments(k.arity),
                            arguments(arity)
                        ))
                        .with_note(ALLOWED_IN_PUBLISHED_GAMES),
                    );
                }
            }
            None => {
                let counts: Vec<String> = uses.iter().map(|u| u.0.to_string()).collect();
                let (first, (second, second_at)) = (uses[0], others[0]);
                out.push(
                    Diagnostic::warning(
                        "several-arities",
                        second_at,
                        format!(
                            "relation `{shown}` is written with {} arguments: read as {} \
                             relations, one for each ({})",
                            list(&counts),
                            uses.len(),
                            std::iter::once(shown.clone())
                                .chain(aliases.iter().cloned())
                                .map(|a| format!("`{a}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                    .with_label(format!("{} here", arguments(second)))
                    .with_secondary(
                        first.1,
                        format!("first written with {}", arguments(first.0)),
                    )
                    .with_note(
                        "GDL gives a name one arity; ggp-base matches a literal only with the \
                         facts and rules of its arity, so each arity is a relation of its own",
                    )
                    .with_note(ALLOWED_IN_PUBLISHED_GAMES),
                );
            }
        }
    }
    if !renamed.is_empty() {
        for rule in &mut d.rules {
            for_each_sentence_mut(rule, &mut |s| {
                if let Some(&alias) = renamed.get(&(s.name, s.args.len())) {
                    s.name = alias;
                }
            });
        }
    }
    out
}

/// Drops the facts with a variable whose relation no rule body reads and
/// the game does not read either (any but `base` and `input`, which tools
/// list, and the keywords of play).
fn drop_unread_unsafe_facts(d: &mut Description) -> Vec<Diagnostic> {
    let mut read: FxHashSet<Symbol> = FxHashSet::default();
    for rule in &d.rules {
        for_each_sentence(rule, &mut |s, head| {
            if !head {
                read.insert(s.name);
            }
        });
    }
    let unsafe_fact = |r: &Rule| r.body.is_empty() && !r.head.is_ground();
    let unsafe_rule = |r: &Rule| !r.body.is_empty() && !is_safe(r);
    let unread = |r: &Rule| {
        (unsafe_fact(r) || unsafe_rule(r))
            && !read.contains(&r.head.name)
            && keyword_named(d.symbols.name(r.head.name)).is_none()
            && !keeps_its_arity(d.symbols.name(r.head.name))
            // A misspelt rule arrow, `(<- head body)`, is a mistake to tell.
            && closest(d.symbols.name(r.head.name), ["<="]).is_none()
    };
    // `base` and `input` list facts and moves for tools, and play never
    // reads them: one with a fact that has a variable is no list, and all
    // of it is dropped (a `base` short of facts would mislead grounding).
    let declarations: Vec<Symbol> = ["base", "input"]
        .iter()
        .filter_map(|k| d.symbols.get(k))
        .filter(|k| !read.contains(k))
        .filter(|&k| d.rules.iter().any(|r| r.head.name == k && unsafe_fact(r)))
        .collect();
    let dropped: Vec<usize> = (0..d.rules.len())
        .filter(|&i| unread(&d.rules[i]) || declarations.contains(&d.rules[i].head.name))
        .collect();
    let mut out = Vec::new();
    // One warning per relation, at its first dropped fact.
    let mut warned: FxHashMap<Symbol, usize> = FxHashMap::default();
    for &i in &dropped {
        let head = &d.rules[i].head;
        let fact = unsafe_fact(&d.rules[i]);
        if !fact && !unsafe_rule(&d.rules[i]) {
            continue; // a safe rule of a declaration dropped whole
        }
        if let Some(&w) = warned.get(&head.name) {
            let n: &mut Diagnostic = &mut out[w];
            n.secondary.push((head.span, "dropped too".to_string()));
            continue;
        }
        let (v, at) = match fact {
            true => {
                let mut var: Option<(Symbol, Span)> = None;
                head.for_each_var(&mut |v, at| {
                    var.get_or_insert((v, at));
                });
                var.expect("a fact that is not ground has a variable")
            }
            false => unbound_variables(&d.rules[i])[0],
        };
        let shown = d.symbols.spelling(head.name);
        warned.insert(head.name, out.len());
        let (what, why) = if declarations.contains(&head.name) {
            (
                format!("every rule of `{shown}` is dropped"),
                format!(
                    "`{shown}` lists what a game may hold or play for tools, and play never \
                     reads it; with a variable in a fact it is no list, so the game lists \
                     no `{shown}`"
                ),
            )
        } else {
            (
                "it is dropped".to_string(),
                format!(
                    "no rule body uses `{shown}` and the game does not read it, so the {} \
                     changes no game; ggp-base keeps it unused",
                    if fact { "fact" } else { "rule" }
                ),
            )
        };
        let (code, sentence) = match fact {
            true => (
                "unsafe-fact-dropped",
                format!("the fact `{}`", d.show_sentence(head)),
            ),
            false => ("unsafe-rule-dropped", format!("a rule of `{shown}`")),
        };
        let must = match fact {
            true => "a fact must be ground",
            false => "no positive literal of its body binds it",
        };
        out.push(
            Diagnostic::warning(
                code,
                at,
                format!(
                    "{sentence} contains the variable `{}`, but {must}: no rule reads \
                     `{shown}`, so {what}",
                    d.symbols.spelling(v)
                ),
            )
            .with_label(format!("`{}` has no value here", d.symbols.spelling(v)))
            .with_note(why)
            .with_note(ALLOWED_IN_PUBLISHED_GAMES),
        );
    }
    let mut i = 0;
    d.rules.retain(|_| {
        i += 1;
        dropped.binary_search(&(i - 1)).is_err()
    });
    out
}

/// The variables of a rule that no positive literal of its body binds, each
/// once at its first place (the head's, then the body's): a variable is
/// bound by a sentence outside `not` and `distinct`, and by an `or` only
/// where every one of its literals binds it.
fn unbound_variables(rule: &Rule) -> Vec<(Symbol, Span)> {
    fn bound(l: &Literal) -> FxHashSet<Symbol> {
        match l {
            Literal::Pos(s) => {
                let mut vars = FxHashSet::default();
                s.for_each_var(&mut |v, _| {
                    vars.insert(v);
                });
                vars
            }
            Literal::Not(..) | Literal::Distinct(..) => FxHashSet::default(),
            Literal::Or(ls, _) => {
                let mut each = ls.iter().map(bound);
                let first = each.next().unwrap_or_default();
                each.fold(first, |all, b| &all & &b)
            }
        }
    }
    let bound: FxHashSet<Symbol> = rule.body.iter().flat_map(bound).collect();
    let mut unbound: Vec<(Symbol, Span)> = Vec::new();
    let mut note = |v: Symbol, at: Span| {
        if !bound.contains(&v) && unbound.iter().all(|&(u, _)| u != v) {
            unbound.push((v, at));
        }
    };
    rule.head.for_each_var(&mut note);
    for l in &rule.body {
        l.for_each_var(&mut note);
    }
    unbound
}

/// Whether every variable of a rule is bound by a positive literal of its
/// body (see [`unbound_variables`]).
fn is_safe(rule: &Rule) -> bool {
    unbound_variables(rule).is_empty()
}

/// A name no symbol of `d` has yet, made from `name` (primes added until it
/// is new), and its symbol.
fn fresh(d: &mut Description, mut name: String) -> (String, Symbol) {
    while d.symbols.get(&name).is_some() {
        name.push('\'');
    }
    let symbol = d.symbols.intern(&name);
    (name, symbol)
}

/// The variables of the positive literals of a clause's body.
fn bound_by_body(c: &Clause) -> FxHashSet<Symbol> {
    let mut bound = FxHashSet::default();
    for l in &c.body {
        if let NLit::Pos(s) = l {
            s.for_each_var(&mut |v, _| {
                bound.insert(v);
            });
        }
    }
    bound
}

/// The variables of a clause's head that no positive literal of its body
/// binds, each once, where first written.
fn unbound_in_head(c: &Clause) -> Vec<(Symbol, Span)> {
    let bound = bound_by_body(c);
    let mut out: Vec<(Symbol, Span)> = Vec::new();
    c.head.for_each_var(&mut |v, at| {
        if !bound.contains(&v) && !out.iter().any(|&(w, _)| w == v) {
            out.push((v, at));
        }
    });
    out
}

/// The reading `caller-bound` (see the module's comment) on clauses in
/// normal form: each relation (not a keyword) whose rules leave a head
/// variable unbound is derived for the questions its uses ask, where
/// every use binds those places (where the uses ask it in several ways,
/// through one copy of the relation for each; failing that, once the uses
/// that leave a place to a variable read nowhere else ask a copy without
/// it); a warning for each rule and variable so read. The others are left
/// as they are, for the check to refuse.
pub(crate) fn bind_by_callers(
    d: &mut Description,
    mut clauses: Vec<Clause>,
) -> (Vec<Clause>, Vec<Diagnostic>) {
    // A relation some rule asks (a fact with a variable is another
    // matter: see `drop_unread_unsafe_facts`; an unused relation is
    // asked nothing).
    let asked: FxHashSet<Symbol> = (clauses.iter().flat_map(|c| &c.body))
        .filter_map(|l| match l {
            NLit::Pos(s) | NLit::Neg(s) => Some(s.name),
            NLit::Distinct(..) | NLit::Same(..) => None,
        })
        .collect();
    // Facts with a variable (`unsafe-fact-caller-bound`) and rules whose
    // body is only `distinct` and `not` are among them: the demand
    // relation binds what their bodies do not.
    let mut relations: Vec<Symbol> = Vec::new();
    for c in clauses.iter().filter(|c| !unbound_in_head(c).is_empty()) {
        let name = c.head.name;
        let keyword = keyword_named(d.symbols.name(name)).is_some();
        if !keyword && asked.contains(&name) && !relations.contains(&name) {
            relations.push(name);
        }
    }
    // The rules as written, whose head variables the warnings point at
    // (a relation demanded along with an earlier one has its rules
    // already restricted to their questions).
    let written = clauses.clone();
    let mut out = Vec::new();
    let mut warned: FxHashSet<Symbol> = FxHashSet::default();
    for r in relations {
        if warned.contains(&r) {
            continue;
        }
        // One demand relation for every question asked of `r` when that
        // binds its rules' heads; else one copy of `r` for each way it is
        // asked, each with its own demand relation; else the same once
        // the uses that leave a place to some value ask a copy without it.
        let (demanded, reading, read) = match demand_either(&clauses, r, &mut d.symbols) {
            Some((demanded, reading)) => (demanded, reading, vec![r]),
            None => match some_value(&clauses, r, &mut d.symbols) {
                Some((demanded, read)) => (demanded, Reading::SomeValue, read),
                None => continue,
            },
        };
        for &q in &read {
            for c in written.iter().filter(|c| c.head.name == q) {
                let unbound = unbound_in_head(c);
                if c.body.is_empty() && !unbound.is_empty() {
                    out.push(fact_caller_bound(d, c, &unbound, reading));
                    continue;
                }
                for &(v, at) in &unbound {
                    out.push(caller_bound(d, c, v, at, reading));
                }
            }
            warned.insert(q);
        }
        clauses = demanded;
    }
    (clauses, out)
}

/// How the questions asked of a relation bind its rules' heads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// Every use asks it with the places bound (`rewrite::demand::demand`).
    Single,
    /// Its uses ask it in several ways, each binding the places
    /// (`rewrite::demand::demand_adorned`).
    Adorned,
    /// As either, once the uses that leave a place to a variable read
    /// nowhere else ask a copy without the place
    /// (`rewrite::some_value`).
    SomeValue,
}

/// Whether some relation of `names` still has a rule whose body leaves a
/// head variable unbound.
fn unsafe_among(clauses: &[Clause], names: &[Symbol]) -> bool {
    (clauses.iter())
        .filter(|c| names.contains(&c.head.name))
        .any(|c| !unbound_in_head(c).is_empty())
}

/// `r` derived for the questions its uses ask, in one way or through one
/// copy for each way they ask it, where that binds its rules' heads: the
/// clauses and the reading, or `None`.
fn demand_either(
    clauses: &[Clause],
    r: Symbol,
    symbols: &mut Symbols,
) -> Option<(Vec<Clause>, Reading)> {
    use crate::rewrite::demand::{demand, demand_adorned};
    if let Some(demanded) = demand(clauses, r, symbols).filter(|c| !unsafe_among(c, &[r])) {
        return Some((demanded, Reading::Single));
    }
    let (demanded, _) =
        demand_adorned(clauses, r, symbols).filter(|(c, copies)| !unsafe_among(c, copies))?;
    Some((demanded, Reading::Adorned))
}

/// `r` derived for the questions its uses ask once each use that leaves
/// a place to a variable read nowhere else asks a copy without that place
/// (`rewrite::some_value`); then `r`, the relations copied and the copies
/// whose rules still leave a head variable unbound are each derived as
/// [`demand_either`] derives them. The clauses and the relations as
/// written whose rules are read so (`r` and those copied), or `None` when
/// some rule is still left with a head variable unbound.
fn some_value(
    written: &[Clause],
    r: Symbol,
    symbols: &mut Symbols,
) -> Option<(Vec<Clause>, Vec<Symbol>)> {
    let (mut clauses, copies) =
        crate::rewrite::some_value::project_singletons(written, r, symbols)?;
    let mut read = vec![r];
    for &(_, q) in &copies {
        if !read.contains(&q) {
            read.push(q);
        }
    }
    for &q in read.iter().chain(copies.iter().map(|(copy, _)| copy)) {
        if !unsafe_among(&clauses, &[q]) {
            continue;
        }
        let (demanded, _) = demand_either(&clauses, q, symbols)?;
        clauses = demanded;
    }
    Some((clauses, read))
}

/// What the uses of `relation` ask of the place of `name`, as `reading`
/// says, and how gdl derives the relation for them: two phrases of the
/// warnings `caller-bound` and `unsafe-fact-caller-bound`.
fn asking(name: &str, relation: &str, reading: Reading) -> (String, String) {
    match reading {
        Reading::Adorned => (
            format!("its uses ask it in several ways, and each binds `{name}`"),
            format!(
                "deriving `{relation}` apart for each way its uses ask it, only for their \
                 questions"
            ),
        ),
        Reading::Single => (
            format!("every use of `{relation}` binds this place"),
            format!("deriving `{relation}` only for them"),
        ),
        Reading::SomeValue => (
            format!(
                "the uses that leave this place to a variable they never read again ask \
                 for \"some value\" there, and the others bind `{name}`"
            ),
            format!(
                "reading such a use as holding when some value fits (a copy of \
                 `{relation}` without the place) and deriving `{relation}` only for the \
                 questions that bind it"
            ),
        ),
    }
}

/// The literals of a clause that ggp-base's prover drops: each `distinct`
/// and `not` with a variable that no positive literal of the body binds
/// (its `DistinctAndNotMover` moves such a literal after the positive
/// literals that bind its variables, and where none do, leaves it out).
/// A head variable that only the question binds is one.
fn dropped_by_the_reference(c: &Clause) -> Vec<Span> {
    let bound = bound_by_body(c);
    let mut out = Vec::new();
    for l in &c.body {
        let mut free = false;
        let mut note = |v: Symbol, _| free |= !bound.contains(&v);
        let at = match l {
            NLit::Pos(_) => continue,
            NLit::Neg(s) => {
                s.for_each_var(&mut note);
                s.span
            }
            NLit::Distinct(a, b, at) | NLit::Same(a, b, at) => {
                a.for_each_var(&mut note);
                b.for_each_var(&mut note);
                *at
            }
        };
        if free {
            out.push(at);
        }
    }
    out
}

/// The warning `caller-bound` for the head variable `v` at `at` of the
/// clause `c`, whose relation's uses ask it as `reading` says; with the
/// literals of its body that ggp-base drops, if any.
fn caller_bound(d: &Description, c: &Clause, v: Symbol, at: Span, reading: Reading) -> Diagnostic {
    let (name, relation) = (d.symbols.spelling(v), d.symbols.spelling(c.head.name));
    let (uses, derived) = asking(name, relation, reading);
    let mut out = Diagnostic::warning(
        "caller-bound",
        at,
        format!(
            "variable `{name}` of the head gets its values from the questions asked of \
             `{relation}`: {uses}"
        ),
    )
    .with_label(format!("no literal of the body binds `{name}`"))
    .with_note(format!(
        "GDL wants every variable of a rule bound by a positive literal of its body; \
         ggp-base's prover reads the rule top-down, for the questions its uses ask, and \
         so does gdl, {derived}"
    ));
    let dropped = dropped_by_the_reference(c);
    if !dropped.is_empty() {
        for &l in &dropped {
            out = out.with_secondary(l, "ggp-base leaves this out");
        }
        out = out.with_note(
            "gdl reads this `distinct` or `not` with the values the question gives; \
             ggp-base's prover leaves out of a rule each `distinct` and `not` whose \
             variables no positive literal of its body binds, and answers as if it were \
             not written",
        );
    }
    out.with_note(ALLOWED_IN_PUBLISHED_GAMES)
}

/// The warning `unsafe-fact-caller-bound` for the fact `c`, whose variables
/// are `unbound` (each once, where first written) and whose relation's
/// uses ask it as `reading` says.
fn fact_caller_bound(
    d: &Description,
    c: &Clause,
    unbound: &[(Symbol, Span)],
    reading: Reading,
) -> Diagnostic {
    let relation = d.symbols.spelling(c.head.name);
    let names: Vec<String> = (unbound.iter())
        .map(|&(v, _)| format!("`{}`", d.symbols.spelling(v)))
        .collect();
    let (v0, at0) = unbound[0];
    let (_, derived) = asking(d.symbols.spelling(v0), relation, reading);
    let mut out = Diagnostic::warning(
        "unsafe-fact-caller-bound",
        at0,
        format!(
            "the fact `{}` contains the variable{} {}, but a fact must be ground: it holds \
             for the values that the questions asked of `{relation}` give",
            d.show_sentence(&c.head),
            if unbound.len() > 1 { "s" } else { "" },
            names.join(", ")
        ),
    )
    .with_label(format!(
        "`{}` gets its value from the question",
        d.symbols.spelling(v0)
    ));
    for &(v, at) in &unbound[1..] {
        out = out.with_secondary(at, format!("`{}` too", d.symbols.spelling(v)));
    }
    out.with_note(format!(
        "GDL wants facts ground; ggp-base's prover matches each question asked of \
         `{relation}` with the fact, which gives its variables the question's values, as \
         for a rule whose body binds nothing, and so does gdl, {derived}"
    ))
    .with_note(ALLOWED_IN_PUBLISHED_GAMES)
}

/// The readings `unbound-role` and `negated-unbound` on clauses in normal
/// form (see the module's comment): the clauses to check and plan, and a
/// warning for each rule and variable so read.
pub(crate) fn bind_loosely(
    d: &mut Description,
    mut clauses: Vec<Clause>,
) -> (Vec<Clause>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let mut warned: FxHashSet<(usize, Symbol)> = FxHashSet::default();
    let role = d.symbols.get("role");
    let mut helpers: Vec<Clause> = Vec::new();
    // The helper made for each negated sentence, by its text and the
    // variables it keeps, so that one is made once.
    let mut made: FxHashMap<String, Symbol> = FxHashMap::default();
    for c in &mut clauses {
        // unbound-role
        let head = d.symbols.name(c.head.name);
        if let (Some(role), "legal" | "goal", Some(Term::Var(v, at))) =
            (role, head, c.head.args.first())
        {
            let (v, at) = (*v, *at);
            if !bound_by_body(c).contains(&v) {
                c.body.insert(
                    0,
                    NLit::Pos(Sentence {
                        name: role,
                        name_span: at,
                        args: vec![Term::Var(v, at)],
                        span: at,
                    }),
                );
                if warned.insert((c.rule, v)) {
                    out.push(unbound_role(d, v, at, c.head.name));
                }
            }
        }
        // negated-unbound
        let mut bound = bound_by_body(c);
        c.head.for_each_var(&mut |v, _| {
            bound.insert(v);
        });
        for lit in &mut c.body {
            let NLit::Neg(s) = &*lit else { continue };
            let mut local: Vec<(Symbol, Span)> = Vec::new();
            let mut kept: Vec<(Symbol, Span)> = Vec::new();
            s.for_each_var(&mut |v, at| {
                let list = if bound.contains(&v) {
                    &mut kept
                } else {
                    &mut local
                };
                if !list.iter().any(|&(w, _)| w == v) {
                    list.push((v, at));
                }
            });
            if local.is_empty() {
                continue;
            }
            let s = s.clone();
            let mut key = d.show_sentence(&s).to_string();
            for (v, _) in &kept {
                key.push(' ');
                key.push_str(d.symbols.name(*v));
            }
            let helper = match made.get(&key) {
                Some(&h) => h,
                None => {
                    let base = format!("some~{}", d.symbols.spelling(s.name));
                    let (_, h) = fresh(d, base);
                    let args: Vec<Term> = kept.iter().map(|&(v, at)| Term::Var(v, at)).collect();
                    helpers.push(Clause {
                        head: Sentence {
                            name: h,
                            name_span: s.name_span,
                            args,
                            span: s.span,
                        },
                        body: vec![NLit::Pos(s.clone())],
                        rule: c.rule,
                        span: c.span,
                    });
                    made.insert(key, h);
                    h
                }
            };
            *lit = NLit::Neg(Sentence {
                name: helper,
                name_span: s.name_span,
                args: kept.iter().map(|&(v, at)| Term::Var(v, at)).collect(),
                span: s.span,
            });
            for (v, at) in local {
                if !warned.insert((c.rule, v)) {
                    continue;
                }
                let name = d.symbols.spelling(v);
                out.push(
                    Diagnostic::warning(
                        "negated-unbound",
                        at,
                        format!(
                            "variable `{name}` occurs only under `not`: `{}` is read as \
                             \"no value of `{name}` makes it hold\"",
                            d.show_sentence(&s)
                        ),
                    )
                    .with_label(format!("no positive literal binds `{name}`"))
                    .with_note(
                        "GDL wants every variable of a rule bound by a positive literal; \
                         gdl reads the `not` with the variable free, so it holds when no \
                         value of it makes the literal true (ggp-base's prover leaves such \
                         a `not` out of the rule, and answers as if it were not written)",
                    )
                    .with_note(ALLOWED_IN_PUBLISHED_GAMES),
                );
            }
        }
    }
    clauses.extend(helpers);
    (clauses, out)
}
