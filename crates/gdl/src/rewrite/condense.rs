//! Condensation: a rule whose body joins groups of conditions that share
//! only head variables is split, each group that has variables of its own
//! becoming a relation of its own, so that grounding instantiates the
//! groups one by one instead of their product (what ggp-base's and
//! Sancho's propnet builders do, "condensation isolation").
//!
//! skirmish's frame rule keeps a piece where no move leaves or enters its
//! cell:
//!
//! ```text
//! next(location x y p) :- true(location x y p), role(pl),
//!     does(pl, move x1 y1 x2 y2), distinctCell(x y x1 y1), distinctCell(x y x2 y2).
//! ```
//!
//! Grounded as written it has one instance per piece on a cell and move,
//! 2.2 million. The conditions on the move share with the rest of the
//! rule only the head variables `x y`, so the rule becomes
//!
//! ```text
//! next(location x y p) :- true(location x y p), next.1(x y).
//! next.1(x y) :- role(pl), does(pl, move x1 y1 x2 y2),
//!     distinctCell(x y x1 y1), distinctCell(x y x2 y2).
//! ```
//!
//! one instance per cell and move plus one per piece on a cell. The model
//! is the same on the relations of the rules as written: the new relation
//! holds exactly where its group of conditions does, for some values of
//! the group's own variables.
//!
//! Groups are the sets of conditions linked by variables not in the head.
//! A group is split off only when it has a variable of its own, reads the
//! state or the moves (a group of static conditions costs nothing to
//! ground: grounding decides them), is not the whole body, and binds each
//! of its variables in a positive condition of its own (a variable that
//! only the rest of the rule binds would leave the new rule unsafe).

use crate::analysis::graph::DepGraph;
use crate::syntax::ast::{Sentence, Term};
use crate::syntax::normal::{Clause, NLit};
use crate::syntax::symbol::{Symbol, Symbols};
use rustc_hash::FxHashSet;

/// The clauses with every rule of the state or moves condensed (see the
/// module's documentation), or `None` when no rule has a group to split
/// off. New relation names are interned into `symbols`.
pub fn condense(clauses: &[Clause], symbols: &mut Symbols) -> Option<Vec<Clause>> {
    condense_with(clauses, symbols, false)
}

/// [`condense`], and then each rule's chains of conditions cut where a
/// prefix of its body has variables of its own (see `chain`): `None` when
/// no chain is cut. Loading grounds these rules where the condensed ones
/// do not ground, never before: a prefix is joined without the conditions
/// after it, which may have filtered it.
pub fn condense_chains(clauses: &[Clause], symbols: &mut Symbols) -> Option<Vec<Clause>> {
    let mut probe = symbols.clone();
    let plain = condense(clauses, &mut probe).map_or(clauses.len(), |c| c.len());
    let out = condense_with(clauses, symbols, true)?;
    (out.len() > plain).then_some(out)
}

/// The clauses condensed, chains cut too with `chains`.
fn condense_with(clauses: &[Clause], symbols: &mut Symbols, chains: bool) -> Option<Vec<Clause>> {
    let changing = of_state_or_moves(clauses, symbols);
    let dynamic = |name: Symbol| changing.contains(&name);
    let mut out = Vec::with_capacity(clauses.len());
    let mut any = false;
    for c in clauses {
        if !dynamic(c.head.name) || c.body.len() < 2 {
            out.push(c.clone());
            continue;
        }
        let (clause, mut parts) = split(c, &dynamic, symbols);
        let clause = match chains {
            true => chain(clause, &dynamic, symbols, &mut parts),
            false => clause,
        };
        any |= !parts.is_empty();
        out.push(clause);
        out.extend(parts);
    }
    any.then_some(out)
}

/// The relations of the state or the moves: `true`, `does`, and those
/// whose rules read them, directly or through other relations.
pub(super) fn of_state_or_moves(clauses: &[Clause], symbols: &Symbols) -> FxHashSet<Symbol> {
    let mut graph = DepGraph::new(clauses);
    let (changing, reach) = graph.depends_on_named(&["true", "does"], symbols);
    (0..reach.len())
        .filter(|&i| changing.contains(&i) || reach[i].iter().any(|&d| d))
        .map(|i| graph.name(i))
        .collect()
}

