//! The evaluator against a naive one: random stratified rule sets (function
//! terms, negation, recursion, `distinct`, `or`) are evaluated by both of
//! the real engines (ground rules, and the interpreter alone) and by a
//! plain fixed-point loop written only for this test, and must give the
//! same model.
//!
//! Each random program is wrapped as a one-role game whose legal moves and
//! next state expose the derived relations: `(legal r (m3 a b))` and
//! `(next (m3 a b))` hold exactly when `(p3 a b)` does. Base facts come from
//! two places, so both phases are exercised: `b0` is static (facts in the
//! file), `b1` is read from the state (`init` facts through `true`).
//!
//! Programs are decoded from a proptest "genome" (vectors of small numbers)
//! into valid GDL by construction: strata of derived relations (negation
//! only of lower strata), safety (every variable bound by a positive
//! literal), the recursion restriction, and function terms built in heads
//! only by rules without a recursive literal (so terms stay small).

use gdl::{Game, Limits};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::BTreeSet;

/// Random programs checked per run. Release mode, 2 cores: about 2 s in
/// all (each case loads its game twice and runs the naive loop; 1.2 s
/// measured on a quiet machine).
const CASES: u32 = 1000;

/// The constants of the programs.
const CONSTS: [&str; 3] = ["a", "b", "c"];
/// How many derived relations: `p0`..`p5`, two per stratum.
const DERIVED: usize = 6;
/// At most this many variables per rule (the naive loop enumerates them).
const VARS: u8 = 3;

/// A ground term: a constant or `(f t)`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Ground {
    C(u8),
    F(Box<Ground>),
}

/// A term of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pat {
    V(u8),
    C(u8),
    F(Box<Pat>),
}

/// A relation: `b0`, `b1` (base) or `p0`..`p5` (derived).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Rel {
    B(u8),
    P(u8),
}

/// A body literal.
#[derive(Clone, Debug)]
enum Lit {
    Pos(Rel, Vec<Pat>),
    Neg(Rel, Vec<Pat>),
    Distinct(Pat, Pat),
    Or(Vec<Lit>),
}

/// A rule `head :- body`.
#[derive(Clone, Debug)]
struct Rule {
    head: (u8, Vec<Pat>),
    body: Vec<Lit>,
}

/// A whole program: base facts and rules.
#[derive(Clone, Debug)]
struct Program {
    b0: Vec<Ground>,
    b1: Vec<(Ground, Ground)>,
    rules: Vec<Rule>,
}

fn arity(r: Rel) -> usize {
    match r {
        Rel::B(0) => 1,
        Rel::B(_) => 2,
        // p5 is a proposition; the others alternate 1 and 2.
        Rel::P(5) => 0,
        Rel::P(i) => 1 + (i as usize % 2),
    }
}

fn stratum(i: u8) -> u8 {
    i / 2
}

// ---- decoding a genome into a valid program ----

/// One literal's genes: a kind, a relation choice and argument choices.
type LitGene = (u8, u8, [u8; 2]);
/// One rule's genes: head relation, anchor literal, other literals, head
/// arguments.
type RuleGene = (u8, LitGene, Vec<LitGene>, [u8; 2]);

fn ground_of(g: u8) -> Ground {
    let c = Ground::C(g % 3);
    if g % 5 == 4 {
        Ground::F(Box::new(c))
    } else {
        c
    }
}

/// An argument of a literal that binds variables: a variable, a constant
/// or `(f ?x)`.
fn binding_pat(g: u8) -> Pat {
    match g % 8 {
        0..=4 => Pat::V(g / 8 % VARS),
        5 => Pat::C(g / 8 % 3),
        _ => Pat::F(Box::new(Pat::V(g / 8 % VARS))),
    }
}

/// An argument built from bound variables (or a constant); `(f ?x)` only
/// when `functions`.
fn bound_pat(g: u8, bound: &[u8], functions: bool) -> Pat {
    if bound.is_empty() || g % 4 == 3 {
        return Pat::C(g / 4 % 3);
    }
    let v = Pat::V(bound[(g / 4) as usize % bound.len()]);
    if functions && g % 4 == 2 {
        Pat::F(Box::new(v))
    } else {
        v
    }
}

fn vars_of(p: &Pat, out: &mut Vec<u8>) {
    match p {
        Pat::V(v) if !out.contains(v) => out.push(*v),
        Pat::V(_) | Pat::C(_) => {}
        Pat::F(inner) => vars_of(inner, out),
    }
}