/// The clause with its groups split off, and the clauses of the new
/// relations (none when nothing is split off).
fn split(
    c: &Clause,
    dynamic: &impl Fn(Symbol) -> bool,
    symbols: &mut Symbols,
) -> (Clause, Vec<Clause>) {
    let mut head_vars = Vec::new();
    for t in &c.head.args {
        variables(t, &mut head_vars);
    }
    let head_vars: FxHashSet<Symbol> = head_vars.into_iter().collect();
    let lit_vars: Vec<Vec<Symbol>> = c.body.iter().map(literal_variables).collect();
    // Union-find over the conditions, linked by variables not in the head.
    let n = c.body.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut first_with: rustc_hash::FxHashMap<Symbol, usize> = Default::default();
    for (i, vars) in lit_vars.iter().enumerate() {
        for v in vars.iter().filter(|v| !head_vars.contains(v)) {
            match first_with.get(v) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a] = b;
                }
                None => {
                    first_with.insert(*v, i);
                }
            }
        }
    }
    let roots: Vec<usize> = (0..n).map(|i| find(&mut parent, i)).collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        if roots[i] == i {
            groups.push((0..n).filter(|&j| roots[j] == i).collect());
        }
    }
    let mut body: Vec<Option<NLit>> = c.body.iter().cloned().map(Some).collect();
    let mut parts = Vec::new();
    for group in groups {
        if group.len() == n {
            break;
        }
        let own = group
            .iter()
            .any(|&i| lit_vars[i].iter().any(|v| !head_vars.contains(v)));
        let reads_dynamic = group
            .iter()
            .any(|&i| matches!(&c.body[i], NLit::Pos(s) if dynamic(s.name)));
        if !own || !reads_dynamic {
            continue;
        }
        let mut bound: FxHashSet<Symbol> = FxHashSet::default();
        for &i in &group {
            if matches!(c.body[i], NLit::Pos(_)) {
                bound.extend(lit_vars[i].iter().copied());
            }
        }
        if !group
            .iter()
            .all(|&i| lit_vars[i].iter().all(|v| bound.contains(v)))
        {
            continue;
        }
        // The head variables the group reads, in order of first use.
        let mut shared: Vec<Symbol> = Vec::new();
        for &i in &group {
            for v in &lit_vars[i] {
                if head_vars.contains(v) && !shared.contains(v) {
                    shared.push(*v);
                }
            }
        }
        let name = fresh_name(symbols, c.head.name);
        let span = match &c.body[group[0]] {
            NLit::Pos(s) | NLit::Neg(s) => s.span,
            NLit::Distinct(_, _, span) | NLit::Same(_, _, span) => *span,
        };
        let args: Vec<Term> = shared.iter().map(|&v| Term::Var(v, span)).collect();
        let sentence = Sentence {
            name,
            name_span: span,
            args,
            span,
        };
        parts.push(Clause {
            head: sentence.clone(),
            body: group.iter().map(|&i| c.body[i].clone()).collect(),
            rule: c.rule,
            span: c.span,
        });
        body[group[0]] = Some(NLit::Pos(sentence));
        for &i in &group[1..] {
            body[i] = None;
        }
    }
    let clause = Clause {
        head: c.head.clone(),
        body: body.into_iter().flatten().collect(),
        rule: c.rule,
        span: c.span,
    };
    (clause, parts)
}