/// A relation a literal of `p{head}` may read without recursion (and may
/// negate): a base relation or a derived one of a lower stratum.
fn lower(head: u8, g: u8) -> Rel {
    let below: Vec<Rel> = [Rel::B(0), Rel::B(1)]
        .into_iter()
        .chain(
            (0..DERIVED as u8)
                .filter(|&j| stratum(j) < stratum(head))
                .map(Rel::P),
        )
        .collect();
    below[g as usize % below.len()]
}

fn decode_rule(gene: &RuleGene) -> Rule {
    let (h, anchor, others, head_genes) = gene;
    let head = h % DERIVED as u8;
    // The anchor: a positive literal that is not recursive.
    let arel = lower(head, anchor.1);
    let anchor_args: Vec<Pat> = (0..arity(arel)).map(|k| binding_pat(anchor.2[k])).collect();
    let mut body = vec![Lit::Pos(arel, anchor_args.clone())];
    let mut bound = Vec::new();
    anchor_args.iter().for_each(|a| vars_of(a, &mut bound));
    // Recursive literals (same stratum): any variables for now.
    let mut recursive = Vec::new();
    for g in others.iter().filter(|g| g.0 % 5 == 0) {
        let j = stratum(head) * 2 + g.1 % 2;
        let rel = Rel::P(j);
        let args: Vec<Pat> = (0..arity(rel))
            .map(|k| match g.2[k] % 3 {
                2 => Pat::C(g.2[k] / 3 % 3),
                _ => Pat::V(g.2[k] / 3 % VARS),
            })
            .collect();
        recursive.push((rel, args));
    }
    let mut reachable = bound.clone();
    for (_, args) in &recursive {
        args.iter().for_each(|a| vars_of(a, &mut reachable));
    }
    // Head arguments: variables bound somewhere, `(f ?x)` only without
    // recursion.
    let head_args: Vec<Pat> = (0..arity(Rel::P(head)))
        .map(|k| bound_pat(head_genes[k], &reachable, recursive.is_empty()))
        .collect();
    let mut in_head = Vec::new();
    head_args.iter().for_each(|a| vars_of(a, &mut in_head));
    // The recursion restriction: a variable of a recursive literal occurs
    // in the head or in the anchor; others become constants.
    for (rel, args) in recursive {
        let args: Vec<Pat> = args
            .into_iter()
            .map(|a| match a {
                Pat::V(v) if !bound.contains(&v) && !in_head.contains(&v) => Pat::C(v % 3),
                a => a,
            })
            .collect();
        args.iter().for_each(|a| vars_of(a, &mut bound));
        body.push(Lit::Pos(rel, args));
    }
    // Filters over bound variables: negation of lower strata, distinct,
    // and `or` of such literals.
    let filter = |g: &LitGene, bound: &[u8]| -> Lit {
        match g.0 % 3 {
            0 => {
                let rel = lower(head, g.1);
                Lit::Neg(
                    rel,
                    (0..arity(rel))
                        .map(|k| bound_pat(g.2[k], bound, true))
                        .collect(),
                )
            }
            1 => Lit::Distinct(
                bound_pat(g.2[0], bound, true),
                bound_pat(g.2[1], bound, true),
            ),
            _ => {
                let rel = lower(head, g.1);
                Lit::Pos(
                    rel,
                    (0..arity(rel))
                        .map(|k| bound_pat(g.2[k], bound, true))
                        .collect(),
                )
            }
        }
    };
    for g in others.iter().filter(|g| g.0 % 5 != 0) {
        let lit = if g.0 % 5 == 4 {
            let second = (g.2[0], g.1.wrapping_add(1), [g.2[1], g.2[0]]);
            Lit::Or(vec![filter(g, &bound), filter(&second, &bound)])
        } else {
            filter(g, &bound)
        };
        body.push(lit);
    }
    Rule {
        head: (head, head_args),
        body,
    }
}

fn program() -> impl Strategy<Value = Program> {
    let lit = (any::<u8>(), any::<u8>(), any::<[u8; 2]>());
    let rule = (
        any::<u8>(),
        lit,
        prop::collection::vec(lit, 0..4),
        any::<[u8; 2]>(),
    );
    (
        prop::collection::vec(any::<u8>(), 0..8),
        prop::collection::vec(any::<[u8; 2]>(), 0..10),
        prop::collection::vec(rule, 1..14),
    )
        .prop_map(|(b0, b1, rules)| Program {
            b0: b0.into_iter().map(ground_of).collect(),
            b1: b1
                .into_iter()
                .map(|[x, y]| (ground_of(x), ground_of(y)))
                .collect(),
            rules: rules.iter().map(decode_rule).collect(),
        })
}

// ---- the program as GDL text ----

fn ground_text(g: &Ground) -> String {
    match g {
        Ground::C(c) => CONSTS[*c as usize].to_string(),
        Ground::F(x) => format!("(f {})", ground_text(x)),
    }
}

fn pat_text(p: &Pat) -> String {
    match p {
        Pat::V(v) => format!("?x{v}"),
        Pat::C(c) => CONSTS[*c as usize].to_string(),
        Pat::F(x) => format!("(f {})", pat_text(x)),
    }
}

fn rel_name(r: Rel) -> String {
    match r {
        Rel::B(i) => format!("b{i}"),
        Rel::P(i) => format!("p{i}"),
    }
}

fn sentence(name: &str, args: &[String]) -> String {
    if args.is_empty() {
        name.to_string()
    } else {
        format!("({name} {})", args.join(" "))
    }
}

fn lit_text(l: &Lit) -> String {
    let pats = |args: &[Pat]| args.iter().map(pat_text).collect::<Vec<_>>();
    match l {
        Lit::Pos(r, args) => sentence(&rel_name(*r), &pats(args)),
        Lit::Neg(r, args) => format!("(not {})", sentence(&rel_name(*r), &pats(args))),
        Lit::Distinct(a, b) => format!("(distinct {} {})", pat_text(a), pat_text(b)),
        Lit::Or(ls) => format!(
            "(or {})",
            ls.iter().map(lit_text).collect::<Vec<_>>().join(" ")
        ),
    }
}

fn game_text(p: &Program) -> String {
    let mut t = String::from(
        "(role r)\n(init started)\n(legal r noop)\n(<= terminal (true never))\n(goal r 0)\n\
         (<= (b1 ?x ?y) (true (b1 ?x ?y)))\n",
    );
    for g in &p.b0 {
        t += &format!("(b0 {})\n", ground_text(g));
    }
    for (x, y) in &p.b1 {
        t += &format!("(init (b1 {} {}))\n", ground_text(x), ground_text(y));
    }
    for i in 0..DERIVED {
        let vars: Vec<String> = (0..arity(Rel::P(i as u8)))
            .map(|k| format!("?y{k}"))
            .collect();
        let p = sentence(&format!("p{i}"), &vars);
        let m = sentence(&format!("m{i}"), &vars);
        t += &format!("(<= (legal r {m}) {p})\n(<= (next {m}) {p})\n");
    }
    for r in &p.rules {
        let head = sentence(
            &format!("p{}", r.head.0),
            &r.head.1.iter().map(pat_text).collect::<Vec<_>>(),
        );
        let body: Vec<String> = r.body.iter().map(lit_text).collect();
        t += &format!("(<= {head} {})\n", body.join(" "));
    }
    t
}

// ---- the naive fixed point ----

type Fact = (Rel, Vec<Ground>);

/// Subterms of every fact: the only values a variable can take in a match.
fn domain(facts: &BTreeSet<Fact>) -> Vec<Ground> {
    fn add(g: &Ground, out: &mut BTreeSet<Ground>) {
        out.insert(g.clone());
        if let Ground::F(x) = g {
            add(x, out);
        }
    }
    let mut out: BTreeSet<Ground> = (0..3).map(Ground::C).collect();
    for (_, args) in facts {
        args.iter().for_each(|a| add(a, &mut out));
    }
    out.into_iter().collect()
}

fn subst(p: &Pat, env: &[Ground]) -> Ground {
    match p {
        Pat::V(v) => env[*v as usize].clone(),
        Pat::C(c) => Ground::C(*c),
        Pat::F(x) => Ground::F(Box::new(subst(x, env))),
    }
}

fn holds(l: &Lit, env: &[Ground], facts: &BTreeSet<Fact>) -> bool {
    let fact = |r: &Rel, args: &[Pat]| (*r, args.iter().map(|a| subst(a, env)).collect());
    match l {
        Lit::Pos(r, args) => facts.contains(&fact(r, args)),
        Lit::Neg(r, args) => !facts.contains(&fact(r, args)),
        Lit::Distinct(a, b) => subst(a, env) != subst(b, env),
        Lit::Or(ls) => ls.iter().any(|l| holds(l, env, facts)),
    }
}