/// The clause with each prefix of its body that joins two or more
/// conditions of the state or the moves and has variables of its own
/// (used neither by the rest of the body nor by the head) made a relation
/// of the variables it shares with the rest, from the left, again and
/// again: the parts made are added to `parts`.
///
/// gt_two_thirds_6p sums six guesses in one rule,
///
/// ```text
/// total(t) :- true(guessed p1 n1), true(guessed p2 n2), sum(n1 n2 s1),
///     true(guessed p3 n3), sum(s1 n3 s2), ..., sum(s4 n6 t).
/// ```
///
/// which ground as written has an instance per six guesses (101^6). The
/// first three conditions share only `s1` with the rest, so
///
/// ```text
/// total.1(s1) :- true(guessed p1 n1), true(guessed p2 n2), sum(n1 n2 s1).
/// total(t) :- total.1(s1), true(guessed p3 n3), sum(s1 n3 s2), ...
/// ```
///
/// and so on down the chain: an instance per pair of a partial sum and a
/// guess. The model is the same on the relations as written (the new
/// relation holds exactly where its prefix does, for some values of the
/// prefix's own variables), and the rest of the rule stays safe: a
/// variable it reads that the prefix binds is shared. A prefix must bind
/// each of its variables in a positive condition of its own.
fn chain(
    mut c: Clause,
    dynamic: &impl Fn(Symbol) -> bool,
    symbols: &mut Symbols,
    parts: &mut Vec<Clause>,
) -> Clause {
    let mut head_vars = Vec::new();
    for t in &c.head.args {
        variables(t, &mut head_vars);
    }
    // The relation of the prefix cut last, a relation of the state or the
    // moves too.
    let mut cut: Option<Symbol> = None;
    'split: loop {
        let n = c.body.len();
        let lit_vars: Vec<Vec<Symbol>> = c.body.iter().map(literal_variables).collect();
        let mut bound: Vec<Symbol> = Vec::new();
        let mut used: Vec<Symbol> = Vec::new();
        let mut joined = 0;
        for k in 1..n {
            let i = k - 1;
            if let NLit::Pos(s) = &c.body[i] {
                bound.extend(lit_vars[i].iter().copied());
                joined += usize::from(dynamic(s.name) || cut == Some(s.name));
            }
            used.extend(lit_vars[i].iter().copied());
            if joined < 2 || !used.iter().all(|v| bound.contains(v)) {
                continue;
            }
            // The variables the rest of the rule reads.
            let rest: FxHashSet<Symbol> = (lit_vars[k..].iter().flatten())
                .chain(&head_vars)
                .copied()
                .collect();
            if used.iter().all(|v| rest.contains(v)) {
                continue;
            }
            let mut shared: Vec<Symbol> = Vec::new();
            for v in &used {
                if rest.contains(v) && !shared.contains(v) {
                    shared.push(*v);
                }
            }
            let name = fresh_name(symbols, c.head.name);
            let span = match &c.body[0] {
                NLit::Pos(s) | NLit::Neg(s) => s.span,
                NLit::Distinct(_, _, span) | NLit::Same(_, _, span) => *span,
            };
            let sentence = Sentence {
                name,
                name_span: span,
                args: shared.iter().map(|&v| Term::Var(v, span)).collect(),
                span,
            };
            let prefix: Vec<NLit> = c.body.drain(..k).collect();
            parts.push(Clause {
                head: sentence.clone(),
                body: prefix,
                rule: c.rule,
                span: c.span,
            });
            c.body.insert(0, NLit::Pos(sentence));
            cut = Some(name);
            continue 'split;
        }
        return c;
    }
}

/// The variables of a condition, each once, in order.
pub(super) fn literal_variables(l: &NLit) -> Vec<Symbol> {
    let mut out = Vec::new();
    match l {
        NLit::Pos(s) | NLit::Neg(s) => s.args.iter().for_each(|t| variables(t, &mut out)),
        NLit::Distinct(a, b, _) | NLit::Same(a, b, _) => {
            variables(a, &mut out);
            variables(b, &mut out);
        }
    }
    out
}

/// Adds the variables of `t` not yet in `out`.
pub(super) fn variables(t: &Term, out: &mut Vec<Symbol>) {
    match t {
        Term::Atom(..) => {}
        Term::Var(v, _) => {
            if !out.contains(v) {
                out.push(*v);
            }
        }
        Term::Func(_, args, _) => args.iter().for_each(|a| variables(a, out)),
    }
}