/// The model: base facts, then each stratum of derived relations to its
/// fixed point by trying every assignment of the rule's variables over the
/// domain (negation reads only lower strata, complete by then).
fn naive_model(p: &Program) -> BTreeSet<Fact> {
    let mut facts: BTreeSet<Fact> = BTreeSet::new();
    for g in &p.b0 {
        facts.insert((Rel::B(0), vec![g.clone()]));
    }
    for (x, y) in &p.b1 {
        facts.insert((Rel::B(1), vec![x.clone(), y.clone()]));
    }
    for s in 0..(DERIVED as u8).div_ceil(2) {
        loop {
            let dom = domain(&facts);
            let mut new = Vec::new();
            for r in p.rules.iter().filter(|r| stratum(r.head.0) == s) {
                let n = dom.len().pow(VARS as u32);
                for code in 0..n {
                    let env: Vec<Ground> = (0..VARS as u32)
                        .map(|k| dom[code / dom.len().pow(k) % dom.len()].clone())
                        .collect();
                    if r.body.iter().all(|l| holds(l, &env, &facts)) {
                        let head: Vec<Ground> = r.head.1.iter().map(|a| subst(a, &env)).collect();
                        new.push((Rel::P(r.head.0), head));
                    }
                }
            }
            let before = facts.len();
            facts.extend(new);
            if facts.len() == before {
                break;
            }
        }
    }
    facts
}

/// The derived facts as the game shows them: `(m3 a b)`, `m5`.
fn exposed(model: &BTreeSet<Fact>) -> BTreeSet<String> {
    model
        .iter()
        .filter_map(|(r, args)| match r {
            Rel::P(i) => Some(sentence(
                &format!("m{i}"),
                &args.iter().map(ground_text).collect::<Vec<_>>(),
            )),
            Rel::B(_) => None,
        })
        .collect()
}

/// What one engine says: the legal moves (less `noop`) and the next state.
fn engine_model(
    text: &str,
    limits: gdl::LoadOptions,
) -> Result<(BTreeSet<String>, BTreeSet<String>, bool), String> {
    let mut game =
        Game::from_source_with("random.gdl", text, limits).map_err(|e| e.render(false))?;
    let grounded = matches!(game.engine(), gdl::Engine::Ground { .. });
    let state = game.initial_state();
    let role = game.roles()[0];
    let moves = game.legal_moves(&state, role).map_err(|e| e.to_string())?;
    let legal: BTreeSet<String> = moves
        .iter()
        .map(|&m| game.move_text(m))
        .filter(|m| m != "noop")
        .collect();
    let noop = game.parse_move("noop").map_err(|e| e.to_string())?;
    let next = game
        .next_state(&state, &[noop])
        .map_err(|e| e.to_string())?;
    let next: BTreeSet<String> = game.state_facts(&next).into_iter().collect();
    Ok((legal, next, grounded))
}

#[test]
fn both_engines_compute_the_naive_model_of_random_stratified_programs() {
    let mut runner = TestRunner::new(Config {
        cases: CASES,
        failure_persistence: None,
        ..Config::default()
    });
    let grounded = std::cell::Cell::new(0u32);
    let nonempty = std::cell::Cell::new(0u32);
    runner
        .run(&program(), |p| {
            let text = game_text(&p);
            let expected = exposed(&naive_model(&p));
            nonempty.set(nonempty.get() + u32::from(!expected.is_empty()));
            let interpreted = gdl::LoadOptions {
                limits: Limits::default(),
                engine: gdl::EngineChoice::Interpreter,
            };
            for (name, limits) in [
                ("default", Limits::default().into()),
                ("interpreter", interpreted),
            ] {
                let (legal, next, g) = engine_model(&text, limits)
                    .map_err(|e| TestCaseError::fail(format!("{name}: {e}\n{text}")))?;
                grounded.set(grounded.get() + u32::from(g));
                prop_assert_eq!(&legal, &expected, "{} legal moves of\n{}", name, text);
                prop_assert_eq!(&next, &expected, "{} next state of\n{}", name, text);
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    // The property is only worth something if the programs derive facts and
    // the ground engine is really used.
    eprintln!(
        "{CASES} programs: {} derive facts, {} were grounded",
        nonempty.get(),
        grounded.get()
    );
    assert!(
        nonempty.get() > CASES / 2,
        "{} of {CASES} programs derive something",
        nonempty.get()
    );
    assert!(
        grounded.get() > CASES / 2,
        "{} of {CASES} programs were grounded",
        grounded.get()
    );
}