/// A name no rule uses for a part of a rule of `head`: `head.1`, `head.2`,
/// ...
pub(super) fn fresh_name(symbols: &mut Symbols, head: Symbol) -> Symbol {
    let base = symbols.name(head).to_string();
    let mut k = 1;
    loop {
        let name = format!("{base}.{k}");
        if symbols.get(&name).is_none() {
            return symbols.intern(&name);
        }
        k += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::term_text as term;
    use crate::source::SourceFile;
    use crate::syntax::{kif, normal};

    /// The clauses of `rules` condensed, one a line as `head :- body`.
    fn condensed(rules: &str) -> Option<String> {
        let file = SourceFile::new("t.gdl", rules);
        let d = kif::parse(&file, 100).expect("parses");
        let clauses = normal::normalize(&d).expect("normalises");
        let mut symbols = d.symbols.clone();
        let out = condense(&clauses, &mut symbols)?;
        let text = |s: &Sentence| {
            let args: Vec<String> = s.args.iter().map(|a| term(a, &symbols)).collect();
            format!("({} {})", symbols.name(s.name), args.join(" "))
        };
        let lines: Vec<String> = (out.iter())
            .map(|c| {
                let body: Vec<String> = (c.body.iter())
                    .map(|l| match l {
                        NLit::Pos(s) => text(s),
                        NLit::Neg(s) => format!("(not {})", text(s)),
                        NLit::Distinct(a, b, _) => {
                            format!("(distinct {} {})", term(a, &symbols), term(b, &symbols))
                        }
                        NLit::Same(..) => "same".into(),
                    })
                    .collect();
                format!("{} :- {}", text(&c.head), body.join(" "))
            })
            .collect();
        Some(lines.join("\n"))
    }

    const GAME: &str = "(role r) (cell 1) (cell 2) (init (at 1 a))
        (<= (legal r (go ?x ?y)) (cell ?x) (cell ?y) (distinct ?x ?y))
        (<= terminal (true (at 2 a)))
        (goal r 100)\n";

    #[test]
    fn conditions_sharing_only_head_variables_become_a_relation() {
        let rules = format!(
            "{GAME}(apart 1 2) (apart 2 1)
            (<= (next (at ?c ?p)) (true (at ?c ?p)) (does ?r (go ?x ?y))
                (apart ?c ?x) (apart ?c ?y))"
        );
        let out = condensed(&rules).expect("condensed");
        assert!(
            out.contains("(next (at ?c ?p)) :- (true (at ?c ?p)) (next.1 ?c)"),
            "{out}"
        );
        assert!(
            out.contains("(next.1 ?c) :- (does ?r (go ?x ?y)) (apart ?c ?x) (apart ?c ?y)"),
            "{out}"
        );
    }

    #[test]
    fn a_group_whose_variable_only_the_rest_binds_is_left() {
        // `?c` reaches the group only through `distinct`: the group alone
        // would not bind it.
        let rules = format!(
            "{GAME}(<= (next (at ?c ?p)) (true (at ?c ?p)) (does ?r (go ?x ?y)) (distinct ?c ?x))"
        );
        assert_eq!(condensed(&rules), None);
    }

    /// The chains of [`condense_chains`] as text.
    fn chained(rules: &str) -> Option<String> {
        let file = SourceFile::new("t.gdl", rules);
        let d = kif::parse(&file, 100).expect("parses");
        let clauses = normal::normalize(&d).expect("normalises");
        let mut symbols = d.symbols.clone();
        let out = condense_chains(&clauses, &mut symbols)?;
        let text = |s: &Sentence| {
            let args: Vec<String> = s.args.iter().map(|a| term(a, &symbols)).collect();
            format!("({} {})", symbols.name(s.name), args.join(" "))
        };
        let lines: Vec<String> = (out.iter())
            .filter(|c| !c.body.is_empty())
            .map(|c| {
                let body: Vec<String> = (c.body.iter())
                    .map(|l| match l {
                        NLit::Pos(s) => text(s),
                        _ => "filter".into(),
                    })
                    .collect();
                format!("{} :- {}", text(&c.head), body.join(" "))
            })
            .collect();
        Some(lines.join("\n"))
    }

    #[test]
    fn a_chain_of_sums_is_cut_where_a_prefix_has_variables_of_its_own() {
        let rules = format!(
            "{GAME}(sum 1 1 2) (sum 2 1 3) (sum 1 2 3) (sum 3 1 4)
            (<= (next (at ?t a)) (true (at ?n1 a)) (true (at ?n2 a)) (sum ?n1 ?n2 ?s1)
                (true (at ?n3 a)) (sum ?s1 ?n3 ?t))"
        );
        // Plain condensation leaves the rule: one group.
        assert_eq!(condensed(&rules), None);
        let out = chained(&rules).expect("cut");
        assert!(
            out.contains("(next.1 ?s1) :- (true (at ?n1 a)) (true (at ?n2 a)) (sum ?n1 ?n2 ?s1)"),
            "{out}"
        );
        assert!(
            out.contains("(next (at ?t a)) :- (next.1 ?s1) (true (at ?n3 a)) (sum ?s1 ?n3 ?t)"),
            "{out}"
        );
    }

    #[test]
    fn static_groups_and_whole_bodies_are_left() {
        // `(cell ?z)` reads no state: grounding decides it.
        let rules = format!("{GAME}(<= (next (at ?x a)) (true (at ?x a)) (cell ?z))");
        assert_eq!(condensed(&rules), None);
        // `?c` links the whole body.
        let rules = format!("{GAME}(<= (next (at ?x a)) (true (at ?c a)) (does r (go ?c ?x)))");
        assert_eq!(condensed(&rules), None);
    }
}
